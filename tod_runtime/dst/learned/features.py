"""Hashed features of one carry-over candidate: a source slot (in another frame's state, or
told by the system in another service) against a target slot of the frame that opens.

A slot enters only through what its schema says of it: the content words of its description
(general English function words dropped, crudely stemmed so "ends" meets "ending"), its value
type, whether it is categorical, whether some intent takes it as an input (required or
optional, in a transactional intent or not), and whether it is the first or the second of a
pair of slots its service describes alike (an origin and a destination, a start and an end
date: schemas list them in that order); never through its name or its service's. So
renaming every service, intent and slot leaves every feature unchanged. The candidate's
context: where the value comes from (``state`` or ``told``), how recent its frame is, whether
the frame opens or changes intent, whether its intent is transactional and takes the target;
whether the value went through a booking of its service (a successful transactional call took
it or returned it: the date of the visit booked, the address of the restaurant reserved).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from tod_runtime.learning import content_words
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.schema.roles import ValueType, slot_roles

BITS = 16


@dataclass(frozen=True)
class SlotView:
    """What the model knows of a slot: its schema, never its name."""

    words: tuple[str, ...]
    value_type: ValueType
    categorical: bool
    possible: tuple[str, ...]
    usage: str  # "req", "opt" (an input of some intent) or "out" (a result only)
    transactional: bool  # an input of a transactional intent
    pair: int = 0  # 1 or 2: first or second of a pair of slots described alike (``_pair_of``)

    def possible_value(self, value: str) -> str | None:
        """``value`` as the schema spells it among the possible values (None if not one)."""
        low = value.lower()
        return next((v for v in self.possible if v.lower() == low), None)


def slot_view(schema: ServiceSchema, slot: str) -> SlotView:
    """What the model knows of ``slot`` of ``schema``, computed once per schema object."""
    return schema.derived(f"dst.learned.slot_view.{slot}", lambda: _view(schema, slot))


def _view(schema: ServiceSchema, slot: str) -> SlotView:
    spec = schema.slot_map[slot]
    required = any(slot in i.required_slots for i in schema.intents)
    optional = any(slot in i.optional_slots for i in schema.intents)
    return SlotView(
        words=content_words(spec.description),
        value_type=slot_roles(schema)[slot].value_type,
        categorical=spec.is_categorical,
        possible=tuple(spec.possible_values),
        usage="req" if required else "opt" if optional else "out",
        transactional=any(
            i.is_transactional and (slot in i.required_slots or slot in i.optional_slots)
            for i in schema.intents
        ),
        pair=_pair_of(schema, slot),
    )


def _pair_of(schema: ServiceSchema, slot: str) -> int:
    """1 or 2 when ``slot`` is the first or second (in the schema's order) of two slots of
    its service that one intent requires both of, of one value type, neither categorical,
    whose descriptions share at least half of their content words (the origin and the
    destination of a trip, the start and the end of a stay); else 0."""
    roles = slot_roles(schema)
    spec = schema.slot_map[slot]
    if spec.is_categorical:
        return 0
    mine = set(content_words(spec.description))
    order = [s.name for s in schema.slots]
    for other in schema.slots:
        if other.name == slot or other.is_categorical:
            continue
        if roles[other.name].value_type != roles[slot].value_type:
            continue
        if not any(
            slot in i.required_slots and other.name in i.required_slots for i in schema.intents
        ):
            continue
        theirs = set(content_words(other.description))
        if 2 * len(mine & theirs) >= len(mine | theirs):
            return 1 if order.index(slot) < order.index(other.name) else 2
    return 0


@dataclass(frozen=True)
class Context:
    """The target frame's moment: it ``opens`` (else its intent changed), whether its intent
    is transactional, and how the intent takes the target slot (req, opt or no)."""

    opens: bool
    transactional: bool
    takes: str


@lru_cache(maxsize=65536)
def _pair(source: SlotView, target: SlotView) -> tuple[str, ...]:
    shared = [w for w in source.words if w in target.words]
    out = [f"x:{a}|{b}" for a in source.words for b in target.words]
    out += [f"=:{w}" for w in shared]
    out.append(f"n=:{min(len(shared), 3)}")
    out.append(f"vt:{source.value_type}>{target.value_type}")
    out.append(f"cat:{source.categorical}>{target.categorical}")
    out.append(f"use:{source.usage}>{target.usage}|{target.transactional}")
    return tuple(out)


def features(
    source: SlotView,
    target: SlotView,
    kind: str,
    rank: int,
    context: Context,
    booked: bool = False,
) -> list[str]:
    """The feature strings of one candidate (``kind``: "state" or "told"; ``rank``: 0 for the
    newest other frame; ``booked``: a successful transactional call of the source's service
    took or returned the value)."""
    ctx = f"o={context.opens}|tr={context.transactional}|in={context.takes}"
    vt = f"{source.value_type}>{target.value_type}"
    out = ["bias", f"k={kind}|r={min(rank, 2)}", ctx, f"{ctx}|k={kind}", f"vt:{vt}|{ctx}"]
    out.append(f"vt:{vt}|k={kind}|r={min(rank, 2)}")
    out += _pair(source, target)
    out += [f"t:{b}|{ctx}" for b in target.words]
    out += [f"t:{b}|k={kind}" for b in target.words]
    out += [f"s:{a}|k={kind}|u={source.usage}" for a in source.words]
    out.append(f"bk:{booked}|vt={target.value_type}|{ctx}")
    out.append(f"bk:{booked}|k={kind}|vt={target.value_type}")
    pairs = f"pr:{source.pair}>{target.pair}|vt={target.value_type}"
    out += [f"{pairs}|{ctx}", f"{pairs}|k={kind}"]
    return out


def unknown_source(strings: Iterable[str]) -> list[str]:
    """The strings of a candidate as the fallback model sees them (``CarryModel.fallback``):
    without the source's own words (``s:``) nor their crosses with the target's (``x:``), so
    that a source slot the model never saw is scored by what the model knows of the target,
    the words both slots share, the value types and the moment."""
    return [s for s in strings if not s.startswith(("s:", "x:"))]


def description_key(view: SlotView) -> int:
    """A slot as the model knows it: its description's content words and its value type,
    hashed (two services' slots described alike share a key)."""
    return zlib.crc32(f"{'|'.join(view.words)}>{view.value_type}".encode())


def hashed(strings: Iterable[str], bits: int = BITS) -> tuple[int, ...]:
    mask = (1 << bits) - 1
    return tuple(sorted({zlib.crc32(s.encode()) & mask for s in strings}))
