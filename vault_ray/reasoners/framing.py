"""Words that are not the user's statement of how things are now, found before any slot
is read: quoted speech and pasted code (someone's words, a story, a text to translate),
a past state ("I was vegetarian for 5 years in college"), a hypothetical or a pretence
("if I moved to London I'd be on GMT", "pretend I live in London"), and a negation the
prototype reading cannot carry ("I don't speak Spanish at all"). Each is reported in
`unextracted` with its reason, never stored as a fact.
"""

from __future__ import annotations

import re

_FENCED = re.compile(r"```.*?(?:```|$)|`[^`\n]+`", re.DOTALL)
_MARKUP = re.compile(r"<(script|style)\b.*?(?:</\1\s*>|$)|</?[a-z][^<>]*>", re.IGNORECASE | re.DOTALL)
_QUOTED = re.compile(r"\"[^\"\n]+\"|“[^”\n]+”|„[^“”\n]+[“”]|«[^»\n]+»|(?<![\w'])'(?:[^'\n]|'(?=\w))+'(?!\w)")
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|im|my|me|mine|we|we're|our)\b", re.IGNORECASE)
_SPEECH = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|im|my|me|mine|we|we're|our|you|you're|your)\b|\?\s*$", re.IGNORECASE)

CODE = "code or markup, not a statement of the user's"
QUOTED = "quoted words (someone's speech, a story, a text to translate), not a statement of the user's"


def set_aside(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The turn without its code, markup and quoted first-person words, and what was taken
    out, each with its reason: 'She texted "I work at Google"' reads as 'She texted'."""
    taken: list[tuple[str, str]] = []

    def code(m: re.Match[str]) -> str:
        if m.group(0).strip("`").strip() and _FIRST_PERSON.search(m.group(0)):
            taken.append((m.group(0).strip(), CODE))
        return " "

    def quoted(m: re.Match[str]) -> str:
        inner = m.group(0)[1:-1].strip()
        if _SPEECH.search(inner):  # words someone says, asks or is told; a quoted title or term stays
            taken.append((inner, QUOTED))
            return " "
        return m.group(0)

    text = _MARKUP.sub(code, _FENCED.sub(code, text or ""))
    kept = []
    for line in text.split("\n"):
        if _looks_like_code(line):
            if _FIRST_PERSON.search(line):
                taken.append((line.strip(), CODE))
            continue
        kept.append(line)
    return _QUOTED.sub(quoted, "\n".join(kept)), taken


def _looks_like_code(line: str) -> bool:
    """A line of a program, not prose that happens to hold '=' or brackets."""
    s = line.strip()
    return bool(re.match(r"^[\w.]+\s*\(", s) or re.match(r"^[\w.\[\]'\"]+\s*=\s*\S", s) or s.startswith(("#", "//"))
                or re.match(r"^(?:def|class|import|from|return|const|let|var|function)\s", s))


_PAST_STATE = re.compile(
    r"\b(?:used to|growing up|as a (?:kid|child|teen|teenager|student)|when i was (?:a |an |young|little|in |at |"
    r"still |younger)|back (?:then|in (?:the day|college|school|\d{4}))|"
    r"(?:in|during|at) (?:college|high school|grad school|university|uni|my (?:twenties|thirties|teens|20s|30s|youth)),? "
    r"(?:i|we) (?:was|were|had|lived|spoke|worked|did|used)\b|"
    r"\b(?:was|were|had|lived|spoke|worked)\b[^,;]* (?:in|during|at) (?:college|high school|grad school|university|uni)\b|"
    r"(?:last|previous|that) year,? i (?:was|had|lived|worked)|"
    r"before (?:i had|the move|moving|we moved|i moved)|(?<!have )(?<!'ve )(?<!has )(?<!'s )"
    r"(?:was|were|had been|lived|worked|spoke) [^,;]*\bfor "
    r"(?:\d+|a few|several|many|two|three|four|five|six|seven|eight|nine|ten|a couple of) (?:years?|months?)\b|"
    r"i had (?:a|an|two|three) [\w ]+? (?:but|that|who|until|when|as)\b|"
    r"(?:that's|that is|it's|which is) (?:outdated|old news|no longer true|not true anymore|out of date)|"
    r"formerly|previously|in the past|years ago|back then)",
    re.IGNORECASE)
_PRETEND = re.compile(
    r"^if\b|\bif i\b|\bi'd be\b|\bi would be\b|\b(?:might|could|may) (?:switch|move|go|change|be|start|become|end up)\b|"
    r"\bonce i (?:move|get|start|switch|have|am)\b|\b(?:assume|assuming|pretend|pretending|imagine|suppose|supposing|"
    r"hypothetically|let's say)\b|\bfor (?:the|this|a) (?:role ?play|exercise|example|story|game|test|hypothetical)\b|"
    r"\bask me (?:if|whether|about)\b|\btranslate\b|\beither\b.+\bor\b|\bwhat if\b",
    re.IGNORECASE)
_NEGATED = re.compile(
    r"\b(?:don't|do not|doesn't|didn't|not|never|no longer|nobody|no one|none|neither|nor|wouldn't say|isn't|aren't|"
    r"wasn't|can't|won't|hardly)\b", re.IGNORECASE)


_DENYING = re.compile(r"^(?:i wouldn't say|i would not say|i'd not say|it's not like|it isn't like|not that|i never said|"
                      r"i didn't say|i don't think)\b", re.IGNORECASE)


def unreal(clause: str) -> str | None:
    """Why a clause is not a statement of how things are now, or None: a past state, a
    hypothetical, or a statement the clause itself denies (reported, not stored)."""
    if _DENYING.search(clause.strip()):
        return "a statement the user denies or doubts, not a fact"
    if _PAST_STATE.search(clause):
        return "a past state, not how things are now"
    if _PRETEND.search(clause):
        return "hypothetical, pretend or a request, not a current fact"
    return None


_LIMIT = re.compile(r"\b(?:don't|do not|not|never|can't|cannot|won't)\s+(?:\w+\s+){0,2}?(?:over|above|more than|beyond|exceed)\b",
                    re.IGNORECASE)


def negated(clause: str) -> bool:
    """Whether a clause denies something ("I don't speak Spanish at all"): the prototype
    reading types a positive value, so such a clause is reported rather than stored. A
    limit ("don't go over 3000 dollars") is no denial."""
    return bool(_NEGATED.search(_LIMIT.sub(" ", clause)))
