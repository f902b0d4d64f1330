"""The user in the third person, read as the user's own words: a claim's stored rewrite ("The user
lives in Berlin", `first_person`, read back by entity resolution) and an agent's summary of a turn.

LLM agents often pass `remember` (MCP) or `POST /v1/messages` a paraphrase rather than the
user's turn: "User works at Google as an engineer", "The user no longer eats meat", "The user's
wife is named Anna", "The user said their time zone is PST". Each sentence whose subject is the
user is put in the first person ("I work at Google as an engineer", "I no longer eat meat", "My
wife is named Anna", "My time zone is PST") before the rules read the turn, so the same rules
read both. What is not such a sentence is left as it is: a sentence about someone else ("The
user's brother lives in Rome" is "My brother lives in Rome", still the brother's), a noun phrase
("The user interface looks great", "User error"), a question.

Only "their" (and "themselves") is read as the user inside a sentence whose subject is the user;
"his" and "her" are, only right after "the user said" and its kin ("The user mentioned that her
wife is Anna"), where nobody else has been named yet.
"""

from __future__ import annotations

import re

_USER = r"(?:the\s+)?user"
_SAID = re.compile(rf"^{_USER}\s+(?:said|says|mentioned|mentions|told\s+(?:me|us)|tells\s+(?:me|us)|stated|states|"
                   r"noted|notes|reported|reports|confirmed|confirms|explained|explains|shared|shares|"
                   r"indicated|indicates|clarified|clarifies)\s+(?:that\s+)?", re.I)
_PRONOUN_SUBJECT = [  # after "the user said (that)": the pronoun is the user
    (re.compile(r"^(?:they|he|she)\s+(?:are|is)\b|^(?:they're|he's|she's)\b", re.I), "the user is"),
    (re.compile(r"^(?:they|he|she)\s+(?:were|was)\b", re.I), "the user was"),
    (re.compile(r"^(?:they|he|she)\s+(?:have|has)\b|^(?:they've)\b", re.I), "the user has"),
    (re.compile(r"^(?:they|he|she)\s+(?:don't|doesn't|do\s+not|does\s+not)\b", re.I), "the user doesn't"),
    (re.compile(r"^(?:their|his|her)\b", re.I), "the user's"),
    (re.compile(r"^(?:they|he|she)\b", re.I), "the user"),
]
_FIXED = [  # "the user" + a form of be, have, do: its first-person form
    (re.compile(rf"^{_USER}'s\b", re.I), "my"),
    (re.compile(rf"^{_USER}\s+(?:is|are)\s+not\b|^{_USER}\s+(?:isn't|aren't)\b", re.I), "i'm not"),
    (re.compile(rf"^{_USER}\s+(?:is|are)\b", re.I), "i'm"),
    (re.compile(rf"^{_USER}\s+(?:was|were)\b", re.I), "i was"),
    (re.compile(rf"^{_USER}\s+(?:has|have)\s+not\b|^{_USER}\s+(?:hasn't|haven't)\b", re.I), "i haven't"),
    (re.compile(rf"^{_USER}\s+(?:has|have)\b", re.I), "i have"),
    (re.compile(rf"^{_USER}\s+(?:does\s+not|doesn't|don't|do\s+not)\b", re.I), "i don't"),
    (re.compile(rf"^{_USER}\s+(?:did\s+not|didn't)\b", re.I), "i didn't"),
]
_ADVERBS = (r"(?:no\s+longer|never|always|usually|only|also|really|absolutely|often|sometimes|now|still|just|actually|recently|"
            r"mostly|currently|finally|generally|definitely|already|rarely|typically|normally)")
_VERB = re.compile(rf"^{_USER}((?:\s+{_ADVERBS})*)\s+([a-z][a-z'-]*)\b", re.I)
_MODALS = frozenset(("can", "can't", "cannot", "will", "won't", "would", "wouldn't", "should", "shouldn't", "might",
                     "must", "may", "could", "couldn't", "used", "plans", "wants", "needs", "shall", "ought", "need"))
_PAST = re.compile(r"(?:ed|left|quit|got|went|came|became|began|made|took|gave|found|bought|sold|lost|won|met|ran|saw|"
                   r"kept|spent|sent|moved|grew|had|did|said|told|lived|worked|switched|started|stopped)$", re.I)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_THEIR = re.compile(r"\btheir\b", re.I)
_THEMSELVES = re.compile(r"\bthemselves\b", re.I)


def _base(verb: str) -> str | None:
    """The first-person form of a third-person verb ("lives" -> "live"), a past or modal form as
    it is; None when `verb` is no verb form of the user ("interface", "error")."""
    low = verb.lower()
    if low in _MODALS or _PAST.search(low):
        return verb
    if low in ("goes", "does", "has"):
        return {"goes": "go", "does": "do", "has": "have"}[low]
    if low.endswith("ies") and len(low) > 4:
        return verb[:-3] + "y"
    if re.search(r"(?:ss|sh|ch|x|zz|o)es$", low):
        return verb[:-2]
    if low.endswith("s") and not low.endswith("ss") and len(low) > 2:
        return verb[:-1]
    return None


def first_person(text: str, *, strict: bool = False) -> str:
    """One sentence whose subject is the user, in the first person, lower case ("The user lives
    in Berlin" -> "i live in Berlin", "The user's diet is keto" -> "my diet is keto"): a claim's
    stored rewrite read back by the first-person patterns (entity resolution reads what a claim
    says), and each sentence of an agent's summary (`first_person_turn`). `strict`: a word after
    "the user" that is no verb form of the user ("The user interface ...") leaves the sentence
    as it is; otherwise it is kept as the verb (a claim's rewrite has one there)."""
    text = text.strip()
    said = _SAID.match(text)
    if said:
        rest = text[said.end():]
        for pattern, repl in _PRONOUN_SUBJECT:
            if m := pattern.match(rest):
                text = repl + rest[m.end():]
                break
        else:
            return text  # "The user said PST is their zone": left as it is
    for pattern, repl in _FIXED:
        if m := pattern.match(text):
            return _theirs(repl + text[m.end():], possessive=repl == "my")
    m = _VERB.match(text)
    if not m:
        return text
    base = _base(m.group(2))
    if base is None:
        if strict:
            return text
        base = m.group(2)
    return _theirs(f"i{m.group(1)} {base}" + text[m.end():], possessive=False)


def _theirs(text: str, *, possessive: bool) -> str:
    """`their` in a sentence whose subject is the user is the user's ("The user lives with their
    wife"); in "the user's brother ..." it may be the brother's, so it is left."""
    if possessive:
        return text
    return _THEMSELVES.sub("myself", _THEIR.sub("my", text))


def first_person_turn(text: str) -> str:
    """`text` with each sentence whose subject is the user in the first person (the module's
    doc); `text` itself when there is none."""
    if not re.search(r"\buser\b", text, re.I):
        return text
    parts = _SENTENCE.split(text.strip())
    out = [first_person(p, strict=True) for p in parts]
    return text if out == parts else " ".join(p[:1].upper() + p[1:] for p in out)
