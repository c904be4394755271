"""Goal-annotated conversation scripts: what a user types, and what must happen.

The format (docs/conversations.md): user lines are plain text, one turn a line; directives are
comment lines ``# key: value``::

    # A user books a table for 4 (the first comment line says what the user wants)
    # services: embedded | sgd:train | sgd:dev | DIR | SGD_DIR:split
    # today: 2026-11-28
    # expect: ReserveRestaurant(restaurant_name=*, city=New York, number_of_seats=4)
    find me a cheap italian place in new york
    whats the address
    # reply-has: street_address
    book a table for 4 at 7pm tomorrow
    yes

Other comment lines are notes. ``parse_script`` reads it into a frozen ``Script``; a line the
format does not allow raises ``ScriptError`` with the file and line number.

Three directives are tod-runtime's own, beyond the shared format (docs/conversations.md)::

    # expect-empty: FindRestaurants(city=San Jose)  a call made that returned nothing
    # reply-contains: found nothing                 after a user line: the reply holds the text
    # reply-has-another: restaurant_name            after a user line: the reply states the slot's
                                                    value of another result than the one under
                                                    discussion before it
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from tod_runtime.errors import DataError

ANY = "*"
DIRECTIVES = (
    "services",
    "today",
    "expect",
    "reply-has",
    "expect-empty",
    "reply-contains",
    "reply-has-another",
)
_DIRECTIVE = re.compile(r"^#\s*([a-z][a-z-]*)\s*:\s*(.*)$")
_CALL = re.compile(r"^([A-Za-z_][\w.]*)\s*\((.*)\)\s*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class ScriptError(DataError):
    """A conversation script that does not follow the format."""


@dataclass(frozen=True)
class ExpectedCall:
    """``Intent(slot=value, ...)``: a call of that intent with at least these parameters
    (``*``: any value) that returned a result."""

    method: str
    parameters: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return f"{self.method}({', '.join(f'{k}={v}' for k, v in self.parameters)})"


@dataclass(frozen=True)
class UserLine:
    """One user turn, with what the reply to it must say: the values of ``reply_has``'s slots
    for the entity under discussion, each text of ``reply_contains``, and the value of each
    ``reply_another`` slot for another result than the entity under discussion before it."""

    text: str
    reply_has: tuple[str, ...] = ()
    line: int = 0
    reply_contains: tuple[str, ...] = ()
    reply_another: tuple[str, ...] = ()


@dataclass(frozen=True)
class Script:
    path: Path
    goal: str
    services: str = "embedded"
    today: str | None = None
    expects: tuple[ExpectedCall, ...] = ()
    lines: tuple[UserLine, ...] = field(default_factory=tuple)
    expect_empty: tuple[ExpectedCall, ...] = ()

    @property
    def name(self) -> str:
        return self.path.stem


def parse_call(text: str, where: str = "expect") -> ExpectedCall:
    """``Intent(a=1, b=two words, c=*)`` -> ExpectedCall; raise ScriptError."""
    match = _CALL.match(text.strip())
    if match is None:
        raise ScriptError(f"{where}: expected Intent(slot=value, ...), got {text!r}")
    method, inside = match.groups()
    params: list[tuple[str, str]] = []
    for part in _split_params(inside):
        name, sep, value = part.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise ScriptError(f"{where}: expected slot=value, got {part.strip()!r}")
        params.append((name.strip(), value.strip()))
    return ExpectedCall(method, tuple(params))


def _split_params(inside: str) -> list[str]:
    """Split at the commas that begin a new ``slot=``; a comma inside a value stays
    ("address=1 Main St, Suite 2")."""
    parts: list[str] = []
    for piece in inside.split(","):
        if parts and not re.match(r"^\s*[A-Za-z_]\w*\s*=", piece):
            parts[-1] += "," + piece
        elif piece.strip():
            parts.append(piece)
    return parts


def parse_script(path: Path, text: str) -> Script:
    """Read one script; raise ScriptError (with the file and line) on a malformed line."""
    goal = ""
    services, today = "embedded", None
    expects: list[ExpectedCall] = []
    empty: list[ExpectedCall] = []
    lines: list[UserLine] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = f"{path}:{number}"
        if not line:
            continue
        if not line.startswith("#"):
            lines.append(UserLine(line, (), number))
            continue
        match = _DIRECTIVE.match(line)
        key = match.group(1) if match else None
        if match is None or key not in DIRECTIVES:
            if not goal and not lines and not expects:
                goal = line.lstrip("# ").strip()
            continue
        value = match.group(2).strip()
        if key == "services":
            services = value
        elif key == "today":
            if not _DATE.match(value):
                raise ScriptError(f"{where}: today must be an ISO date, got {value!r}")
            today = value
        elif key == "expect":
            expects.append(parse_call(value, where))
        elif key == "expect-empty":
            empty.append(parse_call(value, where))
        else:
            if not lines:
                raise ScriptError(f"{where}: {key} must follow a user line")
            lines[-1] = _after_line(lines[-1], key or "", value, where)
    if not lines:
        raise ScriptError(f"{path}: no user lines", hint="one user turn per non-comment line")
    return Script(path, goal, services, today, tuple(expects), tuple(lines), tuple(empty))


def _after_line(last: UserLine, key: str, value: str, where: str) -> UserLine:
    """The user line with a ``reply-*`` directive that follows it added."""
    if key == "reply-contains":
        if not value:
            raise ScriptError(f"{where}: reply-contains needs a text")
        return replace(last, reply_contains=(*last.reply_contains, value))
    slots = tuple(value.split())
    if not slots:
        raise ScriptError(f"{where}: {key} needs one or more slot names")
    if key == "reply-has-another":
        return replace(last, reply_another=last.reply_another + slots)
    return replace(last, reply_has=last.reply_has + slots)


def load_script(path: str | Path) -> Script:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ScriptError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise ScriptError(f"{path}: cannot read: {exc.strerror}") from None
    return parse_script(path, text)


def script_files(paths: list[str | Path]) -> list[Path]:
    """The script files named, folders expanded to their ``*.txt`` files (sorted)."""
    files: list[Path] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            found = sorted(path.rglob("*.txt"), key=_natural)
            if not found:
                raise ScriptError(f"{path}: no conversation scripts (*.txt) in this folder")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            raise ScriptError(f"{path}: no such file or folder")
    return files


def _natural(path: Path) -> tuple[object, ...]:
    """r2 before r10."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", str(path)))
