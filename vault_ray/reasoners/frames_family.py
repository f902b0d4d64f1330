"""Slot patterns for the user's family: "I have two kids" (user.family: 2 children), "My wife
is Sarah Jones" (wife:Sarah Jones: a role with the name as said, surname and all), "I'm
married" (user.marital_status). "My mom is Korean" says what she is, not her name."""

from __future__ import annotations

import re

from .. import gazetteer
from .frames_names import KIND_OF_NAME
from .lexicon import Draft, number_word, split_list

IC = re.IGNORECASE


_RELATIONS = r"kids?|children|child|sons?|daughters?|brothers?|sisters?|siblings?|twins|grandchildren|grandkids|" \
             r"stepsons?|stepdaughters?"
_AGED = (r"(?:(?:young|little|grown|adult|teenage|small|older|younger|newborn|baby|infant|toddler|"
         r"(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)[- ](?:year|month|week)s?[- ]old)\s+){0,2}")
"""What may stand before a relation: "a little son", "a 5 year old son", "a newborn daughter"."""
_FAMILY_HAVE = re.compile(rf"\b(?:i|we) (?:have|'ve got|have got)\s+(?P<n>a|an|one|two|three|four|five|six|\d+)\s+"
                          rf"{_AGED}(?P<r>{_RELATIONS})\b", IC)
_FAMILY_ITEM = re.compile(rf"(?P<n>a|an|one|two|three|four|five|six|\d+)\s+{_AGED}(?P<r>{_RELATIONS})\b", re.IGNORECASE)
HAVE_LIST = re.compile(r"\b(?:i|we)(?: also| still)? (?:have|'ve got|have got|own)\s+(?P<list>.+)$", re.IGNORECASE)
"""What the user has, said as a list that may mix kinds ("I have a dog and two kids": a pet, then children)."""


def _relative(m: re.Match[str]) -> Draft:
    count = number_word(m.group("n")) or 1
    rel = m.group("r").lower()
    rel = {"kid": "child", "kids": "children", "grandkids": "grandchildren"}.get(rel, rel)
    singular = re.sub(r"(?:ren|s)$", "", rel) if rel != "twins" else rel
    return Draft("user.family", f"{count} {rel}" if count > 1 else singular)


_PERSON = r"[A-Z][a-z]+(?:[ -](?!I\b)[A-Z](?:[\w\-]|'(?!s\b))*[a-z]){0,3}"
"""A name with its surname as said ("Ann", "Ann Lee", "Maria Gonzalez", "Mary-Jo O'Brien"), without
a possessive ("Ann Lee's house": Ann Lee); a longer capitalized run is cut or refused by `person_named`."""
_FAMILY_NAME = re.compile(rf"^(?i:(?:(?:now|and|so|also|but|actually|well|btw),?\s+)*my) (?P<r>wife|husband|partner|spouse|"
                          rf"son|daughter|mom|mother|dad|father|brother|sister|fiancee?|boyfriend|girlfriend)"
                          rf"(?:(?:'s name)? is (?:called |named )?(?P<v>{_PERSON})\b"
                          rf"|,? (?P<w>{_PERSON})\b)", re.UNICODE)  # "my wife is Anna Lee", "my wife Anna is ..."
_HAVE_NAMED = re.compile(rf"\b(?i:(?P<s>i|we)(?: have|'ve got| have got| got| now have)\s+(?:a|an|one)\s+(?:(?:new|little|"
                         rf"younger|older|big|baby|teenage|grown|adult|lovely|amazing|wonderful|beautiful|great)\s+)*"
                         rf"(?P<r>wife|husband|partner|spouse|fianc[eé]e?|boyfriend|girlfriend|son|daughter|brother|sister|"
                         rf"stepson|stepdaughter),?\s+(?:named|called|whose name is|by the name of)\s+)(?P<v>{_PERSON})\b",
                         re.UNICODE)
"""A relative said with their name after "have" ("I have a girlfriend named Jess": girlfriend:Jess, as "My girlfriend
is Jess" says; "We have a son called Max": son:Max); "we" has no partner ("We have a partner called Acme")."""
_KIN_OF_US = ("son", "daughter", "stepson", "stepdaughter")
_TIME_WORDS = re.compile(r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|"
                         r"june|july|august|september|october|november|december|today|tonight|tomorrow|yesterday)$", IC)


