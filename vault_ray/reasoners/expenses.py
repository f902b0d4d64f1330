"""What the user pays for their home and money put aside: "My rent is $1,800 a month"
(user.rent, its amount with its period), "I pay 2k a month in rent", "My mortgage is £950
monthly" (user.mortgage); "We set aside 5 grand for the vacation" (user.budget.vacation: money
kept for a purpose is what the user can spend on it). A price said of anything else ("the rent
in Paris is high") is none of these."""

from __future__ import annotations

import re

from .. import values
from . import caveats, spending
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
    r"thousand|dollars|bucks|euros|pounds|quid|[€£¥]))?)\s+(?P<per>monthly\s+|weekly\s+)?(?:in\s+|for\s+)?(?P<k>rent|mortgage)\b"
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
    r"|^(?:i|we)(?:'ve| have)?\s+(?:just\s+|finally\s+)?paid off\s+(?:my|our|the)\s+(?P<m>mortgage)\b"
    r"(?!\s+(?:on|for)\s+(?!(?:my|our|the)\s+(?:own\s+)?(?:house|home|place|condo|apartment|flat)\b))", IC)
_INCOME = re.compile(  # "I make 5 grand a month", "I earn $80k a year", "My salary is $95,000"
    r"\b(?:i|we)\s+(?:(?:now|currently|only|still|also|actually|usually)\s+)?(?P<verb>make|earn|bring in|take home|gross|net)\s+"
    r"(?:(?:about|around|roughly|almost|nearly|just under|just over|like)\s+)?(?:(?P<bound>(?:a little |well |way )?"
    r"(?:over|under|above|below|more than|less than|at least|at most|up to|north of|south of))\s+)?(?P<v>.+)$"
    r"|^(?:(?:and|but|so|well|now|also),?\s+)?(?:my|our)\s+(?:(?P<per>annual|monthly|yearly|weekly)\s+|household\s+|"
    r"take-home\s+|base\s+|gross\s+|net\s+)*(?:income|salary|pay|paycheck|wage)\s+(?:is|'s|comes to|is now)\s+"
    r"(?:(?:now|about|around|roughly|just|only)\s+)*(?:(?P<bound2>(?:a little |well |way )?(?:over|under|above|below|"
    r"more than|less than|at least|at most|up to|north of|south of))\s+)?(?P<w>.+)$", IC)
_NOT_EARNED = re.compile(  # "I make $1,500 a month in payments on my car", "$20 an hour more than my brother"
    r"^\W*(?:in|on|for|towards?)\s+(?:[\w'-]+\s+){0,3}?(?:payments?|installments?|bills?|debts?|loans?|interest|fees?|"
    r"rent|mortgage|expenses|costs|tuition|taxes|child support|alimony)\b|\b(?:more|less|fewer|higher|lower)\s+than\b"
    r"|^\W*(?:more|less|extra)\b|\b(?:combined|together|between (?:us|the two of us|both of us)|jointly|as a (?:couple|"
    r"household|family))\b|\bif you (?:count|include|add)\b|\b(?:including|counting|with|plus) (?:my|our) (?:\w+ )?"
    r"(?:wife|husband|partner|spouse|family|household)\b|\bin my dreams\b", IC)
_TOGETHER = re.compile(r"\b(?:we|\w+\s+(?:and|&)\s+i)\s+(?:(?:now|currently|only|still|also|actually|usually|both)\s+)?"
                       r"(?:make|earn|bring in|take home|gross|net)\b(?!.*\beach\b)", IC)
