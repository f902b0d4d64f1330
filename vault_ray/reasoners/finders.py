"""Typed finders: a value of the entity a clause was classified to, anywhere in the clause.

The prototype path (`extraction.extract_turn`) classifies a clause no pattern reads to a
registry entry; the entry's finder looks for a value of its kind in it (a zone, a place, an
amount, a diet word, a language, a species, a channel, a payment instrument, an organisation,
an occupation), and your own entries' examples give their slot ("I drive a [Tesla]").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .. import gazetteer, values
from ..registry import RegistryEntry
from . import clauses as cl
from . import lexicon, names, orgs, passing, spending, swaps
from .frames_account import payment_frame
from .frames_change import CHANGE, employer_to
from .frames_zone import zone_mentions
from .lexicon import CHANNEL_RE, CHANNELS, DIET_RE, DIETS, FROM_TO, OCCUPATIONS, PAYMENT_WORDS, SPECIES, SPECIES_RE, Draft, cut
from .moves import later_move


def _windows(text: str, longest: int = 3) -> list[str]:
    words = re.findall(r"[A-Za-z][\w'\-]*", text)
    return [" ".join(words[i:i + k]) for k in range(longest, 0, -1) for i in range(len(words) - k + 1)]


def _find_zone(n: str) -> list[Draft]:
    # a zone right after a clock time ("lands at 5pm Eastern time") is that time's, not the user's
    said = zone_mentions(n) or [w for w in _windows(n) if w[:1].isupper() and gazetteer.find_zone(w)
                                and not lexicon.CLOCK_BEFORE.search(n[:n.find(w)])
                                and not _NAME_GOES_ON.match(n[n.find(w) + len(w):])]  # "Central Park"
    return [Draft("user.timezone", said[0])] if said else []


_NAME_GOES_ON = re.compile(r"&|\s+(?!(?:Time|Standard|Daylight|Zone|Mountain|Pacific|Eastern|Central)\b)(?-i:[A-Z])[a-z]")
"""A zone word inside a longer name ("I'm at Central Park", "AT&T Stadium"): no zone."""


_RELOCATED = re.compile(r"\b(?:mov|relocat|transferr|emigrat|immigrat)\w*\b", re.IGNORECASE)


def _find_place(n: str) -> list[Draft]:
    """A known place in a locative position: after in/to/at/near, or before 'home'; "to" only
    after a move ("I drove to Denver" is a trip), "from" never after one ("I moved here from
    London": where the user left), and a move "from X to Y" is to Y."""
    moved = bool(_RELOCATED.search(n))
    n = FROM_TO.sub("", n[later.start():] if moved and (later := later_move(n)) else n)  # "..., then to Paris": Paris
    go = ("to|" if moved else "") + ("from|" if not moved else "")
    for w in _windows(n):
        # "Miami in the winter": a lower-case last word is no state's code ("Miami IN")
        if w[:1].isupper() and w.lower() not in ("i", "i'm") and not w.split()[-1].islower() and gazetteer.find_place(w) and (
                re.search(rf"\b(?:{go}in|at|near|around)\s+(?:the\s+)?{re.escape(w)}\b", n)
                or re.search(rf"\b{re.escape(w)}\s+(?:is\s+)?(?:my\s+)?home\b", n, re.IGNORECASE)):
            return [Draft("user.location", w)]
    return []


def _find_org(n: str) -> list[Draft]:
    if CHANGE.search(n):  # "I switched from Google to Meta": Meta now, never Google
        return [Draft("user.employer", org)] if (org := employer_to(n)) else []
    m = re.search(r"\b(?:at|for|with|by|joined)\s+((?:[A-Z][\w&'.\-]*)(?:\s+[A-Z][\w&'.\-]*){0,3})", n)
    if m and not gazetteer.find_place(m.group(1)) and not gazetteer.find_zone(m.group(1)) and not orgs.bought(n[:m.start()]) \
            and not (names.person(m.group(1)) or orgs.a_person(m.group(1))):  # "I left Tom for Mike", "Dr. Smith": a person
        return [Draft("user.employer", m.group(1))]
    return []


def _find_job(n: str) -> list[Draft]:
    m = re.search(r"\b(?:a|an)\s+([\w\-]+(?:\s+[\w\-]+)?)\b", n)
    if m and OCCUPATIONS.search(m.group(1)):
        return [Draft("user.job", m.group(1))]
    return []


_DISLIKED = r"|\b(?:hate|dislike|detest|loathe|can't stand|cannot stand|avoid|not a (?:big )?fan of|sick of|tired of)\b"
"""A channel the user dislikes is not their preference ("I hate phone calls" is `not:phone`)."""


def _find_word(entity: str, pattern: str, table: dict[str, str], dislike: str = "") -> Callable[[str], list[Draft]]:
    def find(n: str) -> list[Draft]:
        m = re.search(rf"\b({pattern})\b", n, re.IGNORECASE)
        # "a dog person", "a cat lover": a kind of person, not a pet or a diet
        if not m or re.match(r"[\s-]+(?:person|people|lover|fan|friendly)\b", n[m.end():], re.IGNORECASE) \
                or (entity == "user.diet" and passing.attributive(n[m.end():])):  # "a vegan restaurant": a thing's
            return []
        value = table[m.group(1).lower()]
        negated = re.search(r"\b(?:not|no longer|don't|never|stopped|quit|gave up)\b|\b(?:no|zero)\s+(?:\w+\s+)?$" + dislike,
                            n[:m.start()], re.IGNORECASE)  # "I have no dog": no dog
        return [Draft(entity, f"not:{value}" if negated else value)]

    return find


def _find_language(n: str) -> list[Draft]:
    found = [w for w in _windows(n, 2) if w[:1].isupper() and gazetteer.find_language(w) and not re.search(
        rf"\bi'm\s+(?:(?:half|part|also|originally|fully|100%)\s+)?{re.escape(w)}\s*(?:$|[,.!;]|and\b)", n, re.IGNORECASE)]
    # "I'm French", "I'm Filipino": a people or a nationality, not a language the user speaks
    return [Draft("user.language", found[0])] if found else []


_SPENDING = re.compile(r"\b(?:budget|spend|spending|afford|limit|cap|max|maximum|up to|no more than|at most|under|"
                       r"willing to pay|can pay|ceiling|capped|over|above|more than|exceed)\b", re.IGNORECASE)


def _find_amount(n: str) -> list[Draft]:
    """An amount in a clause about what the user can spend ("I can spend up to $3,500"), not
    any price said ("My rent is $2,400 a month" is no budget)."""
    if not _SPENDING.search(n):
        return []
    m = re.search(spending.AMOUNT, n)
    if m and values.parse_amount(spending.amount(m.group(0))) and not spending.not_money(n[m.start():]):
        # "we cut the trip budget to 2500", "spend up to $3,500 on the laptop": the plan it is for, as the patterns key it
        plan = _PLAN.search(n)
        topic = plan and (plan.group("pre") or plan.group("topic") or plan.group("on") or plan.group("cap"))
        found = Draft(f"user.budget.{topic.lower()}" if topic else "user.budget",
                      spending.with_bound(n[:m.start()], spending.amount(m.group(0))))  # "at least $2,000": a floor
        return spending.keyed(n, [found])  # "$50 on this gift", "for my mom's birthday gift"
    return []


_PLAN = re.compile(rf"\b(?P<pre>{cl.PLAN_WORDS}) budget\b|\bbudget for (?:the|my|our|a) (?P<topic>{cl.PLAN_WORDS})\b"
                   rf"|\b(?:spend|spending)\b.*\bon (?:the|my|our|a|a new) (?P<on>[a-z]+)\b"
                   rf"|\b(?P<cap>{cl.PLAN_WORDS}) (?:under|below|within|at or under|at most|to under) ", re.IGNORECASE)
"""... or the plan a cap is said of: "Keep gifts under $500" is the gift budget (`spending.keyed`: user.budget.gift)."""


def _find_payment(n: str) -> list[Draft]:
    n = FROM_TO.sub("", n)  # "I switched from Visa to Mastercard": Mastercard
    found = payment_frame(f"i pay with {PAYMENT_WORDS.search(n).group(0)}") if PAYMENT_WORDS.search(n) else []
    return found


_TYPED: dict[str, Callable[[str], list[Draft]]] = {
    "user.timezone": _find_zone,
    "user.location": _find_place,
    "user.diet": _find_word("user.diet", DIET_RE, DIETS),
    "user.pets": _find_word("user.pets", SPECIES_RE, SPECIES),
    "user.contact_preference": _find_word("user.contact_preference", CHANNEL_RE, CHANNELS, _DISLIKED),
    "user.language": _find_language,
    "user.budget": _find_amount,
    "user.payment.method": _find_payment,
    "user.employer": _find_org,
    "user.job": _find_job,
}


def typed_values(entity: str, norm: str) -> list[Draft]:
    """What the typed finder of a built-in `entity` sees in a clause (none for an entity without one)."""
    finder = _TYPED.get(entity)
    return finder(norm) if finder else []


def typed_value(entry: RegistryEntry, norm: str) -> list[Draft]:
    """The value of `entry` in a clause; of a change ("I switched from Stripe to Shopify", "I replaced my Visa
    with an Amex") the new one only (`swaps`), never the first one said (the employer finder reads its own)."""
    finder = _TYPED.get(entry.key)
    change = swaps.said(norm)
    if finder and change and entry.key != "user.employer":  # "I switched my card from Visa to Amex": Amex, not "card"
        found = finder(swaps.newer(norm))
        new_side = change.group("new").lower()
        return found if all(values.split_stance(d.value)[1].lower() in new_side for d in found) else finder(change.group("new"))
    if finder:
        return finder(norm)
    new = swaps.new_value(norm) if any("[" in e for e in entry.examples) and not entry.key.endswith(".*") else None
    return [Draft(entry.key, new)] if new else _example_slot(entry, swaps.newer(norm))


def _example_slot(entry: RegistryEntry, norm: str) -> list[Draft]:
    """For an entry without a typed finder (your own entries): examples that mark their
    value in brackets ("I drive a [Tesla]") give the slot: the words before the bracket,
    then the value."""
    if entry.key.endswith(".*"):
        return []
    for example in entry.examples:
        head, bracket, _ = example.partition("[")
        words = re.findall(r"[\w']+", cl.normalize_subject(head).lower())
        if not bracket or not words:
            continue
        pattern = r"\b" + r"\s+".join(re.escape(w) for w in words) + r"\s+(?P<v>.+)$"
        m = re.search(pattern, norm, re.IGNORECASE)
        value = cut(m.group("v")) if m else ""
        if value:
            return [Draft(entry.key, value)]
    return []