_VERB = re.compile(r"(?:is|was|has|had|have|and|or|but|who|just|also|still|always|never|really|will|would|can|could|lives|"
                   r"loves|likes|works|hates|says|said|thinks|wants|needs|makes|goes|went|gets|got|plays|owns|came|made|"
                   r"from|in|at|of|on|to|with|by|for|since|too|as well|are|were|both|live|love|like|work|own|run|come|go|"
                   r"visit|stay|do|did|does|may|might|should|must|recently|now|usually|often|then|died|passed|left|met|"
                   r"taught|told|thought|knew|saw|gave|took|became|ran|sent|bought|brought|lost|won|paid|built)$", IC)
"""A word that may follow a name ("My brother Sam Lee lives in Ohio"); one that is no verb ("Sam Houston State grad")
says the capitalized words name something else."""


def _run(words: list[str], after: str) -> list[str] | None:
    """The words of a capitalized run that are a name: cut before a verb said capitalized ("Max
    Loves Dinosaurs": Max); None for a first name and more than two surnames, or a surname
    followed by a word that is no verb ("Sam Houston State grad")."""
    cut = next((i for i, w in enumerate(words) if i and _VERB.match(w)), None)
    if cut is not None:
        return words[:cut]
    nxt = re.match(r"\s*([A-Za-z]+)", after) if not re.match(r"\s*(?:'s?\b|[^\w\s])|\s*$", after) else None
    if len(words) > 3 or (nxt and nxt.group(1)[0].isupper()):
        return None  # "Bob Lee Harvey Oswald fan club"
    if len(words) > 1 and nxt and not (_VERB.match(nxt.group(1)) or re.search(r"(?:[^s]s|ed)$", nxt.group(1))):
        return None  # "My brother Sam Houston State grad is visiting"
    return words


def person_named(said: str, after: str = "") -> str | None:
    """The name in `said` ("Ann Lee"), without a word after it that is no part of a name ("Anna
    Monday", "Sam Is"; `after`: what the message says after it, see `_run`); None for a word that
    says what the person is ("Korean", "Catholic")."""
    words = _run(said.split(), after)
    if not words:
        return None
    words = " ".join(words).replace("-", " - ").split()
    while len(words) > 1 and (_TIME_WORDS.match(words[-1]) or words[-1] == "-"):
        words.pop()
    name = " ".join(words).replace(" - ", "-")
    if KIND_OF_NAME.match(words[0]) or gazetteer.find_language(words[0]):
        return None
    return name


_MARITAL = re.compile(r"\bi(?:'m| got| just got| recently got| am| was|'ve been|'ve just been)?\s+(?:now |happily |recently |"
                      r"just |newly )?(?P<v>married|single|divorced|engaged|widowed|separated|remarried)\b", IC)
_NO_STATUS = re.compile(
    r"\bwas married (?:to|for)\b|\bmarried to (?:my|the|this|that|his|her|their|our|it|work)\b(?!\s+(?:[\w-]+\s+){0,3}"
    r"(?:wife|husband|partner|spouse|sweetheart|girlfriend|boyfriend|friend|fianc[eé]e?|love|man|woman|guy|girl|person|"
    r"lady)\b)", IC)
"""No marital status now: "I was married to Sarah" (once), "I'm married to my job" (a figure of speech)."""
_MARITAL_LATER = re.compile(r"\b(?:and|then|but|later)\s+(?:(?:got|was|became|then|later)\s+)*(?P<v>married|divorced|"
                            r"widowed|separated|engaged|remarried)\b(?P<rest>[^,;]*)", IC)
"""A status said after another in the same clause: "I got married in 2012 and widowed in 2020" (widowed)."""
_CHILDLESS = re.compile(r"\b(?:i|we) (?:have no|don't have any|don't have|do not have any|do not have|have zero) "
                        r"(?:kids|children)\b(?! with\b)|\bi'm (?:childless|child-free|childfree)\b", IC)
"""No children: "I have no kids (yet)", "We don't have children", "I'm childfree" (not "no kids with him")."""
_SPOUSE = re.compile(r"\b(?:i|we) (?:have|'ve got|have got) an? (?:wife|husband|spouse)\b(?!\s*,?\s*(?:named|called)\b)", IC)
_MARITAL_NOT = re.compile(r"\bi'm (?:not|no longer) (?P<v>married|single|engaged)\b", IC)


