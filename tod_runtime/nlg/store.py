"""Template files: one plain JSON file per service and one generic file, per side.

A folder ``DIR/system/`` (and ``DIR/user/``) holds ``<Service>.json`` files and
``_generic.json``, each::

    {"service": "Restaurants_1", "side": "system",
     "profile": {"description": "...", "slots": {"city": ["text", "City where ..."]},
                 "intents": {"ReserveRestaurant": "Reserve a table at a restaurant"}},
     "templates": {"OFFER(city) OFFER(restaurant_name)": [
         ["How about {restaurant_name} in {city}?", 26],
         ["{restaurant_name} is a nice restaurant in {city}."]]}}

A key is an act signature (``nlg.signature``); each template is a list of its text and,
optionally, how often people wrote it (its weight when the generator chooses; default 1). A
template may also be a plain string. Users review and edit these files; the default set ships
in ``tod_runtime/nlg/templates`` and ``tod train nlg`` rebuilds it. The ``profile`` (what
the service's schema says, ``nlg.neighbours``) lets a service without templates borrow those
of the closest one; a file without it is used for its own service only. ``_generic.json``
also lists the ``service_words`` (``nlg.neighbours``): a template used for another service
than its own may carry one only when that service's schema has it, and the ``owned_words``
(word -> the services owning it, ``nlg.neighbours.owned_words``): such a template may carry
one only for an owner or a service borrowing an owner's templates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tod_runtime.errors import ConfigError
from tod_runtime.files import atomic_write
from tod_runtime.nlg.mine import Table
from tod_runtime.nlg.neighbours import Profile

GENERIC = "_generic"
SIDES = ("system", "user")
PACKAGED = Path(__file__).parent / "templates"


def _entry(raw: Any, file: str, key: str) -> tuple[str, int]:
    if isinstance(raw, str):
        return raw, 1
    ok = isinstance(raw, list) and 1 <= len(raw) <= 2 and isinstance(raw[0], str)
    if ok and len(raw) == 2:
        ok = isinstance(raw[1], int) and raw[1] > 0
    if not ok:
        raise ConfigError("a template is a string or [text, count]", file=file, path=key)
    return raw[0], raw[1] if len(raw) == 2 else 1


@dataclass
class TemplateSet:
    """One side's tables: per service (with the services' profiles) and generic."""

    services: dict[str, Table] = field(default_factory=dict)
    generic: Table = field(default_factory=dict)
    profiles: dict[str, Profile] = field(default_factory=dict)
    service_words: frozenset[str] = frozenset()  # see nlg.neighbours; in _generic.json
    owned_words: dict[str, frozenset[str]] = field(default_factory=dict)  # word -> owners


Words = tuple[frozenset[str], dict[str, frozenset[str]]]  # service words, owned words


def read_table(path: Path) -> tuple[Table, Profile | None, Words]:
    """One template file, checked: its templates, profile, service words and owned words."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"invalid JSON at line {exc.lineno}: {exc.msg}", file=str(path)) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror}", file=str(path)) from None
    templates = data.get("templates") if isinstance(data, dict) else None
    if not isinstance(templates, dict):
        raise ConfigError("expected an object with 'templates'", file=str(path))
    table: Table = {}
    for key, entries in templates.items():
        if not isinstance(entries, list) or not entries:
            raise ConfigError("expected a list of templates", file=str(path), path=key)
        table[key] = [_entry(e, str(path), key) for e in entries]
    profile = None
    if isinstance(data.get("profile"), dict):
        try:
            profile = Profile.from_json(data["profile"])
        except (ValueError, TypeError, IndexError) as exc:
            raise ConfigError(f"bad profile: {exc}", file=str(path), path="profile") from None
    words = data.get("service_words", [])
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise ConfigError("expected a list of words", file=str(path), path="service_words")
    return table, profile, (frozenset(words), _owned(data.get("owned_words", {}), str(path)))


def _owned(raw: Any, file: str) -> dict[str, frozenset[str]]:
    ok = isinstance(raw, dict) and all(
        isinstance(v, list) and all(isinstance(s, str) for s in v) for v in raw.values()
    )
    if not ok:
        raise ConfigError("expected word: [services]", file=file, path="owned_words")
    return {str(k): frozenset(v) for k, v in raw.items()}


def read_side(folder: Path, side: str) -> TemplateSet:
    """The tables of one side under ``folder`` (empty when it has no such folder)."""
    found = TemplateSet()
    base = folder / side
    if not base.is_dir():
        return found
    for path in sorted(base.glob("*.json")):
        table, profile, (words, owned) = read_table(path)
        if path.stem == GENERIC:
            found.generic, found.service_words, found.owned_words = table, words, owned
            continue
        found.services[path.stem] = table
        if profile is not None:
            found.profiles[path.stem] = profile
    return found


def _dump(
    service: str, side: str, table: Table, profile: Profile | None, words: Words | None
) -> str:
    body: dict[str, object] = {"service": service, "side": side}
    if profile is not None:
        body["profile"] = profile.to_json()
    if words is not None and words[0]:
        body["service_words"] = sorted(words[0])
    if words is not None and words[1]:
        body["owned_words"] = {w: sorted(words[1][w]) for w in sorted(words[1])}
    body["templates"] = {k: [[t, n] for t, n in v] for k, v in sorted(table.items())}
    return json.dumps(body, indent=1, ensure_ascii=False) + "\n"


def write_side(folder: Path, side: str, templates: TemplateSet) -> list[Path]:
    """Write one side's files under ``folder/side`` (atomically; the caller has checked the
    folder with ``files.check_output_dir``); returns the paths."""
    base = folder / side
    base.mkdir(parents=True, exist_ok=True)
    written = []
    for name, table in [*sorted(templates.services.items()), (GENERIC, templates.generic)]:
        path = base / f"{name}.json"
        words = (templates.service_words, templates.owned_words) if name == GENERIC else None
        atomic_write(path, _dump(name, side, table, templates.profiles.get(name), words))
        written.append(path)
    return written
