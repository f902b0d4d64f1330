"""Whether one place lies in another: a city in its US state or its country.

"I live in Portugal" and "I live in Lisbon" say one thing, the second more exactly; two
agents saying them are no contradiction (reasoners/rules.py `detail_of`).
"""

from __future__ import annotations

from .gazetteer import _cities_named, find_place, place_table, regions


def within(inner: str, outer: str) -> bool:
    """Whether canonical place `inner` is a city in `outer`, a US state or a country ("lisbon"
    in "portugal", "austin" in "texas", "paris, texas" in "united states"): one place said
    more exactly, not another place."""
    states, countries = regions()
    if _ambiguous(outer, states, countries):
        return False
    city, _, region = inner.partition(", ")
    if region and region == outer:
        return True
    named = _cities_named(city)
    if region in states:
        named = [c for c in named if c["countrycode"] == "US" and c["admin1code"] == states[region]]
    elif region:  # "hyderabad, pakistan": that country's city of the name, not the largest one
        named = [c for c in named if c["countrycode"] == countries.get(place_table().get(region, region))]
    if not named:
        return False
    place = max(named, key=lambda c: int(c["population"]))
    if outer in states:
        return place["countrycode"] == "US" and place["admin1code"] == states[outer]
    return countries.get(place_table().get(outer, outer)) == place["countrycode"]


AMBIGUOUS_CITY = 100_000
"""A US state named as a US city of this many people or more names either (Washington:
the state, or D.C., whose canonical form it is)."""


def _ambiguous(outer: str, states: dict[str, str], countries: dict[str, str]) -> bool:
    """Whether a region's name may name something else that holds none of its cities: a US
    state that is also a country (Georgia) or a large US city (Washington). Seattle is in
    Washington the state, not in Washington, D.C.: two agents saying them may disagree."""
    if outer not in states:
        return False
    return outer in countries or any(c["countrycode"] == "US" and int(c["population"]) >= AMBIGUOUS_CITY
                                     for c in _cities_named(outer))


NOTABLE_CITY = 100_000
"""A bare name ("Actually, Alice") is taken for a city of this many people or more."""


def notable(text: str) -> bool:
    """Whether a bare name surely means a place: a country, a US state, or a city of at least
    `NOTABLE_CITY` people. A first name that is also a small town ("Alice", Texas) is not."""
    found = find_place(text)
    if found is None:
        return False
    states, countries = regions()
    if found in states or found in countries or found in ("england", "scotland", "wales", "northern ireland"):
        return True
    return any(int(c["population"]) >= NOTABLE_CITY for c in _cities_named(found.split(", ")[0]))


def same_region(first: str, second: str) -> bool:
    """Whether a place named `second` (a city of any size) lies in the US state, or outside the
    US the country, of the place `first` names: "Boulder" for "Denver", "Cambridge" for
    "Boston"; not "Alice" (a town in Texas) for "Boston"."""
    a, b = find_place(first), find_place(second)
    if not a or not b:
        return False
    states, countries = regions()

    def where(place: str, every: bool) -> set[tuple[str, str]]:
        if place in states:
            return {("US", states[place])}
        if place in countries:
            return {(countries[place], "")}
        named = _cities_named(place.split(", ")[0])
        named = named if every else sorted(named, key=lambda c: int(c["population"]))[-1:]  # what the name alone means
        return {(c["countrycode"], c["admin1code"] if c["countrycode"] == "US" else "") for c in named}

    outer, inner = where(a, every=False), where(b, every=True)
    return any(o == i or (o[0] == i[0] and not (o[1] and i[1])) for o in outer for i in inner)