def family_frame(n: str) -> list[Draft]:
    if (m := _HAVE_NAMED.search(n)) and not (m.group("s").lower() == "we" and m.group("r").lower() not in _KIN_OF_US):
        name = person_named(m.group("v"), n[m.end():])
        return [Draft("user.family", f"{m.group('r').lower().replace('é', 'e')}:{name}")] if name else []
    m = _FAMILY_HAVE.search(n)
    if m:
        if named := _named(m, n[m.end():]):  # "I have two kids, Max who is 7 and Lily who is 4"
            return named
        items = [_FAMILY_ITEM.match(x) for x in split_list(n[m.start("n"):])]
        return [_relative(x) for x in items if x] or [_relative(m)]
    if (have := HAVE_LIST.search(n)) and (kin := [_relative(x) for x in map(_FAMILY_ITEM.match, split_list(have["list"])) if x]):
        return kin  # "I have a dog and two kids": the kids
    m = re.search(r"\bi'm (?:a )?(?P<single>single |solo )?(?:mom|mum|mother|dad|father|parent) of (?P<n>\w+)\b", n, IC)
    if m and number_word(m.group("n")):
        count = number_word(m.group("n")) or 1
        single = [Draft("user.marital_status", "single")] if m.group("single") else []  # "a single mom of two"
        return [Draft("user.family", f"{count} children" if count > 1 else "child"), *single]
    if re.search(r"\bi'm (?:a )?single (?:mom|mum|mother|dad|father|parent)\b(?! of)", n, IC):
        return [Draft("user.family", "child"), Draft("user.marital_status", "single")]  # "I'm a single dad"
    if _CHILDLESS.search(n):
        return [Draft("user.family", "not:children")]  # denies any count of children said before
    if m := _FAMILY_NAME.search(n):
        name = person_named(m.group("v") or m.group("w"), n[m.end():])
        return [Draft("user.family", f"{m.group('r').lower()}:{name}")] if name else []
    if m := _MARITAL_NOT.search(n):
        return [Draft("user.marital_status", f"not:{m.group('v').lower()}")]
    m = _MARITAL.search(n)
    if not m and _SPOUSE.search(n):
        return [Draft("user.marital_status", "married")]  # "I have a wife and two cats"
    if m and not re.search(r"\b(?:single (?:room|bed|ticket|payment|trip)|not)\b", n, IC) and not _NO_STATUS.search(n):
        said = _last_status(m.group("v"), n[m.end():]).lower()
        return [Draft("user.marital_status", "married" if said == "remarried" else said)]
    return []




_NAMES_AFTER = re.compile(r"^\s*(?:,|:|-|–|—|named|called)\s*(?:(?:named|called)\s+)?(?P<names>.+?)[\s.!]*$", IC)
_ONE = re.compile(r"^(?P<name>(?-i:[A-Z])[a-z]+(?:-(?-i:[A-Z])[a-z]+)?)(?:\s*\(\s*\d{1,2}\s*\)|,?\s*(?:who is|who's|aged?|is)\s+"
                  r"\d{1,2}(?:\s*(?:years? old|yo|y/o|months? old))?|,?\s+\d{1,2})?$", IC)


def _named(m: re.Match[str], after: str) -> list[Draft]:
    """The relatives a count names right after it, one name each ("two kids, Max who is 7 and Lily who is 4": 2
    children, child:Max, child:Lily; "a son named Max": son:Max); none unless every item is one name and there are as
    many names as the count says."""
    said = _NAMES_AFTER.match(after)
    count = number_word(m.group("n")) or 1
    listed = re.sub(r",\s*(?=(?:who is|who's|aged?)\b)", " ", said.group("names").strip(), flags=IC) if said else ""
    items = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*", listed) if listed else []
    names = [x.group("name") for x in map(_ONE.match, items)
             if x and person_named(x.group("name")) and not _TIME_WORDS.match(x.group("name"))]
    if not items or len(names) != len(items) or len(names) != count or m.group("r").lower() == "twins":
        return []
    role = re.sub(r"^\d+ ", "", _relative(m).value)  # "2 children": children; "son"
    one = {"children": "child", "grandchildren": "grandchild"}.get(role, re.sub(r"s$", "", role))
    return ([] if count == 1 else [_relative(m)]) + [Draft("user.family", f"{one}:{name}") for name in names]


def _last_status(said: str, after: str) -> str:
    """The status said last of those the clause dates, or said after "and"/"then" ("married in 2012
    and widowed in 2020": widowed); one dated earlier than the first is not taken ("divorced in 2021
    and married in 2012")."""
    year = re.search(r"\b(?:19|20)\d\d\b", after)
    for m in _MARITAL_LATER.finditer(after):
        later = re.search(r"\b(?:19|20)\d\d\b", m.group("rest"))
        if not (year and later and int(later.group(0)) < int(year.group(0))):
            said, year = m.group("v"), later or year
    return said
