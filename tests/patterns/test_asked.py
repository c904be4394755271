"""The detail a question asks for, read from the schema's names and descriptions
(tod_runtime/patterns/asked.py), on a handwritten bus service."""

from __future__ import annotations

from tod_runtime.dialogue.context import TurnContext
from tod_runtime.dialogue.models import Frame, ServiceCall, State, Turn, act
from tod_runtime.patterns import PatternTurn
from tod_runtime.patterns.asked import AskedSlot, score
from tod_runtime.schema.loader import Schemas
from tod_runtime.schema.models import ServiceSchema, SlotSchema

COACHES = {
    "service_name": "Coaches",
    "description": "Find and book coach journeys",
    "slots": [
        {
            "name": "origin",
            "description": "City the coach is leaving from",
            "is_categorical": False,
            "possible_values": [],
        },
        {
            "name": "destination",
            "description": "City the coach is going to",
            "is_categorical": False,
            "possible_values": [],
        },
        {
            "name": "day",
            "description": "Date of the journey",
            "is_categorical": False,
            "possible_values": [],
        },
        {
            "name": "departure_stop",
            "description": "Stop where the coach is leaving from",
            "is_categorical": False,
            "possible_values": [],
        },
        {
            "name": "arrival_stop",
            "description": "Stop where the coach is going to",
            "is_categorical": False,
            "possible_values": [],
        },
        {
            "name": "ticket_cost",
            "description": "Price of one ticket",
            "is_categorical": False,
            "possible_values": [],
        },
        {
            "name": "seats",
            "description": "Number of seats to buy",
            "is_categorical": False,
            "possible_values": [],
        },
    ],
    "intents": [
        {
            "name": "FindCoach",
            "description": "Find a coach journey",
            "is_transactional": False,
            "required_slots": ["origin", "destination", "day"],
            "optional_slots": {},
            "result_slots": [
                "origin",
                "destination",
                "day",
                "departure_stop",
                "arrival_stop",
                "ticket_cost",
            ],
        },
        {
            "name": "BuySeats",
            "description": "Buy seats on a coach",
            "is_transactional": True,
            "required_slots": ["origin", "destination", "day", "seats"],
            "optional_slots": {},
            "result_slots": ["origin", "destination", "day", "seats", "ticket_cost"],
        },
    ],
}
ROW = {
    "origin": "Leeds", "destination": "York", "day": "2019-03-04", "departure_stop": "Park Row",
    "arrival_stop": "Rougier Street", "ticket_cost": "12",
}  # fmt: skip


def _turn(text: str, acts: list, schema_data: dict = COACHES, row: dict = ROW) -> PatternTurn:
    schema = ServiceSchema.model_validate(schema_data)
    params = {k: row[k] for k in ("origin", "destination", "day")}
    system = Turn(
        speaker="SYSTEM",
        utterance="How about Park Row?",
        frames=[
            Frame(
                service="Coaches",
                actions=[act("OFFER", "departure_stop", ["Park Row"])],
                service_call=ServiceCall(method="FindCoach", parameters=params),
                service_results=[row],
            )
        ],
    )
    values = {k: [v] for k, v in params.items()}
    state = {"Coaches": State(active_intent="FindCoach", slot_values=values)}
    context = TurnContext(Schemas([schema]), [system], state)
    return PatternTurn(text, context, {"Coaches": acts} if acts else {}, state)


def test_the_slot_whose_words_the_question_says_replaces_a_worse_reading() -> None:
    turn = _turn("what stop does it leave from?", [act("REQUEST", "arrival_stop")])
    assert AskedSlot().applies(turn)
    after = AskedSlot().apply(turn)
    assert after.acts["Coaches"] == [act("REQUEST", "departure_stop")]
    assert after.state["Coaches"].requested_slots == ["departure_stop"]
    right = _turn("where does it arrive, which stop?", [act("REQUEST", "arrival_stop")])
    assert not AskedSlot().applies(right)  # the NLU's reading is as good: kept


def test_a_question_read_as_nothing_asks_for_the_slot_it_names() -> None:
    after = AskedSlot().apply(_turn("hmm how much is a ticket?", []))
    assert after.acts["Coaches"] == [act("REQUEST", "ticket_cost")]


def test_a_question_about_what_the_service_does_not_know_asks_for_nothing() -> None:
    assert not AskedSlot().applies(_turn("is there parking near the stop?", []))
    assert not AskedSlot().applies(_turn("ok book it for 2", [act("INFORM", "seats", ["2"])]))


def test_how_much_asks_for_a_price_not_a_count_of_tickets() -> None:
    schema = ServiceSchema.model_validate(COACHES)
    cost, seats = schema.slot("ticket_cost"), schema.slot("seats")
    assert cost is not None and seats is not None
    assert score("how much are the tickets", cost) > score("how much are the tickets", seats)


