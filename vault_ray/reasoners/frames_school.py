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
from .orgs import COMPANIES, THE, org_name

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
_WENT = re.compile(r"\bi (?:(?:also|actually)\s+)?(?:went to|attended|graduated from|got my (?:[\w'-]+ )?degree "
                   r"(?:from|at)|did my (?:[\w'-]+ )?(?:degree|phd|masters|master's|mba|undergrad) at)(?: (?:school|college|"
                   r"university|uni) at)? (?P<v>.+)$", IC)
"""A school said in the past ("I went to Stanford", "I graduated from the University of Michigan"): where the user
studied, stored as said ("The user went to Stanford"); only a name that reads as a school's and is no place ("I went
to Oxford" may be a visit)."""
_GENERIC = re.compile(r"^(?:(?:the|a|an|my|our|local|nearby|same|small|big|public|private|online|state|community|junior|"
                      r"high|middle|grad|graduate|law|med|medical|business|art|arts|film|nursing|beauty|cooking|driving|"
                      r"boarding|night|summer|sunday|language|dance|music|flight|trade|technical|tech|of|and|for|in|at|"
                      r"university|univ|uni|college|school|academy|institute|polytechnic|conservatory|seminary)\s*)+$", IC)
"""School words and the words that only say a kind of school ("law school", "a community college", "grad school"): no
school's name, whatever the case."""
_NAMED = re.compile(rf"(?:{_SCHOOL_WORD.pattern})(?:$|\s+of\s+\w)", IC)
"""Where a school word stands in a school's name: last ("boston college") or before "of" ("university of michigan");
not before another noun ("college parties", "school run")."""
_CAMPUS = re.compile(r"[A-Za-z][\w.'-]*(?: [A-Za-z][\w.'-]*){0,2}")
"""A campus after a comma, one to three words ("Berkeley", "Ann Arbor")."""
_SMALL = frozenset({"of", "the", "and", "at", "for", "in", "de", "la", "du"})
_NOT_SCHOOLS = re.compile(r"^(?:home|night|nights|work|lunch|the moment|a |an |my |our |great|good|fine|ok|okay|nice|"
                          r"hard|fun|boring|expensive|cheap|far|close|big|small|online|remote)\b", IC)


def studies(job: str) -> bool:
    """Whether a job as said is studying ("student", "PhD student", "freshman"): its "at ..." is a school."""
    return bool(STUDENT_JOB.match(job.strip()))


def school_like(name: str) -> bool:
    """Whether a name reads as a school's by itself: a school word in it, a well-known school, a university's initials."""
    return bool(_SCHOOL_WORD.search(name)) or name.lower() in SCHOOLS or bool(_INITIALS.match(name))


def named_school(name: str) -> bool:
    """Whether `name` in any case is a school's by its words: a school word and a name beside it ("university of
    michigan", "ohio state university", "georgia institute of technology"); not a kind of school ("law school")."""
    return bool(_NAMED.search(name)) and not _GENERIC.match(name) and not re.search(r"\d", name)


def written_school(typed: str) -> str | None:
    """A school's name typed in lower case as it is written: a well-known one as it is spelled ("ucla": UCLA), one
    named by its words with capitals ("university of michigan": University of Michigan); None for no school's name."""
    if typed in SCHOOLS:
        return SCHOOLS[typed]
    if not named_school(typed):
        return None
    words = typed.split(" ")
    return " ".join(w if i and w in _SMALL else w.upper() if "&" in w else w[:1].upper() + w[1:]
                    for i, w in enumerate(words))


def school_frame(n: str) -> list[Draft]:
    m = _AT.search(n)
    if m:
        raw = next(m.group(g) for g in "vwxyzs" if m.group(g))
        sep = (m.group("sep") or "").lower()
        # "a student in Paris": a place; "a student of history": a subject
        return _school(raw, strict=sep in ("in", "of") or bool(m.group("z")))
    m = _GO.search(n)
    if m:
        return _school(m.group("v"), strict=True)
    m = _WENT.search(n)
    found = _school(m.group("v"), strict=True) if m else []
    return [d for d in found if not gazetteer.find_place(d.value)]


def _school(raw: str, *, strict: bool) -> list[Draft]:
    """The school said in `raw` ("UCLA in Los Angeles": UCLA); with `strict`, only a name that reads as one."""
    said = re.split(r"\s+(?:for|since|until|from|and|but|so|because|while|part[- ]time|full[- ]time)\b", raw, maxsplit=1,
                    flags=IC)[0]
    long, *rest = re.split(r"\s*[,;]\s*", said, maxsplit=1)
    long = cut(long)  # "the University of Texas at Austin": longer than a company's
    name = org_name(said) or (long if named_school(long) and len(long.split()) <= 9 else None)
    campus = cut(rest[0]) if rest else ""
    if name and THE.sub("", name) == THE.sub("", long) and named_school(long) and _CAMPUS.fullmatch(campus) \
            and gazetteer.find_place(campus):
        name = f"{long}, {campus}"  # "University of California, Berkeley": the campus, a place, is part of the name
    name = THE.sub("", cut(name or ""))
    if not name[:1].isalpha() or _NOT_SCHOOLS.match(name) or person(name):
        return []
    if name.islower() and named_school(name):
        name = re.sub(r"^the\s+", "", name)  # "the university of michigan": University of Michigan (`casing.py`)
    elif name.islower() and not (lower_name(name) or name in SCHOOLS):
        return []
    if name.lower() in COMPANIES and not school_like(name):
        return []  # "I study at Starbucks": a café, no school
    if gazetteer.find_place(name) and name.lower() not in SCHOOLS and not named_school(name):
        return []  # "a student in Paris", "I study at Boston": a place
    if strict and not school_like(name):
        return []
    return [Draft("user.school", name)]
