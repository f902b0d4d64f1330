"""A value corrected in passing inside one turn ("my birthday is march 12... wait no, march 21",
"I live in Boston, I meant Bob", "I'm vegan, sorry, I mean gluten free": "I mean" only after "sorry" or "oops",
where it is no filler): see `corrected`. A softer amendment ("..., actually March 21",
"..., sorry, Dallas") is `amends.amended`'s."""

from __future__ import annotations

import re
from collections.abc import Callable

from . import amends
from . import clauses as cl

_FILLER = r"to|it|that|this|well|like|what|you|i|we|they|he|she|seriously|literally"
"""What follows "sorry, I mean" when it is no correction ("sorry i mean it", "sorry, I mean, you know")."""
_CORRECTION = re.compile(r"(?:\.{2,}|…|[,;:]|\s[-–—]+)?\s*(?:\bactually,?\s+)?"
                         rf"\b(?:wait,?\s+no|no,?\s+wait|(?:sorry|oops),?\s+i\s+mean(?:t|(?!,?\s+(?:{_FILLER})\b)(?=,?\s))|"
                         r"i\s+meant(?!\s+to\b)|i\s+was\s+wrong(?=\s*[,:;])|"
                         r"(?:(?<=actually )|(?<=actually, ))make\s+(?:that|it))\b[,:]?\s+(?P<fix>[^.!?;,\n]+)",
                         re.IGNORECASE)


def corrected(text: str, doubts: list[tuple[str, str]], value_in: Callable[[str], tuple[str, str] | None]) -> str:
    """A value corrected in passing takes the place of the one it corrects: "my birthday is
    march 12... wait no, march 21" reads as "my birthday is march 21". A correction that is a
    statement of its own ("wait no, I live in Munich") is read as said; a place corrected to a
    name that is no place near it ("I live in Boston, I meant Bob") is taken out, into `doubts`."""
    start = 0
    while m := _CORRECTION.search(text, start):
        head, fix = text[:m.start()], m.group("fix").strip(" ,")
        start = m.end()
        if not head.strip() or len(fix.split()) > 5 or cl.about_user(fix):
            continue
        sentences = cl.sentences(head)
        found = value_in(cl.clauses(sentences[-1])[-1]) if sentences else None
        at = head.lower().rfind(found[1].lower()) if found else -1
        if at >= 0 and found and amends.doubtful(found[1], fix, fix.split(), found[0]):
            said = cl.clauses(sentences[-1])[-1]
            begin = head.rfind(said) if head.rfind(said) >= 0 else len(head) - len(sentences[-1])
            doubts.append((text[begin:m.end()].strip(), amends.DOUBTFUL))
            text, start = head[:begin] + text[m.end():], begin
        elif at >= 0:
            fix = amends.shaped(found[0], found[1], fix)  # "Central time, no wait, Mountain": Mountain time
            text = head[:at] + fix + head[at + len(found[1]):] + text[m.end():]
            start = at + len(fix)
    return text

