"""The conversation patterns, each one named unit (docs/patterns.md has an example of each).

They are driven by the dialogue (the system's last acts, the state, the results on offer) and
the schema (intent descriptions, slot names); the words they listen for are short lists of
English function phrases, never a service's values.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from tod_runtime.dialogue.history import names_another
from tod_runtime.dialogue.models import DONTCARE, Action, State, act
from tod_runtime.nlu.rules import CANCELS, SKIP_SAID, plain_words
from tod_runtime.patterns.base import PatternTurn
from tod_runtime.policy.history import entity_on_offer
from tod_runtime.policy.rules import offer
from tod_runtime.policy.talk import (
    MAX_SUGGESTIONS,
    QUESTIONS,
    brief_confirmation,
    first_tasks,
    next_step,
    task_phrase,
)
from tod_runtime.schema.models import IntentSchema, ServiceSchema
from tod_runtime.schema.roles import names_entity


def _says(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(?:^| )(?:{pattern})(?: |$)")


def _questions(actions: list[Action]) -> list[Action]:
    return [a for a in actions if a.act in QUESTIONS]


def as_before(turn: PatternTurn) -> dict[str, State]:
    """The state before the turn, as a turn that said nothing leaves it: the values and
    intents stand, nothing is being asked for (what the NLU read is undone)."""
    return {
        service: state.model_copy(update={"requested_slots": []})
        for service, state in turn.context.state.items()
    }


def offer_stands(turn: PatternTurn, service: str) -> bool:
    """Whether a result is on offer in ``service``: offered and not yet booked or refused,
    though the system's last turn may have answered a question about it ("The rent is
    $5,200.") rather than offered it again."""
    done = {"NOTIFY_SUCCESS", "REQ_MORE", "GOODBYE"}
    if any(a.act in done for a in turn.previous(service)):
        return False
    return bool(turn.context.history.current_offer(service))


# ------------------------------------------------------------------ repeat


@dataclass(frozen=True)
class Repeat:
    """ "sorry?", "what did you say?": the system says its last turn again."""

    name: str = "repeat"
    asks = re.compile(
        r"^(?:sorry|pardon|huh|what|come again|say (?:that|it) again|(?:can you |could you )?"
        r"repeat(?: that| it)?(?: please)?|what did you (?:just )?say|i didnt (?:catch|get) "
        r"(?:that|it)|what was that)$"
    )

    def applies(self, turn: PatternTurn) -> bool:
        return (
            bool(self.asks.match(turn.words)) and turn.context.history.last_system_frame is not None
        )

    def apply(self, turn: PatternTurn) -> PatternTurn:
        frame = turn.context.history.last_system_frame
        assert frame is not None
        return turn.amended(
            acts={},
            state=as_before(turn),
            answer=tuple(frame.actions),
            answer_service=frame.service,
        )


# ------------------------------------------------------------------ greetings


GREETING_WORDS = frozenset(
    {"hi", "hello", "hey", "heya", "hiya", "howdy", "yo", "greetings", "hola", "there", "good",
     "morning", "afternoon", "evening", "day", "sup", "whats", "up", "how", "are", "you", "doing"}
)  # fmt: skip


def suggestions(turn: PatternTurn, limit: int = MAX_SUGGESTIONS) -> tuple[list[str], list[str]]:
    """(descriptions, names) of at most ``limit`` intents, the ones whose descriptions (and
    their service's) are most like the words said first; at the start, with nothing to go on,
    the first intent of the first services."""
    scored: list[tuple[float, int, str, str]] = []
    words = turn.words
    for order, schema in enumerate(turn.context.schemas.values()):
        for intent in schema.intents:
            said = task_phrase(intent)
            text = f"{said} {schema.description}"
            score = fuzz.token_set_ratio(words, text.lower()) if words else 0.0
            scored.append((-score, order * 100 + len(scored), said, intent.name))
    scored.sort()
    if not words or all(s == 0 for s, *_ in scored):  # nothing to rank by: one per service
        return first_tasks(turn.context.schemas, limit)
    chosen = [(said, name) for _, _, said, name in scored[:limit]]
    return [d for d, _ in chosen], [n for _, n in chosen]


@dataclass(frozen=True)
class Greeting:
    """ "hi there", "good morning": greeted back with a few things the system can do at the
    start, or with the open question mid-dialogue; never a task started."""

    name: str = "greeting"

    def applies(self, turn: PatternTurn) -> bool:
        words = turn.words.split()
        return bool(words) and all(w in GREETING_WORDS for w in words)

    def apply(self, turn: PatternTurn) -> PatternTurn:
        open_questions = _questions(turn.previous())
        if open_questions:
            answer = (act("GREETING"), *open_questions)
        else:
            described, names = suggestions(turn.amended(text=""))
            answer = (act("GREETING", "intent", described, names),)
        service = turn.service or next(iter(turn.context.schemas), None)
        return turn.amended(acts={}, state=as_before(turn), answer=answer, answer_service=service)


# ------------------------------------------------------------------ clarification


