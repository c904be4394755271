"""The ``tod`` command line, and its one error path.

Every sub-command, the built-in ones included (``tod_runtime.default_commands``), is added
through the ``register_commands`` hook. Only the console entry point imports this module.

Whatever a command raises ends here and becomes one line on stderr and an exit status that
tells the kind of failure (``EXIT_CODES``; the table is in docs/cli.md). An unexpected
exception prints one line and the path of a log file holding its full traceback; ``tod
--debug`` (or ``TOD_DEBUG=1``) prints the traceback instead.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from tod_runtime.errors import (
    ConfigError,
    DataError,
    InputError,
    IOFailure,
    PluginError,
    SchemaError,
    TodError,
)
from tod_runtime.plugins import make_plugin_manager

EXIT_CHECK_FAILED = 1  # a command's own check said no (replay --fail-under, --strict, ...)
EXIT_USAGE = 2  # bad arguments, config file or component name
EXIT_DATA = 3  # a dataset, dialogue, schema or script file is wrong
EXIT_PLUGIN = 4  # a plugin is broken (bad registration, a hook that fails)
EXIT_IO = 5  # a file cannot be written or exists already, a download failed
EXIT_INTERNAL = 70  # a bug: an exception nobody expected (EX_SOFTWARE)
EXIT_SIGINT = 130  # 128 + the signal, as a shell reports a command killed by it
EXIT_BROKEN_PIPE = 141
EXIT_SIGTERM = 143

# The error class -> exit status table: the first class the error is an instance of wins.
EXIT_CODES: tuple[tuple[type[TodError], int], ...] = (
    (ConfigError, EXIT_USAGE),
    (PluginError, EXIT_PLUGIN),  # StageFailed too
    (IOFailure, EXIT_IO),
    (DataError, EXIT_DATA),
    (SchemaError, EXIT_DATA),
    (InputError, EXIT_DATA),
    (TodError, EXIT_DATA),
)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C's KeyboardInterrupt so the same clean-up runs (temporary
    files removed, what was done kept)."""


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _interrupt(KeyboardInterrupt, frame)


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    _interrupt(Terminated, frame)


def _interrupt(kind: type[KeyboardInterrupt], frame: FrameType | None) -> None:
    """Raise ``kind`` where the signal came, unless it came while the event loop's own code
    ran (asyncio, selectors): an exception there can leave a task waiting on nothing, and
    the loop's shutdown then waits for it forever (seen: SIGTERM to a scripted chat hung
    about one time in ten). There it is raised by a callback the loop runs next, between two
    of its steps, where its state is whole."""
    module = frame.f_globals.get("__name__", "") if frame is not None else ""
    if module.startswith(("asyncio.", "selectors")):
        try:
            asyncio.get_running_loop().call_soon_threadsafe(_raise, kind)
            return
        except RuntimeError:  # no loop running (or it is closed): raise here
            pass
    raise kind()


def _raise(kind: type[KeyboardInterrupt]) -> None:
    raise kind()


def _catch_signals() -> list[tuple[int, Any]]:
    """Ctrl-C and SIGTERM raise at once, wherever the command is: even in a blocking read
    (asyncio's own Ctrl-C handler would only cancel the main task at its next await).
    Signals someone set to be ignored stay ignored. Returns what to restore."""
    installed: list[tuple[int, Any]] = []
    for signum, default, handler in (
        (signal.SIGINT, signal.default_int_handler, _on_sigint),
        (signal.SIGTERM, signal.SIG_DFL, _on_sigterm),
    ):
        try:
            if signal.getsignal(signum) is default:
                installed.append((signum, signal.signal(signum, handler)))
        except ValueError:  # not the main thread (main() called from a test's thread)
            pass
    return installed


def exit_code(exc: TodError) -> int:
    return next(code for cls, code in EXIT_CODES if isinstance(exc, cls))


