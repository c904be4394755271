"""Embedding tod-runtime in an async application.

Two users talk to the embedded services at the same time; each has their own session. Run:

    python examples/embed_async.py

An application would call ``runtime.handle(session_id, text)`` from its own handlers (a bot
framework callback, a queue consumer...) exactly like this.
"""

from __future__ import annotations

import asyncio

from tod_runtime import Config, Runtime

CONVERSATIONS = {
    "alice": [
        "I want to find a restaurant",
        "in San Francisco",
        "what is the phone number?",
        "thanks, that's all",
    ],
    "bob": [
        "hi, can you find me a hotel?",
        "in New York please",
        "no thanks, bye",
    ],
}


async def talk(runtime: Runtime, user: str, lines: list[str]) -> list[str]:
    transcript = []
    for line in lines:
        result = await runtime.handle(user, line)
        transcript += [f"{user}> {line}", f"bot> {result.utterance}"]
    return transcript


async def main() -> dict[str, list[str]]:
    async with Runtime(Config()) as runtime:  # the embedded services, default pipeline
        users = list(CONVERSATIONS)
        transcripts = await asyncio.gather(*(talk(runtime, u, CONVERSATIONS[u]) for u in users))
        for user, transcript in zip(users, transcripts, strict=True):
            state = await runtime.state(user)
            print("\n".join(transcript))
            print(f"  state of {user}: { {s: st.slot_values for s, st in state.items()} }\n")
        return dict(zip(users, transcripts, strict=True))


if __name__ == "__main__":
    asyncio.run(main())