@dataclass(frozen=True)
class Clarify:
    """The NLU could not tell two tasks apart ("whats on in chicago this afternoon": a
    restaurant or a hotel?): the user is asked which, by the intents' descriptions, and
    nothing is started. The NLU reads the answer ("the second", "a hotel") with the unclear
    turn's values (its ``clarified`` repair)."""

    name: str = "clarify"

    def applies(self, turn: PatternTurn) -> bool:
        return len(turn.choices) > 1 and all(s in turn.context.schemas for s, _ in turn.choices)

    def apply(self, turn: PatternTurn) -> PatternTurn:
        said, names = [], []
        for service, name in turn.choices:
            intent = turn.context.schemas[service].intent(name)
            phrase = (intent.description if intent else name).split(",")[0].rstrip(". ")
            said.append(phrase[:1].lower() + phrase[1:])
            names.append(f"{service}/{name}")
        answer = (act("CLARIFY", "intent", said, names),)
        service = turn.choices[0][0]
        return turn.amended(acts={}, state=as_before(turn), answer=answer, answer_service=service)


def left_after(turn: PatternTurn, service: str, dropped: str) -> State:
    """What a service's state becomes when its task ``dropped`` is called off: the search a
    dropped transaction followed (what was found stays, so "thai instead" searches again),
    else nothing."""
    search, _ = turn.context.history.last_search(service)
    call = search.service_call if search is not None else None
    if not _transaction(turn, service, dropped) or call is None:
        return State()
    values = {slot: [value] for slot, value in call.parameters.items()}
    return State(active_intent=call.method, slot_values=values)


# ------------------------------------------------------------------ cancellation


@dataclass(frozen=True)
class Cancel:
    """ "never mind", "forget it", "cancel that": the task under way is dropped, the system
    says so and asks what else. A transaction after a search goes back to that search (what
    was found stays, so "thai instead" searches again); any other task is cleared, so the next
    request starts clean. Acts for another service, or another intent, said in the same breath
    stay; a turn that gives the task new values ("ok nvm, 5 tickets") is no cancellation."""

    name: str = "cancel"
    says = CANCELS

    def _task(self, turn: PatternTurn) -> str | None:
        frame = turn.context.history.last_system_frame
        service = frame.service if frame is not None else None
        state = turn.context.state.get(service) if service else None
        return service if state is not None and state.active_intent != "NONE" else None

    def applies(self, turn: PatternTurn) -> bool:
        service = self._task(turn)
        if service is None or not self.says.search(turn.words):
            return False
        return not any(a.act == "INFORM" for a in turn.acts.get(service, []))

    def apply(self, turn: PatternTurn) -> PatternTurn:
        service = self._task(turn)
        assert service is not None
        dropped = turn.context.state[service].active_intent
        kept = [
            a
            for a in turn.acts.get(service, [])
            if a.act == "INFORM_INTENT" and dropped not in a.values
        ]
        # the task dropped first: a task asked for in the same breath is the turn's service
        acts = {service: kept or [act("NEGATE_INTENT", "intent", [dropped])]}
        acts.update({s: list(a) for s, a in turn.acts.items() if s != service})
        state = dict(turn.state)
        left = left_after(turn, service, dropped)
        state[service] = State(active_intent=kept[0].values[0]) if kept else left
        others = any(s != service for s in acts) or kept
        answer = None if others else (act("CANCEL"), act("REQ_MORE"))
        return turn.amended(acts=acts, state=state, answer=answer, answer_service=service)


# ------------------------------------------------------------------ declining a transaction


# English verbs of a transaction, beside each intent's own (the first word of its description)
TRANSACTION_VERBS = frozenset(
    ["book", "reserve", "buy", "order", "purchase", "pay", "rent", "schedule", "make", "add"]
)
NOT_NOW = re.compile(
    r"(?:^| )(?:no need to|dont need to|do not need to|dont|do not|not|never|wont|will not)"
    r" (?:want to |need to |wanna |have to |like to |plan to |going to |gonna )?(\w+)"
)


