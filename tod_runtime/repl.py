"""``tod chat``: an interactive REPL, or scripted turns from a file, over one Runtime.

Commands: /reset, /state, /services, /save FILE, /help, /quit (or Ctrl-D).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import secrets
import sys
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from tod_runtime.config import Config
from tod_runtime.dialogue.steps import TurnResult
from tod_runtime.errors import DataError, TodError
from tod_runtime.runtime import Runtime

PROMPT = "you> "
HELP = (
    "commands: /reset (start over), /state (dialogue state), /services (what I can do), "
    "/save [--force] FILE (save as SGD), /help, /quit"
)


def _history_file() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    folder = Path(base) / "tod-runtime"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "chat_history"


async def _interactive_lines() -> AsyncIterator[str]:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    try:
        history: Any = FileHistory(str(_history_file()))
    except OSError:
        history = InMemoryHistory()
    session: PromptSession[str] = PromptSession(history=history)
    while True:
        try:
            yield await session.prompt_async(PROMPT)
        except EOFError:
            return
        except KeyboardInterrupt:
            continue


async def _plain_lines(lines: Iterable[str]) -> AsyncIterator[str]:
    for line in lines:
        yield line.rstrip("\r\n")  # CRLF files and pipes too


def _stdin() -> Iterable[str]:
    """Standard input as text lines; bytes that are not UTF-8 come through as lone
    surrogates (never an exception that ends the chat), and the runtime refuses such a line
    as a failed turn."""
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")
    return sys.stdin


def _script_lines(path: str) -> Iterable[str]:
    if path == "-":
        return _stdin()
    try:
        return Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DataError(f"cannot read script: {exc.strerror}", file=path) from None
    except UnicodeDecodeError as exc:
        raise DataError(
            f"the script is not UTF-8 text (byte {exc.start})",
            file=path,
            hint="save it as UTF-8, e.g. iconv -f latin1 -t utf-8",
        ) from None


class Chat:
    """Runs turns and commands; prints replies as text or JSON lines."""

    def __init__(self, runtime: Runtime, args: argparse.Namespace) -> None:
        self.runtime = runtime
        # a fresh id by default: a guessable one ("chat") in a store shared with a server
        # could be read or deleted over HTTP
        self.session: str = args.session or f"chat-{secrets.token_urlsafe(18)}"
        self.json = args.json
        self.debug = args.debug
        self.out = sys.stdout
        self._console: Any = None
        self.record: Path | None = Path(args.record) if args.record else None
        self.recording: Path | None = None  # this dialogue's file, from its first turn

    async def keep_record(self) -> None:
        """With --record, write the conversation so far after every turn (atomically: the
        file is a valid SGD dialogue file at every moment, so a crash loses nothing)."""
        if self.record is None:
            return
        from tod_runtime.data.record import next_dialogue_file
        from tod_runtime.files import remove_temporaries

        if self.recording is None:
            self.record.mkdir(parents=True, exist_ok=True)
            remove_temporaries(self.record)  # what a chat killed while writing left
            self.recording = next_dialogue_file(self.record)
        await self.save(str(self.recording))

    def emit(self, obj: dict[str, Any], text: str) -> None:
        if self.json:
            print(json.dumps(obj, ensure_ascii=False), file=self.out, flush=True)
        else:
            print(text, file=self.out, flush=True)

    def _show_debug(self, result: TurnResult) -> None:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True)
        acts = {s: [str(a) for a in acts] for s, acts in result.user_acts.items()}
        self._console.print("[bold]user acts[/]", acts)
        state = {s: st.model_dump() for s, st in result.state.items()}
        self._console.print("[bold]state[/]", state)
        if result.service_call is not None:
            self._console.print(
                "[bold]service call[/]",
                result.service,
                result.service_call.model_dump(),
                f"-> {len(result.service_results or [])} result(s)",
            )
        self._console.print("[bold]system acts[/]", [str(a) for a in result.actions])

    async def command(self, line: str) -> bool:
        """Run a /command; return False to quit."""
        name, _, arg = line.strip().partition(" ")
        rt = self.runtime
        if name in ("/quit", "/exit"):
            return False
        if name == "/help":
            self.emit({"command": "help", "help": HELP}, HELP)
        elif name == "/reset":
            await rt.reset(self.session)
            self.recording = None  # a new dialogue: the next turn starts a new file
            self.emit({"command": "reset"}, "(session reset)")
        elif name == "/state":
            state = {s: st.model_dump() for s, st in (await rt.state(self.session)).items()}
            self.emit({"command": "state", "state": state}, json.dumps(state, indent=2))
        elif name == "/services":
            services = {n: s.description for n, s in rt.schemas.items()}
            text = "\n".join(f"{n}: {d}" for n, d in services.items())
            self.emit({"command": "services", "services": services}, text)
        elif name == "/save":
            force, _, target = arg.strip().rpartition(" ")
            if not target or force not in ("", "--force"):
                self.emit({"command": "save", "error": "usage"}, "usage: /save [--force] FILE")
            else:
                path = await self.save(target, force=force == "--force")
                self.emit({"command": "save", "file": str(path)}, f"(saved to {path})")
        else:
            self.emit({"command": name, "error": "unknown command"}, HELP)
        return True

    async def save(self, target: str, *, force: bool = True) -> Path:
        """Save the conversation; a ``.json`` target that exists is replaced only with
        ``force`` (a folder target gets the next numbered file)."""
        from tod_runtime.data.record import save_dialogues
        from tod_runtime.files import check_output

        if target.endswith(".json"):
            check_output(target, force=force, what="file")
        dialogue = await self.runtime.dialogue(self.session)
        return save_dialogues(target, [dialogue], self.runtime.schemas)

    async def turn(self, line: str) -> None:
        """One turn: recorded, then its reply printed (a reply shown is a turn recorded); a
        record that cannot be written fails the turn, its reply printed before the error."""
        result = await self.runtime.handle(self.session, line)
        if self.debug:
            self._show_debug(result)
        try:
            if result.notice is None:
                await self.keep_record()
        finally:
            self.emit(result.model_dump(mode="json", exclude_none=True), f"bot> {result.utterance}")

    def failed(self, exc: Exception) -> None:
        """An error line; the chat goes on."""
        if isinstance(exc, OSError):
            where = f"{exc.filename}: " if exc.filename else ""
            text = f"{where}{exc.strerror or exc}"
        else:
            text = str(exc)
        self.emit({"error": text}, f"error: {text}")


async def run_chat(config: Config, args: argparse.Namespace) -> int:
    if args.record:
        from tod_runtime.files import check_apart

        check_apart(args.record, [config.services.rpartition(":")[0] or config.services], "record")
    runtime = Runtime(config)
    await runtime.start()
    chat = Chat(runtime, args)
    if args.session is None and not config.store.startswith("memory"):
        print(f"(session {chat.session}: --session {chat.session} resumes it)", file=sys.stderr)
    try:
        if args.script:
            lines: AsyncIterator[str] = _plain_lines(_script_lines(args.script))
        elif sys.stdin.isatty():
            print(f"tod chat: {len(runtime.schemas)} services loaded. {HELP}", flush=True)
            lines = _interactive_lines()
        else:
            lines = _plain_lines(sys.stdin)
        turns, failures = 0, list[Exception]()
        async for line in lines:
            if args.script and (not line.strip() or line.lstrip().startswith("#")):
                continue
            if line.startswith("/"):
                try:
                    if not await chat.command(line):
                        break
                except (TodError, OSError) as exc:  # a command's error: the chat goes on
                    chat.failed(exc)
                continue
            turns += 1
            try:
                await chat.turn(line)
            except (TodError, OSError) as exc:
                chat.failed(exc)
                failures.append(exc)
    finally:
        if chat.recording is not None and chat.recording.exists():
            print(f"(recorded to {chat.recording})", file=sys.stderr)
        await runtime.close()
    if failures and args.script:
        # a script whose turns failed did not run: the first failure gives the exit status
        print(f"tod chat: {len(failures)} of {turns} turn(s) failed", file=sys.stderr)
        raise failures[0]
    return 0
