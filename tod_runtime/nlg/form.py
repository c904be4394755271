"""Defects of form in a template people typed, found in its text and its key alone.

A mined template is said as people typed it (in sentence case: ``signature.cased``), so a
wording with a defect of form reads wrong on any service that says it. Six are found here,
for any schema, and the generator passes such a template over for the key's others (or for
smaller pieces and composed wording, which say every value):

* ``question_stop``: a question ended with a full stop ("So, do you wish to rebook the
  appointment with {doctor_name} on {appointment_date}.", "How about {name} at {venue}.");
  a question is a sentence that opens, after leading words set off by commas ("So,",
  "Okay,"), with an auxiliary and its subject ("do you", "would that", "can I") or with a
  question word and an auxiliary or "about" ("What should", "How about");
* ``unasked``: a key with ``REQ_MORE`` whose template asks nothing ("I couldn't find
  anything else.", mined for a failed search and said for a refused rental): the act is a
  question, and a reply without a question mark leaves it unsaid;
* ``stray_article``: an article before a verb or a stop ("Please tell me the are where
  you'd like to stay", a typo of SGD's crowd workers);
* ``count_one``: a count and one item's details in one phrase ("I found {count} movie
  called {movie_name}.", "I found {count} showtime at {time} in {name}."), a singular noun
  between them: true of one result only, said for 7 "I found 7 movies called The Curse of
  La Llorona", for 20 buses "I found 20 showtime at 6:20 am in Union Station";
* ``unnoticed``: a key with ``NOTIFY_SUCCESS`` or ``NOTIFY_FAILURE`` and other acts whose
  template says no more sentences without a value than the key has acts said without one
  (a yes or no, an intent): the notice has no sentence of its own, so it went unsaid
  ("The cost is {price}.", mined for a booked room and said for one: "The cost is $60.
  Smoking is not allowed inside the place.", the booking never said);
* ``presumes``: "either" with no "or" ("Sorry, I couldn't book that either."): it presumes
  an earlier failure the key does not carry, and reads wrong after the first.
"""

from __future__ import annotations

import re

AUX = frozenset(
    {"do", "does", "did", "would", "will", "shall", "should", "can", "could", "is", "are",
     "was", "were", "may", "might", "am"}
)  # fmt: skip
QUESTION_WORDS = frozenset({"what", "when", "where", "which", "who", "whom", "whose", "how"})
SUBJECTS = frozenset(
    {"you", "i", "we", "they", "it", "he", "she", "there", "this", "that", "these", "those",
     "the", "a", "an", "your", "my", "any", "anything"}
)  # fmt: skip
ASKING = frozenset({"REQ_MORE"})  # acts that are a question whatever their slots
NOTICES = frozenset({"NOTIFY_SUCCESS", "NOTIFY_FAILURE"})  # acts said in a sentence of their own
_LEAD = re.compile(r"^(?:[A-Za-z']+,\s+)+")  # "So, ", "Okay, great, "
_TOKEN = re.compile(r"\{[^}]*\}|[A-Za-z']+")
_STRAY_ARTICLE = re.compile(r"\b(?:[Tt]he|an?) (?:is|are|was|were)\b|\b(?:[Tt]he|an)[.,!?]")
_COUNT_ONE = re.compile(
    r"\{[a-z_]*count[a-z_]*\} (?:[A-Za-z]+ )?[A-Za-z]*[^s\W] "
    r"(?:called|named|titled|at|in|on|for|with|from|that|which)\b"
)
_SENTENCES = re.compile(r"(?<=[.?!])\s+")
_EITHER, _OR = re.compile(r"\beither\b", re.I), re.compile(r"\bor\b", re.I)


def is_question(sentence: str) -> bool:
    """Whether a sentence (its end stop aside) is worded as a question."""
    words = _TOKEN.findall(_LEAD.sub("", sentence.strip()).lower())
    if len(words) < 2:
        return False
    first, second = words[0], words[1]
    if first in AUX:
        return second in SUBJECTS or second.startswith("{")
    return first in QUESTION_WORDS and (second in AUX or second == "about")


def _sentences(template: str) -> list[str]:
    """A template's sentences, the last ended with the stop the reply gives it if it has
    none ("When are you leaving and where are you going")."""
    sentences = _SENTENCES.split(template.strip())
    if sentences and sentences[-1] and sentences[-1][-1] not in ".?!":
        sentences[-1] += "."
    return sentences


def form_defects(template: str, key: str = "") -> list[str]:
    """The defects of form of ``template`` (said for the acts of ``key``); [] when none."""
    found = []
    sentences = _sentences(template)
    if any(s.endswith(".") and is_question(s[:-1]) for s in sentences):
        found.append("question_stop")
    if "?" not in template and any(item in ASKING for item in key.split(" ")):
        found.append("unasked")
    if _STRAY_ARTICLE.search(template):
        found.append("stray_article")
    if _COUNT_ONE.search(template):
        found.append("count_one")
    if _unnoticed(sentences, key.split(" ")):
        found.append("unnoticed")
    if _EITHER.search(template) and not _OR.search(template):
        found.append("presumes")
    return found


def _unnoticed(sentences: list[str], items: list[str]) -> bool:
    """Whether a notice of ``items`` (a key's acts) has no sentence of its own: no more
    sentences without a placeholder than the acts said without one (``INFORM(bool=True)``)."""
    if len(items) < 2 or NOTICES.isdisjoint(items):
        return False
    plain = sum("{" not in s for s in sentences)
    return plain <= sum("=" in item for item in items)


def repaired(template: str) -> str:
    """``template`` with each question it ends with a stop ended with a question mark ("What
    should I name it? And for what time?"): said when no template of the acts is free of
    defects, rather than smaller pieces that read worse."""
    sentences = _sentences(template)
    return " ".join(
        s[:-1] + "?" if s.endswith(".") and is_question(s[:-1]) else s for s in sentences
    )