@dataclass(frozen=True)
class Decline:
    """ "no need to book, we'll just walk in" after a restaurant was found: the user names a
    transaction only to say it is not wanted. Whether the NLU, hearing the verb, opened it or
    understood nothing, the transaction is not started, the state stays as it was, and what
    else the turn asked is answered ("Is there anything else I can help you with?" when
    nothing)."""

    name: str = "decline"

    def _declined(self, turn: PatternTurn) -> tuple[str, str | None] | None:
        """The service and the transaction declined (None: the NLU opened none)."""
        said = {m.group(1) for m in NOT_NOW.finditer(turn.words)}
        if not said:
            return None
        for service, acts in turn.acts.items():
            schema = turn.context.schemas.get(service)
            before = turn.context.state.get(service)
            for a in acts:
                if a.act != "INFORM_INTENT" or not a.values or schema is None:
                    continue
                intent = schema.intent(a.values[0])
                if intent is None or not intent.is_transactional:
                    continue
                if before is not None and before.active_intent == intent.name:
                    continue  # the task under way: a correction, not a refusal
                if said & (TRANSACTION_VERBS | {intent.description.split()[0].lower()}):
                    return service, intent.name
        addressed = turn.service
        read = [a for acts in turn.acts.values() for a in acts if a.act != "NEGATE"]
        if read or addressed is None or not said & TRANSACTION_VERBS:
            return None
        return addressed, None

    def applies(self, turn: PatternTurn) -> bool:
        return self._declined(turn) is not None

    def apply(self, turn: PatternTurn) -> PatternTurn:
        found = self._declined(turn)
        assert found is not None
        service, intent = found
        acts = turn.acts_copy()

        def declining(a: Action) -> bool:  # "dont book it" read as a no: the no declines
            return (
                a.act == "NEGATE"
                if intent is None
                else a.act == "INFORM_INTENT" and intent in a.values
            )

        if service in acts:
            acts[service] = [a for a in acts[service] if not declining(a)]
        acts = {s: a for s, a in acts.items() if a}
        state = dict(turn.state)
        before = turn.context.state.get(service)
        if before is None:
            state.pop(service, None)
        elif intent is None and _transaction(turn, service, before.active_intent):
            # "hold off on the hotel, dont book it" at the confirmation: the booking under
            # way is called off, back to the search it followed
            state[service] = left_after(turn, service, before.active_intent)
            return turn.amended(
                acts={service: [act("NEGATE_INTENT", "intent", [before.active_intent])]},
                state=state,
                answer=(act("CANCEL"), act("REQ_MORE")),
                answer_service=service,
            )
        else:
            asked = [a.slot for a in acts.get(service, []) if a.act == "REQUEST" and a.slot]
            state[service] = before.model_copy(update={"requested_slots": asked})
        answer = None if acts else (act("REQ_MORE"),)
        return turn.amended(acts=acts, state=state, answer=answer, answer_service=service)


def _changed_booking(
    turn: PatternTurn, service: str, state: State, pick: dict[str, str]
) -> list[Action]:
    """At the confirmation of a transaction, the inputs it takes that ``pick`` (another
    result of the search) holds otherwise, as INFORM acts; none elsewhere."""
    if not _transaction(turn, service, state.active_intent):
        return []
    if not any(a.act == "CONFIRM" for a in turn.previous(service)):
        return []
    intent = turn.context.schemas[service].intent(state.active_intent)
    assert intent is not None
    held = state.slot_values
    return [
        act("INFORM", slot, [pick[slot]])
        for slot in sorted(intent.inputs)
        if slot in pick and held.get(slot) and pick[slot] not in held[slot]
    ]


def _transaction(turn: PatternTurn, service: str, name: str) -> bool:
    """Whether ``name`` is a transaction of ``service`` (a booking, not a search)."""
    schema = turn.context.schemas.get(service)
    intent = schema.intent(name) if schema else None
    return intent is not None and intent.is_transactional


# ------------------------------------------------------------------ skip


SKIP_PHRASES = _says(SKIP_SAID)
SKIP_ALONE = frozenset({"any", "anything", "whatever", "either", "any one", "anyone", "either one"})


@dataclass(frozen=True)
class Skip:
    """ "i don't care", "any is fine": the slot the phrase names ("i dont care which
    airline"), else the slot being asked for, takes "dontcare"; nothing when the
    understanding already gave the phrase to a slot."""

    name: str = "skip"

    def _slot(self, turn: PatternTurn) -> tuple[str, str] | None:
        words = turn.words
        if not (SKIP_PHRASES.search(words) or words in SKIP_ALONE):
            return None
        service = turn.service
        if service is None:
            return None
        informs = [a for a in turn.acts.get(service, []) if a.act == "INFORM"]
        if any(DONTCARE in a.values for a in informs):
            return None
        said = {a.slot for a in informs}
        named = self._named(turn, service, said)
        if named is not None:
            return named
        asked = [a.slot for a in turn.previous(service) if a.act == "REQUEST" and a.slot]
        return next(((service, slot) for slot in asked if slot not in said), None)

    def _named(self, turn: PatternTurn, service: str, said: set[str]) -> tuple[str, str] | None:
        """The active intent's slot whose name's words the user said ("genre doesn't matter")."""
        state = turn.state.get(service)
        schema = turn.context.schemas.get(service)
        intent = schema.intent(state.active_intent) if schema and state else None
        if intent is None:
            return None
        words = set(turn.words.split())
        for slot in [*intent.required_slots, *intent.optional_slots]:
            parts = {p for p in slot.split("_") if len(p) > 3}
            if slot not in said and parts and parts <= words:
                return service, slot
        return None

    def applies(self, turn: PatternTurn) -> bool:
        return self._slot(turn) is not None

    def apply(self, turn: PatternTurn) -> PatternTurn:
        found = self._slot(turn)
        assert found is not None
        service, slot = found
        acts = turn.acts_copy()
        acts.setdefault(service, []).append(act("INFORM", slot, [DONTCARE]))
        state = dict(turn.state)
        before = state.get(service) or turn.context.state.get(service) or State()
        values = {**before.slot_values, slot: [DONTCARE]}
        state[service] = before.model_copy(update={"slot_values": values})
        return turn.amended(acts=acts, state=state)


