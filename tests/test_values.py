"""Canonical values (vault_ray/values.py): one comparison form per meaning, the
value as said kept for display; names from tzdata, CLDR and GeoNames."""

from __future__ import annotations

import pytest

from vault_ray import gazetteer
from vault_ray.values import canonical, parse_amount, strip_time_words, value_kind


@pytest.mark.parametrize(
    ("said", "zone"),
    [
        ("PST", "America/Los_Angeles"), ("PDT", "America/Los_Angeles"), ("Pacific time", "America/Los_Angeles"),
        ("Pacific Standard Time", "America/Los_Angeles"), ("PT", "America/Los_Angeles"),
        ("the Pacific time zone", "America/Los_Angeles"), ("America/Los_Angeles", "America/Los_Angeles"),
        ("EST", "America/New_York"), ("Eastern", "America/New_York"), ("ET", "America/New_York"),
        ("Central time", "America/Chicago"), ("CST", "America/Chicago"), ("Mountain Standard Time", "America/Denver"),
        ("CET", "Europe/Berlin"), ("Central European Summer Time", "Europe/Berlin"), ("IST", "Asia/Kolkata"),
        ("JST", "Asia/Tokyo"), ("Berlin time", "Europe/Berlin"), ("BST", "Europe/London"),
        ("UTC-5", "UTC-05:00"), ("GMT+1", "UTC+01:00"), ("utc +05:30", "UTC+05:30"), ("GMT", "UTC"), ("UTC+0", "UTC"),
    ],
)
def test_zone_names_and_offsets_have_one_canonical_zone(said, zone):
    assert canonical("user.timezone", said) == zone


@pytest.mark.parametrize(
    ("a", "b"),
    [("CET", "Europe/Paris"), ("Paris time", "Central European Time"), ("Europe/Madrid", "Europe/Zurich"),
     ("America/Toronto", "Eastern time"), ("America/Vancouver", "PST"), ("Australia/Melbourne", "Australia/Sydney"),
     # an abbreviation stands for the zone most who say it keep: Honolulu, not Adak (300 people);
     # the European zones for "EET" / "WET", not Cairo or Casablanca
     ("HST", "Hawaii time"), ("HST", "Honolulu time"), ("EET", "Athens time"), ("Eastern European Time", "Helsinki time"),
     ("WET", "Lisbon time"),
     # tz's legacy names, a Unicode minus, and abbreviations tzdata no longer lists
     ("US/Pacific", "PST"), ("US/Eastern", "EST"), ("Canada/Eastern", "Toronto time"), ("UTC\u221205:00", "UTC-5"),
     ("SGT", "Singapore time"), ("MYT", "Kuala Lumpur time")],
)
def test_zones_of_one_name_that_keep_one_clock_agree(a, b):
    """Paris and Berlin are both Central European Time, the same clock all year: one zone."""
    assert canonical("user.timezone", a) == canonical("user.timezone", b)


@pytest.mark.parametrize(
    ("a", "b"),
    [("JST", "Asia/Seoul"), ("Europe/London", "Europe/Lisbon"), ("America/Phoenix", "Mountain time"),
     ("PST", "EST"), ("America/Havana", "America/New_York"), ("EET", "Cairo time")],
)
def test_zones_of_other_names_or_other_clocks_stay_apart(a, b):
    assert canonical("user.timezone", a) != canonical("user.timezone", b)


def test_a_zone_keeps_its_offset_for_display():
    assert gazetteer.zone_offset("America/Los_Angeles") == "UTC-08:00"
    assert gazetteer.zone_offset("UTC+05:30") == "UTC+05:30"
    # an offset is not guessed into a region: UTC-5 is New York in winter and Chicago in summer
    assert canonical("user.timezone", "UTC-5") != canonical("user.timezone", "EST")


@pytest.mark.parametrize(
    ("a", "b"),
    [("NYC", "New York City"), ("New York", "the Big Apple"), ("Chicago last month", "chicago"), ("LA", "Los Angeles"),
     ("München", "Munich"), ("the UK", "United Kingdom"), ("Portland, Oregon", "Portland"),
     ("Deutschland", "Germany"), ("España", "Spain"), ("Holland", "the Netherlands"), ("Türkiye", "Turkey"),
     ("Schweiz", "Switzerland"), ("Czech Republic", "Czechia")],
)
def test_place_aliases_and_time_words_fold(a, b):
    assert canonical("user.location", a) == canonical("user.location", b)


def test_a_region_names_which_city_is_meant():
    """'Paris, Texas' is not Paris; 'Portland, Oregon' is the Portland the name alone means."""
    place = lambda said: canonical("user.location", said)  # noqa: E731
    assert place("Paris, Texas") == place("Paris, TX") != place("Paris") == place("Paris, France")
    assert place("Portland, Oregon") == place("Portland") != place("Portland, Maine")


def test_different_places_stay_different():
    assert canonical("user.location", "Paris") != canonical("user.location", "Berlin")
    assert canonical("user.location", "Smallville") == "smallville"  # unknown names still compare, folded