def test_what_kind_of_asks_for_a_kind_not_a_name() -> None:
    """ "what kind of movie is it?" asks for the genre, not the movie's name."""

    def slot(name: str, description: str) -> SlotSchema:
        return SlotSchema(
            name=name, description=description, is_categorical=False, possible_values=[]
        )

    name, genre = slot("movie_name", "Name of the movie"), slot("genre", "Genre of the movie")
    assert score("what kind of movie is it", genre) > score("what kind of movie is it", name)
    assert score("what movie is it", name) > score("what movie is it", genre)


def test_a_relative_which_or_a_suggestion_is_no_question() -> None:
    said = [act("INFORM", "seats", ["2"])]
    assert not AskedSlot().applies(_turn("i want one which costs little, for 2 seats?", said))
    assert not AskedSlot().applies(_turn("how about the cost of 2 seats", said))
    assert AskedSlot().applies(_turn("2 seats. ok how much is a ticket", said))


def test_a_slot_named_whole_beats_one_sharing_a_word_of_its_name() -> None:
    schema = ServiceSchema.model_validate(COACHES)
    cost, stop = schema.slot("ticket_cost"), schema.slot("departure_stop")
    assert cost is not None and stop is not None
    # "ticket" and "cost" both name ticket_cost; "stop" alone names departure_stop in part
    assert score("whats the ticket cost", cost) == 2 * 2 + 1 + 3
    assert score("which departure stop", stop) == 2 * 2 + 1
    assert score("which stop", stop) == 2


def test_question_words_typed_without_the_apostrophe_ask_the_same() -> None:
    from tod_runtime.patterns.asked import ASKS_FOR

    where, when = ASKS_FOR[2][0], ASKS_FOR[1][0]
    assert where.search("wheres that theater") and where.search("where's that theater")
    assert when.search("whens it start") and not where.search("somewhere nice")


def test_a_verb_of_going_names_the_slot_its_noun_names() -> None:
    leg = {"is_categorical": False, "possible_values": []}
    slots = [
        {"name": "return_departure_time", "description": "Departure time of the return leg"} | leg,
        {"name": "return_arrival_time", "description": "Arrival time of the return leg"} | leg,
    ]
    schema = ServiceSchema.model_validate(COACHES | {"slots": slots, "intents": []})
    leaves, lands = schema.slot("return_departure_time"), schema.slot("return_arrival_time")
    assert leaves is not None and lands is not None
    question = "what time does the return leave"
    assert score(question, leaves) == score(question, lands) + 2  # "leave" names the departure
    question = "when does the return land"
    assert score(question, lands) == score(question, leaves) + 2


def test_leaving_names_the_origin_and_arriving_the_destination() -> None:
    """ "which station does it leave from?" on a service whose stations are "Name of the bus
    terminus at the origin" and "... at the destination" (SGD's Buses_2): the origin's."""
    leg = {"is_categorical": False, "possible_values": []}
    slots = [
        {"name": "origin_station_name", "description": "Name of the bus terminus at the origin"}
        | leg,
        {"name": "destination_station_name",
         "description": "Name of the bus terminus at the destination"} | leg,
    ]  # fmt: skip
    schema = ServiceSchema.model_validate(COACHES | {"slots": slots, "intents": []})
    origin, destination = (
        schema.slot("origin_station_name"),
        schema.slot("destination_station_name"),
    )
    assert origin is not None and destination is not None
    question = "which station does it leave from"
    assert score(question, origin) > score(question, destination)
    question = "which station does it arrive at"
    assert score(question, destination) > score(question, origin)
    question = "which station does it get into"  # "into": where it arrives
    assert score(question, destination) > score(question, origin)


def test_getting_in_is_arriving_and_two_stops_named_alike_are_both_told() -> None:
    """ "what stop does it get in at?" asks for the arrival stop; "what stop is it?" names
    the two stops alike: both are told when the NLU read no question, not "Sorry, I did not
    get that"; "where does it
    arrive?" is no question about something the service does not know."""
    ask = AskedSlot()
    arriving = ask.apply(_turn("what stop does it get in at?", []))
    assert arriving.acts["Coaches"] == [act("REQUEST", "arrival_stop")]
    both = ask.apply(_turn("what stop is it?", []))
    assert both.acts["Coaches"] == [
        act("REQUEST", "departure_stop"),
        act("REQUEST", "arrival_stop"),
    ]
    assert not ask.applies(_turn("what stop is it?", [act("REQUEST", "arrival_stop")]))
    assert not ask.applies(_turn("what stop is it?", [act("REQUEST", "ticket_cost")]))
    arrives = ask.apply(_turn("where does it arrive", []))
    assert arrives.acts["Coaches"][-1:] == [act("REQUEST", "arrival_stop")]


