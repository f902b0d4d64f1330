"""Where the user works as, said with the job: "I'm an accountant in Toronto" (user.location Toronto beside user.job
accountant), as "I'm a nurse at St Mary's" gives the employer beside the job.

Only a place said whole right after "in" is taken, one the gazetteer knows ("I'm a lawyer in New York"); a place with
more words after it ("in Paris this summer", "in Berlin for a month"), a job held away from home ("a visiting professor
in Berlin", "an exchange student in Lyon") or no place ("a nurse in the ICU", "a teacher in training") gives none.
Said with "now" ("in Leeds at the moment", "in London for now") the place is where the user is now.
"""

from __future__ import annotations

import re

from .lexicon import OCCUPATIONS, Draft, place_value

IC = re.IGNORECASE
_JOB_IN = re.compile(r"^(?:(?:hi|hello|hey|so|well|and|also|btw)[\s,!]+)*i(?:'m| am)(?: (?:now|currently|actually|still))? "
                     r"(?:a|an) (?P<job>[\w\- ]+?) (?:based |living |working )?in (?P<place>[^;:()]+?)[\s.!]*$", IC)
_NOW = re.compile(r"(?:,?\s+(?:for now|at the moment|right now|currently|these days|nowadays|at present|now))+\s*$", IC)
"""A place said with how things are now ("a nurse in Leeds at the moment", "a consultant in London for now"): the
place, as said without it; an end or a season ("in Paris this summer", "until May") still gives none."""
_AWAY = re.compile(r"\b(?:visiting|guest|exchange|travel\w*|touring|temporary|temp|seasonal|locum|contract)\b", IC)


def job_place_frame(n: str) -> list[Draft]:
    m = _JOB_IN.match(n.strip())
    if not m or not OCCUPATIONS.search(m.group("job")) or _AWAY.search(m.group("job")):
        return []
    said = _NOW.sub("", m.group("place")).strip()
    head, _, after = said.partition(",")
    if place_value(said, strong=False) != said:  # "Paris, Texas": one place
        said = head.strip() if re.match(r"\s*(?-i:[a-z])", after) else ""  # "in Toronto, on Eastern time": Toronto
    place = place_value(said, strong=False) if said else None
    return [Draft("user.location", place)] if place and place == said else []