@pytest.mark.parametrize(
    ("said", "amount"),
    [("$5k", "5000 USD"), ("up to 5,000 USD", "5000 USD"), ("five thousand dollars", "5000 USD"),
     ("5000", "5000 USD"), ("€3.5k", "3500 EUR"), ("2 million euros", "2000000 EUR"), ("£1,200", "1200 GBP"),
     ("twelve hundred pounds", "1200 GBP"), ("10k", "10000 USD"),
     # a currency named by its full name (either way round), a unit word or a short form
     ("5000 Canadian dollars", "5000 CAD"), ("5000 dollars australian", "5000 AUD"), ("5000 won", "5000 KRW"),
     ("Rs 5000", "5000 INR"), ("5000 zł", "5000 PLN"), ("5000 Mexican pesos", "5000 MXN"),
     # a unit several currencies share stays that unit: never the default dollar
     ("5000 pesos", "5000 peso"), ("5000 kr", "5000 kr"), ("-$5", "-5 USD"), ("minus 5 dollars", "-5 USD")],
)
def test_amounts_carry_their_currency(said, amount):
    assert canonical("user.budget", said) == amount
    assert canonical("budget_authority", said) == amount


@pytest.mark.parametrize(
    ("said", "form"),
    [("$5000 per month", "5000 USD/month"), ("5k a year", "5000 USD/year"), ("€50/hr", "50 EUR/hour"),
     ("2.5k EUR monthly", "2500 EUR/month"), ("between $3k and $5k", "3000-5000 USD"), ("$3k-$5k", "3000-5000 USD"),
     ("3 to 5 thousand euros", "3000-5000 EUR"), ("from 3000 to 5000 dollars a month", "3000-5000 USD/month"),
     ("at least 5000 dollars", ">=5000 USD"), ("more than $5k", ">=5000 USD"), ("no more than $5k", "5000 USD"),
     ("under 5000 dollars", "5000 USD"),
     # spelled out: the low end takes the high end's scale word
     ("three to five thousand dollars", "3000-5000 USD"), ("between three and five thousand dollars", "3000-5000 USD"),
     ("from two to three hundred euros a month", "200-300 EUR/month"), ("twenty to thirty dollars", "20-30 USD"),
     ("five hundred to a thousand dollars", "500-1000 USD"), ("up to five thousand dollars", "5000 USD"),
     ("twenty-five thousand dollars", "25000 USD"),  # one number, not a range
     # European separators, and a sign
     ("5.000 €", "5000 EUR"), ("5 000 €", "5000 EUR"), ("5.000,50 €", "5000.5 EUR"), ("1,5k €", "1500 EUR"),
     ("$1,500.50", "1500.5 USD"), ("1,234,567 yen", "1234567 JPY"), ("-500 USD", "-500 USD"), ("3-5k", "3000-5000 USD")],
)
def test_amounts_keep_their_period_bound_and_range(said, form):
    """What qualifies an amount is part of it: $5000 a month is not $5000 a year, a range
    is not its low end, a floor is not a ceiling (an upper bound reads as the amount)."""
    assert canonical("user.budget", said) == form


@pytest.mark.parametrize(("said", "form"), [
    ("twenty-five hundred bucks", "2500 USD"), ("twenty five hundred dollars", "2500 USD"),
    ("ninety-nine hundred euros", "9900 EUR"), ("twenty hundred dollars", "2000 USD"), ("fifteen hundred dollars", "1500 USD"),
])
def test_hundreds_said_as_people_say_them(said, form):
    """word2number read "twenty-five hundred" as 200: a $2,500 budget agreed with $200's."""
    assert canonical("user.budget", said) == form


def test_qualified_amounts_that_differ_compare_different():
    budget = lambda said: canonical("user.budget", said)  # noqa: E731
    assert budget("$5000 per month") != budget("$5000 per year") != budget("$5000")
    assert budget("between $3k and $5k") != budget("$3k")
    assert budget("under 5000 dollars") != budget("at least 5000 dollars")
    assert budget("$5000 a month") == budget("5k dollars monthly") == budget("five thousand dollars per month")


@pytest.mark.parametrize(
    ("entity", "a", "b"),
    [("user.schedule.gym", "at 7pm", "at 19:00"), ("user.schedule.gym", "7:00 a.m.", "7am"),
     ("user.birthday", "March 5", "5 March"), ("user.birthday", "the 5th of March", "Mar. 5th"),
     # said in words (clock_words.py)
     ("user.schedule.gym", "6:30am", "half past six in the morning"), ("user.schedule.gym", "7pm", "7 in the evening"),
     ("user.schedule.gym", "6:45pm", "a quarter to seven in the evening"), ("user.schedule.gym", "at 7pm", "at seven pm"),
     ("user.schedule.gym", "19:00", "19h"), ("user.schedule.gym", "7:30 pm", "Seven-thirty p.m."),
     ("user.schedule.gym", "6:30am", "6.30 am"), ("user.schedule.standup", "21:10", "ten past nine at night"),
     ("user.schedule.gym", "at 7:35", "at twenty-five to eight"), ("user.schedule.gym", "at 07:30", "at 7h30"),
     ("user.schedule.gym", "00:30", "half past twelve at night"), ("user.schedule.gym", "9:55", "5 minutes to 10")],
)
def test_dates_and_clock_times_said_differently_agree(entity, a, b):
    assert canonical(entity, a) == canonical(entity, b)


