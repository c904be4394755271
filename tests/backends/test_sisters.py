"""Sister services share one world: a search of the same name finds what either recorded."""

from __future__ import annotations

import json
from pathlib import Path

from tod_runtime.backends.sgd_tables import SGDTablesBackend
from tod_runtime.dialogue import ServiceCall


def _slot(name: str, description: str) -> dict[str, object]:
    return {"name": name, "description": description, "is_categorical": False,
            "possible_values": []}  # fmt: skip


CITIES = ["Oslo", "Bergen", "Tromso", "Bodo", "Alta", "Molde"]


def _split(root: Path) -> Path:
    """Ferries_1 searches and books, Ferries_2 only searches (other slot names), Ferries_3
    finds harbours (its entity another kind of thing). Each recorded routes between the
    cities; only Ferries_2 recorded Oslo to Bergen."""
    split = root / "dev"
    split.mkdir()

    def service(name: str, names: dict[str, str], entity: str, book: bool) -> dict[str, object]:
        o, d, c = names["origin"], names["destination"], names["company"]
        slots = [
            _slot(o, "City the ferry leaves from"), _slot(d, "City the ferry goes to"),
            _slot(c, f"Name of the {entity}"),
        ]  # fmt: skip
        search = {"name": "FindFerry", "description": "find a ferry", "is_transactional": False,
                  "required_slots": [o, d], "optional_slots": {}, "result_slots": [o, d, c]}  # fmt: skip
        intents = [search]
        if book:
            intents.append({"name": "BookFerry", "description": "book a ferry",
                            "is_transactional": True, "required_slots": [o, d, c],
                            "optional_slots": {}, "result_slots": [o, d, c]})  # fmt: skip
        return {"service_name": name, "description": name, "slots": slots, "intents": intents}

    one = {"origin": "origin_city", "destination": "destination_city", "company": "operator"}
    two = {"origin": "origin", "destination": "destination", "company": "operator"}
    three = {"origin": "from_city", "destination": "to_city", "company": "harbour_name"}
    schemas = [
        service("Ferries_1", one, "ferry operator", True),
        service("Ferries_2", two, "operator of the ferry", False),
        service("Ferries_3", three, "harbour", True),
    ]
    (split / "schema.json").write_text(json.dumps(schemas))

    def frame(name: str, names: dict[str, str], trips: list[tuple[str, str]]) -> dict[str, object]:
        o, d = names["origin"], names["destination"]
        rows = [{o: a, d: b, names["company"]: f"{name} line"} for a, b in trips]
        call = {"method": "FindFerry", "parameters": {o: trips[0][0], d: trips[0][1]}}
        return {"service": name, "slots": [], "actions": [], "service_call": call,
                "service_results": rows}  # fmt: skip

    routes = list(zip(CITIES, CITIES[1:], strict=False))
    frames = [
        frame("Ferries_1", one, [*routes[1:], ("Molde", "Oslo")]),
        frame("Ferries_2", two, [*routes[1:], ("Oslo", "Bergen")]),
        frame("Ferries_3", three, [*routes[1:], ("Oslo", "Alta")]),
    ]
    turns = [{"speaker": "SYSTEM", "utterance": "...", "frames": [f]} for f in frames]
    dialogue = {"dialogue_id": "1_00000", "services": ["Ferries_1"], "turns": turns}
    (split / "dialogues_001.json").write_text(json.dumps([dialogue]))
    return root


async def test_a_sisters_recorded_row_is_found_and_booked_in_the_services_names(
    tmp_path: Path,
) -> None:
    backend = SGDTablesBackend.from_source(f"{_split(tmp_path)}:dev")
    find = ServiceCall(
        method="FindFerry", parameters={"origin_city": "Oslo", "destination_city": "Bergen"}
    )
    rows = await backend.call("Ferries_1", find)
    assert rows == [
        {"origin_city": "Oslo", "destination_city": "Bergen", "operator": "Ferries_2 line"}
    ]
    book = ServiceCall(method="BookFerry", parameters=rows[0])
    assert (await backend.call_outcome("Ferries_1", book)).rows == rows
    # the service's own entities (what the NLU knows) are its own
    assert "Ferries_2 line" not in (await backend.entity_values("Ferries_1"))["operator"]