def test_when_naming_a_date_and_a_time_alike_asks_for_both() -> None:
    leaves = {"name": "leave_time", "description": "Time the coach leaves"}
    slots = [*COACHES["slots"], leaves | {"is_categorical": False, "possible_values": []}]
    find = dict(COACHES["intents"][0])
    find["result_slots"] = [*find["result_slots"], "leave_time"]
    timed = COACHES | {"slots": slots, "intents": [find, COACHES["intents"][1]]}
    read = [act("REQUEST", "leave_time")]
    after = AskedSlot().apply(_turn("ok when is it?", read, timed, ROW | {"leave_time": "18:00"}))
    assert after.acts["Coaches"] == [act("REQUEST", "day"), act("REQUEST", "leave_time")]
    assert after.state["Coaches"].requested_slots == ["day", "leave_time"]


def test_where_about_an_address_is_told_the_place_it_is_the_address_of() -> None:
    """ "where is it played?": the venue and its address ("Address of event venue" is the
    venue's, not the event's), whether the question's words decide or the NLU's reading
    stands; a question about the address alone, without "where", asks for it alone."""
    extra = [
        {"name": "event_name", "description": "Name of the event"},
        {"name": "venue", "description": "Exact venue of the event"},
        {"name": "venue_address", "description": "Address of event venue"},
    ]
    slots = [
        *COACHES["slots"],
        *(s | {"is_categorical": False, "possible_values": []} for s in extra),
    ]
    find = dict(COACHES["intents"][0])
    find["result_slots"] = [*find["result_slots"], "event_name", "venue", "venue_address"]
    staged = COACHES | {"slots": slots, "intents": [find, COACHES["intents"][1]]}
    row = ROW | {"event_name": "Cubs Vs Mets", "venue": "Wrigley Field", "venue_address": "1 St"}
    read = [act("REQUEST", "venue_address")]
    for text in ("where is it played?", "where is it?"):
        after = AskedSlot().apply(_turn(text, read, staged, row))
        assert after.acts["Coaches"] == [act("REQUEST", "venue"), act("REQUEST", "venue_address")]
    assert not AskedSlot().applies(_turn("whats the address?", read, staged, row))


def test_how_long_after_a_booking_asks_for_the_booked_rides_duration() -> None:
    """ "how long will it take?" after a taxi was called (no search before it): the
    booking's result holds the duration, and "how long" asks for one ("long" and "take" are
    no words the service lacks)."""
    free = {"is_categorical": False, "possible_values": []}
    rides = ServiceSchema.model_validate(
        {
            "service_name": "Rides",
            "description": "Taxi",
            "slots": [
                {"name": "destination", "description": "Destination for taxi ride"} | free,
                {"name": "riders", "description": "Number of riders"} | free,
                {"name": "ride_duration",
                 "description": "Approximate duration of ride to the destination"} | free,
            ],
            "intents": [
                {"name": "GetRide", "description": "Call a taxi", "is_transactional": True,
                 "required_slots": ["destination", "riders"], "optional_slots": {},
                 "result_slots": ["destination", "riders", "ride_duration"]},
            ],
        }
    )  # fmt: skip
    call = ServiceCall(method="GetRide", parameters={"destination": "Alcatraz", "riders": "2"})
    booked = Turn(
        speaker="SYSTEM",
        utterance="...",
        frames=[
            Frame(
                service="Rides",
                actions=[act("NOTIFY_SUCCESS")],
                service_call=call,
                service_results=[{"destination": "Alcatraz", "riders": "2", "ride_duration": "18"}],
            )
        ],
    )
    state = {"Rides": State(active_intent="GetRide", slot_values={"destination": ["Alcatraz"]})}
    context = TurnContext(Schemas([rides]), [booked], state)
    misread = {"Rides": [act("REQUEST", "riders")]}
    turn = PatternTurn("and how long will it take?", context, misread, state)
    assert AskedSlot().applies(turn)
    acts = AskedSlot().apply(turn).acts["Rides"]
    assert [(x.act, x.slot) for x in acts] == [("REQUEST", "ride_duration")]


def test_a_question_that_moved_the_task_to_another_service_asks_for_what_it_names() -> None:
    """ "how much is a ticket?" while the train service asks for a detail, moved to the coach
    service (a sister that knows the cost): the task opened there, and the cost asked for;
    a task opened on the service the system spoke for is no question the NLU missed."""
    schema = ServiceSchema.model_validate(COACHES)
    values = {k: [ROW[k]] for k in ("origin", "destination", "day")}
    state = {"Coaches": State(active_intent="FindCoach", slot_values=values)}
    opened = [act("INFORM_INTENT", "intent", ["FindCoach"])]
    for spoke, applies in (("Trains", True), ("Coaches", False)):
        asking = Frame(service=spoke, actions=[act("REQUEST", "day")])
        system = Turn(speaker="SYSTEM", utterance="What day?", frames=[asking])
        context = TurnContext(Schemas([schema]), [system], state)
        turn = PatternTurn("how much is a ticket?", context, {"Coaches": opened}, state)
        assert AskedSlot().applies(turn) is applies, spoke
        if applies:
            asked = AskedSlot().apply(turn).acts["Coaches"]
            assert asked == [*opened, act("REQUEST", "ticket_cost")]
