"""The learned NLU: the learned scorers choose the frame (its service and active intent) and
the requested slots; the rules NLU finds the values and the dialogue acts (affirm, negate,
select, ...) for the chosen service.

Options (``[options.nlu]``): ``model``, a path to a model trained with ``tod train nlu``
(default: the one shipped in the package); ``english_only`` as for the rules NLU.
"""

from __future__ import annotations

from functools import lru_cache

from tod_runtime.dialogue.context import TurnContext, UserActs
from tod_runtime.dialogue.models import CLOSING_ACTS, Action, act
from tod_runtime.nlu.learned.model import NLUModel, load_model
from tod_runtime.nlu.learned.scorer import Scorer, view
from tod_runtime.nlu.rules import RulesNLU, dedupe
from tod_runtime.plugins import ComponentContext


@lru_cache(maxsize=4)
def cached_model(path: str | None) -> NLUModel:
    return load_model(path)


class LearnedNLU(RulesNLU):
    def __init__(self, ctx: ComponentContext) -> None:
        super().__init__(ctx)
        path = ctx.options.get("model")
        self.scorer = Scorer(cached_model(str(path) if path else None), self.schemas)

    async def parse(self, text: str, context: TurnContext) -> UserActs:
        last = context.history.last_system_turn
        last_service = last.frames[0].service if last and last.frames else None
        system = last.frames[0].actions if last and last.frames else []
        intents = {service: frame.active_intent for service, frame in context.state.items()}
        turn = view(text, last_service, [(a.act, a.slot, a.values) for a in system], intents)
        predicted = self.scorer.intent(turn)
        service = predicted[0] if predicted else turn.current[0]
        if service is None or service not in self.schemas:
            return {}
        schema = self.schemas[service]
        acts: list[Action] = []
        if predicted and intents.get(service, "NONE") != predicted[1]:
            acts.append(act("INFORM_INTENT", "intent", [predicted[1]]))
        same = service == last_service
        acts += self._dialogue_acts(text.lower(), {a.act for a in system}, same, bool(acts))
        slot_acts: dict[str, list[str]] = {}
        for a in context.history.last_system_acts(service):
            if a.slot:
                slot_acts.setdefault(a.slot, []).append(a.act)
        acts += [act("REQUEST", s) for s in self.scorer.requested(turn, service, slot_acts)]
        requested = [a.slot for a in system if a.act == "REQUEST"] if same else []
        acts += await self._values(text, service, schema, requested)
        if predicted is None and intents.get(service, "NONE") != "NONE" and same:
            # The scorer says the task is over ("not for now, thanks"): closing acts only,
            # so the tracker ends the frame's intent when the system asked for more.
            acts = [a for a in acts if a.act in CLOSING_ACTS] or [act("NEGATE")]
        return {service: dedupe(acts)} if acts else {}