# ------------------------------------------------------------------ another


@dataclass(frozen=True)
class Another:
    """ "something else?", "any others?", "another one", "someone else": after an offer, the
    next result."""

    name: str = "another"
    says = _says(
        r"something else|anything else|any others?|another(?: one)?|other options?|others|"
        r"a different one|next one|what else|other ones?|anything different|what other|any other"
        r"|are there (?:any )?(?:more|other)|other choices?"
        r"|(?:some|any)(?:one|body|where|place) else"
    )

    def applies(self, turn: PatternTurn) -> bool:
        service = turn.service
        if service is None or not self.says.search(turn.words):
            return False
        if not offer_stands(turn, service):
            return False
        acts = {a.act for a in turn.acts.get(service, [])}
        return not acts & {"REQUEST_ALTS", "INFORM", "SELECT", "AFFIRM", "INFORM_INTENT"}

    def apply(self, turn: PatternTurn) -> PatternTurn:
        service = turn.service
        assert service is not None
        acts = turn.acts_copy()
        kept = [a for a in acts.get(service, []) if a.act not in ("NEGATE", "THANK_YOU")]
        acts[service] = [*kept, act("REQUEST_ALTS")]
        return turn.amended(acts=acts)


# ------------------------------------------------------------------ a result picked by a value


@dataclass(frozen=True)
class PickResult:
    """ "is there a show on the 9th?" while a search's results are on offer (the dates an
    artist plays): a value of a slot the search returns but does not take picks among its
    results; the search stays the task (the NLU, reading a value another search of the
    service takes, would start that one), and the policy offers the result holding it."""

    name: str = "pick_result"

    def _search(self, turn: PatternTurn) -> tuple[str, IntentSchema] | None:
        service = turn.service
        if service is None or not offer_stands(turn, service):
            return None
        before = turn.context.state.get(service)
        schema = turn.context.schemas.get(service)
        search = schema.intent(before.active_intent) if schema and before else None
        if search is None or search.is_transactional:
            return None
        acts = turn.acts.get(service, [])
        opened = [a.values[0] for a in acts if a.act == "INFORM_INTENT" and a.values]
        said = {a.slot for a in acts if a.act == "INFORM" and a.slot}
        other = schema.intent(opened[0]) if schema and opened else None
        if (
            not said
            or not said <= set(search.found)
            or (other is not None and other.is_transactional)
        ):
            return None
        return service, search

    def applies(self, turn: PatternTurn) -> bool:
        return self._search(turn) is not None

    def apply(self, turn: PatternTurn) -> PatternTurn:
        found = self._search(turn)
        assert found is not None
        service, search = found
        acts = turn.acts_copy()
        acts[service] = [a for a in acts[service] if a.act != "INFORM_INTENT"]
        tracked = turn.state.get(service) or State()
        state = {**turn.state, service: tracked.model_copy(update={"active_intent": search.name})}
        return turn.amended(acts=acts, state=state)


# ------------------------------------------------------------------ refinement


# comparative -> (what it compares: words of a slot's name or description, or "time"), and
# the direction wanted (-1 lower, +1 higher)
COMPARATIVES: tuple[tuple[re.Pattern[str], frozenset[str], int], ...] = (
    (_says(r"cheaper|less expensive|more affordable|lower price|less money|cheapest"),
     frozenset({"price", "cost", "fare", "rent", "fee", "expensive"}), -1),
    (_says(r"more expensive|pricier|fancier|more upscale"),
     frozenset({"price", "cost", "fare", "rent", "fee", "expensive"}), +1),
    (_says(r"later|after that|not so early|later in the day"), frozenset({"time"}), +1),
    (_says(r"earlier|sooner|before that|not so late"), frozenset({"time"}), -1),
    (_says(r"closer|nearer|not so far"), frozenset({"distance"}), -1),
)  # fmt: skip
# a part of the day asked for with something other than the offer ("got one leaving in the
# afternoon?", "something in the morning instead?"): its clock minutes, from and to
PARTS_OF_DAY: tuple[tuple[re.Pattern[str], int, int], ...] = (
    (_says(r"(?:one|something|anything|any) (?:\w+ ){0,2}in the morning"), 5 * 60, 12 * 60),
    (_says(r"(?:one|something|anything|any) (?:\w+ ){0,2}in the afternoon"), 12 * 60, 17 * 60),
    (_says(r"(?:one|something|anything|any) (?:\w+ ){0,2}in the evening"), 17 * 60, 24 * 60),
)
_AMOUNT = re.compile(r"^\$?\s*(\d[\d,]*(?:\.\d+)?)$")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")


def _within(minutes: float, now: float, window: tuple[int, int]) -> float:
    """A clock time's gain for a part of the day: the earliest in it first, none outside it
    or for the time on offer."""
    start, end = window
    return minutes - start + 1 if start <= minutes < end and minutes != now else 0.0


