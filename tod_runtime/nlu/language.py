"""English only: a light guess at whether a message is not in English, and an NLU wrapper that
declines such messages with a polite notice. The rules NLU is wrapped by default (it reads
English only); ``[options.nlu] english_only = false`` turns the check off, and an NLU that
reads other languages simply does not use the wrapper.

Two signals, no model: mostly non-Latin letters (Cyrillic, Chinese, Arabic, ...), or more
function words of a common Latin-script language (French, Spanish, German, Italian,
Portuguese, Dutch) than English ones. Words shared with English, and names such as "Le
Bernardin" or "Casa Bonita" inside an English sentence, do not tip it.
"""

from __future__ import annotations

import re

from tod_runtime.dialogue.context import TurnContext, UserActs
from tod_runtime.nlu.base import NLU, NotUnderstood

NOT_ENGLISH = "Sorry, I can only understand English for now. Could you rephrase that?"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


ENGLISH = _words(
    "a an the i you we it is are am was be to of and or for with at on in my me please "
    "want would like need can could what where when how which this that there book find "
    "get some any yes no thanks thank hello hi"
)
OTHER = _words(
    # French
    "je tu il nous vous est sont une des du les au aux avec pour dans sur mais oui non merci "
    "bonjour voudrais veux cherche réserver où quel quelle ce cette "
    # Spanish and Portuguese
    "yo quiero busco una unos unas el los las del con por para pero sí gracias hola dónde "
    "qué reservar mesa eu quero um uma os obrigado olá onde "
    # German and Dutch
    "ich möchte suche einen eine der das und mit für ist nicht bitte danke hallo wo ik wil "
    "een het niet alstublieft "
    # Italian
    "vorrei cerco sono della grazie ciao dove prenotare"
)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def looks_non_english(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    if sum(1 for c in letters if not c.isascii()) / len(letters) > 0.3:
        return True
    words = [w.lower() for w in _WORD.findall(text)]
    english = sum(w in ENGLISH for w in words)
    other = sum(w in OTHER for w in words)
    return other >= 2 and other > english


class EnglishOnly:
    """Wraps an NLU: a message that looks non-English is declined before the NLU sees it."""

    def __init__(self, inner: NLU) -> None:
        self.inner = inner

    async def parse(self, text: str, context: TurnContext) -> UserActs:
        if looks_non_english(text):
            raise NotUnderstood(NOT_ENGLISH)
        return await self.inner.parse(text, context)