@pytest.mark.parametrize(("a", "b", "same"), [
    ("London, Ontario", "London", False), ("London, Ontario", "London, Canada", True), ("London, England", "London", True),
    ("Vancouver, BC", "Vancouver", True), ("Sydney, NSW", "Sydney", True), ("Sydney, Nova Scotia", "Sydney", False),
    ("Perth, Scotland", "Perth", False), ("Toronto, ON", "Toronto", True),
])
def test_a_province_or_nation_after_a_city_says_which_city(a, b, same):
    """A qualifier that is no US state nor country (pycountry's subdivisions) was dropped:
    "London, Ontario" read as London."""
    assert (canonical("user.location", a) == canonical("user.location", b)) is same


def test_other_dates_and_times_and_bare_numbers_stay_apart():
    assert canonical("user.schedule.gym", "at 7pm") != canonical("user.schedule.gym", "at 7am")
    assert canonical("user.birthday", "March 5") != canonical("user.birthday", "May 3")
    assert canonical("user.schedule.gym", "every monday at 6") == "every monday at 6"  # a bare 6: maybe not a time
    assert canonical("user.age", "30") == "30"
    # words that make no clock time stay words: a count, a duration, a room
    assert canonical("user.pets", "seven cats") == "seven cat" and canonical("user.sleep", "3h of sleep") == "3h of sleep"
    assert canonical("user.schedule.gym", "half past six in the morning") != canonical("user.schedule.gym", "6:30pm")
    assert canonical("user.schedule.gym", "12 at night") == canonical("user.schedule.gym", "midnight")
    for said in ("5 to 10 people", "works 9 to 5", "ten to twelve guests", "a 2h15 flight"):  # ranges and durations
        assert ":" not in canonical("user.note", said)


def test_different_currencies_are_different_amounts():
    assert canonical("user.budget", "5000 EUR") != canonical("user.budget", "5000 USD")
    assert parse_amount("no number here") is None


def test_stances_and_consent():
    assert canonical("user.food_preferences", "likes:Italian") == "likes:italian"
    assert canonical("user.pets", "not:Dogs") == "not:dog"
    assert canonical("user.consent.marketing", "yes") == canonical("user.consent.marketing", "given") == "given"
    assert canonical("legal_consent", "revoked") == "withdrawn"
    assert canonical("user.language", "Mandarin") == canonical("user.language", "Chinese")


def test_plain_text_folds_case_articles_plurals_and_time_words():
    assert canonical("user.employer", "The Acme Corp") == canonical("user.employer", "acme corp")
    assert canonical("user.allergies", "Peanuts") == canonical("user.allergies", "peanut")
    assert strip_time_words("vegan since 2020") == "vegan"
    assert canonical("user.x", None) == "" and canonical("user.x", "  ") == ""


def test_value_kind_follows_the_key():
    assert [value_kind(k) for k in ("user.timezone", "user.tz", "user.location", "user.budget.trip", "user.language",
                                    "user.consent.email", "legal_consent", "user.diet")] == [
        "zone", "zone", "place", "amount", "language", "consent", "consent", "text"]


@pytest.mark.parametrize(("said", "like"), [("UK time", "London time"), ("uk time", "BST"), ("the UK time", "Europe/London"),
                                            ("Britain time", "Europe/London"), ("England time", "London time"),
                                            ("Germany time", "Berlin time"), ("Deutschland time", "CET"),
                                            ("Ireland time", "Dublin time"), ("Holland time", "Amsterdam time")])
def test_a_country_of_one_clock_names_its_zone_with_a_time_word(said, like):
    """"I'm on UK time": a country whose zones all keep one clock names that zone."""
    assert canonical("user.timezone", said) == canonical("user.timezone", like)


@pytest.mark.parametrize("said", ["US time", "Spain time", "Australia time", "Brazil time", "Canada time", "Germany", "UK"])
def test_a_country_of_several_clocks_or_without_a_time_word_names_no_zone(said):
    """Which of the US's or Spain's (the Canaries) zones was meant cannot be known; "Germany" alone is a place."""
    assert gazetteer.find_zone(said) is None


def test_two_agents_saying_uk_time_and_london_time_agree(tmp_path):
    from vault_ray import HashingEmbedder, Vault

    with Vault.open(tmp_path / "store", embedder=HashingEmbedder()) as vault:
        (first,) = vault.agent("a").add("I'm on UK time").decisions
        (second,) = vault.agent("b").add("I am on London time now").decisions
        assert first.entity == second.entity == "user.timezone"
        assert second.outcome == "active" and second.dispute_id is None and not vault.get("user.timezone").contested
