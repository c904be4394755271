"""The ``tod`` command line. Errors a user can cause print one line and exit 2.

Every sub-command, the built-in ones included (``tod_runtime.default_commands``), is added
through the ``register_commands`` hook. Only the console entry point imports this module.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from tod_runtime.errors import PluginError, TodError
from tod_runtime.plugins import make_plugin_manager

EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command killed by it


def build_parser(plugins_dir: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tod", description="tod-runtime: schema-guided task-oriented dialogue"
    )
    parser.add_argument("--version", action="version", version="%(prog)s 0.1.0")
    parser.add_argument(
        "--plugins-dir", dest="global_plugins_dir", metavar="DIR", help="load plugin files"
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


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser(_plugins_dir_from(argv))
        args = parser.parse_args(argv)
        code: int = args.func(args)
        return code
    except TodError as exc:
        print(f"tod: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # argparse: usage errors and --help
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        print("tod: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `tod ... | head`: the reader left; stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