async def test_a_service_whose_entity_is_another_kind_of_thing_is_no_sister(
    tmp_path: Path,
) -> None:
    backend = SGDTablesBackend.from_source(f"{_split(tmp_path)}:dev")
    find = ServiceCall(
        method="FindFerry", parameters={"origin_city": "Oslo", "destination_city": "Alta"}
    )
    assert await backend.call("Ferries_1", find) == []


async def test_a_search_finding_only_a_sisters_rows_names_that_sister(tmp_path: Path) -> None:
    """Molde to Oslo only Ferries_1 recorded: Ferries_2's search finds it, and Ferries_1 is
    where the task goes on (it books). Oslo to Bergen only Ferries_2 recorded, which books
    nothing: Ferries_1 keeps the task."""
    backend = SGDTablesBackend.from_source(f"{_split(tmp_path)}:dev")
    find = ServiceCall(method="FindFerry", parameters={"origin": "Molde", "destination": "Oslo"})
    outcome = await backend.call_outcome("Ferries_2", find)
    assert outcome.rows and outcome.provider is not None
    assert outcome.provider.service == "Ferries_1"
    assert outcome.provider.slots["origin"] == "origin_city"
    own = ServiceCall(method="FindFerry", parameters={"origin": "Bodo", "destination": "Alta"})
    assert (await backend.call_outcome("Ferries_2", own)).provider is None  # its own rows
    bergen = {"origin_city": "Oslo", "destination_city": "Bergen"}
    outcome = await backend.call_outcome(
        "Ferries_1", ServiceCall(method="FindFerry", parameters=bergen)
    )
    assert outcome.rows and outcome.provider is None


async def test_the_task_moves_to_the_sister_holding_what_the_search_found(
    tmp_path: Path,
) -> None:
    from tod_runtime import Runtime
    from tod_runtime.config import Config
    from tod_runtime.dialogue.models import act

    config = Config(services=f"{_split(tmp_path)}:dev", nlu="rules")
    async with Runtime(config) as runtime:
        acts = {"Ferries_2": [act("INFORM_INTENT", "intent", ["FindFerry"]),
                              act("INFORM", "origin", ["Molde"]),
                              act("INFORM", "destination", ["Oslo"])]}  # fmt: skip
        result = await runtime.handle_acts("s", acts)
    assert result.service == "Ferries_1"
    assert result.service_call is not None
    assert result.service_call.parameters == {"origin_city": "Molde", "destination_city": "Oslo"}
    moved = result.state["Ferries_1"]
    assert moved.active_intent == "FindFerry"
    assert moved.slot_values == {"origin_city": ["Molde"], "destination_city": ["Oslo"]}
    assert result.state["Ferries_2"].active_intent == "NONE"
    assert [a.slot for a in result.user_acts["Ferries_1"]] == [
        "intent",
        "origin_city",
        "destination_city",
    ]


def test_a_call_with_a_parameter_the_provider_lacks_is_not_moved() -> None:
    from tod_runtime.dialogue.providers import provider_call
    from tod_runtime.dialogue.refusal import Provider

    provider = Provider(service="Ferries_1", slots={"origin": "origin_city"})
    call = ServiceCall(method="FindFerry", parameters={"origin": "Molde"})
    moved = provider_call(call, provider)
    assert moved is not None and moved.parameters == {"origin_city": "Molde"}
    wider = ServiceCall(method="FindFerry", parameters={"origin": "Molde", "pets": "True"})
    assert provider_call(wider, provider) is None  # it would find what was not asked for
