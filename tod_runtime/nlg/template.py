"""Template NLG: one built-in template per system act, worded from the schema's slot and
intent descriptions, overridable per service by ``templates.json`` beside its schema.json.

``templates.json`` maps keys to templates with ``{slot}`` placeholders::

    {"REQUEST(city)": "Which city would you like to eat in?",
     "OFFER": "How about {restaurant_name} in {city}?",
     "NOTIFY_SUCCESS": "Your table is booked."}

A key is an act (``OFFER``) or an act and slot (``REQUEST(city)``). For each run of acts of
the same kind, the act-level template is used when every placeholder has a value among those
acts; otherwise each act uses its ``ACT(slot)`` template or the built-in one.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Mapping, Sequence
from itertools import groupby
from pathlib import Path

from tod_runtime.dialogue.models import SYSTEM_ACTS, Action
from tod_runtime.errors import ConfigError
from tod_runtime.plugins import ComponentContext
from tod_runtime.schema.models import ServiceSchema

_KEY = re.compile(r"^(?P<act>[A-Z_]+)(\((?P<slot>[a-z0-9_]*)\))?$")


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text else text


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _join(parts: Sequence[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _value(action: Action) -> str:
    values = action.values or action.canonical_values
    return values[0] if values else ""


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


class TemplateGenerator:
    def __init__(self, ctx: ComponentContext) -> None:
        self.schemas: Mapping[str, ServiceSchema] = ctx.schemas
        self.overrides: dict[str, dict[str, str]] = {}
        for service, folder in ctx.service_dirs.items():
            path = Path(folder) / "templates.json"
            if path.is_file():
                self.overrides[service] = load_templates(path, self.schemas.get(service))

    async def generate(self, service: str, actions: Sequence[Action]) -> str:
        return self.realise(service, actions)

    def realise(self, service: str, actions: Sequence[Action]) -> str:
        schema = self.schemas.get(service)
        custom = self.overrides.get(service, {})
        sentences = []
        for kind, group in groupby(actions, key=lambda a: a.act):
            run = list(group)
            values = {a.slot: _value(a) for a in run if a.slot}
            template = custom.get(kind)
            if template is not None:
                try:
                    sentences.append(template.format(**values))
                    continue
                except (KeyError, IndexError):
                    pass
            pieces = []
            for action in run:
                own = custom.get(f"{kind}({action.slot})")
                if own is not None:
                    sentences.append(own.format(**values, value=_value(action)))
                else:
                    pieces.append(action)
            if pieces:
                sentences.append(_builtin(kind, pieces, schema))
        return " ".join(s for s in sentences if s) or "How can I help you?"


def _describe(slot: str, schema: ServiceSchema | None) -> str:
    spec = schema.slot(slot) if schema else None
    return _lower_first(spec.description) if spec else slot.replace("_", " ")


def _builtin(kind: str, acts: Sequence[Action], schema: ServiceSchema | None) -> str:
    described = [(_describe(a.slot, schema), _value(a)) for a in acts]
    if kind == "REQUEST":
        return f"Could you tell me the {_join([d for d, _ in described])}?"
    if kind == "CONFIRM":
        return "Please confirm: " + _join([f"{d} is {v}" for d, v in described]) + "."
    if kind == "OFFER":
        (_, first), rest = described[0], described[1:]
        tail = " " + _upper_first(_join([f"the {d} is {v}" for d, v in rest])) + "." if rest else ""
        return f"How about {first}?{tail}"
    if kind == "INFORM":
        return _upper_first(_join([f"the {d} is {v}" for d, v in described])) + "."
    if kind == "INFORM_COUNT":
        count = _value(acts[0])
        if count == "0":
            return "Sorry, I found nothing that matches."
        return f"I found {count} option{'s' if count != '1' else ''} for you."
    if kind == "OFFER_INTENT":
        intent = schema.intent(_value(acts[0])) if schema else None
        what = _lower_first(intent.description) if intent else _value(acts[0])
        return f"Would you like to {what}?"
    if kind in ("GREETING", "FALLBACK"):
        can = [v for a in acts for v in a.values]
        lead = "Hello!" if kind == "GREETING" else "Sorry, I did not get that."
        return lead + (f" I can help you {_join(can)}." if can else "")
    return {
        "NOTIFY_SUCCESS": "Done: it is all set.",
        "NOTIFY_FAILURE": "Sorry, that did not work out.",
        "REQ_MORE": "Is there anything else I can help you with?",
        "GOODBYE": "Have a great day. Goodbye!",
    }.get(kind, "")
