"""Regions below a country (provinces, states, the UK's nations, German Länder...) by name
or ISO 3166-2 code, from pycountry: the countries a place qualifier such as "Ontario",
"BC" or "England" may name (`gazetteer._in_region`: "London, Ontario" is not London)."""

from __future__ import annotations

import unicodedata
from functools import cache


def _key(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return " ".join(plain.lower().replace(".", " ").split())


@cache
def _table() -> dict[str, frozenset[str]]:
    import pycountry

    found: dict[str, set[str]] = {}
    for sub in pycountry.subdivisions:
        for name in (sub.name, sub.code.partition("-")[2]):
            found.setdefault(_key(name), set()).add(sub.country_code)
    return {k: frozenset(v) for k, v in found.items()}


def countries_of(region: str) -> frozenset[str]:
    """ISO country codes of the subdivisions named `region` ("ontario" -> {CA}; "bc" -> CA
    and the other countries with a subdivision coded BC); empty if none."""
    return _table().get(_key(region), frozenset())