def _order(schema: ServiceSchema, slot: str) -> list[str]:
    """An ordered categorical slot's possible values, lower case, in order (cheap, moderate,
    expensive); [] for any other slot."""
    spec = schema.slot(slot)
    return [v.lower() for v in spec.possible_values] if spec and spec.is_categorical else []


def _measure(value: str, concept: frozenset[str], order: Sequence[str] = ()) -> float | None:
    """A result's value as a number to compare: its place among an ordered categorical
    slot's values, minutes for a clock time, else an amount."""
    if order:
        return float(order.index(value.lower())) if value.lower() in order else None
    if "time" in concept:
        clock = _CLOCK.match(value.strip())
        return int(clock.group(1)) * 60 + int(clock.group(2)) if clock else None
    amount = _AMOUNT.match(value.strip())
    return float(amount.group(1).replace(",", "")) if amount else None


@dataclass(frozen=True)
class Refine:
    """ "anything cheaper?", "a later one?", "something closer?" after an offer: of the results
    found, the best one that beats the one on offer in that respect (the cheapest, the next
    later) and is named otherwise (not the same hotel at another stay's price; a time is
    compared among results of any name: the next bus from the same station) is offered
    with that value; none: said, and the offer stands. A slot compared is found by its
    name's and description's words (a clock time for "later"); an ordered
    categorical slot (its possible values in order, "cheap", "moderate", "pricey") compares
    the results by their places in that order ("anything cheaper?" after a moderate place
    offers an inexpensive one the search found) and, when the search was made with a value
    of it, moves that value one step and the search runs again. At the confirmation of the
    transaction that followed the search ("hmm pricey. go back to the earlier one then"), the
    result picked gives the transaction its values and is confirmed again. A part of the day
    ("got one leaving in the afternoon?") offers the first result whose clock time is in it
    (``PARTS_OF_DAY``). The state is left
    as it was otherwise (writing the step into it when the search named no price cost train's
    held-out chat check 0.0028 of joint goal: SGD's users' "anything cheaper?" names none)."""

    name: str = "refine"

    def _wanted(
        self, turn: PatternTurn
    ) -> tuple[str, frozenset[str], int, tuple[int, int] | None] | None:
        """The service, what is compared, the direction wanted, and a part of the day."""
        service = turn.service
        if service is None or not offer_stands(turn, service):
            return None
        for says, concept, direction in COMPARATIVES:
            if says.search(turn.words):
                return service, concept, direction, None
        for says, start, end in PARTS_OF_DAY:
            if says.search(turn.words):
                return service, frozenset({"time"}), 0, (start, end)
        return None

    def applies(self, turn: PatternTurn) -> bool:
        return self._wanted(turn) is not None

    def _slots(self, turn: PatternTurn, service: str, concept: frozenset[str]) -> list[str]:
        schema = turn.context.schemas[service]
        return [
            slot.name
            for slot in schema.slots
            if concept & {*slot.name.split("_"), *plain_words(slot.description).split()}
        ]

    def apply(self, turn: PatternTurn) -> PatternTurn:
        found = self._wanted(turn)
        assert found is not None
        service, concept, direction, window = found
        slots = self._slots(turn, service, concept)
        state = turn.state.get(service) or State()
        search, _ = turn.context.history.last_search(service)
        results = (search.service_results or []) if search is not None else []
        current = entity_on_offer(turn.context.history, service, state) or {}
        schema = turn.context.schemas[service]
        naming = [s for s in current if names_entity(schema.slot(s))]
        # another, not the one on offer again at another price (another stay's); a later or
        # an earlier one is another at the same place (the next bus from the same station)
        if naming and "time" not in concept:
            results = [r for r in results if r.get(naming[0]) != current[naming[0]]]
        for slot in slots:
            order = _order(schema, slot)
            if state.slot_values.get(slot) and order:
                continue  # searched for: the search steps (``_step``)
            now = _measure(current.get(slot, ""), concept, order)
            if now is None:
                continue
            gains = [
                (direction * (m - now) if window is None else _within(m, now, window), r)
                for r in results
                if (m := _measure(r.get(slot, ""), concept, order)) is not None
            ]
            better = [(gain, r) for gain, r in gains if gain > 0]
            # the cheapest of the cheaper; the next of the later
            ranked = sorted(better, key=lambda pair: pair[0] if "time" in concept else -pair[0])
            return self._offer(turn, service, slot, state, ranked[0][1] if ranked else None)
        return self._step(turn, service, slots, state, direction)

    def _offer(
        self, turn: PatternTurn, service: str, slot: str, state: State, pick: dict[str, str] | None
    ) -> PatternTurn:
        if pick is None:  # nothing better: said, and the offer stands
            offered = turn.context.history.current_offer(service)
            answer = (act("INFORM_COUNT", "count", ["0"]), *offered)
        elif changed := _changed_booking(turn, service, state, pick):
            # "go back to the earlier one then" while the booking is confirmed: that one's
            # details, confirmed again
            values = state.slot_values | {a.slot: a.values for a in changed}
            booking = state.model_copy(update={"requested_slots": [], "slot_values": values})
            states = as_before(turn) | {service: booking}
            return turn.amended(acts={service: changed}, state=states)
        else:
            acts = offer(pick, turn.context.schemas[service], state)
            if slot not in {a.slot for a in acts}:
                acts.append(act("OFFER", slot, [pick[slot]]))
            answer = tuple(acts)
        return turn.amended(acts={}, state=as_before(turn), answer=answer, answer_service=service)

    def _step(
        self, turn: PatternTurn, service: str, slots: list[str], state: State, direction: int
    ) -> PatternTurn:
        """An ordered categorical slot one step in ``direction``; the search runs again."""
        schema = turn.context.schemas[service]
        for name in slots:
            slot = schema.slot(name)
            said = state.slot_values.get(name, [""])[0].lower()
            values = [v.lower() for v in slot.possible_values] if slot else []
            if slot is None or not slot.is_categorical or said not in values:
                continue
            index = values.index(said) + direction
            if 0 <= index < len(values):
                new = slot.possible_values[index]
                acts = turn.acts_copy()
                acts[service] = [act("INFORM", name, [new])]
                values_now = {**state.slot_values, name: [new]}
                states = {
                    **turn.state,
                    service: state.model_copy(update={"slot_values": values_now}),
                }
                return turn.amended(acts=acts, state=states)
        return turn