"""Income said of the user with someone else ("My husband and I make $150k a year", "We make 5 grand a month"): a
household's, not the user's own (one said "each" is the user's)."""
_OF_HOME = re.compile(  # "for my apartment", "on a studio", "each month", "on the 1st", "for the year": the home's rent
    r"(?:(?:my|our|the|a|an|this|that)\s+(?:(?:new|current|own|little|tiny|small|big|old|shared|first|\w+-bedroom|\d+\s*-?\s*"
    r"(?:bedroom|br|bed|bd))\s+)*(?:apartment|apt|place|house|home|flat|room|condo|studio|loft|townhouse|duplex|bedroom|"
    r"one-bedroom|two-bedroom|1br|2br|month|year|week|first|1st|15th|lease)\b|(?:each|every|per|a)\s+(?:month|week|year)\b"
    r"|time\b|(?:\d+(?:st|nd|rd|th)?|first|the first|the 1st)\b|(?:myself|me|us|both of us|the two of us)\b)", IC)
_AFTER_PAY = re.compile(r"^\s*(?:(?:before|after) tax(?:es)?|gross|net|pre-tax|post-tax|in salary|total|in total)?\s*$", IC)
_PUT_ASIDE = re.compile(
    r"\b(?:i|we)(?:'ve| have)?\s+(?:(?:just|already|finally)\s+)?(?:set aside|put aside|saved up|saved|earmarked|"
    r"allocated|budgeted)\s+(?P<v>.+?)\s+(?P<rest>(?:for|towards?)\s+.+)$", IC)


_NOT_HOME = re.compile(  # "rent insurance", "a deposit", "for the studio I'm looking at": no rent the user pays for home
    r"^\W*(?:insurance|deposits?|money|fees?|assistance|subsid\w+|credits?|rebates?|refunds?|arrears)\b"
    r"|\b(?:looking at|considering|thinking (?:of|about)|viewing|touring|applied for|applying for|would|might|could)\b", IC)
_FIX = re.compile(  # "I pay $900 rent, sorry, $950": the amount said last
    r"^[^.!?]*?(?:[,;:]|\s[-–—]+)\s*(?:(?:no|oh|oops|er+m?|uh+),?\s+)?(?:sorry|oops|whoops|my bad|no,?\s+wait|wait,?\s+no|no|"
    r"i mean|actually|correction|or rather|make that)[,:]?\s+(?P<v>[$€£¥]?\s*\d.*)$", IC)


def _home_only(rest: str) -> bool:
    """Whether what is said after a rent's amount leaves it the rent of the user's home: no "for
    my parking spot", "on a storage unit", "for my son's dorm", "rent insurance"."""
    if _NOT_HOME.search(rest):
        return False
    rest = _FIX.sub("", rest)
    return all(_OF_HOME.match(rest, m.end()) for m in re.finditer(r"\b(?:for|on)\s+", rest, IC))


def _fixed(said: str, rest: str, per: bool = False) -> str:
    """`said`, or the amount a correction after it says ("$900, sorry, $950": $950)."""
    fix = _FIX.match(rest)
    new = _amount(fix.group("v"), per=per) if fix else None
    if not new:
        return said
    period = values.PERIOD.search(said)
    return f"{new} {period.group(0).strip()}" if period and not values.PERIOD.search(new) else new  # "$80k a year, sorry, $90k"


