"""A country's time zone, for "I'm on UK time" or "Germany time": the countries that keep one clock.

A country of several clocks (the United States, Spain with the Canaries, Australia, Brazil)
names none: which of its zones was meant cannot be known. `gazetteer.find_zone` asks this only
with a "time" word, as for cities ("I live in Germany" names a place, not a zone).
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable, Collection, Mapping

BRITAIN = ("uk", "u.k.", "britain", "great britain", "england", "scotland", "wales")
"""Names of the United Kingdom (or of its parts, on its one clock) that CLDR does not list."""


def country_zones(locale: str, fold: Callable[[str], str], same_clock: Callable[[str], str],
                  place_names: Mapping[str, str], other_places: Collection[str] = ()) -> dict[str, str]:
    """Folded country name -> the zone of a country whose zones all keep one clock (`same_clock`),
    its first zone in CLDR ('Europe/Berlin' for Germany). The names: the country's name in
    `locale`, and every folded name `place_names` (gazetteer's place table: 'deutschland',
    'the uk', 'holland') reads as that name; none of `other_places` (the US states: a state's name
    names no country's zone here; "Georgia time" stays CLDR's Georgia Time, gazetteer's zone table)."""
    from babel import Locale  # noqa: PLC0415  (loaded with the other tables)
    from babel.core import get_global  # noqa: PLC0415

    names, known = Locale.parse(locale).territories, zoneinfo.available_timezones()
    zone_of: dict[str, str] = {}
    for code, zones in get_global("territory_zones").items():
        kept = [z for z in zones if z in known]
        if code in names and kept and len({same_clock(z) for z in kept}) == 1:
            zone_of[fold(names[code]).removeprefix("the ")] = kept[0]
    table = {name: zone_of[place] for name, place in place_names.items() if place in zone_of}
    table.update(zone_of)
    if "united kingdom" in zone_of:
        table.update(dict.fromkeys(BRITAIN, zone_of["united kingdom"]))
    return {name: zone for name, zone in table.items() if name not in other_places}
