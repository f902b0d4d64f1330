"""A short answer to the assistant's question ("What time zone are you in?" -> "Pacific,
please"): read as the statement the pair makes ("My time zone is Pacific"), or reported.

Agents ask, users answer in a word. The latest user turn alone ("PST", "Berlin", "At
Shopify") reads as no statement about the user, so it was dropped without a word. Here
the question just before it picks a statement template by its topic; the answer fills
it and goes through the same patterns as any turn. An answer no template reads is
reported in `unextracted`, with the question, never dropped in silence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .base import Message, as_messages

MAX_ANSWER_WORDS = 8
"""Longer than this, a reply is a statement of its own, read as it is."""

_TOPICS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(q, re.IGNORECASE), t) for q, t in (
    (r"\btime ?zone\b", "My time zone is {}"),
    (r"\bwhere (?:do|did) you (?:live|stay)\b|\b(?:which|what) (?:city|country|town)\b|\bwhere are you (?:based|located|"
     r"living)\b|\bwhere(?:'s| is) home\b", "I live in {}"),
    (r"\bwhere do you work\b|\bwho do you work for\b|\b(?:your|which) (?:employer|company)\b", "I work at {}"),
    (r"\bwhat do you do\b|\byour (?:job|occupation|profession|role|job title)\b", "I work as {}"),
    (r"\bhow old are you\b|\byour age\b", "I'm {} years old"),
    (r"\b(?:when is |when's )?your birthday\b|\bwhen were you born\b", "My birthday is {}"),
    (r"\byour (?:first |full )?name\b|\bwhat should i call you\b", "My name is {}"),
    (r"\be-?mail\b", "My email is {}"),
    (r"\bphone\b|\bnumber (?:can|should) (?:i|we)\b", "My phone number is {}"),
    (r"\bhow much (?:do|did) you (?:make|earn|take home|bring in)\b|\bwhat do you (?:make|earn)\b"
     r"|\byour (?!(?:desired|expected|target|ideal|dream|minimum|asking)\b)(?:[\w-]+ )?(?:salary|income|pay|wages?|"
     r"earnings)\b(?!\s+(?:expectations?|range|budget|requirements?|goal|target|cut|raise))", "My income is {}"),
    (r"\byour (?:monthly )?mortgage(?: payment)?\b(?!\s+budget)", "My mortgage is {}"),  # not a budget either
    (r"\byour (?:monthly )?rent\b(?!\s+budget)|\byou pay (?:in|for) rent\b", "My rent is {}"),
    (r"\bbudget\b|\bhow much (?:can|do|would|are) you\b", "My budget is {}"),
    (r"\ballerg", "I'm allergic to {}"),
    (r"\blanguages?\b", "I speak {}"),
    (r"\bdiet\b|\bdietary\b", "I'm {}"),
    (r"\bhow (?:should|can|do you want|would you like) (?:we|i|us|me) to (?:contact|reach)|\bcontact you\b"
     r"|\breach you\b", "Contact me by {}"),
    (r"\bpets?\b", "I have {}"),
))
_POLITE = re.compile(r"^(?:(?:it's|it is|that's|that would be|i'd say|i think|probably|definitely|actually|um+|uh+|well|oh|so|"
                     r"sure|yes|yeah|ok|okay)\b[,\s]*)+|[,\s]*\b(?:please|thanks|thank you|i think|i guess)\b[.!\s]*$",
                     re.IGNORECASE)


_CORRECTED = re.compile(r"^not\s+[^,;]+[,;]\s*(?:but\s+|it's\s+)?(?P<a>.+)$|^(?P<b>[^,;]+?)[,;]?\s+not\s+[^,;]+$", re.IGNORECASE)


_NOT_ABOUT_THE_USER_NOW = re.compile(
    r"\b(?:your (?:\w+ )?(?:boss|manager|partner|wife|husband|spouse|girlfriend|boyfriend|sister|brother|siblings?|mom|mum|"
    r"mother|dad|father|parents?|son|daughter|kids?|child(?:ren)?|friends?|colleagues?|co-?workers?|team|family|"
    r"assistant|client|customer)s?(?:'s)?|his|her|their|did you|were you|was your|were your|before|previous(?:ly)?|"
    r"used to|last (?:year|time|job)|flying|heading|going to|travell?ing to|visit(?:ing)?|trip to|meeting|event|call is|"
    r"appointment|would you like|do you want (?:me|us) to|should i(?! call you)|shall i)\b", re.IGNORECASE)
"""A question about someone else, the past, a trip or an event, or an offer: its answer is
not a statement about the user as they are."""
_NO_VALUE = re.compile(
    r"\b(?:i|i'm|i'd|i've|my|mine|we|our|you|your|not|no|nope|none|nothing|prefer|rather|secret|whatever|dunno|"
    r"know|sure|idea|pass|skip|same|later|depends|maybe|unsure|n/a|is|are|was|were|am|be|been|have|has|had|do|does|"
    r"did|don't|can't|won't|like|love|think|guess|say|share|tell|nowhere|nobody|noone|unemployed|jobless|retired|"
    r"between jobs|out of work|looking for work|job hunting|self-employed)\b", re.IGNORECASE)
"""Words of a sentence, a refusal ("prefer not to say", "same as my dad") or of no value ("nowhere right
now", "between jobs": no employer), not of a value
(not "us" or "me": "the US", "ME" are places)."""
_FOR_WHAT = re.compile(r"\b(?:for|on) (?:the|a|an|your|this|that) (?P<w>[a-z]+)\b", re.IGNORECASE)


def question_before(messages: Sequence[Message] | str) -> str | None:
    """The assistant's last message before the latest user turn, when it asks something."""
    if isinstance(messages, str):
        return None
    msgs = as_messages(messages)
    users = [i for i, m in enumerate(msgs) if m["role"] == "user"]
    if not users or users[-1] == 0 or msgs[users[-1] - 1]["role"] != "assistant":
        return None  # no question right before the turn (one answered already asks nothing of this one)
    asked = msgs[users[-1] - 1]["content"]
    return asked if "?" in asked else None


_YES = re.compile(r"^(?:yes|yeah|yep|yup|sure|of course|definitely|absolutely|correct|i do|i am|i have|still)\b", re.I)
_NO = re.compile(r"^(?:no|nope|nah|not (?:anymore|any more|really|now)|i don't|i'm not|i am not|i haven't|never)\b"
                 r"|^(?:of course|definitely|absolutely|certainly|i do|i am|i have)\s+not\b", re.I)
_UNSURE = re.compile(r"\b(?:know|sure|think so|remember|idea|maybe|perhaps|kind of|sort of|sometimes|learning|trying|"
                     r"depends|not yet|a bit|a little)\b", re.I)
"""An answer that says neither yes nor no ("I don't know", "I'm not sure", "still learning")."""
_YES_NO = re.compile(r"^(?:so |and |also )?(?:(?P<aux>do) you (?:still |currently |now |also |already )?(?P<verb>speak|have|own|"
                     r"live in|work (?:at|for|as)|eat|drink|smoke)|(?P<aux2>are) you (?:still |currently |now |also |already )?"
                     r"(?P<state>allergic to|an? |vegetarian|vegan|pescatarian|married|single|divorced|engaged|based in|from))"
                     r"(?P<rest>[\w ,'-]*)$", re.IGNORECASE)
"""A question about the user's standing facts (not "Are you okay with Italian food tonight?")."""
_THIS_TIME = re.compile(r"\b(?:tonight|today|tomorrow|this|these|that|those|next|option|one|right now|for the)\b", re.I)
_IS_FINE = re.compile(r"\s+(?:is|would be|works|will do)(?:\s+(?:fine|good|ok|okay|great|best|perfect))?$", re.IGNORECASE)


def yes_no_statement(asked: str, answer: str) -> str | None:
    """A yes or no to a question about the user ("Do you speak Spanish?" "Yes, fluently"; "Are
    you still vegetarian?" "No, not anymore"): the statement it makes, or None."""
    q = _YES_NO.match(asked.strip())
    said = answer.strip()
    no = _NO.match(said)
    yes = _YES.match(said) and not no
    if q is None or not (yes or no) or _UNSURE.search(said) or _NOT_ABOUT_THE_USER_NOW.search(asked) \
            or _THIS_TIME.search(asked):
        return None
    aux = (q.group("aux") or q.group("aux2")).lower()
    rest = re.sub(r"^any\s+", "", f"{q.group('verb') or q.group('state')}{q.group('rest')}".strip())
    if yes:
        return {"do": f"I {rest}", "are": f"I'm {rest}", "have": f"I have {rest}"}[aux]
    return {"do": f"I don't {rest}", "are": f"I'm not {rest} anymore", "have": f"I don't have {rest}"}[aux]


def as_statement(question: str, answer: str) -> str | None:
    """The statement a short answer makes to `question`, or None (no topic, or no answer)."""
    asked = re.split(r"(?<=[.!])\s+", question.rsplit("?", 1)[0])[-1]  # the question itself, not the chat before it
    if (said := yes_no_statement(asked, answer)) is not None:
        return said
    said = _IS_FINE.sub("", _POLITE.sub("", answer.strip().rstrip(".!")).strip(" ,.!"))  # "Mia is fine": Mia
    corrected = _CORRECTED.match(said)  # "Not Paris, Lyon", "Lyon, not Paris": the answer is Lyon
    said = (corrected.group("a") or corrected.group("b")).strip() if corrected else said
    if not said or len(said.split()) > MAX_ANSWER_WORDS or _NO_VALUE.search(said):
        return None
    if _NOT_ABOUT_THE_USER_NOW.search(asked):
        return None
    value = re.sub(r"^(?:at|in|from|by|as)\s+", "", said, flags=re.IGNORECASE)
    for topic, template in _TOPICS:
        if topic.search(asked):
            what = _FOR_WHAT.search(asked) if template.startswith("My budget") else None
            return f"My budget for the {what.group('w')} is {value}" if what else template.format(value)
    return None
