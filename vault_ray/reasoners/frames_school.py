"""Where the user studies (`user.school`): "I'm a student at UCLA", "I study at MIT", "I'm studying
law at Harvard", "I go to NYU", "I'm doing my PhD at Oxford". A school is no employer: a student's
"at UCLA" names the school, while an intern's "at Google" is a job ("I'm an intern at Google" stays
an employer, `frames.job_frame`).

"I go to" and "I attend" say a school only of a name that reads as one (a word such as University,
College or School in it, a well-known school, or a university's initials: "UCLA", "NYU"): "I go to
the gym", "I attend church", "I go to Costco" name none."""

from __future__ import annotations

import re

from .. import gazetteer
from .lexicon import Draft, cut
from .names import lower_name, person
from .orgs import THE, org_name

IC = re.IGNORECASE

SCHOOLS = {name.lower(): name for name in (
    "MIT", "Harvard", "Stanford", "Yale", "Princeton", "Oxford", "Cambridge", "Berkeley", "UC Berkeley", "UCLA", "NYU",
    "USC", "Columbia", "Cornell", "Caltech", "CMU", "Carnegie Mellon", "Georgia Tech", "Duke", "Brown", "Dartmouth",
    "UPenn", "Penn State", "Northwestern", "UChicago", "UMich", "UT Austin", "ASU", "LSE", "UCL", "ETH", "EPFL",
    "McGill", "UBC", "NUS", "Johns Hopkins", "Purdue", "Rutgers", "Vanderbilt", "Georgetown", "Tufts", "Rice", "Emory",
    "UCSD", "UCSB", "UC Davis", "UC Irvine", "UIUC", "UW", "BU", "NJIT", "RPI", "Virginia Tech", "Imperial",
)}
"""Well-known schools by the name students call them, in the casing they are written (`casing.py` writes
"i go to ucla" as UCLA)."""

_STUDENT = (r"(?:(?:[\w-]+\s+){0,3}?(?:student|undergrad(?:uate)?|postgrad(?:uate)?|freshman|sophomore|pupil)"
            r"|junior|senior|(?:phd|doctoral|masters?|master's|mba) candidate)")
STUDENT_JOB = re.compile(rf"^{_STUDENT}$", IC)
"""A job that is studying ("student", "PhD student", "second-year law student", "sophomore"; not "senior engineer")."""
_DEGREE = r"(?:phd|ph\.d\.?|doctorate|masters?|master's|mba|degree|bachelor's|bachelors|undergrad|ba|bs|bsc|ma|ms|msc|llm|md)"
_SCHOOL_WORD = re.compile(r"\b(?:university|univ|uni|college|school|academy|institute|polytechnic|conservatory|seminary|"
                          r"tech)\b", IC)
_INITIALS = re.compile(r"^(?-i:U[A-Z]{1,4}|[A-Z]{1,3}U)$")
"""A university's initials ("UCLA", "UCSD", "NYU", "LSU")."""
_AT = re.compile(
    rf"\bi'm (?:now |currently |still )?(?:a|an) (?P<job>{_STUDENT}) (?P<sep>at|of|in) (?P<v>.+)$"
    rf"|\bi (?:(?:now|currently|still|also)\s+)?study (?:(?!at\b)[\w'-]+\s+){{0,3}}?at (?P<w>.+)$"
    rf"|\bi'm (?:(?:now|currently|still|also)\s+)?studying (?:(?!at\b)[\w'-]+\s+){{0,3}}?at (?P<x>.+)$"
    rf"|\bi'm (?:(?:now|currently|still)\s+)?(?:doing|finishing|working on|pursuing) (?:my|a) {_DEGREE}"
    rf"(?: (?:in|on) (?:[\w'-]+\s+){{1,3}}?)? ?at (?P<y>.+)$"
    r"|\bi'm (?:(?:now|currently|still)\s+)?enrolled (?:at|in) (?P<z>.+)$"
    r"|\bmy (?:school|university|college|uni) is (?P<s>.+)$", IC)
_GO = re.compile(r"\bi (?:(?:now|currently|still|also)\s+)?(?:go to|attend)(?: (?:school|college|university|uni) at)? "
                 r"(?P<v>.+)$", IC)
_NOT_SCHOOLS = re.compile(r"^(?:home|night|nights|work|lunch|the moment|a |an |my |our |great|good|fine|ok|okay|nice|"
                          r"hard|fun|boring|expensive|cheap|far|close|big|small|online|remote)\b", IC)


def studies(job: str) -> bool:
    """Whether a job as said is studying ("student", "PhD student", "freshman"): its "at ..." is a school."""
    return bool(STUDENT_JOB.match(job.strip()))


def school_like(name: str) -> bool:
    """Whether a name reads as a school's by itself: a school word in it, a well-known school, a university's initials."""
    return bool(_SCHOOL_WORD.search(name)) or name.lower() in SCHOOLS or bool(_INITIALS.match(name))


def school_frame(n: str) -> list[Draft]:
    m = _AT.search(n)
    if m:
        raw = next(m.group(g) for g in "vwxyzs" if m.group(g))
        sep = (m.group("sep") or "").lower()
        # "a student in Paris": a place; "a student of history": a subject
        return _school(raw, strict=sep in ("in", "of") or bool(m.group("z")))
    m = _GO.search(n)
    return _school(m.group("v"), strict=True) if m else []


def _school(raw: str, *, strict: bool) -> list[Draft]:
    """The school said in `raw` ("UCLA in Los Angeles": UCLA); with `strict`, only a name that reads as one."""
    name = org_name(re.split(r"\s+(?:for|since|until|from|and|but|so|because|while|part[- ]time|full[- ]time)\b", raw,
                             maxsplit=1, flags=IC)[0])
    name = THE.sub("", cut(name or ""))
    if not name[:1].isalpha() or _NOT_SCHOOLS.match(name) or person(name) or (name.islower() and not (lower_name(name) or
                                                                                           name in SCHOOLS)):
        return []
    if gazetteer.find_place(name) and name.lower() not in SCHOOLS:
        return []  # "a student in Paris", "I study at Boston": a place
    if strict and not school_like(name):
        return []
    return [Draft("user.school", name)]
