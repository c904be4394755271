"""The default generator: templates mined from SGD (``tod train nlg``; see ``realise`` and
docs/nlg.md), composed wording from the schema's descriptions where no template reaches, and
a service's own overrides in ``templates.json`` beside its schema.json, used first.

``templates.json`` maps keys to templates with ``{slot}`` placeholders::

    {"REQUEST(city)": "Which city would you like to eat in?",
     "OFFER": "How about {restaurant_name} in {city}?",
     "NOTIFY_SUCCESS": "Your table is booked."}

A key is an act (``OFFER``) or an act and slot (``REQUEST(city)``). For each run of acts of
the same kind, the act-level template is used when every placeholder has a value among those
acts; otherwise each act uses its ``ACT(slot)`` template (not for a question proposing values
that the template leaves out), and the acts left go to the mined and composed wording.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Mapping, Sequence
from functools import cache
from itertools import groupby
from pathlib import Path

from tod_runtime.components import ComponentContext
from tod_runtime.dialogue.models import SYSTEM_ACTS, Action, change_asks
from tod_runtime.errors import ConfigError
from tod_runtime.nlg.booked import booked_sentence, split_booked
from tod_runtime.nlg.compose import compose_system
from tod_runtime.nlg.realise import Realiser
from tod_runtime.nlg.refusal import refusal_sentence, split_refusals
from tod_runtime.nlg.signature import fill
from tod_runtime.nlg.store import PACKAGED, TemplateSet, read_side
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.values.dates import length_after
from tod_runtime.values.normalise import slot_kind
from tod_runtime.values.times import parse_time

_KEY = re.compile(r"^(?P<act>[A-Z_]+)(\((?P<slot>[a-z0-9_]*)\))?$")
_CLOCK = re.compile(r"[0-2]\d:[0-5]\d")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _value(action: Action) -> str:
    values = action.values or action.canonical_values
    return values[0] if values else ""


def values_as_meant(actions: Sequence[Action], schema: ServiceSchema | None) -> list[Action]:
    """A clock time said without its half of the day ("7:30") whose canonical value the NLU
    settled ("19:30" for dinner) is said as the canonical one, so a confirmation says the
    time the call will take ("7:30 pm", not "7:30 am"); so is a date given as a length after
    another ("3 nights after next friday", the end of a stay: "from next friday to Monday,
    March 11th", not "to 3 nights after next friday")."""
    if schema is None:
        return list(actions)
    out = []
    for a in actions:
        meant = a.canonical_values
        if (
            a.slot
            and a.values
            and len(meant) == len(a.values)
            and _meant(schema, a.slot, a.values, meant)
        ):
            a = a.model_copy(update={"values": list(meant)})
        out.append(a)
    return out


def _meant(schema: ServiceSchema, slot: str, said: Sequence[str], meant: Sequence[str]) -> bool:
    """Whether the values ``said`` read otherwise than the canonical ones ``meant``."""
    kind = slot_kind(schema, slot)
    if kind == "time":
        clocks = all(_CLOCK.fullmatch(m) for m in meant)
        return clocks and [parse_time(v) for v in said] != list(meant)
    return (
        kind == "date"
        and all(_ISO_DATE.fullmatch(m) for m in meant)
        and any(map(length_after, said))
    )


def _drops_options(template: str, action: Action) -> bool:
    """Whether ``template`` would drop the values a question proposes ("What kind of food?"
    for a REQUEST listing the cuisines): the mined or composed wording says them."""
    return action.act == "REQUEST" and bool(action.values) and "{" not in template


def load_templates(path: Path, schema: ServiceSchema | None) -> dict[str, str]:
    """Read and check a templates.json: known acts and slots, valid placeholders."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"invalid JSON at line {exc.lineno}: {exc.msg}", file=str(path)) from None
    if not isinstance(data, dict):
        raise ConfigError("expected an object of templates", file=str(path))
    slots = set(schema.slot_map) if schema else set()
    for key, template in data.items():
        match = _KEY.match(key)
        if not match or match["act"] not in SYSTEM_ACTS:
            raise ConfigError("not a system act or ACT(slot)", file=str(path), path=key)
        if match["slot"] and schema and match["slot"] not in slots:
            raise ConfigError(f"unknown slot {match['slot']!r}", file=str(path), path=key)
        if not isinstance(template, str):
            raise ConfigError("a template must be a string", file=str(path), path=key)
        try:
            names = [f for _, f, _, _ in string.Formatter().parse(template) if f]
        except ValueError as exc:
            raise ConfigError(f"bad template: {exc}", file=str(path), path=key) from None
        unknown = [n for n in names if schema and n not in slots and n != "value"]
        if unknown:
            raise ConfigError(f"unknown placeholder {unknown[0]!r}", file=str(path), path=key)
    return {str(k): str(v) for k, v in data.items()}


CHOICES = 1
"""How many of a key's first templates (best first) are choices: by default the one chosen
for the corpus (``nlg.mine.corpus_choice``); ``[options.generator] choices = 2`` varies the
wording among the first two (tuned on SGD train; see docs/nlg.md)."""


@cache
def packaged(side: str) -> TemplateSet:
    """The template set shipped with the package (read once per process)."""
    return read_side(PACKAGED, side)


def templates_from(options: Mapping[str, object], side: str) -> TemplateSet:
    folder = options.get("templates")
    if folder is None:
        return packaged(side)
    path = Path(str(folder))
    if not (path / side).is_dir():
        raise ConfigError(f"no {side}/ folder of templates", file=str(path))
    return read_side(path, side)


class TemplateGenerator:
    """Mined templates, composed wording where they do not reach, and a service's own
    ``templates.json`` overrides first. ``[options.generator]``: ``templates = "DIR"`` (a
    folder written by ``tod train nlg``), ``choices`` (see ``CHOICES``)."""

    def __init__(self, ctx: ComponentContext) -> None:
        self.schemas: Mapping[str, ServiceSchema] = ctx.schemas
        templates = templates_from(ctx.options, "system")
        choices = int(str(ctx.options.get("choices", CHOICES)))
        self.realiser = Realiser(
            templates, compose_system, choices=choices, empty="How can I help you?"
        )
        self.overrides: dict[str, dict[str, str]] = {}
        for service, folder in ctx.service_dirs.items():
            path = Path(folder) / "templates.json"
            if path.is_file():
                self.overrides[service] = load_templates(path, self.schemas.get(service))

    async def generate(self, service: str, actions: Sequence[Action]) -> str:
        return self.realise(service, actions)

    def realise(self, service: str, actions: Sequence[Action], seed: int = 0) -> str:
        """The reply for one frame's acts; ``seed`` varies the choice among equivalent
        templates (the same acts and seed always give the same reply)."""
        schema = self.schemas.get(service)
        actions = values_as_meant(actions, schema)
        refused, actions = split_refusals(actions)
        if refused:  # the service's reason first, then the rest as usual
            said = [refusal_sentence(r, schema, self.realiser.sayer(schema)) for r in refused]
            after = self.realise(service, actions, seed) if actions else ""
            return " ".join([*said, after]).strip()
        booked, actions = split_booked(actions)
        if booked:  # what was done, with its values; then the rest (what the user asked)
            done = booked_sentence(schema, booked, self.realiser.sayer(schema))
            rest = [a for a in actions if a.act != "NOTIFY_SUCCESS"]
            return " ".join([done, self.realise(service, rest, seed) if rest else ""]).strip()
        custom = self.overrides.get(service)
        if not custom or change_asks(actions):  # one question, not one per slot
            return self.realiser.realise(service, schema, actions, seed)
        say = self.realiser.sayer(schema)
        sentences = []
        for kind, group in groupby(actions, key=lambda a: a.act):
            run = list(group)
            values = {a.slot: say(a.slot, _value(a)) for a in run if a.slot}
            template = custom.get(kind)
            text = fill(template, values) if template is not None else None
            if text is not None:
                sentences.append(text)
                continue
            rest = []
            for action in run:
                own = custom.get(f"{kind}({action.slot})")
                text = None
                if own is not None and not _drops_options(own, action):
                    value = say(action.slot, _value(action))
                    text = fill(own, {**values, "value": value})
                if text is None:
                    rest.append(action)
                else:
                    sentences.append(text)
            if rest:
                sentences.append(self.realiser.realise(service, schema, rest, seed))
        return " ".join(s for s in sentences if s) or self.realiser.empty
