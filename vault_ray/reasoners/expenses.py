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
_PERIOD = (r"(?:\s*(?:(?:a|an|per|each|every|/)\s*(?:month|mo|week|year|yr|fortnight|hour|hr)|monthly|weekly|yearly|annually|"
           r"hourly))?")
_HOME = re.compile(
    r"^(?:(?:and|but|so|well|now),?\s+)?(?:my|our)\s+(?P<per>monthly\s+|weekly\s+)?(?P<k>rent|mortgage)(?:\s+payment)?\s+"
    r"(?:is|'s|comes to|runs|runs me)\s+(?:(?:now|still|about|around|roughly|only|just)\s+)*(?P<v>.+?)\s*$"
    r"|\b(?:i|we)\s+(?:(?:now|currently|still|only)\s+)?pay\s+(?:(?:about|around|roughly)\s+)?(?P<w>.+?)\s+(?:in|for)\s+"
    r"(?P<k2>rent|(?:my |our |the )?mortgage)\b(?P<after>.*)$", IC)
_PAY = re.compile(  # "I pay $900 rent", "We pay 2k rent a month", "I pay $1,200 monthly rent"
    r"\b(?:i|we)\s+(?:(?:now|currently|still|only)\s+)?pay\s+(?:(?:about|around|roughly)\s+)?(?P<v>\S+(?:\s+(?:k|grand|"
    r"thousand|dollars|bucks|euros|pounds))?)\s+(?P<per>monthly\s+|weekly\s+)?(?:in\s+|for\s+)?(?P<k>rent|mortgage)\b"
    r"(?:\s+payments?)?(?P<after>.*)$", IC)
_CHANGED = re.compile(  # "My rent went up to $2,100", "Our rent was raised from $1,800 to $2,000 a month": the new amount
    r"^(?:(?:and|but|so|well|now|also),?\s+)?(?:my|our)\s+(?:monthly\s+)?(?P<k>rent|mortgage)(?:\s+payment)?\s+(?:(?:just|"
    r"recently|finally|now|also)\s+)?(?:went|has gone|'s gone|have gone|got|was|has been|'s been|is|rose|fell|dropped|jumped|"
    r"climbed|increased|decreased|has (?:risen|fallen|dropped|jumped|climbed|increased|decreased))(?:\s+(?:up|down|raised|"
    r"increased|lowered|reduced|cut|hiked|bumped(?:\s+up)?))?(?:\s+from\s+\S+(?:\s+\S+)??)?\s+to\s+(?P<v>.+)$", IC)
_SET_BY = re.compile(  # "My landlord raised my rent to $2,100": someone else's act, the user's rent
    r"^(?:(?:and|but|so|well|now|also),?\s+)?(?:my|our|the)\s+(?:landlord|landlady|bank|lender|building|property manager)\s+"
    r"(?:(?:just|recently|finally)\s+)?(?:raised|increased|lowered|reduced|put up|bumped up|hiked|cut|dropped)\s+"
    r"(?:my|our)\s+(?:monthly\s+)?(?P<k>rent|mortgage)(?:\s+payment)?(?:\s+from\s+\S+(?:\s+\S+)??)?\s+to\s+(?P<v>.+)$", IC)
_NO_MORE = re.compile(  # "I don't pay rent anymore", "We paid off the mortgage": none to pay (not:rent, as "not:pet")
    r"^(?:(?:and|but|so|well|now|also|actually),?\s+)?(?:i|we)\s+(?:(?:don't|no longer|do not|stopped|don't have to|no longer "
    r"have to|won't have to)\s+)(?:pay(?:ing)?\s+(?:any\s+)?|have\s+(?:a\s+|any\s+)?)(?P<k>rent|mortgage)\b"
    r"(?=\s*(?:anymore|any more|any longer|now|at all|these days)?\s*(?:$|[,;.!]|(?:because|since|as|now that)\b))"
    r"|^(?:i|we)(?:'ve| have)?\s+(?:just\s+|finally\s+)?paid off\s+(?:my|our|the)\s+(?P<m>mortgage)\b", IC)
