"""A job said as where the user is, the turn's whole statement: "im at meta now", "now I'm at Google", "I'm at
Stripe these days". "I'm at X" says where the user is as often as where the user works ("I'm at the gym now", "I'm
at Costco"), so it names an employer only said alone (beside a visit or a job left it is where the user is: "I was
at Google earlier, now I'm at Meta", `then_now.only_there`) and only when X is a company known by one name
(`orgs.COMPANIES`) that is no place one goes to as a customer (a store, a café: "I'm at Starbucks now" is a coffee).
"I'm now at X" (`frames.employer_frame`) takes a name written with a capital too; typed in lower case only a known
company ("im now at the gym" names none)."""

from __future__ import annotations

import re

from ..models import Fact
from .casing import written
from .orgs import COMPANIES

IC = re.IGNORECASE
_AT = re.compile(r"^(?:(?:so|and|but|well|ok|okay|anyway|btw|also|update)[\s,:]+)*(?:(?:now|currently|these days|nowadays)"
                 r",?\s+)?i'm (?:(?:now|currently|still|actually|over)\s+)*at (?P<v>.+)$", IC)
_AFTER = re.compile(r"^(?:,?\s+(?:now|these days|nowadays|currently|at the moment|full[- ]time|"
                    r"as (?:a|an) [\w -]+|(?:(?:and|but) )?(?:i )?(?:lov|lik|enjoy|hat)\w* (?:it|the job|the work)\b.*|"
                    r"on the [\w -]+ team|in (?!(?:a|an|the|my|our|some|one|class|line|bed|town|traffic)\b)[\w ,]+|"
                    r"since \w+(?: \d{4})?|for (?:a|the) (?:year|month|while)|"
                    r"for \w+ (?:years?|months?)))*[\s,.!]*$", IC)
"""What may follow the company ("now", "as an engineer", "on the ads team", "in London", "and loving it"): anything
else ("at Google for a meeting", "at Apple picking up my phone") says a visit."""
VISITED = frozenset({"walmart", "target", "costco", "starbucks", "mcdonald's", "mcdonalds", "disney", "kaiser"})
"""Known companies whose name is also a place a customer goes ("I'm at Target now", "I'm at Costco"): "I'm at X"
says a visit. "I work at Target" still names the employer (`frames.employer_frame`)."""


def at_company(turn: str) -> Fact | None:
    """The employer a turn that is only "I'm at X" names (`turn` with its apostrophes, `casual.spelled_turn`)."""
    m = _AT.match(turn.strip())
    if not m or re.search(r"[.!?;]\s+\S", turn.strip()):  # one statement, the whole turn
        return None
    words = m.group("v").split(" ")
    for size in (2, 1):  # "goldman sachs", "meta"
        org, rest = " ".join(words[:size]).rstrip(",.!"), " ".join(words[size:])
        if org.lower() in COMPANIES and org.lower() not in VISITED and _AFTER.match(" " + rest if rest else ""):
            org = written("user.employer", org)
            return Fact("user.employer", f"The user works at {org}", value=org)
    return None