# ------------------------------------------------------------------ digression


AFFIRMS = _says(
    r"yes|yeah|yep|yup|sure|correct|right|perfect|exactly|works|fine|good|great|please|"
    r"confirm|go ahead|do it|book it|approv\w*"
)


@dataclass(frozen=True)
class Digression:
    """A question about the task's entity while the system is collecting details or
    confirming ("how much is it?", "which theater is it?"): answered from what is known (the
    state, the result on offer), then the open question is asked again; a question is never
    taken as a "yes" to a confirmation ("ok. which theater is it?" books nothing)."""

    name: str = "digression"
    question = re.compile(
        r"\?\s*$|(?:^|[.,!]\s*|\b(?:ok|okay|so|and|but|wait)\s+)(?:which|what|whats|where|"
        r"wheres|when|how|who|whos|is there|are there|does|do they|can i|will)\b",
        re.IGNORECASE,
    )

    def _open(self, turn: PatternTurn) -> tuple[str, list[Action], list[str]] | None:
        service = turn.service
        if service is None:
            return None
        previous = [a for a in turn.previous(service) if a.act in ("REQUEST", "CONFIRM")]
        acts = turn.acts.get(service, [])
        asked = [a.slot for a in acts if a.act == "REQUEST" and a.slot]
        confirming = any(a.act == "CONFIRM" for a in previous)
        questioned = confirming and bool(self.question.search(turn.text))
        if not previous or not (asked or questioned):
            return None
        if AFFIRMS.search(turn.words):  # "yes, and what's their number?": a yes and a question
            return None
        if any(a.act not in ("REQUEST", "AFFIRM", "THANK_YOU") for a in acts):
            return None
        return service, previous, asked

    def applies(self, turn: PatternTurn) -> bool:
        return self._open(turn) is not None

    def apply(self, turn: PatternTurn) -> PatternTurn:
        found = self._open(turn)
        assert found is not None
        service, previous, asked = found
        state = turn.state.get(service) or State()
        entity = entity_on_offer(turn.context.history, service, state) or {}
        answers = []
        for slot in asked:
            values = state.slot_values.get(slot) or ([entity[slot]] if slot in entity else [])
            if values and values[0] != DONTCARE:
                answers.append(act("INFORM", slot, values[:1]))
        acts = turn.acts_copy()
        questions = [a for a in acts.get(service, []) if a.act == "REQUEST"]  # not a "yes"
        if questions:
            acts[service] = questions
        else:
            acts.pop(service, None)
        if not answers:
            return turn.amended(acts=acts)
        again = brief_confirmation(previous, turn.context.schemas.get(service))
        return turn.amended(acts=acts, answer=(*answers, *again), answer_service=service)


# ------------------------------------------------------------------ the booking a search leads to


TAKES = _says(
    r"(?:book|get|reserve|buy|take|grab|want) (?:it|that|them|those|this|that one|this one)|"
    r"ill take (?:it|that|them|those)|sign me up|lets do (?:it|that)|id like that one"
)