_INCOME = re.compile(  # "I make 5 grand a month", "I earn $80k a year", "My salary is $95,000"
    r"\b(?:i|we)\s+(?:(?:now|currently|only|still|also|actually|usually)\s+)?(?P<verb>make|earn|bring in|take home|gross|net)\s+"
    r"(?:(?:about|around|roughly|over|almost|nearly|just under|just over|like)\s+)?(?P<v>.+)$"
    r"|^(?:(?:and|but|so|well|now|also),?\s+)?(?:my|our)\s+(?:(?P<per>annual|monthly|yearly|weekly)\s+|household\s+|"
    r"take-home\s+|base\s+|gross\s+|net\s+)*(?:income|salary|pay|paycheck|wage)\s+(?:is|'s|comes to|is now)\s+"
    r"(?:(?:now|about|around|roughly|just|only)\s+)*(?P<w>.+)$", IC)
_AFTER_PAY = re.compile(r"^\s*(?:(?:before|after) tax(?:es)?|gross|net|pre-tax|post-tax|in salary|total|in total)?\s*$", IC)
_PUT_ASIDE = re.compile(
    r"\b(?:i|we)(?:'ve| have)?\s+(?:(?:just|already|finally)\s+)?(?:set aside|put aside|saved up|saved|earmarked|"
    r"allocated|budgeted)\s+(?P<v>.+?)\s+(?P<rest>(?:for|towards?)\s+.+)$", IC)


def expense_frame(n: str) -> list[Draft]:
    if m := _NO_MORE.search(n):
        return [Draft(f"user.{(m.group('k') or m.group('m')).lower()}", f"not:{(m.group('k') or m.group('m')).lower()}")]
    if re.search(r"\b(?:not|no longer|never|don't|didn't)\b|n't\b", n, IC):
        return []
    if m := _CHANGED.search(n) or _SET_BY.search(n):
        said = _amount(m.group("v"))
        return [Draft(f"user.{m.group('k').lower()}", said)] if said else []
    if (m := _PAY.search(n)) and not re.search(r"\b(?:in|for)\s+(?:rent|mortgage)\b", n, IC):
        said = _amount(f"{m.group('v')}{m.group('after')}", per=bool(m.group("per")))
        if said and m.group("per") and not values.PERIOD.search(said):  # "I pay $1,200 monthly rent"
            said = f"{said} {m.group('per').strip()}"
        return [Draft(f"user.{m.group('k').lower()}", said)] if said else []
    if m := _INCOME.search(n):  # "I make $4,000 a month and pay $1,500 in rent": both
        paid = re.search(r"\s(?:and|but)\s+(?:i\s+|we\s+)?(?=pay\b)", n[m.start():], IC)
        return income(m) + (expense_frame("i " + n[m.start() + paid.end():]) if paid else [])
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


def set_by_another(clause: str) -> bool:
    """Whether a clause says someone else set the user's rent ("My landlord raised my rent to $2,100")."""
    return bool(_SET_BY.search(clause))


def income(m: re.Match[str]) -> list[Draft]:
    """What the user earns: an amount with its period, a salary said as such, or one said in
    thousands ("I make 80k"); never a sum made once ("I make $50 on each sale")."""
    said = _amount(m.group("v") or m.group("w"))
    if not said:
        return []
    rest = (m.group("v") or m.group("w"))[len(said):] if (m.group("v") or m.group("w")).startswith(said) else ""
    if m.group("v") and not values.PERIOD.search(said) and not (
            re.search(r"\d\s*k\b|\b(?:thousand|grand|million)\b", said, IC) and _AFTER_PAY.match(rest)):
        return []
    if m.group("per") and not values.PERIOD.search(said):  # "my annual income is $120k": $120k annual
        said = f"{said} {m.group('per').lower()}"
    return [Draft("user.income", said)]


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