def expense_frame(n: str) -> list[Draft]:
    if caveats.joking(n):  # "Sure, and I pay $10 rent, haha", "I make $80k a year in my dreams"
        return []
    if m := _NO_MORE.search(n):
        return [Draft(f"user.{(m.group('k') or m.group('m')).lower()}", f"not:{(m.group('k') or m.group('m')).lower()}")]
    if re.search(r"\b(?:not|no longer|never|don't|didn't)\b|n't\b", n, IC):
        return []
    if m := _CHANGED.search(n) or _SET_BY.search(n):
        said = _amount(m.group("v"))
        rest = m.group("v")[len(said):] if said else ""
        return [Draft(f"user.{m.group('k').lower()}", _fixed(said, rest))] if said and _home_only(rest) else []
    if (m := _PAY.search(n)) and not re.search(r"\b(?:in|for)\s+(?:rent|mortgage)\b", n, IC):
        said = _amount(f"{m.group('v')}{m.group('after')}", per=bool(m.group("per")))
        if not said or not _home_only(m.group("after")):
            return []
        said = _fixed(said, m.group("after"), per=bool(m.group("per")))
        if m.group("per") and not values.PERIOD.search(said):  # "I pay $1,200 monthly rent"
            said = f"{said} {m.group('per').strip()}"
        return [Draft(f"user.{m.group('k').lower()}", said)]
    if m := _INCOME.search(n):  # "I make $4,000 a month and pay $1,500 in rent": both
        paid = re.search(r"\s(?:and|but)\s+(?:i\s+|we\s+)?(?=pay\b)", n[m.start():], IC)
        earned = [] if _TOGETHER.search(n[:m.end("verb") if m.group("verb") else 0]) else income(m)
        return earned + (expense_frame("i " + n[m.start() + paid.end():]) if paid else [])
    if m := _HOME.search(n):
        said = _amount(m.group("v") or f"{m.group('w')}{m.group('after') or ''}", per=bool(m.group("per")))
        key = (m.group("k") or m.group("k2")).split()[-1].lower()
        rest = m.group("after") or (m.group("v")[len(said):] if said and m.group("v") else "")
        if not said or not _home_only(rest):
            return []
        said = _fixed(said, rest, per=bool(m.group("per")))
        if m.group("per") and not values.PERIOD.search(said):  # "my monthly rent is $1,800"
            said = f"{said} {m.group('per').strip()}"
        return [Draft(f"user.{key}", said)]
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
    if not said or (m.group("w") and re.match(r"\W*(?:our|(?:my|our)\s+household)\b", m.group(0), IC)):
        return []  # "Our income is $150k", "My household income is ...": a household's, not the user's
    rest = (m.group("v") or m.group("w"))[len(said):] if (m.group("v") or m.group("w")).startswith(said) else ""
    if _NOT_EARNED.search(rest):  # "I make 2 grand a month in loan payments", "$20 an hour more than my brother"
        return []
    if m.group("v") and not values.PERIOD.search(said) and not (
            re.search(r"\d\s*k\b|\b(?:thousand|grand|million)\b", said, IC) and _AFTER_PAY.match(rest)):
        return []
    if m.group("per") and not values.PERIOD.search(said):  # "my annual income is $120k": $120k annual
        said = f"{said} {m.group('per').lower()}"
    basis = _BASIS.match(rest)  # "$120k net" is not "$120k" (gross, as pay is said unless said otherwise)
    bound = m.group("bound") or m.group("bound2")  # "I make over 200k": a floor, not the amount itself
    value = _fixed(said, rest) + (f" {basis.group(1).lower()}" if basis else "")
    return [Draft("user.income", f"{' '.join(bound.lower().split())} {value}" if bound else value)]


_BASIS = re.compile(r"^\s*(after tax(?:es)?|net|post-tax|take[- ]home)\b", IC)


def _amount(said: str, period_ok: bool = True, per: bool = False) -> str | None:
    """The amount said first, with its period ("$1,800 a month"); None when it is no amount."""
    m = re.match(rf"\s*(?P<a>(?P<c>[$€£¥]\s*)?[\w,.]*\w(?P<k>\s*(?:k|thousand|grand|hundred|million)\b)?"
                 rf"(?P<d>\s*(?:(?:dollars|bucks|euros|pounds|quid|usd|eur|gbp)\b|[€£¥](?!\w)))?)(?P<p>{_PERIOD})(?![\w%])"
                 r"(?!\s*(?:%|percent|days?|weeks?|months?|years?|hours?|minutes?|times|bedrooms?|seats?)\b)", said, IC)
    if not m or values.parse_amount(m.group("a")) is None:
        return None
    # "My rent is 3 days late", "30%", "I set aside 2 hours": no money, no amount
    if not (m.group("c") or m.group("d") or re.search(r"\dk$", m.group("a"), IC) or m.group("k")
            or ((m.group("p").strip() or per) and period_ok)):
        return None
    return m.group(0).strip()
