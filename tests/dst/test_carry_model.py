"""The learned carry-over model: trained by `tod train dst`, read by the rules tracker, and
blind to names."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sgdx_helpers import sgdx_dataset

from tod_runtime.cli import main
from tod_runtime.data.rename import Renaming
from tod_runtime.data.sgdx import VARIANTS
from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import Dialogue, Frame, ServiceCall, State, Turn, act
from tod_runtime.dst.carry import (
    NOT_ASKED_THRESHOLD,
    candidates,
    carry_over,
    named_back,
    pointed,
)
from tod_runtime.dst.learned.features import (
    BITS,
    Context,
    description_key,
    features,
    hashed,
    slot_view,
    unknown_source,
)
from tod_runtime.dst.learned.model import CarryModel, load_model
from tod_runtime.learning import content_words
from tod_runtime.schema.models import ServiceSchema
from tod_runtime.training.common import rewording_of
from tod_runtime.training.dst import Key, dialogue_rows, fit_rows

MINI = Path(__file__).parents[1] / "fixtures" / "sgd_mini"


def test_description_words_drop_function_words_and_meet_across_inflections() -> None:
    assert content_words("City where the journey ends") == ("city", "journe", "end")
    assert content_words("Ending city for the trip") == ("end", "city", "trip")


def _service(name: str, slots: list[tuple[str, str]], transactional: bool) -> ServiceSchema:
    return ServiceSchema.model_validate(
        {
            "service_name": name,
            "description": name,
            "slots": [
                {"name": n, "description": d, "is_categorical": False, "possible_values": []}
                for n, d in slots
            ],
            "intents": [
                {
                    "name": f"Do{name}",
                    "description": "do it",
                    "is_transactional": transactional,
                    "required_slots": [n for n, _ in slots],
                    "optional_slots": {},
                    "result_slots": [],
                }
            ],
        }
    )


def test_candidates_and_decisions_do_not_depend_on_names() -> None:
    shows = _service("Shows_1", [("city", "City of the show"), ("date", "Date of the show")], True)
    trips = _service("Trips_1", [("to_city", "City to go to"), ("day", "Date of travel")], True)
    renaming = Renaming.opaque([shows, trips])

    def carried(a: ServiceSchema, b: ServiceSchema) -> tuple[list[object], dict[str, list[str]]]:
        both = {a.service_name: a, b.service_name: b}
        city, date = (s.name for s in a.slots)
        state = {a.service_name: State(slot_values={city: ["Oslo"], date: ["Friday"]})}
        frame = state[b.service_name] = State(active_intent=b.intents[0].name)
        found = candidates(frame, b.service_name, state, both, History(), opening=True)
        carry_over(frame, b.service_name, state, both, History(), opening=True, model=load_model())
        names = {s.name: i for i, s in enumerate(b.slots)}
        slot_values = {str(names[k]): v for k, v in frame.slot_values.items()}
        return sorted((c.features, c.values) for c in found), slot_values

    plain = carried(shows, trips)
    opaque = carried(renaming.schema(shows), renaming.schema(trips))
    assert plain == opaque
    assert plain[0]


def test_a_value_never_moves_to_a_slot_of_another_type() -> None:
    # Even when the system's acts say the slot is held (any best source will do), a date slot
    # does not take a place: on SGD train no value ever moved between value types.
    shows = _service("Shows_1", [("city", "City of the show"), ("date", "Date of the show")], True)
    trips = _service("Trips_1", [("day", "Date of travel"), ("when", "Time of travel")], True)
    both = {"Shows_1": shows, "Trips_1": trips}
    state = {"Shows_1": State(slot_values={"city": ["Oslo"]})}
    frame = state["Trips_1"] = State(active_intent="DoTrips_1")
    model = load_model()
    held = (["day", "when"], 0.0)
    carry_over(frame, "Trips_1", state, both, History(), opening=False, model=model, held=held)
    assert frame.slot_values == {}
    state["Shows_1"].slot_values["date"] = ["Friday"]
    carry_over(frame, "Trips_1", state, both, History(), opening=False, model=model, held=held)
    assert frame.slot_values == {"day": ["Friday"]}


def _counts(name: str, slots: list[tuple[str, str]]) -> ServiceSchema:
    """A transactional service whose slots are counts (categorical, 1 to 4)."""
    schema = _service(name, slots, True).model_dump()
    for slot in schema["slots"]:
        slot.update(is_categorical=True, possible_values=["1", "2", "3", "4"])
    return ServiceSchema.model_validate(schema)


def test_a_count_of_people_never_moves_to_a_count_of_nights() -> None:
    # "a table for 2" then a hotel: the stay's nights are no party size, though both are numbers
    table = _counts("Tables_1", [("seats", "Number of people in the party")])
    stay = _counts("Stays_1", [("nights", "Number of nights of the stay"), ("guests", "Guests")])
    both = {"Tables_1": table, "Stays_1": stay}
    state = {"Tables_1": State(slot_values={"seats": ["2"]})}
    opened = State(active_intent="DoStays_1")
    found = candidates(opened, "Stays_1", state, both, History(), opening=True)
    assert {c.target: c.same_type for c in found} == {"nights": False, "guests": True}


def _booked_turn(parameters: dict[str, str], results: list[dict[str, str]]) -> History:
    call = ServiceCall(method="DoShows_1", parameters=parameters)
    frame = Frame(service="Shows_1", actions=[act("NOTIFY_SUCCESS")], service_call=call)
    frame.service_results = results
    return History([Turn(speaker="SYSTEM", utterance="Done.", frames=[frame])])


def test_a_value_a_booking_took_or_returned_is_told_apart() -> None:
    # A successful call of a transactional intent took the city and returned the date: those
    # sources get the "booked" features; a failed call (no results) books nothing.
    shows = _service("Shows_1", [("city", "City of the show"), ("date", "Date of the show")], True)
    trips = _service("Trips_1", [("to_city", "City to go to"), ("day", "Date of travel")], True)
    both = {"Shows_1": shows, "Trips_1": trips}
    state = {"Shows_1": State(slot_values={"city": ["Oslo"], "date": ["Friday"]})}
    frame = state["Trips_1"] = State(active_intent="DoTrips_1")

    def found(history: History) -> dict[tuple[str, str], tuple[int, ...]]:
        pairs = candidates(frame, "Trips_1", state, both, history, opening=True)
        return {(c.values[0], c.target): c.features for c in pairs}

    plain = found(History())
    booked = found(_booked_turn({"city": "oslo"}, [{"city": "Oslo", "date": "friday"}]))
    failed = found(_booked_turn({"city": "Oslo"}, []))
    assert plain.keys() == booked.keys() == failed.keys()
    assert all(booked[key] != plain[key] for key in plain)
    assert failed == plain
    only_call = found(_booked_turn({"city": "Oslo"}, [{"city": "Oslo"}]))
    assert only_call[("Oslo", "to_city")] != plain[("Oslo", "to_city")]
    assert only_call[("Friday", "day")] == plain[("Friday", "day")]


def test_a_place_two_slots_score_exactly_the_same_for_fills_neither() -> None:
    # With every weight zero every pair scores 0.5: the model cannot tell which of two text
    # slots the city fills, so it fills neither; with one such slot, that one.
    shows = _service("Shows_1", [("city", "City of the show")], True)
    two = _service("Trips_1", [("from_city", "City to leave"), ("to_city", "City to go to")], True)
    one = _service("Trips_1", [("to_city", "City to go to")], True)
    flat = CarryModel(np.zeros(1 << 16, dtype=np.float32), {"bits": 16, "threshold": 0.4})
    for trips, expected in ((two, {}), (one, {"to_city": ["Oslo"]})):
        both = {"Shows_1": shows, "Trips_1": trips}
        state = {"Shows_1": State(slot_values={"city": ["Oslo"]})}
        frame = state["Trips_1"] = State(active_intent="DoTrips_1")
        carry_over(frame, "Trips_1", state, both, History(), opening=True, model=flat)
        assert frame.slot_values == expected


def _pointed_carry(
    services: dict[str, ServiceSchema],
    source: str,
    held: dict[str, list[str]],
    target: str,
    said: str,
) -> dict[str, list[str]]:
    """What a frame of ``target`` opening a new intent (not opening) takes from ``source``'s
    ``held`` values after the user ``said`` it, every pair scoring 0.5 under a threshold of
    0.9: only what the words point back at."""
    flat = CarryModel(np.zeros(1 << 16, dtype=np.float32), {"bits": 16, "threshold": 0.9})
    state = {source: State(slot_values=dict(held))}
    frame = state[target] = State(active_intent=f"Do{target}")
    carry_over(
        frame, target, state, services, History(),
        opening=False, model=flat, pointing=pointed(said),
    )  # fmt: skip
    return frame.slot_values


def test_words_pointing_back_carry_the_best_source_whatever_its_score() -> None:
    # Every pair scores 0.5, under a threshold of 0.9 (a new intent, not an opening frame):
    # nothing carries, unless the user points back ("a ride there"): then the place goes to
    # the one text slot required.
    shows = _service("Shows_1", [("venue", "Place of the show"), ("day", "Date of the show")], True)
    rides = _service("Rides_1", [("to", "Where to go"), ("day", "Date of the ride")], True)
    both = {"Shows_1": shows, "Rides_1": rides}
    held = {"venue": ["Hall"], "day": ["Friday"]}
    for said, expected in (
        ("a ride please", {}),
        ("is there a ride", {}),
        ("a ride there please", {"to": ["Hall"]}),
        ("a ride there that day", {"to": ["Hall"], "day": ["Friday"]}),
    ):
        assert _pointed_carry(both, "Shows_1", held, "Rides_1", said) == expected, said


def test_words_pointing_at_several_dates_carry_each_date_slot() -> None:
    # "a room that night" after a round trip points at one date: one required date slot
    # takes it; "for those same dates" at several: the flight's dates in its order, one to
    # each required date slot in the booking's order, whatever the model makes of each pair.
    flights = _service(
        "Air_1", [("leaves", "Start date of the trip"), ("returns", "Date of the return")], True
    )
    stays = _service(
        "Stay_1", [("check_in", "Date to arrive"), ("check_out", "Date to leave")], True
    )
    both = {"Air_1": flights, "Stay_1": stays}
    held = {"leaves": ["Friday"], "returns": ["the 14th"]}
    one = _pointed_carry(both, "Air_1", held, "Stay_1", "a room that night")
    assert len(one) == 1
    for said in ("a room for those same dates", "the same nights please"):
        every = _pointed_carry(both, "Air_1", held, "Stay_1", said)
        assert every == {"check_in": ["Friday"], "check_out": ["the 14th"]}, said
    assert pointed("something in the evening") == frozenset()


def test_the_word_of_a_booked_value_points_back_at_it() -> None:
    # "a cab to the stadium" after tickets to a game: the venue of what was booked (a value
    # of its result the system never told) goes to the ride's one text slot required; "the
    # city" names no value; a search's first result is nothing booked.
    shows = _service("Shows_1", [("city", "City of the show"), ("venue", "Where it is")], True)
    rides = _service("Rides_1", [("to", "Where to go")], True)
    both = {"Shows_1": shows, "Rides_1": rides}
    flat = CarryModel(np.zeros(1 << 16, dtype=np.float32), {"bits": 16, "threshold": 0.9})
    row = {"city": "Austin", "venue": "Oak Park Stadium"}
    for said, method, expected in (
        ("a cab to the stadium", "DoShows_1", {"to": ["Oak Park Stadium"]}),
        ("a cab from the city", "DoShows_1", {}),
        ("a cab to the stadium", "FindShows_1", {}),
    ):
        call = ServiceCall(method=method, parameters={"city": "Austin"})
        frame = Frame(service="Shows_1", actions=[act("NOTIFY_SUCCESS")], service_call=call)
        frame.service_results = [row]
        history = History([Turn(speaker="SYSTEM", utterance="Done.", frames=[frame])])
        state = {"Shows_1": State(slot_values={"city": ["Austin"]})}
        ride = state["Rides_1"] = State(active_intent="DoRides_1")
        carry_over(
            ride, "Rides_1", state, both, history,
            opening=False, model=flat, named=named_back(said),
        )  # fmt: skip
        assert ride.slot_values == expected, (said, method)


def test_adding_that_carries_what_was_booked_its_day_time_and_name() -> None:
    # "add that to my calendar" after a dentist was booked: the event takes the booking's
    # day, time and the dentist's name (a slot naming an entity into one naming one), not
    # the address into the name; "add a note" points at nothing.
    visits = _service(
        "Visits_1",
        [("dentist", "Name of the dentist"), ("day", "Date of the visit"),
         ("at", "Time of the visit"), ("address", "Address of the dentist")],
        True,
    )  # fmt: skip
    diary = _service(
        "Diary_1",
        [("title", "Name of the event"), ("when", "Date of the event"),
         ("hour", "Time of the event")],
        True,
    )  # fmt: skip
    both = {"Visits_1": visits, "Diary_1": diary}
    held = {"dentist": ["Smile Lab"], "day": ["monday"], "at": ["9:30 am"], "address": ["1 Elm"]}
    for said, expected in (
        ("add a note", {}),
        (
            "can you add that to my calendar too",
            {"title": ["Smile Lab"], "when": ["monday"], "hour": ["9:30 am"]},
        ),
    ):
        assert _pointed_carry(both, "Visits_1", held, "Diary_1", said) == expected, said


def test_two_slots_described_alike_are_told_apart_by_their_order() -> None:
    # The origin and the destination of a trip share their description but for one word: the
    # first in the schema's order is 1, the second 2, whatever their names; a slot described
    # otherwise, or of another value type, is in no pair.
    slots = [
        ("a", "Origin city for journey"),
        ("b", "Destination city for journey"),
        ("c", "Date of journey"),
        ("d", "Name of the driver"),
    ]
    trips = _service("Trips_1", slots, True)
    assert [slot_view(trips, n).pair for n, _ in slots] == [1, 2, 0, 0]
    swapped = _service("Trips_1", [slots[1], slots[0], *slots[2:]], True)
    assert slot_view(swapped, "b").pair == 1 and slot_view(swapped, "a").pair == 2
    dates = _service("Stay_1", [("x", "Start date of stay"), ("y", "End date of stay")], True)
    assert (slot_view(dates, "x").pair, slot_view(dates, "y").pair) == (1, 2)
    city = slot_view(_service("Shows_1", [("city", "City of the show")], True), "city")
    context = Context(opens=True, transactional=True, takes="req")
    found = [set(features(city, slot_view(trips, n), "state", 0, context)) for n in "ab"]
    assert {f for f in found[1] - found[0] if f.startswith("pr:")} == {
        "pr:0>2|vt=text|o=True|tr=True|in=req",
        "pr:0>2|vt=text|k=state",
    }


def test_tod_train_dst_writes_a_model_the_tracker_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["train", "dst", str(MINI), "--split", "dev", "--out", str(tmp_path), "--workers", "1"]
    )
    assert code == 0
    model = load_model(str(tmp_path / "carry.npz"))
    assert model.weights.shape == (2 << model.bits,) and model.fallback  # main, fallback
    assert not model.reworded  # the dataset has no SGD-X schemas, and says so
    assert "no SGD-X schemas of the dev split" in capsys.readouterr().err
    assert (tmp_path / "carry.json").is_file()


def test_tod_train_dst_cv_writes_the_held_out_errors(tmp_path: Path) -> None:
    errors = tmp_path / "errors.txt"
    args = ["train", "dst", str(MINI), "--split", "dev", "--out", str(tmp_path / "m")]
    assert main([*args, "--workers", "1", "--cv", "2", "--errors", str(errors)]) == 0
    report = errors.read_text()
    assert report.startswith("State errors by service and slot")
    assert "== " in report or "No state errors." in report


def test_a_dialogue_is_also_learned_from_in_one_rewording_the_same_on_every_run() -> None:
    ids = [f"{n}_{k:05d}" for n in range(1, 128) for k in range(0, 100, 7)]
    drawn = [rewording_of(i, 5) for i in ids]
    assert drawn == [rewording_of(i, 5) for i in ids]
    assert all(drawn.count(k) > len(ids) / 8 for k in range(5))  # each of the five


def test_tod_train_dst_learns_the_rewordings_beside_sgds_wording_and_scores_them(
    tmp_path: Path,
) -> None:
    root = sgdx_dataset(tmp_path, VARIANTS)
    for variant in VARIANTS:  # each variant words every slot anew
        path = root / "sgd_x" / "data" / variant / "dev" / "schema.json"
        schemas = json.loads(path.read_text())
        for schema in schemas:
            for slot in schema["slots"]:
                slot["description"] += f" wording{variant}"
        path.write_text(json.dumps(schemas))
    args = ["train", "dst", str(root), "--split", "dev", "--workers", "1"]
    assert main([*args, "--out", str(tmp_path / "model-sgd"), "--sgd-only"]) == 0
    no_sgdx = ["train", "dst", str(MINI), "--split", "dev", "--workers", "1", "--cv", "2"]
    assert main([*no_sgdx, "--sgdx", "--out", str(tmp_path / "none")]) != 0  # a clear error
    assert not (tmp_path / "none" / "carry.npz").exists()
    assert main([*args, "--out", str(tmp_path / "x"), "--cv", "2", "--sgdx"]) == 0
    original = load_model(str(tmp_path / "model-sgd" / "carry.npz"))
    reworded = load_model(str(tmp_path / "x" / "carry.npz"))
    assert not original.reworded and reworded.reworded
    # the main model knows the slots in SGD's wording only, the reworded model's follow its
    # and the fallback's weights and knows the rewordings' slots too
    assert reworded.weights.shape == (3 << original.bits,)
    assert reworded.config["known_slots"] == original.config["known_slots"] != []
    assert not set(reworded.config["reworded_slots"]) & set(original.config["known_slots"])
    assert len(reworded.config["reworded_slots"]) > 0
    report = json.loads((tmp_path / "x" / "carry.json").read_text())
    assert report["reworded_variants"] == len(VARIANTS)
    sgdx = report["cv"]["sgdx"]
    assert set(sgdx) == {*VARIANTS, "joint_goal_accuracy_mean", "joint_goal_accuracy_drop"}
    mean = sum(sgdx[v] for v in VARIANTS) / len(VARIANTS)
    assert abs(sgdx["joint_goal_accuracy_mean"] - mean) < 1e-3


def _dialogue(first: dict[str, list[str]], then: dict[str, list[str]]) -> Dialogue:
    def frame(service: str, intent: str, values: dict[str, list[str]]) -> dict[str, object]:
        actions = [{"act": "INFORM_INTENT", "slot": "intent", "values": [intent]}]
        state = {"active_intent": intent, "requested_slots": [], "slot_values": values}
        return {"service": service, "slots": [], "actions": actions, "state": state}

    system = {"service": "Shows_1", "slots": [], "actions": [{"act": "NOTIFY_SUCCESS"}]}
    turns = [
        {
            "speaker": "USER",
            "utterance": "a show",
            "frames": [frame("Shows_1", "DoShows_1", first)],
        },
        {"speaker": "SYSTEM", "utterance": "booked", "frames": [system]},
        {"speaker": "USER", "utterance": "a trip", "frames": [frame("Trips_1", "DoTrips_1", then)]},
    ]
    return Dialogue.model_validate(
        {"dialogue_id": "1_00000", "services": ["Shows_1", "Trips_1"], "turns": turns}
    )


def test_the_rewordings_train_the_reworded_model_only() -> None:
    # Rows in a rewording are the reworded model's only, and SGD's wording gives its rows to
    # all three models: the main and the fallback models are fitted exactly as without the
    # rewordings.
    def services(suffix: str) -> dict[str, ServiceSchema]:
        shows = [("city", f"City of the show{suffix}"), ("date", f"Date of the show{suffix}")]
        trips = [("to_city", f"City to go to{suffix}"), ("day", f"Date of travel{suffix}")]
        return {
            "Shows_1": _service("Shows_1", shows, True),
            "Trips_1": _service("Trips_1", trips, True),
        }

    sgd, reworded = services(""), services(" wording")
    plain: dict[Key, list[int]] = {}
    both: dict[Key, list[int]] = {}
    dialogue = _dialogue(
        {"city": ["Oslo"], "date": ["Friday"]}, {"to_city": ["Oslo"], "day": ["Friday"]}
    )
    dialogue_rows(dialogue, sgd, plain)
    dialogue_rows(dialogue, sgd, both, [reworded])
    size = 2 << BITS
    assert plain and all(max(f) < size for _, _, f in plain)
    assert {k: v for k, v in both.items() if max(k[2]) < size} == plain
    assert len(both) > len(plain)
    alone, beside = fit_rows(plain, schemas=sgd), fit_rows(both, schemas=sgd, reworded=[reworded])
    assert np.array_equal(beside.weights[:size], alone.weights) and np.any(alone.weights)
    assert np.any(beside.weights[size:]) and beside.reworded and not alone.reworded
    assert beside.config["known_slots"] == alone.config["known_slots"]


def test_the_shipped_model_loads() -> None:
    model = load_model()
    assert 0 < model.threshold < 1
    assert act("INFORM", "city", "x").slot == "city"


def test_a_value_the_system_proposed_for_another_slot_is_not_carried_there() -> None:
    # "Would you leave on Friday?" "No, on Thursday": Friday was proposed for the departure,
    # so a late carry does not put it in the return date (the model alone would: 0.5 each).
    shows = _service("Shows_1", [("date", "Date of the show")], True)
    trips = _service("Trips_1", [("day", "Date to leave"), ("back", "Date to return")], True)
    both = {"Shows_1": shows, "Trips_1": trips}
    flat = CarryModel(np.zeros(1 << 16, dtype=np.float32), {"bits": 16, "threshold": 0.4})
    for proposed, expected in ((False, {"back": ["Friday"]}), (True, {})):
        asked = [act("REQUEST", "day", ["Friday"]) if proposed else act("REQUEST", "day")]
        frame = Frame(service="Trips_1", actions=asked)
        history = History([Turn(speaker="SYSTEM", utterance="When?", frames=[frame])])
        state = {"Shows_1": State(slot_values={"date": ["Friday"]})}
        target = state["Trips_1"] = State(active_intent="DoTrips_1")
        held = (["back"], NOT_ASKED_THRESHOLD)
        carry_over(target, "Trips_1", state, both, history, opening=True, model=flat, held=held)
        assert target.slot_values == expected


def test_a_slot_the_model_was_trained_on_needs_more_for_a_late_carry() -> None:
    # Every candidate scores 0.07: over the late carry's 0.05 for a slot the model never saw
    # described, under the 0.1 for one described as a slot of its training services.
    shows = _service("Shows_1", [("date", "Date of the show")], True)
    trips = _service("Trips_1", [("day", "Date of travel")], True)
    both = {"Shows_1": shows, "Trips_1": trips}
    weights = np.zeros(1 << 16, dtype=np.float32)
    weights[list(hashed(["bias"]))] = np.log(0.07 / 0.93)
    known = [description_key(slot_view(trips, "day"))]
    for known_slots, expected in (([], {"day": ["Friday"]}), (known, {})):
        model = CarryModel(weights, {"bits": 16, "threshold": 0.4, "known_slots": known_slots})
        state = {"Shows_1": State(slot_values={"date": ["Friday"]})}
        frame = state["Trips_1"] = State(active_intent="DoTrips_1")
        held = (["day"], NOT_ASKED_THRESHOLD)
        carry_over(frame, "Trips_1", state, both, History(), opening=True, model=model, held=held)
        assert frame.slot_values == expected


def test_a_source_the_model_never_saw_is_also_scored_by_the_fallback_model() -> None:
    # The main model scores every pair 0.1 (under the 0.3 of a required slot as the frame
    # opens), the fallback model 0.9. The fallback counts only for a service the model was
    # trained on (every slot known) and a source slot it never saw.
    shows = _service("Shows_1", [("date", "Date of the show")], True)
    trips = _service("Trips_1", [("day", "Date of travel")], True)
    both = {"Shows_1": shows, "Trips_1": trips}
    weights = np.zeros(2 << 16, dtype=np.float32)
    weights[list(hashed(["bias"]))] = np.log(0.1 / 0.9)
    weights[[i + (1 << 16) for i in hashed(["bias"])]] = np.log(0.9 / 0.1)
    day, date = (description_key(slot_view(s, n)) for s, n in ((trips, "day"), (shows, "date")))
    cases = (([day], True, {"day": ["Friday"]}), ([day], False, {}), ([], True, {}))
    for known, fallback, expected in cases + (([day, date], True, {}),):
        config = {"bits": 16, "threshold": 0.4, "known_slots": known, "fallback": fallback}
        state = {"Shows_1": State(slot_values={"date": ["Friday"]})}
        frame = state["Trips_1"] = State(active_intent="DoTrips_1")
        carry_over(
            frame,
            "Trips_1",
            state,
            both,
            History(),
            opening=True,
            model=CarryModel(weights, config),
        )
        assert frame.slot_values == expected, (known, fallback)
    found = candidates(
        State(active_intent="DoTrips_1"), "Trips_1", state, both, History(), opening=True
    )
    strings = features(
        slot_view(shows, "date"), slot_view(trips, "day"), "state", 0, Context(True, True, "req")
    )
    assert found[0].fallback == tuple(i + (1 << 16) for i in hashed(unknown_source(strings)))
    assert not any(s.startswith(("s:", "x:")) for s in unknown_source(strings))


def test_a_service_the_main_model_does_not_know_is_scored_by_the_reworded_model() -> None:
    # The main and the fallback models score every pair 0.1 (under the 0.3 of a required slot
    # as the frame opens), the reworded model 0.9. The reworded model scores the frames of a
    # service whose slots the main model does not all know in SGD's wording (a service it
    # never saw, or one reworded); a model without it scores them with the main model.
    shows = _service("Shows_1", [("date", "Date of the show")], True)
    trips = _service("Trips_1", [("day", "Date of travel")], True)
    both = {"Shows_1": shows, "Trips_1": trips}
    weights = np.zeros(3 << 16, dtype=np.float32)
    for block, p in ((0, 0.1), (1, 0.1), (2, 0.9)):
        weights[[i + (block << 16) for i in hashed(["bias"])]] = np.log(p / (1 - p))
    day, date = (description_key(slot_view(s, n)) for s, n in ((trips, "day"), (shows, "date")))
    cases = (
        ([day, date], [], True, {}),
        ([date], [day], True, {"day": ["Friday"]}),  # known only as reworded
        ([], [], True, {"day": ["Friday"]}),
        ([], [], False, {}),
    )
    for known, reworded_slots, reworded, expected in cases:
        config = {
            "bits": 16,
            "threshold": 0.4,
            "known_slots": known,
            "reworded_slots": reworded_slots,
            "fallback": True,
            "reworded": reworded,
        }
        model = CarryModel(weights, config)
        assert model.knows(slot_view(trips, "day"), reworded=True) == bool(
            {day} & {*known, *reworded_slots}
        )
        state = {"Shows_1": State(slot_values={"date": ["Friday"]})}
        frame = state["Trips_1"] = State(active_intent="DoTrips_1")
        carry_over(frame, "Trips_1", state, both, History(), opening=True, model=model)
        assert frame.slot_values == expected, (known, reworded)
    found = candidates(
        State(active_intent="DoTrips_1"), "Trips_1", state, both, History(), opening=True
    )
    assert found[0].reworded == tuple(i + (2 << 16) for i in found[0].features)
