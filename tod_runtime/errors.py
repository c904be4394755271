"""Project exceptions: every error a user can cause names where it happened and how to fix it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import ValidationError


class TodError(Exception):
    """Base of all user-facing errors.

    ``file`` is the file (or URL) involved, ``where`` names the object inside it (a dialogue id,
    a service name), ``path`` is the field path, and ``hint`` says what to do about it.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        where: str | None = None,
        path: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.where = where
        self.path = path
        self.hint = hint

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.where, self.path) if p]
        text = f"{': '.join(parts)}: {self.message}" if parts else self.message
        return f"{text} (hint: {self.hint})" if self.hint else text


class DataError(TodError):
    """A dataset or dialogue file is missing, unreadable or does not validate."""


class SchemaError(TodError):
    """A schema.json is missing, unreadable or inconsistent."""


class ConfigError(TodError):
    """A configuration file, flag or component name is wrong."""


class PluginError(TodError):
    """A plugin registered something invalid (bad name, duplicate)."""


class StageFailed(PluginError):
    """A component raised, or a turn ran over its time limit: the turn is dropped and the
    session is left as it was before it."""


class InputError(TodError):
    """A request to the runtime is malformed (unknown service, slot or session)."""


class IOFailure(TodError):
    """Reading or writing failed for a reason outside the data: an output exists already
    (without --force), an output would land inside an input, a folder is not writable, a
    download failed, stalled or ran over its time limit."""


def format_loc(loc: Sequence[int | str]) -> str:
    """Render a pydantic error location as ``turns[3].frames[0].act``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def from_validation_error(
    exc: ValidationError,
    cls: type[TodError],
    *,
    file: str | None,
    where: str | None,
    prefix: Iterable[int | str] = (),
    hint: str | None = None,
) -> TodError:
    """Turn the first pydantic error into a project error with its field path."""
    err = exc.errors()[0]
    loc = [*prefix, *err["loc"]]
    more = exc.error_count() - 1
    message = err["msg"] + (f" (and {more} more error{'s' if more > 1 else ''})" if more else "")
    return cls(message, file=file, where=where, path=format_loc(loc) or None, hint=hint)
