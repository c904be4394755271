"""The runtime machinery, driven by the deterministic echo plugin."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

import tod_echo
from tod_runtime import Config, Runtime, hookimpl
from tod_runtime.errors import StageFailed
from tod_runtime.plugins import make_plugin_manager
from tod_runtime.session import Event, StateTracked, UserUttered
from tod_runtime.stores.base import StoreConflict
from tod_runtime.stores.memory import MemoryStore


@pytest.fixture
async def runtime() -> AsyncIterator[Runtime]:
    tod_echo.observed.clear()
    config = Config(
        services="echo", backend="echo", nlu="echo", tracker="echo", policy="echo", generator="echo"
    )
    pm = make_plugin_manager(entry_points=False, extra=(tod_echo,))
    async with Runtime(config, plugin_manager=pm) as rt:
        yield rt


async def test_turn_flows_through_every_stage(runtime: Runtime) -> None:
    first = await runtime.handle("s1", "city=Paris")
    assert first.utterance == "REQ_MORE()"
    assert first.state["Echo_1"].slot_values == {"city": ["Paris"]}
    second = await runtime.handle("s1", "call")
    assert second.service_call is not None
    assert second.service_call.parameters == {"city": "Paris"}
    assert second.service_results == [{"city": "Paris", "name": "Thing One"}]
    assert [str(a) for a in second.actions] == ["OFFER(name=Thing One)"]


async def test_state_is_derived_from_the_event_log(runtime: Runtime) -> None:
    await runtime.handle("s1", "city=Paris")
    await runtime.handle("s1", "size=large")
    events = await runtime.events("s1")
    assert [type(e) for e in events].count(UserUttered) == 2
    assert isinstance(events[2], StateTracked)
    state = await runtime.state("s1")
    assert state["Echo_1"].slot_values == {"city": ["Paris"], "size": ["large"]}
    dialogue = await runtime.dialogue("s1")
    assert [t.speaker for t in dialogue.turns] == ["USER", "SYSTEM", "USER", "SYSTEM"]
    assert dialogue.turns[2].frames[0].state is not None


async def test_reset_starts_over_but_keeps_the_log(runtime: Runtime) -> None:
    await runtime.handle("s1", "city=Paris")
    await runtime.reset("s1")
    assert await runtime.state("s1") == {}
    assert (await runtime.dialogue("s1")).turns == []
    assert len(await runtime.events("s1")) > 1


async def test_sessions_are_isolated_and_concurrent(runtime: Runtime) -> None:
    await asyncio.gather(*(runtime.handle(f"s{i}", f"city=C{i}") for i in range(20)))
    for i in range(20):
        assert (await runtime.state(f"s{i}"))["Echo_1"].slot_values == {"city": [f"C{i}"]}


async def test_turns_of_one_session_never_interleave(runtime: Runtime) -> None:
    texts = ["city=Rome", "size=small", "name=Zed"] * 3
    await asyncio.gather(*(runtime.handle("same", t) for t in texts))
    kinds = [type(e).__name__ for e in await runtime.events("same")]
    assert kinds == kinds[:5] * 9  # every turn's events are contiguous
    state = await runtime.state("same")  # no turn worked from a stale state
    assert state["Echo_1"].slot_values == {"city": ["Rome"], "size": ["small"], "name": ["Zed"]}


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t",
        "x" * 2001,
    ],  # fmt: skip
)
async def test_bad_input_gets_a_polite_reply_and_leaves_the_session(
    runtime: Runtime, text: str
) -> None:
    await runtime.handle("s1", "city=Paris")
    before = await runtime.events("s1")
    result = await runtime.handle("s1", text)
    assert result.notice and result.utterance == result.notice
    assert await runtime.events("s1") == before


NOT_ENGLISH = [
    "Где находится ресторан?",
    "餐厅在哪里",
    "Bonjour, je voudrais réserver une table",
    "Quiero reservar una mesa para dos",
]


@pytest.mark.parametrize("text", NOT_ENGLISH)
async def test_the_rules_nlu_declines_other_languages_and_leaves_the_session(text: str) -> None:
    async with Runtime(Config()) as rt:
        await rt.handle("s1", "I want to find a restaurant")
        before = await rt.events("s1")
        result = await rt.handle("s1", text)
        assert result.notice and "only understand English" in result.utterance
        assert await rt.events("s1") == before


async def test_the_language_check_is_an_nlu_option_that_can_be_turned_off() -> None:
    config = Config(options={"nlu": {"english_only": False}})
    async with Runtime(config) as rt:
        result = await rt.handle("s1", NOT_ENGLISH[2])
    assert result.notice is None


async def test_a_failing_stage_leaves_the_session_as_it_was(runtime: Runtime) -> None:
    await runtime.handle("s1", "city=Paris")
    before = await runtime.events("s1")
    with pytest.raises(StageFailed, match=r"nlu 'echo' \(plugin tod_echo\) failed: RuntimeError"):
        await runtime.handle("s1", "boom")
    assert await runtime.events("s1") == before
    assert (await runtime.handle("s1", "size=small")).state["Echo_1"].slot_values["city"] == [
        "Paris"
    ]


async def test_gold_acts_skip_the_nlu(runtime: Runtime) -> None:
    from tod_runtime import Action, InputError

    result = await runtime.handle_acts(
        "g", {"Echo_1": [Action(act="INFORM", slot="city", values=["Rome"])]}
    )
    assert result.state["Echo_1"].slot_values == {"city": ["Rome"]}
    with pytest.raises(InputError):
        await runtime.handle_acts("g", {"Nope_1": []})


async def test_sqlite_store_keeps_sessions_across_runtimes(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/sessions.db"
    config = Config(
        services="echo",
        backend="echo",
        nlu="echo",
        tracker="echo",
        policy="echo",
        generator="echo",
        store=url,
    )
    pm = make_plugin_manager(entry_points=False, extra=(tod_echo,))
    async with Runtime(config, plugin_manager=pm) as rt:
        await rt.handle("s1", "city=Oslo")
    async with Runtime(
        config, plugin_manager=make_plugin_manager(entry_points=False, extra=(tod_echo,))
    ) as rt:
        assert (await rt.state("s1"))["Echo_1"].slot_values == {"city": ["Oslo"]}
        assert await rt.store.sessions() == ["s1"]


async def test_foreign_names_in_an_english_message_are_fine(runtime: Runtime) -> None:
    result = await runtime.handle("s1", "book a table at Le Petit Bistro de la Mer")
    assert result.notice is None


class CountingStore(MemoryStore):
    """Records how many events each load hands over."""

    def __init__(self) -> None:
        super().__init__()
        self.handed: list[int] = []

    async def load(self, session_id: str, start: int = 0) -> list[Event]:
        events = await super().load(session_id, start)
        self.handed.append(len(events))
        return events


async def test_a_turn_reads_only_the_events_it_has_not_folded() -> None:
    """The session is kept folded: however long it is, a turn asks the store only for what
    another process appended since (nothing here: the runtime folds the events it appends
    itself) and its last folded event again (still there: not deleted elsewhere), so a turn
    does not get slower with length."""
    store = CountingStore()
    async with Runtime(Config(), store=store) as rt:
        for line in ["I want to find a restaurant", "in Austin"] * 20:
            await rt.handle("long", line)
        assert len(store.handed) >= 40 and set(store.handed[1:]) == {1}
        assert len((await rt.dialogue("long")).turns) == 80
        other = Runtime(Config(), store=store)  # another runtime on the same store
        await other.start()
        assert len((await other.dialogue("long")).turns) == 80  # folds the whole log once


async def test_a_deleted_session_leaves_nothing_behind() -> None:
    """A server creates and deletes sessions all day: none may leave its folded log or its
    lock in the runtime."""
    config = Config(services="echo", backend="echo", nlu="echo", tracker="echo",
                    policy="echo", generator="echo")  # fmt: skip
    pm = make_plugin_manager(entry_points=False, extra=(tod_echo,))
    async with Runtime(config, plugin_manager=pm) as rt:
        for n in range(3):
            await rt.handle(f"s{n}", "city=Lima")
        await rt.delete("s1")
        assert sorted(rt._sessions) == sorted(rt._locks) == ["s0", "s2"]
        assert await rt.store.sessions() == ["s0", "s2"]


async def test_a_turn_over_its_time_limit_is_dropped_and_the_session_kept() -> None:
    class Slow:
        def __init__(self, ctx: object) -> None:
            pass

        async def decide(self, turn: object) -> object:
            await asyncio.sleep(30)
            raise AssertionError("not reached")

    class SlowPlugin:
        @hookimpl
        def register_policies(self, register: Any) -> None:
            register("slow", Slow)

    config = Config(services="echo", backend="echo", nlu="echo", tracker="echo", policy="slow",
                    generator="echo", turn_timeout=0.05)  # fmt: skip
    pm = make_plugin_manager(entry_points=False, extra=(tod_echo, SlowPlugin()))
    async with Runtime(config, plugin_manager=pm) as rt:
        with pytest.raises(StageFailed, match=r"policy 'slow' .* did not answer within .* 0.05 s"):
            await rt.handle("s", "city=Lima")
        assert await rt.events("s") == []


class ConflictOnce(MemoryStore):
    """Another process rewrites the session while the ``turn``-th turn runs (once)."""

    def __init__(self, turn: int) -> None:
        super().__init__()
        self.turn, self.appends = turn, 0

    async def append(
        self, session_id: str, events: list[Event], expected: int | None = None
    ) -> None:
        self.appends += 1
        if self.appends == self.turn:
            raise StoreConflict(f"{session_id}: the log changed meanwhile")
        await super().append(session_id, events, expected=expected)


async def _talk(store: MemoryStore, turns: list[str], calls: list[str]) -> None:
    """Run the turns on the default pipeline, noting each service call the backend got."""

    class Observer:
        @hookimpl
        def service_called(self, session_id: str, service: str, call: Any, results: Any) -> None:
            calls.append(call.method)

    pm = make_plugin_manager(extra=(Observer(),))
    async with Runtime(Config(), plugin_manager=pm, store=store) as rt:
        for line in turns:
            await rt.handle("s", line)


BOOKING = ["an italian place in chicago", "great, can you book a table there?", "7pm please", "yes"]


async def test_a_turn_the_store_refused_is_run_again_unless_it_made_a_transaction() -> None:
    """A search may run twice when another process changed the session meanwhile; a booking
    must not: the turn fails with the transaction named, and the backend booked once."""
    searches: list[str] = []
    await _talk(ConflictOnce(turn=1), BOOKING[:1], searches)
    assert searches == ["FindRestaurants", "FindRestaurants"]
    bookings: list[str] = []
    with pytest.raises(StoreConflict, match="ReserveRestaurant call on Restaurants was made"):
        await _talk(ConflictOnce(turn=4), BOOKING, bookings)
    assert bookings.count("ReserveRestaurant") == 1
    unrefused: list[str] = []
    await _talk(MemoryStore(), BOOKING, unrefused)
    assert unrefused.count("ReserveRestaurant") == 1


async def test_a_turn_may_be_given_the_services_it_can_address() -> None:
    """As SGD's dialogues (and replay) give each dialogue's services: the NLU chooses among
    them only; an unknown one is the caller's error."""
    from tod_runtime.errors import InputError

    async with Runtime(Config(nlu="rules")) as rt:
        text = "I want to find a restaurant in San Jose."
        free = await rt.handle("a", text)
        assert "Restaurants" in free.user_acts
        given = await rt.handle("b", text, services=["Hotels"])
        assert set(given.user_acts) <= {"Hotels"}
        with pytest.raises(InputError):
            await rt.handle("c", text, services=["Nowhere"])