@dataclass(frozen=True)
class TakeOffer:
    """ "ok get those", "i'll take it" after an offer, with nothing else understood: the
    service's transaction that follows the search is opened (``follow_search`` then fills
    it from the result on offer)."""

    name: str = "take_offer"

    def _meant(self, turn: PatternTurn) -> tuple[str, str] | None:
        service = turn.service
        if service is None or not TAKES.search(turn.words):
            return None
        previous = {a.act for a in turn.previous(service)}
        on_offer = turn.context.history.current_offer(service)
        if not on_offer or "CONFIRM" in previous:
            return None
        if {a.act for a in turn.acts.get(service, [])} - {"AFFIRM", "SELECT"}:
            return None
        search, _ = turn.context.history.last_search(service)
        call = search.service_call if search is not None else None
        schema = turn.context.schemas.get(service)
        if call is None or schema is None:
            return None
        return service, schema.transaction_after(call.parameters).name

    def applies(self, turn: PatternTurn) -> bool:
        return self._meant(turn) is not None

    def apply(self, turn: PatternTurn) -> PatternTurn:
        found = self._meant(turn)
        assert found is not None
        service, intent = found
        acts = turn.acts_copy()
        acts[service] = [act("INFORM_INTENT", "intent", [intent]), *acts.get(service, [])]
        tracked = turn.state.get(service) or State()
        state = {**turn.state, service: tracked.model_copy(update={"active_intent": intent})}
        return turn.amended(acts=acts, state=state)


@dataclass(frozen=True)
class FollowSearch:
    """ "great, book that one" after a search: of the service's transactions, the one that
    takes most of the search's parameters (a round trip's return date), then requires
    fewest others (a one-way search's booking needs no return date), is the one meant, when
    the one read follows the search less well; and what the booking needs that the result
    on offer holds (the flights' times) is taken from it, not asked for, unless the user
    named another that no result holds ("ok add lunch with sam that day" after an event on
    the calendar was offered)."""

    name: str = "follow_search"

    def _better(self, turn: PatternTurn) -> tuple[str, str, str] | None:
        service = turn.service
        if service is None:
            return None
        opened = [
            a.values[0] for a in turn.acts.get(service, []) if a.act == "INFORM_INTENT" and a.values
        ]
        schema = turn.context.schemas.get(service)
        search, _ = turn.context.history.last_search(service)
        call = search.service_call if search is not None else None
        read = schema.intent(opened[0]) if schema and opened else None
        if schema is None or call is None or read is None or not read.is_transactional:
            return None
        best = schema.transaction_after(call.parameters)
        better = schema.follows(best, call.parameters) > schema.follows(read, call.parameters)
        return service, read.name, (best if better else read).name

    def applies(self, turn: PatternTurn) -> bool:
        return self._better(turn) is not None

    def apply(self, turn: PatternTurn) -> PatternTurn:
        found = self._better(turn)
        assert found is not None
        service, read, meant = found
        acts = turn.acts_copy()
        acts[service] = [
            act("INFORM_INTENT", "intent", [meant]) if a.act == "INFORM_INTENT" else a
            for a in acts[service]
        ]
        state = dict(turn.state)
        tracked = state.get(service) or State()
        values = dict(tracked.slot_values)
        said = turn.acts.get(service, [])
        entity = entity_on_offer(turn.context.history, service, tracked, said) or {}
        offer = turn.context.history.current_offer(service)
        naming = offer[0].slot if offer and offer[0].slot in entity else None
        if naming and names_another(said, naming, [entity[naming]]):
            entity = {}  # "ok add lunch with sam that day" after an event was offered
        intent = turn.context.schemas[service].intent(meant)
        for slot in intent.required_slots if intent else []:
            if slot not in values and slot in entity:
                values[slot] = [entity[slot]]
        update = {"active_intent": meant, "slot_values": values}
        state[service] = tracked.model_copy(update=update)
        return turn.amended(acts=acts, state=state)


# ------------------------------------------------------------------ a new task


@dataclass(frozen=True)
class NextTask:
    """After a task is done ("Your room is booked"), details for the same service without an
    intent ("then seattle, 4 star, from the 1st for 3 nights") start a new task: the service's
    search whose slots take most of them, from those details alone (nothing of the finished
    booking carries over)."""

    name: str = "next_task"

    def _informed(self, turn: PatternTurn) -> tuple[str, list[str]] | None:
        service = turn.service
        if service is None or not any(a.act == "NOTIFY_SUCCESS" for a in turn.previous(service)):
            return None
        acts = turn.acts.get(service, [])
        if any(a.act == "INFORM_INTENT" for a in acts):
            return None
        slots = [a.slot for a in acts if a.act == "INFORM" and a.slot]
        return (service, slots) if slots else None

    def applies(self, turn: PatternTurn) -> bool:
        return self._informed(turn) is not None

    def apply(self, turn: PatternTurn) -> PatternTurn:
        found = self._informed(turn)
        assert found is not None
        service, slots = found
        schema = turn.context.schemas[service]
        searches = [i for i in schema.intents if not i.is_transactional] or list(schema.intents)

        def takes(intent: IntentSchema) -> int:
            own = {*intent.required_slots, *intent.optional_slots}
            return sum(slot in own for slot in slots)

        intent = max(searches, key=takes)  # the first of equals
        acts = turn.acts_copy()
        acts[service] = [act("INFORM_INTENT", "intent", [intent.name]), *acts[service]]
        said = {a.slot: a.values for a in acts[service] if a.act == "INFORM" and a.values}
        values = {slot: list(v) for slot, v in said.items()}
        tracked = turn.state.get(service)
        if tracked is not None:  # the tracker's reading of the values said (canonical forms)
            values |= {s: tracked.slot_values[s] for s in said if s in tracked.slot_values}
        asked = tracked.requested_slots if tracked is not None else []
        fresh = State(active_intent=intent.name, requested_slots=asked, slot_values=values)
        state = {**turn.state, service: fresh}
        return turn.amended(acts=acts, state=state)


