"""The latest user turn read into facts (`RuleReasoner.extract_turn`): casual spellings, a paraphrase
of the user, the slot patterns, then what the turns around it change (a correction kept, a trip, a job
left, a break-up, an answer to the assistant's question). Imported when a text is first read
(rules.py): a process that only compares claims never compiles these patterns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..models import Unextracted
from ..registry import RegistryEntry
from .answers import as_statement, question_before
from .base import Extraction, Message, latest_turn
from .breakups import ended_with
from .casual import spelled_turn
from .corrections import corrected_statement, kept
from .extraction import extract_turn
from .frames_at import at_company
from .paraphrase import first_person_turn
from .prototypes import PrototypeClassifier
from .quitting import leaving, left_unnamed
from .trips import for_a_trip


def read_turn(messages: Sequence[Message] | str, registry: Sequence[RegistryEntry],
              classifier: PrototypeClassifier | None) -> Extraction:
    """The facts of the latest user turn and what reads as a statement but gave none."""
    messages = spelled_turn(messages)  # "im at meta now", "i dont eat meat": as said with apostrophes
    user, _assistant = latest_turn(messages)
    user = first_person_turn(user)  # an agent's "The user lives in Berlin": "I live in Berlin" (paraphrase.py)
    found = extract_turn(user, classifier=classifier, registry=registry)
    if not found.facts and (job := at_company(user)):  # "im at meta now", said alone: a job
        found = Extraction((job,))
    found = kept(messages, user, found, classifier)  # "I work at Google." "Sorry, Vegan": no diet
    found = for_a_trip(user, found)  # "Switch me to CET, I'll be in Berlin next week": no zone now
    if left := left_unnamed(messages, user, found.facts):  # "I work at Google." ... "I quit my job": not:Google
        found = Extraction((*found.facts, *left), tuple(u for u in found.unextracted if not leaving(u.text)))
    found = ended_with(messages, user, found)  # "My girlfriend is Jess." "We broke up": not:girlfriend:Jess
    question = None if found.facts else question_before(messages)
    statement = as_statement(question, user) if question else None
    if statement is None and not found.facts:  # "Correction: Mountain time": the earlier statement, corrected
        statement, missed = corrected_statement(messages, user)
        if statement is None:
            return Extraction((), (missed,)) if missed else found
        pair = extract_turn(statement, classifier=classifier, registry=registry)
        return Extraction(tuple(replace(f, source=user) for f in pair.facts), pair.unextracted) if pair.facts else found
    if statement is None:
        return found
    pair = extract_turn(statement, classifier=classifier, registry=registry)  # "PST" to "what time zone...?"
    if pair.facts:
        return Extraction(tuple(replace(f, source=user) for f in pair.facts))
    return Extraction((), found.unextracted or (Unextracted(
        user, f"an answer to the question {question.strip()[-120:]!r} that no rule reads as {statement!r}"),))
