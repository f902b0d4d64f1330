"""What a sentence says before a clause that changes what the clause states: a frame said as a
lead of its own ("For this example, I make $80k a year", "Hypothetically, I live in London",
"Yeah right, I make $1 million a year") makes it no fact, as "Sure, and" does money ("Sure, and I pay
$10 rent"); a partner said with the user ("Tom and I make $5 grand a month") makes an income the
household's, not the user's own."""

from __future__ import annotations

import re
from collections.abc import Collection

from . import framing

IC = re.IGNORECASE
_LEAD_FRAME = re.compile(
    r"^\W*(?:(?:and|so|but|ok|okay|well),?\s+)?(?:for (?:the|this|a|an|that) (?:sake of (?:the )?)?(?:example|exercise|argument|"
    r"story|game|test|hypothetical|role ?play|demo|scenario|thought experiment)|hypothetically(?: speaking)?|in theory|"
    r"theoretically|let's say|say|suppose|supposing|imagine|pretend|yeah,? right|as if|in my dreams|just kidding)\W*$", IC)
_WITH = re.compile(r"(?:^|\s)(?:(?-i:[A-Z])[\w'-]*|(?:my|our)\s+(?:[\w'-]+\s+){0,2}[\w'-]+)\s+(?:and|&)\s*$", IC)
JOINT = "an income said of the user with someone else (a household's), not the user's own"
_SARCASM = re.compile(r"^\W*(?:oh,?\s+)?sure,?\s+and\W*$", IC)
_SAID_BARE = re.compile(r"^(?:i|we)\s+", IC)
_FIRST = re.compile(r"^.*?(?=\b(?:i|i'm|we|we're)\b)", IC)
_MONEY = frozenset({"user.income", "user.rent", "user.mortgage"})
JEST = "sarcasm (\"Sure, and I pay $10 rent\"), not a current fact"


def why(sentence: str, clause: str, entities: Collection[str]) -> str | None:
    """Why what the sentence says before `clause` makes its values no fact of the user's, or None."""
    at = sentence.find(clause)
    if at < 0 and (bare := _SAID_BARE.sub("", clause, count=1)) != clause and sentence.find(bare) > 0:
        # "For this example, I make $80k a year and pay $2,000 rent": a part whose "I" was left out goes on with the
        # sentence's first statement, under its lead
        lead = _FIRST.match(sentence[:sentence.find(bare)])
        at = len(lead.group(0)) if lead else -1
    if at <= 0:
        return None
    before = sentence[:at]
    if _LEAD_FRAME.match(before.strip(" ,;:-—–")):
        return framing.PRETEND  # "For this example, I make $80k a year"
    if entities & _MONEY and _SARCASM.match(before.strip()):
        return JEST  # "Sure, and I pay $10 rent, haha"
    if "user.income" in entities and _WITH.search(before) and not re.search(r"\beach\b", clause, IC):
        return JOINT  # "Tom and I make $5 grand a month"
    return None
