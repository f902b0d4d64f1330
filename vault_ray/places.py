"""Whether one place lies in another: a city in its US state or its country.

"I live in Portugal" and "I live in Lisbon" say one thing, the second more exactly; two
agents saying them are no contradiction (reasoners/rules.py `detail_of`).
"""

from __future__ import annotations

from .gazetteer import _cities_named, place_table, regions


def within(inner: str, outer: str) -> bool:
    """Whether canonical place `inner` is a city in `outer`, a US state or a country ("lisbon"
    in "portugal", "austin" in "texas", "paris, texas" in "united states"): one place said
    more exactly, not another place."""
    states, countries = regions()
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
