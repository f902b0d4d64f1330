"""A request to compose or imagine something about the user, set aside before any slot is read:
what is to be written ("Write a short story where I work at NASA", "Draft a LinkedIn post
announcing I joined Stripe", "Can you write a poem about how I'm a vegan living in Paris?", "I need
a cover letter saying I work at Google") or imagined ("Imagine I live in Tokyo; ...", "Suppose I
worked at Google", "Picture me living in Rome") is the text of the piece or a daydream, not the
user's statement of how things are now. The request itself says nothing of the user.

Only a request is set aside: the sentence opens with the request (after a greeting or "please",
"can you", "help me", "I need/want"), a piece to write is named (a story, a poem, a post, a
letter...) and what it is about follows ("where", "about", "saying", "announcing" ...). "I write
stories for a living", "I work at a poetry magazine" and "Imagine Dragons is my favorite band" are
statements; "I imagine I'll stay in Boston" is a guess (`framing.HEDGED`).
"""

from __future__ import annotations

import re

COMPOSED = "a request to write or imagine something (a story, a poem, a post, a letter...), not a statement of the user's"

_LEAD = (r"(?:(?:hey|hi|hello|ok|okay|so|now|also|and|please|pls|kindly|just|quick one|for fun|real quick)[,!:]?\s+)*")
_ASK = (r"(?:(?:can|could|would|will) you\s+(?:please\s+)?(?:help me\s+)?|(?:please\s+)?help me\s+(?:to\s+)?|"
        r"i (?:need|want|would like|'d like) (?:you |someone )?to\s+|i need help\s+|let's\s+|go ahead and\s+)?")
_VERB = (r"(?:write|writing|draft|drafting|compose|create|make|generate|craft|pen|produce|prepare|give me|come up with|"
         r"put together|tell me|tell|sing|send|rewrite|edit|polish|brainstorm|spin|invent)")
_WANT = r"(?:i (?:need|want|would like|'d like)|give me|gimme)"  # "I need a cover letter saying I ...": the piece asked for
_PIECE = (r"(?:stor(?:y|ies)|short story|tale|fairy ?tale|fable|novel|chapter|narrative|poem|haiku|limerick|sonnet|ballad|"
          r"song|lyrics|rap|verse|jingle|post|tweet|thread|caption|status|letter|cover letter|e-?mail|message|text|card|"
          r"note to|bio|biography|profile|summary|resume|résumé|cv|scene|script|screenplay|dialogue|skit|play|monologue|"
          r"essay|speech|toast|eulogy|obituary|announcement|article|blog(?: post)?|paragraph|description|intro(?:duction)?|"
          r"pitch|ad|advert|joke|roast|review|reply|response|invitation|invite|press release|headline|memo|sketch|"
          r"comic|riddle|prompt|pickup line|vows|statement)s?")
_ABOUT = (r"(?:where|wherein|in which|whereby|about|on how|saying|that says|which says|to say|announcing|to announce|"
          r"stating|explaining|telling|describing|claiming|starring|featuring|as if|pretending|imagining|"
          r"that|which|when|for when|with|from the perspective|in the voice)")
_FIRST = r"\b(?:i|i'm|i've|i'd|i'll|im|my|me|mine|myself|we|we're|our|us)\b"
_END = r"(?=$|\n|[.!?](?:\s|$))"

_REQUEST = re.compile(
    rf"(?:^|(?<=[.!?;]\s)|(?<=\n))\s*{_LEAD}(?:{_ASK}{_VERB}|{_WANT})\b[^.!?\n:;]{{0,60}}?\b{_PIECE}\b[^.!?\n:;]{{0,50}}?"
    rf"\s(?P<rest>{_ABOUT}\b[^\n]*?){_END}"
    # "Write about how I moved to Paris": a piece left unnamed
    rf"|(?:^|(?<=[.!?;]\s)|(?<=\n))\s*{_LEAD}{_ASK}(?:write|compose|draft)\s+(?:a bit |something |me something )?"
    rf"(?P<rest2>(?:about|as if|where)\b[^\n]*?){_END}",
    re.IGNORECASE | re.MULTILINE)
_IMAGINE = re.compile(
    rf"(?:^|(?<=[.!?;]\s)|(?<=\n))\s*{_LEAD}(?P<rest>(?:let's\s+)?(?:imagine|pretend|suppose|picture|envision|"
    rf"let's say|what if|hypothetically)(?:\s+(?:that|if|for a (?:second|moment|minute)|for now))?[,:]?\s+"
    rf"(?:(?:just|for a (?:second|moment|minute))[,]?\s+)?(?={_FIRST})[^\n]*?){_END}"
    r"|(?<!\bi )(?<!\bwe )(?<!\bi can )(?<!\bi can't )\bpicture (?P<rest3>(?:me|myself|us)\b[^\n]*?)" + _END,
    re.IGNORECASE | re.MULTILINE)
"""A daydream said as an imperative: "Imagine I live in Tokyo", "Suppose I worked at Google", "What if I were
vegan", "Picture me living in Rome" ("Imagine Dragons is my favorite band" names no "I" after it)."""


def set_aside(text: str, taken: list[tuple[str, str]], pretend: str) -> str:
    """`text` without what a request to compose (`_REQUEST`) or to imagine (`_IMAGINE`) gives
    to work on, each part added to `taken` with its reason: "Write a short story where I work at
    NASA" reads as nothing at all."""

    def request(m: re.Match[str], why: str) -> str:
        name = next(g for g in ("rest", "rest2", "rest3") if g in m.re.groupindex and m.group(g) is not None)
        rest = m.group(name)
        if not re.search(_FIRST, rest, re.IGNORECASE):
            return m.group(0)
        taken.append((rest.strip(), why))
        return " "  # the request ("Tell me a bedtime story", "I need a bio") says nothing of the user

    text = _REQUEST.sub(lambda m: request(m, COMPOSED), text)
    return _IMAGINE.sub(lambda m: request(m, pretend), text)
