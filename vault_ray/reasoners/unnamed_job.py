"""Leaving a job said without the employer's name ("I quit my job", "I got laid off", "I resigned"): read by
`quitting` (the employer said earlier in the conversation is left) and by `then_now` ("I quit my job, now I'm at
Meta": the now part is where the user works)."""

from __future__ import annotations

import re

IC = re.IGNORECASE
LEAD = (r"^(?:(?:so|well|yeah|yes|ok(?:ay)?|ugh|wow|guess what|big news|news|update|fyi|btw|anyway|also|and|today|"
        r"yesterday|this (?:morning|week)|last (?:week|night|friday|monday)|on friday|finally)\b[\s,:;!.\-–—]*)*")
ADV = r"(?:(?:just|finally|recently|officially|actually|also|today|yesterday)\s+)*"
UNNAMED = re.compile(
    rf"{LEAD}i {ADV}(?:(?:quit|left|resigned from|walked out (?:of|on)) (?:my|the) (?:current |day |full[- ]time |"
    rf"corporate |\w+ )?(?:job|position|role|gig)|resigned|handed in my (?:notice|resignation)|"
    rf"(?:gave|put in) (?:my|two weeks'?|my two weeks'?) notice|put in my two weeks|lost my (?:job|position)|"
    rf"(?:got|was|have been|'ve been) (?:fired|laid off|let go|sacked|made redundant))(?P<rest>.*)$", IC)
OLD = re.compile(r"\b(?:old|previous|former|last|first|second|other|dream|new)\s+(?:job|position|role|gig)\b", IC)
"""A job said as another than the one the user has ("I left my old job"): no employer of now."""

_REST = re.compile(r"^\s*(?:$|[,;.!\-–—]|(?:and|to|because|since|after|so|but|last|yesterday|today|this|on|in|a|an|"
                   r"two|three|few|recently|earlier|finally|officially|for (?:good|personal|health|family|a few)|"
                   r"lol|haha|lmao|omg|yay|ugh|finally|at last|\d{1,2}\b)\b)", IC)
_LONG_AGO = re.compile(r"\b(?:years?|decades?|(?:19|20)\d\d|when i was|back (?:then|in)|once|ago)\b", IC)
_RECENT_AGO = re.compile(r"\b(?:a|an|one|two|three|four|five|six|a few|a couple of|\d)\s+(?:days?|weeks?|months?)\s+ago\b",
                         IC)


def left_now(rest: str) -> bool:
    """Whether what follows a leaving says it as done and recent: no long-ago time ("in 2015", "years ago"; "two weeks
    ago" is recent), no more words of a name ("i left acme corp" after "Acme")."""
    return bool(_REST.match(rest)) and not _LONG_AGO.search(_RECENT_AGO.sub("", rest))