# ------------------------------------------------------------------ acknowledgement


ACKNOWLEDGES = re.compile(
    r"^(?:(?:yes|yeah|yep|ok|okay|k|alright|all right|great|good|fine|cool|nice|perfect|"
    r"wonderful|awesome|excellent|i see|got it|sounds (?:good|great|fine)|that (?:works|is fine|"
    r"will work|sounds good)|thats (?:fine|good|great|okay|ok|wonderful)|noted|understood|sure|"
    r"it works for me)(?: |$))+(?:(?:then|now|for me|thanks|thank you)(?: |$))*$"
)


@dataclass(frozen=True)
class Acknowledge:
    """ "okay", "great", "sounds good" when nothing else was understood: taken as heard, with
    the open question asked again, else "anything else?" (never "Sorry, I did not get
    that")."""

    name: str = "acknowledge"

    def applies(self, turn: PatternTurn) -> bool:
        if not ACKNOWLEDGES.match(turn.words):
            return False
        if not turn.acts:
            return True
        # a "yes" with no question open says nothing to the policy; to "anything else?" it
        # asks what else the system can do (the policy answers that)
        said = {a.act for acts in turn.acts.values() for a in acts}
        asked = _questions(turn.previous()) or any(a.act == "REQ_MORE" for a in turn.previous())
        return said <= {"AFFIRM"} and not asked

    def apply(self, turn: PatternTurn) -> PatternTurn:
        service = turn.service or next(iter(turn.context.schemas), None)
        questions = _questions(turn.previous())
        if service is not None and questions and _asked_again(turn, service, questions):
            # "sure" to a question already asked twice: the policy goes on (it looks up what
            # the user does not give, "Do you have a specific restaurant in mind?")
            return turn.amended(acts={service: [act("AFFIRM")]}, state=as_before(turn))
        answer = tuple(questions) or (act("REQ_MORE"),)
        return turn.amended(acts={}, state=as_before(turn), answer=answer, answer_service=service)


THANKS = re.compile(
    r"^(?:(?:ok|okay|great|perfect|awesome|cool|lovely|sounds good|that works)(?: |$))*"
    r"(?:thanks|thank you|thx|ty|cheers)(?: (?:so much|a lot|very much))?$"
)


@dataclass(frozen=True)
class ThanksToConfirm:
    """ "thanks!" and nothing else to "Please confirm ...": a yes (the user thanks for the
    booking they asked for), never a silent drop of it for "anything else?"."""

    name: str = "thanks_to_confirm"

    def applies(self, turn: PatternTurn) -> bool:
        service = turn.service
        if service is None or not THANKS.match(turn.words):
            return False
        said = {a.act for acts in turn.acts.values() for a in acts}
        confirming = any(a.act == "CONFIRM" for a in turn.previous(service))
        return confirming and said <= {"THANK_YOU", "AFFIRM"}

    def apply(self, turn: PatternTurn) -> PatternTurn:
        assert turn.service is not None
        return turn.amended(acts={turn.service: [act("AFFIRM")]})


def _asked_again(turn: PatternTurn, service: str, questions: list[Action]) -> bool:
    """Whether the system turn before the last asked ``questions`` too."""
    systems = [t for t in reversed(turn.context.history) if t.speaker == "SYSTEM"]
    if len(systems) < 2:
        return False
    frame = systems[1].frame(service)
    before = {(a.act, a.slot) for a in frame.actions} if frame is not None else set()
    return all((q.act, q.slot) in before for q in questions)


# ------------------------------------------------------------------ out of scope


@dataclass(frozen=True)
class OutOfScope:
    """Nothing understood and no question open: one short sentence and at most three things
    the system can do, the likeliest for the words said, never the whole list; with a
    search's result on offer, the step it leads to ("Sorry, I did not get that. Would you
    like to schedule a visit?")."""

    name: str = "out_of_scope"

    def applies(self, turn: PatternTurn) -> bool:
        return not turn.acts and not _questions(turn.previous())

    def apply(self, turn: PatternTurn) -> PatternTurn:
        service = turn.service or next(iter(turn.context.schemas), None)
        schema = turn.context.schemas.get(service or "")
        state = turn.context.state.get(service or "")
        step = next_step(schema, state, turn.context.history) if schema else []
        if step:  # a result on offer: what it leads to, not what else the system can do
            return turn.amended(answer=(act("FALLBACK"), *step), answer_service=service)
        described, names = suggestions(turn)
        answer = (act("FALLBACK", "intent", described, names),)
        return turn.amended(answer=answer, answer_service=service)
