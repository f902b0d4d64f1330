"""What the user pays for their home and money put aside: "My rent is $1,800 a month"
(user.rent, its amount with its period), "I pay 2k a month in rent", "My mortgage is £950
monthly" (user.mortgage); "We set aside 5 grand for the vacation" (user.budget.vacation: money
kept for a purpose is what the user can spend on it). A price said of anything else ("the rent
in Paris is high") is none of these."""

from __future__ import annotations

import re

from .. import values
from . import spending
from .lexicon import Draft

IC = re.IGNORECASE
_PERIOD = r"(?:\s*(?:(?:a|per|each|every|/)\s*(?:month|mo|week|year|fortnight)|monthly|weekly|yearly|annually))?"
_HOME = re.compile(
    r"^(?:(?:and|but|so|well|now),?\s+)?(?:my|our)\s+(?P<per>monthly\s+|weekly\s+)?(?P<k>rent|mortgage)(?:\s+payment)?\s+"
    r"(?:is|'s|comes to|runs|runs me)\s+(?:(?:now|still|about|around|roughly|only|just)\s+)*(?P<v>.+?)\s*$"
    r"|\b(?:i|we)\s+(?:(?:now|currently|still|only)\s+)?pay\s+(?:(?:about|around|roughly)\s+)?(?P<w>.+?)\s+(?:in|for)\s+"
    r"(?P<k2>rent|(?:my |our |the )?mortgage)\b(?P<after>.*)$", IC)
_PUT_ASIDE = re.compile(
    r"\b(?:i|we)(?:'ve| have)?\s+(?:(?:just|already|finally)\s+)?(?:set aside|put aside|saved up|saved|earmarked|"
    r"allocated|budgeted)\s+(?P<v>.+?)\s+(?P<rest>(?:for|towards?)\s+.+)$", IC)


def expense_frame(n: str) -> list[Draft]:
    if re.search(r"\b(?:not|no longer|never|don't|didn't)\b|n't\b", n, IC):
        return []
    if m := _HOME.search(n):
        said = _amount(m.group("v") or f"{m.group('w')}{m.group('after') or ''}", per=bool(m.group("per")))
        key = (m.group("k") or m.group("k2")).split()[-1].lower()
        if said and m.group("per") and not values.PERIOD.search(said):  # "my monthly rent is $1,800"
            said = f"{said} {m.group('per').strip()}"
        return [Draft(f"user.{key}", said)] if said else []
    if m := _PUT_ASIDE.search(n):
        said = _amount(m.group("v"), period_ok=False)
        topic = spending.purpose(" " + re.sub(r"^towards?\b", "for", m.group("rest"), flags=IC))
        return [Draft(f"user.budget.{topic}" if topic else "user.budget", said)] if said else []
    return []


def _amount(said: str, period_ok: bool = True, per: bool = False) -> str | None:
    """The amount said first, with its period ("$1,800 a month"); None when it is no amount."""
    m = re.match(rf"\s*(?P<a>(?P<c>[$€£¥]\s*)?[\w,.]*\w(?P<k>\s*(?:k|thousand|grand|hundred|million)\b)?"
                 rf"(?P<d>\s*(?:dollars|bucks|euros|pounds|usd|eur|gbp)\b)?)(?P<p>{_PERIOD})(?![\w%])"
                 r"(?!\s*(?:%|percent|days?|weeks?|months?|years?|hours?|minutes?|times|bedrooms?|seats?)\b)", said, IC)
    if not m or values.parse_amount(m.group("a")) is None:
        return None
    # "My rent is 3 days late", "30%", "I set aside 2 hours": no money, no amount
    if not (m.group("c") or m.group("d") or re.search(r"\dk$", m.group("a"), IC) or m.group("k")
            or ((m.group("p").strip() or per) and period_ok)):
        return None
    return m.group(0).strip()
