"""A value the user changed for another: only the new one is the value now.

"I switched from Stripe to Shopify", "We moved our store from Wix to Shopify", "I changed my bank from
Chase to Wells Fargo", "We replaced Zoom with Teams", "I swapped my Visa for a Mastercard", "We ditched
Slack for Discord": the old value is where the user comes from, never how things are. The prototype
path (`extraction.extract_turn`) reads such a clause without its old value (`newer`), so a typed
finder cannot take the first name it meets ("I replaced my Visa with an Amex" is Amex, not Visa), and
your own entries, whose examples say their slot another way ("My bank is [Chase]"), take the new one
said (`new_value`). The patterns read their own changes (`frames_change`, the location and payment
frames); "I left Google for Meta" is read there too (an employer only, `leaving.py`).
"""

from __future__ import annotations

import re

from .lexicon import cut, is_capitalized

IC = re.IGNORECASE
_WHO = (r"\b(?:i|we|(?:my|our) (?:[\w'-]+ ){0,3}?[\w'-]+|it)(?:'ve|'d|'s| have| had| has)?"
        r"(?:\s+(?:just|recently|finally|also|then|eventually|since|already|now|officially|completely|fully|gradually|"
        r"quietly|have|had|has))*\s+")
_FROM_TO = re.compile(
    _WHO + r"(?P<verb>switched|changed|moved|went|migrated|transitioned|converted|shifted|upgraded|downgraded|jumped|"
    r"ported|transferred|swapped|increased|raised|bumped|upped|lowered|reduced|cut|dropped|decreased|rose|fell|grew|"
    r"(?:gone|went) (?:up|down))\b(?P<what>(?:\s+(?!from\b)[\w'-]+){0,4}?)\s+from\s+(?P<old>.+?)\s+(?:over\s+)?"
    r"to\s+(?P<new>.+)$", IC)
"""... from an old value to a new one ("switched banks from Chase to Ally", "moved our store from Wix to Shopify", "My
budget went from $500 to $800", "We raised our budget from $500 to $800")."""
_REPLACED = re.compile(
    _WHO + r"(?P<verb>replaced|swapped|traded|exchanged|ditched|dropped|dumped|substituted)\s+(?P<old>(?!out\b).+?)"
    r"\s+(?:out\s+)?(?:with|for)\s+(?P<new>.+)$", IC)
"""... one for another ("replaced Zoom with Teams", "swapped my Visa for a Mastercard", "ditched Slack for Discord")."""
_ARTICLE = re.compile(r"^(?:(?:a|an|the|my|our|a new|the new|new)\s+)+", IC)
_TAIL = re.compile(r"\s+(?:in|last|this|a|an|two|three|few|several|some|because|since|and|but|after|before|for|as|when|"
                   r"recently|now|instead|ago|yesterday|today|earlier|already|which|so|though|years?|months?|weeks?|"
                   r"days?)\b.*$|\s*[,;:.!?(].*$", IC)


def said(n: str) -> re.Match[str] | None:
    """The change a clause says, if any: its groups `old` and `new` (and `verb`)."""
    return _FROM_TO.search(n) or _REPLACED.search(n)


def newer(n: str) -> str:
    """The clause said with the new value only ("I switched from Stripe to Shopify" -> "I switched to
    Shopify", "I replaced my Visa with an Amex" -> "I switched to an Amex"); any other clause as it is."""
    m = said(n)
    if not m:
        return n
    if m.re is _FROM_TO:
        return f"{n[:m.end('what')]} to {m.group('new')}"
    return f"{n[:m.start('verb')]}switched to {m.group('new')}"


def new_value(n: str) -> str | None:
    """The new value a change names, as said: a name of at most four words ("Wells Fargo", "Teams"),
    without an article or what follows it ("Shopify last year" -> "Shopify"); None when the clause
    says no change or its new side is no name ("I switched to a new bank")."""
    m = said(n)
    if not m:
        return None
    value = _TAIL.sub("", _ARTICLE.sub("", cut(m.group("new")))).strip()
    old = _ARTICLE.sub("", m.group("old")).strip()
    if not value or len(value.split()) > 4 or not (is_capitalized(value) or value[:1].isdigit()) \
            or value.lower() == old.lower():
        return None
    return value


_WAS_NOW = re.compile(
    r"\b(?P<head>(?:my|our) (?!(?:old|previous|former|last|ex|first)\b)(?:[\w'-]+ ){0,3}?[\w'-]+) "
    r"(?:was|used to be|is no longer|isn't|is not)\s+"
    r"(?P<old>(?:[^,;.!?]|[.,](?=\S))+?)"
    r"\s*(?:[,;]|\s-+)?\s*(?:(?:but|and)\s+)?(?:(?:now|these days|nowadays)\s*,?\s*(?:it's|it is|its|it has gone (?:up|down) to)?"
    r"|it's|it is|its)\s+(?:now\s+)?(?!(?:i|i'm|we|we're|he|he's|she|she's|they|they're|my|our|spelled|spelt|pronounced|"
    r"written)\b)(?P<new>(?:[^,;.!?]|[.,](?=\S))+?)(?:\s+now)?(?=$|[,;.!?])", IC)
"""A value of the user's said as it was, then as it is ("My budget was $500 but now it's $800", "My budget is no
longer $5000, it's $3000 now", "My bank was Chase, now it's Ally")."""


def was_now(text: str) -> str:
    """`text` with each "my X was A, now it's B" said as "my X is B": the old value is no value now."""
    return _WAS_NOW.sub(lambda m: f"{m.group('head')} is {m.group('new')}", text)


_NOT_BUT = re.compile(
    r"(?P<neg>\b(?:i|we)(?:'m|'re| am| are|m)?\s+(?:(?P<gone>no longer)|not|don't|do not)\s+(?:(?:work|working|employed|"
    r"live|living|based)\s+)?(?P<prep>at|with|for|in)\s+(?P<old>[^,;.!?]+?)(?P<any>\s+(?:anymore|any more|any longer))?)"
    r"\s*,?\s+but\s+(?:(?:now|rather|instead)\s+)?(?P=prep)\s+(?P<new>[^,;.!?]+?)(?:\s+(?:now|instead))?(?=$|[,;.!?])", IC)
"""A value said as no longer so, the new one after "but" with the same preposition ("I no longer work at Google but at
Meta", "I don't live in Leeds anymore but in York")."""


def not_but(text: str) -> str:
    """`text` with each "I no longer work at A but at B" said as "I no longer work at A, now I'm at B": the now part
    the slot's new value (`then_now.carried`), the old one no value now."""
    def said(m: re.Match[str]) -> str:
        if not (m.group("gone") or m.group("any")):
            return m.group(0)  # "I'm not at Google but at home": no change said
        return f"{m.group('neg')}, now I'm {m.group('prep')} {m.group('new')}"
    return _NOT_BUT.sub(said, text)