def build_parser(plugins_dir: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tod", description="tod-runtime: schema-guided task-oriented dialogue"
    )
    parser.add_argument("--version", action="version", version="%(prog)s 0.1.0")
    parser.add_argument(
        "--plugins-dir", dest="global_plugins_dir", metavar="DIR", help="load plugin files"
    )
    parser.add_argument(
        "--debug",
        dest="global_debug",
        action="store_true",
        help="print the full traceback of an unexpected error",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    try:
        make_plugin_manager(plugins_dir).hook.register_commands(cli=sub)
    except argparse.ArgumentError as exc:  # two plugins add the same command
        raise PluginError(
            f"a plugin added a command that exists already ({exc})",
            hint="remove or rename one of them; TOD_TRACE_HOOKS=1 shows which plugin adds what",
        ) from exc
    return parser


def _plugins_dir_from(argv: Sequence[str]) -> str | None:
    for index, arg in enumerate(argv):
        if arg == "--plugins-dir" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--plugins-dir="):
            return arg.split("=", 1)[1]
    return None


def _debug_wanted(argv: Sequence[str]) -> bool:
    """``tod --debug ...`` (before the command: ``tod chat --debug`` shows the turns) or
    ``TOD_DEBUG=1``. Read from argv, so it works when the parser itself fails."""
    takes_value = False
    for arg in argv:
        if takes_value:
            takes_value = False
        elif arg == "--debug":
            return True
        elif arg == "--plugins-dir":
            takes_value = True
        elif not arg.startswith("-"):
            break  # the command: a --debug after it is the command's own
    return os.environ.get("TOD_DEBUG", "") not in ("", "0")


def crash_log_dir() -> Path:
    """Where tracebacks of unexpected errors go: ``$XDG_STATE_HOME/tod-runtime`` (default
    ``~/.local/state/tod-runtime``), else the temporary folder; never the user's data."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "tod-runtime"


def _write_crash_log(exc: BaseException) -> Path | None:
    text = "".join(traceback.format_exception(exc))
    header = f"tod {' '.join(sys.argv[1:])}\n{time.strftime('%Y-%m-%d %H:%M:%S')}\n\n"
    name = f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    for folder in (crash_log_dir(), Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / name
            path.write_text(header + text, encoding="utf-8")
            return path
        except OSError:
            continue
    return None


def _internal_error(exc: BaseException, debug: bool) -> int:
    what = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    if debug:
        traceback.print_exception(exc, file=sys.stderr)
        print(f"tod: internal error: {what}", file=sys.stderr)
        return EXIT_INTERNAL
    log = _write_crash_log(exc)
    where = f"; traceback in {log}" if log else ""
    print(
        f"tod: internal error: {what}{where} (hint: a bug in tod or a plugin: please report "
        "it with the log; tod --debug prints it)",
        file=sys.stderr,
    )
    return EXIT_INTERNAL


def _file_of(exc: BaseException) -> str | None:
    """The file being read when ``exc`` was raised: the innermost frame holding a path of
    an existing file (``Path.read_text``'s own ``self`` most often)."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        for name in ("self", "path", "file", "source", "filename", "target"):
            value = frame.f_locals.get(name)
            if isinstance(value, Path) and value.is_file():
                return str(value)
    return None


def _unreadable(exc: RecursionError | UnicodeDecodeError) -> str:
    """One line for input that no reader can take: JSON or TOML nested thousands deep (the
    parsers recurse), or bytes that are not UTF-8."""
    file = _file_of(exc)
    where = f"{file}: " if file else ""
    if isinstance(exc, RecursionError):
        return (
            f"{where}the input is nested too deeply to read (hint: JSON and TOML files may "
            "nest a few hundred levels at most)"
        )
    return f"{where}the input is not UTF-8 text (byte {exc.start}) (hint: save it as UTF-8)"


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = _debug_wanted(argv)
    restore = _catch_signals()
    try:
        parser = build_parser(_plugins_dir_from(argv))
        args = parser.parse_args(argv)
        code: int = args.func(args)
        return code
    except TodError as exc:
        print(f"tod: error: {exc}", file=sys.stderr)
        return exit_code(exc)
    except SystemExit as exc:  # argparse: usage errors and --help
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except Terminated:
        print("tod: terminated", file=sys.stderr)
        return EXIT_SIGTERM
    except KeyboardInterrupt:
        print("tod: interrupted", file=sys.stderr)
        return EXIT_SIGINT
    except BrokenPipeError:  # `tod ... | head`: the reader left; stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except (RecursionError, UnicodeDecodeError) as exc:  # an input file nobody can read
        print(f"tod: error: {_unreadable(exc)}", file=sys.stderr)
        return EXIT_DATA
    except OSError as exc:  # the file system said no: one line naming the file
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"tod: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_IO
    except Exception as exc:
        return _internal_error(exc, debug)
    finally:
        for signum, handler in restore:
            signal.signal(signum, handler)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
