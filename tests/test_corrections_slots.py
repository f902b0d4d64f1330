"""A turn that only corrects says a value of the slot it corrects, and only of that slot; a spend is no
budget; "now at the Hilton" is no job and an employer's name has no article."""

import pytest


def facts(reasoner, *turns):
    msgs = [{"role": "user", "content": t} for t in turns]
    return sorted((f.entity, f.value) for f in reasoner.extract_turn(msgs).facts)


@pytest.mark.parametrize(("first", "fix"), [
    ("My time zone is EST.", "Sorry, Amazon"), ("My time zone is EST.", "Oops, I meant Oracle"),
    ("I work at Google.", "Sorry, Vegan"), ("I work at Google.", "Sorry, Keto"), ("I work at Google.", "Actually, Paleo"),
    ("I work at Google.", "Sorry, Pacific"), ("I work at Google.", "Actually, Eastern"),
    ("I live in Boston.", "Sorry, Vegan"), ("I work at Google.", "Sorry, Pescatarian"),
])
def test_a_correction_of_another_slot_stores_nothing_and_is_reported(reasoner, first, fix):
    out = reasoner.extract_turn([{"role": "user", "content": first}, {"role": "user", "content": fix}])
    assert out.facts == () and out.unextracted


@pytest.mark.parametrize(("first", "fix", "want"), [
    ("My time zone is EST.", "Sorry, Pacific", [("user.timezone", "Pacific")]),
    ("My time zone is EST.", "Sorry, Central", [("user.timezone", "Central")]),
    ("I work at Google.", "Sorry, Amazon", [("user.employer", "Amazon")]),
    ("I'm vegetarian.", "Actually, vegan", [("user.diet", "vegan")]),
])
def test_a_correction_of_the_same_slot_still_reads(reasoner, first, fix, want):
    assert facts(reasoner, first, fix) == want


def test_a_correction_alone_still_reads(reasoner):
    assert facts(reasoner, "Sorry, Vegan") == [("user.diet", "vegan")]


@pytest.mark.parametrize("said", ["Now at the Hilton.", "I was at the Ritz until 2019, now at the Hilton.",
                                  "I'm now at the Marriott."])
def test_now_at_a_named_venue_is_no_job(reasoner, said):
    assert facts(reasoner, said) == []


@pytest.mark.parametrize(("said", "want"), [
    ("I work at the Hilton.", "Hilton"), ("I work for The New York Times", "New York Times"), ("Now at Meta.", "Meta"),
    ("I left the Hilton.", "not:Hilton"),
])
def test_an_employer_has_no_article(reasoner, said, want):
    assert facts(reasoner, said) == [("user.employer", want)]


@pytest.mark.parametrize("said", ["I spend $20 at Starbucks every day", "I usually spend about $50 a week on groceries.",
                                  "We spent $300 at the mall yesterday.", "I pay $15 at the gym every month",
                                  "I spend $2000 a month"])
def test_what_the_user_spends_is_no_budget(reasoner, said):
    assert [f for f in facts(reasoner, said) if f[0].startswith("user.budget")] == []


@pytest.mark.parametrize(("said", "want"), [("I can spend up to $300", "up to $300"), ("My budget is $400", "$400"),
                                            ("I don't want to spend more than $800", "$800")])
def test_a_budget_still_reads(reasoner, said, want):
    assert facts(reasoner, said) == [("user.budget", want)]
