"""The user and their partner said together: "My wife and I are separating", "We got engaged",
"I'm engaged to Sarah", "I'm married to Sarah Jones" (spouse:Sarah Jones, the name as said). A
couple's subject ("my wife and I", "me and my husband") is the user's "we", one clause, not a
statement about the wife and one about "I are"."""

from __future__ import annotations

import re

from .. import gazetteer
from .frames_family import person_named
from .lexicon import Draft
from .names import first_name

IC = re.IGNORECASE
_PARTNER = r"(?:wife|husband|partner|spouse|fianc[eé]e?|boyfriend|girlfriend|other half|better half)"
COUPLE = re.compile(rf"^(?:(?:my|our) (?!late )(?:\w+ )?{_PARTNER} (?:and|&) i|me (?:and|&) my (?:\w+ )?{_PARTNER})\b(?!')", IC)
"""A sentence whose subject is the user and their partner: read as "we"."""

_TOGETHER = re.compile(
    r"^(?:(?:so|and|but|well|actually|then|later|eventually|finally|after that),?\s+)*(?:we|we're|we've)"
    r"(?:\s+(?:are|were|have|had|got|just|recently|finally|officially|now|both|been|also))*\s+(?P<v>separating|separated|divorced|married|engaged)\b(?!\s+(?:the|a|an|our|my|some|all|both|them|it|these|those)\b)"
    r"(?<!engaged(?=\s(?:in|with)\b(?!\s+(?:(?-i:[A-Z])|(?:19|20)\d\d\b|(?:the )?(?:spring|summer|fall|autumn|winter)\b))))"
    r"(?<!married(?=\sto\s(?:our|my|the|their|his|her|work)\b))"
    r"|\bi(?:'m| am)? (?:(?:now|currently|officially|just)\s+)?(?P<w>separating|separated|splitting up|split up) "
    r"(?:from|with) my (?:husband|wife|spouse|partner)\b", IC)
_NOT_NOW = re.compile(r"\b(?:were|had|once|used to|back then|got separated|late)\b", IC)
""""We were engaged once", "We got separated in the crowd", "My late husband and I": no status now."""
_TO = re.compile(r"\bi(?:'m| am| got| just got| recently got|'ve been|'ve just been| was just)?\s+(?:now |happily |recently |"
                 r"just |newly |officially )?(?P<v>engaged|married) to (?:(?:dr|mr|mrs|ms|miss|prof|professor)\.?\s+)?"
                 r"(?P<n>(?-i:[A-Z])[a-z]+(?:[ -](?!I\b)(?-i:[A-Z])(?:[\w\-]|'(?!s\b))*[a-z]){0,3})\b(?!'|\.\w)", IC)
"""A partner named ("I'm married to Sarah Jones", "to Dr. Sarah Jones": Sarah Jones); not one said as someone else's
("married to Sarah Jones' brother": whose name is not said)."""
_ENDED_VERB = r"(?:broke up|split up|called it quits|separated|divorced|got divorced|finalized (?:our|the) divorce)"
_NO_OBJECT = r"(?!\s+(?:the|a|an|our|my|his|her|their|its|it|them|this|that|these|those|some|all|both|each|every|[a-z]+ing)\b)"
"""A split said of something ("Dan and I split up the chores", "We separated the recycling"): no couple's end."""
_ONE = rf"(?:my|our) {_PARTNER}(?: (?-i:[A-Z])[a-z]+)?"
PAIR_ENDED = re.compile(rf"^(?:(?P<name>(?-i:[A-Z])[a-z]+(?: (?-i:[A-Z])[a-z]+)?|{_ONE}) (?:and|&) (?-i:I)|me (?:and|&) "
                        rf"(?P<mine>{_ONE})) (?P<aux>(?:(?:just|finally|"
                        rf"officially|recently|eventually|have|had|are|got)\s+)*)(?P<verb>{_ENDED_VERB})\b{_NO_OBJECT}", IC)
"""A couple that ended, the partner named before "and I" ("Tom and I finalized our divorce", "Jess and I broke up")."""


_BY_THEM = re.compile(rf"^(?:(?P<name>(?-i:[A-Z])[a-z]+(?: (?-i:[A-Z])[a-z]+)?)|(?P<mine>{_ONE})) (?:(?:just|finally|recently|"
                      rf"officially|suddenly)\s+)*(?P<verb>dumped me|broke up with me|split up with me|ended things with me|"
                      rf"divorced me|left me)(?=\s*(?:$|[.!,;]|for (?:someone|another|my|his|her|a|an)\b|last\b|this\b|after\b|"
                      rf"yesterday\b|today\b|recently\b|over text\b|by text\b))", IC)
"""A couple the partner ended ("Jess dumped me", "My wife left me": "left" said of a partner's role only), with at most
when or for whom after it ("Tom left me a note", "Jess dumped me from the team" are none); a name is a first name
("Google dumped me" is no partner's)."""


def pair_ended(sentence: str) -> str:
    """'Jess and I broke up' -> 'I broke up with Jess', 'Tom and I got divorced' -> 'I got divorced from Tom': the
    user's own statement, the partner kept as its object (read by `couple_frame`)."""
    if (b := _BY_THEM.match(sentence)) and not (b.group("name") and (b.group("verb").lower().startswith("left") or
                                                                    not first_name(b.group("name").split(" ")[0]))):
        prep = "I got divorced from" if b.group("verb").lower() == "divorced me" else "I broke up with"
        return f"{prep} {b.group('name') or b.group('mine')}{sentence[b.end():]}"  # "Jess dumped me": I broke up with Jess
    m = PAIR_ENDED.match(sentence)
    if not m or (m.group("name") or "").lower() in ("we", "you", "he", "she", "they", "it", "this", "that"):
        return sentence
    partner = m.group("name") or m.group("mine")
    aux = " ".join({"are": "'m", "have": "'ve"}.get(w.lower(), w) for w in m.group("aux").split())
    verb = m.group("verb")
    prep = "with" if re.match(r"(?:broke|split|called)", verb, IC) else "from"
    head = f"I{'' if aux.startswith(chr(39)) else ' '}{aux}{' ' if aux else ''}{verb} {prep} {partner}"
    return re.sub(r" our (?=divorce|\w)", " my ", head) + sentence[m.end():]


_ENDED = re.compile(r"\bi(?:'m|'ve| have| had)?(?:\s+(?:just|finally|officially|recently|eventually|now))*\s+(?:"
                    r"(?P<split>broke up|split up|called it quits) with|(?P<div>(?:got )?divorced(?: from)?|finalized "
                    r"(?:my|our|the) divorce(?: from| with)?)|(?P<sep>separated from))(?:\s+(?:my (?:ex-?)?(?P<role>wife|husband|"
                    r"spouse|partner|boyfriend|girlfriend|fianc[eé]e?)\b,?\s*)?"
                    r"(?P<name>(?-i:[A-Z])[a-z]+(?: (?-i:[A-Z])[a-z]+)?)?)?", IC)
"""The end of a couple with the partner said: "I broke up with my girlfriend Jess" (not:girlfriend:Jess), "I split up with
Dan" (not:partner:Dan, whoever Dan was to the user), "I got divorced from Tom" (divorced, not:spouse:Tom)."""
_SPOUSE = ("wife", "husband", "spouse")


def ended(n: str) -> list[Draft]:
    """What a couple's end says: the status for a spouse's ("divorced"; "separated" for a split from a husband or a wife),
    and a partner no longer the user's (`not:<role>:<name>`; the role "partner" when only the name is said)."""
    m = _ENDED.search(n)
    if not m or not (m.group("role") or m.group("name") or m.group("div")):
        return []
    if re.search(r"\b(?:after|before|since|when|once|until)\b", n[:m.start()], IC):
        return []  # "We divorced in 2021, after I separated from my husband": an earlier step, the status is said before
    role = (m.group("role") or "").lower().replace("é", "e")
    name = person_named(m.group("name"), n[m.end():]) if m.group("name") else None
    if m.group("div") and not (name or role or "divorce" in m.group("div").lower().split()):
        return []  # "I got divorced in 2012 and remarried in 2020": the statuses in order (`frames_family`)
    if m.group("div"):
        gone = f"not:{role or 'spouse'}{':' + name if name else ''}" if (name or role) and role in ("", *_SPOUSE) else ""
        return [Draft("user.marital_status", "divorced"), *([Draft("user.family", gone)] if gone else [])]
    if m.group("sep") or role in _SPOUSE:  # "I separated from Tom", "I broke up with my husband": separated
        return [Draft("user.marital_status", "separated")] if m.group("sep") or role else []
    return [Draft("user.family", f"not:{role or 'partner'}{':' + name if name else ''}")] if role or name else []


_IN_NAME = re.compile(r"^\s+in\s+(?P<name>(?-i:[A-Z])[\w'.-]*(?:\s+(?-i:[A-Z])[\w'.-]*)*)")
_MONTH = re.compile(r"(?:jan|febr)uary|march|april|may|june|july|august|september|october|november|december", IC)


def _when_or_where(after: str) -> bool:
    """Whether the words after a status let it stand: "engaged in Paris", "engaged in June" say where or when it
    happened (the place is no home: `clauses.not_now`), "engaged in Project Atlas" is busy with it, no partner's."""
    m = _IN_NAME.match(after)
    return not m or bool(_MONTH.fullmatch(m.group("name")) or gazetteer.find_place(m.group("name")))


_STATUS = {"separating": "separated", "split up": "separated", "splitting up": "separated"}
_RELATION = {"engaged": "fiance", "married": "spouse"}


def couple_frame(n: str) -> list[Draft]:
    """A marital status said of "we" ("we got engaged"), a separation ("I'm separating from my
    husband"), and a partner named with it ("I'm engaged to Sarah": fiance:Sarah)."""
    if re.search(r"\b(?:not|never|no longer|isn't|aren't|weren't|didn't)\b|n't\b", n, IC):
        return []
    if said := ended(n):
        return said
    out = []
    if (m := _TOGETHER.search(n)) and not _NOT_NOW.search(n[:m.end()] + n[m.end():m.end() + 12]) and _when_or_where(n[m.end():]):
        said = (m.group("v") or m.group("w")).lower()
        out.append(Draft("user.marital_status", _STATUS.get(said, said)))
    if (m := _TO.search(n)) and (name := person_named(m.group("n"), n[m.end():])):  # "I'm married to Sarah Jones": her full name
        out.append(Draft("user.family", f"{_RELATION[m.group('v').lower()]}:{name}"))
    return out
