"""QA round qa7, F2, F3 and F5: giving up a habit or an app is no employer left ("I quit caffeine",
"I quit Twitter"), a move's new home is read when the old one is said after it ("I moved to Seattle
from Austin"), and the common ways of saying a change replace or dispute the stale value: a divorce
or a breakup, retiring, a promotion said with "just", a routine moved to a new time, a budget bumped,
a like denied with "not really into", a food the user eats again. Each reading is checked with every
reader (the local model, the hashing embedder and patterns only), and through two agents of a vault."""

from __future__ import annotations

import pytest
from extraction_qa import facts

from vault_ray import HashingEmbedder, Vault


# -- F2: quitting a habit, an app or a person is no employer ---------------------------------------
@pytest.mark.parametrize("said", [
    "I quit caffeine two weeks ago.", "I quit sugar last year.", "I quit Twitter, too toxic.", "I quit coffee.",
    "I quit alcohol.", "I quit TikTok last month.", "I finally quit Red Bull.", "I quit Instagram.", "I quit gluten.",
    "I quit the gym.", "I left my husband.", "I left Tom.", "I left the Catholic Church.", "I left the Labour Party.",
    "I quit social media.", "I left Facebook.", "I left Google Docs open.", "I left Amazon a review.",
    "I left Microsoft Teams running.", "I left London for Paris.", "I left Tom for Mike.", "I quit Twitter after 2 years.",
])
def test_giving_something_up_is_no_employer(reasoner, said):
    assert not [f for f in facts(reasoner, said) if f[0] == "user.employer"]


@pytest.mark.parametrize(("said", "want"), [
    ("I quit Google.", [("user.employer", "not:Google")]),
    ("I left Amazon.", [("user.employer", "not:Amazon")]),
    ("I quit McKinsey in May.", [("user.employer", "not:McKinsey")]),
    ("I left the Hilton.", [("user.employer", "not:Hilton")]),
    ("I quit my job at Google.", [("user.employer", "not:Google")]),
    ("I quit working at Google.", [("user.employer", "not:Google")]),
    ("I stopped working for Deloitte.", [("user.employer", "not:Deloitte")]),
    ("I left Facebook after 5 years there.", [("user.employer", "not:Facebook")]),  # a job said: the company
    ("I quit Google to join Meta.", [("user.employer", "Meta")]),
    ("I quit Twitter to join Google.", [("user.employer", "Google")]),
    ("I left Facebook for a job at Stripe.", [("user.employer", "Stripe")]),
    ("I quit Meta and joined OpenAI.", [("user.employer", "OpenAI")]),
    ("I left Uber for Lyft.", [("user.employer", "Lyft")]),
    ("I left Bank of America last year.", [("user.employer", "not:Bank of America")]),
    ("I quit Procter & Gamble.", [("user.employer", "not:Procter & Gamble")]),
])
def test_leaving_an_organisation_or_a_job_is_read(reasoner, said, want):
    assert facts(reasoner, said) == want


# -- F3: a move's new home with the old one said after it -------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("I just moved to Seattle from Austin last weekend.", "Seattle"),
    ("Just moved to Seattle from Austin!", "Seattle"),
    ("I moved to Seattle from Austin.", "Seattle"),
    ("We relocated to Denver from Chicago for work.", "Denver"),
    ("I moved back to Ohio from California.", "Ohio"),
    ("We moved out to Portland from New York.", "Portland"),
    ("We moved from Austin to Seattle in August.", "Seattle"),
])
def test_the_new_home_of_a_move_from_somewhere(reasoner, said, want):
    assert facts(reasoner, said) == [("user.location", want)]


@pytest.mark.parametrize("said", ["I moved here from Austin.", "I just moved here from Austin last month."])
def test_moving_here_names_no_home(reasoner, said):
    """No new home is named, and where the user left is no home (as tests/test_extraction_qa93b.py holds)."""
    assert facts(reasoner, said) == []


# -- F5: a change said the common way ------------------------------------------------------------------
@pytest.mark.parametrize(("said", "want"), [
    ("Tom and I finalized our divorce in March.", [("user.family", "not:spouse:Tom"), ("user.marital_status", "divorced")]),
    ("Tom and I got divorced.", [("user.family", "not:spouse:Tom"), ("user.marital_status", "divorced")]),
    ("I divorced Tom.", [("user.family", "not:spouse:Tom"), ("user.marital_status", "divorced")]),
    ("My husband and I got divorced.", [("user.family", "not:husband"), ("user.marital_status", "divorced")]),
    ("My husband and I split up.", [("user.marital_status", "separated")]),
    ("Dan and I split up in the spring.", [("user.family", "not:partner:Dan")]),
    ("Jess and I broke up.", [("user.family", "not:partner:Jess")]),
    ("I broke up with my girlfriend Jess.", [("user.family", "not:girlfriend:Jess")]),
    ("Me and my boyfriend broke up last week.", [("user.family", "not:boyfriend")]),
])
def test_a_couple_that_ended(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", ["Tom and I split the bill.", "Tom and I split the rent.", "I broke up with my band."])
def test_a_split_that_is_no_breakup(reasoner, said):
    assert not [f for f in facts(reasoner, said) if f[0] in ("user.family", "user.marital_status")]


@pytest.mark.parametrize(("said", "want"), [
    ("I retired last June.", [("user.job", "retired")]),
    ("I just retired.", [("user.job", "retired")]),
    ("I retired from Boeing last year.", [("user.employer", "not:Boeing"), ("user.job", "retired")]),
    ("I just got promoted to senior product manager!", [("user.job", "senior product manager")]),
    ("I just got promoted to director!", [("user.job", "director")]),
    ("I was just promoted to senior engineer.", [("user.job", "senior engineer")]),
    ("I recently became a manager.", [("user.job", "manager")]),
    ("I got promoted to VP of Engineering.", [("user.job", "VP of Engineering")]),  # no employer "Engineering"
    ("I'm VP of Sales at Stripe.", [("user.employer", "Stripe"), ("user.job", "VP of Sales")]),
    ("I'm a professor of History at Yale.", [("user.employer", "Yale"), ("user.job", "professor of History")]),
])
def test_a_job_that_changed(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", ["I retired my old laptop.", "My dad retired last year.", "I'm retiring next year."])
def test_no_retirement_of_the_user_now(reasoner, said):
    assert not [f for f in facts(reasoner, said) if f[0] == "user.job"]


@pytest.mark.parametrize(("said", "want"), [
    ("I switched my gym sessions to 7pm, mornings were too hard.", [("user.schedule.gym", "at 7pm")]),
    ("I moved my standup to 10am.", [("user.schedule.standup", "at 10am")]),
    ("I switched my yoga class to Tuesdays.", [("user.schedule.yoga", "on tuesdays")]),
    ("Let's bump the gift budget to $800.", [("user.budget.gift", "$800")]),
    ("Let's raise the gift budget to $800.", [("user.budget.gift", "$800")]),
    ("Please raise my budget to $1,200.", [("user.budget", "$1,200")]),
    ("I'm not really into jazz anymore, mostly classical these days.", [("user.likes", "dislikes:jazz")]),
    ("I'm not that into hiking anymore.", [("user.likes", "dislikes:hiking")]),
    ("Actually, I started eating fish again, so pescatarian I guess.", [("user.diet", "not:vegan"),
                                                                         ("user.diet", "not:vegetarian")]),
    ("I've started eating dairy again.", [("user.diet", "not:vegan")]),
])
def test_a_routine_a_budget_a_like_or_a_diet_that_changed(reasoner, said, want):
    assert facts(reasoner, said) == want


@pytest.mark.parametrize("said", ["I switched my gym to Planet Fitness.", "Let's cut the cake.", "Let's go to the beach.",
                                  "My son started eating fish.", "I never started eating fish."])
def test_near_misses_of_a_change(reasoner, said):
    assert facts(reasoner, said) == []


# -- through the vault: the second agent's turn replaces or disputes the first agent's value ------------
@pytest.mark.parametrize(("first", "second", "entity", "stale"), [
    ("I work at Google.", "I quit caffeine two weeks ago.", "user.employer", None),
    ("I live in Austin.", "I just moved to Seattle from Austin last weekend.", "user.location", "Austin"),
    ("I'm married to Tom.", "Tom and I finalized our divorce in March.", "user.marital_status", "married"),
    ("I'm married to Tom.", "Tom and I finalized our divorce in March.", "user.family", "spouse:Tom"),
    ("I'm married to Dan.", "Dan and I split up in the spring.", "user.family", "spouse:Dan"),
    ("My girlfriend is Jess.", "I broke up with my girlfriend Jess.", "user.family", "girlfriend:Jess"),
    ("I'm a teacher.", "I retired last June.", "user.job", "teacher"),
    ("I go to the gym every morning at 6am.", "I switched my gym sessions to 7pm, mornings were too hard.",
     "user.schedule.gym", "every morning at 6am"),
    ("My gift budget is $500.", "Let's bump the gift budget to $800.", "user.budget.gift", "$500"),
    ("I love jazz.", "I'm not really into jazz anymore, mostly classical these days.", "user.likes", "likes:jazz"),
    ("I'm vegan.", "Actually, I started eating fish again, so pescatarian I guess.", "user.diet", "vegan"),
])
def test_the_second_agent_replaces_or_disputes_the_stale_value(tmp_path, first, second, entity, stale):
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.agent("a").add(first)
        vault.agent("b").add(second)
        got = vault.get(entity)
        if stale is None:  # nothing of the second turn on the entity: the first value alone
            assert got.values == ("Google",)
        else:
            assert stale not in got.values or got.contested, (got.values, got.contested)


def test_a_promotion_said_with_just_is_the_job_now(tmp_path):
    """A title said more fully is no contradiction (docs/policies.md: "product manager" / "senior product manager"
    both stand); the promotion, unread before, is now stored."""
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.agent("a").add("I'm a product manager at Shopify.")
        vault.agent("b").add("I just got promoted to senior product manager!")
        assert "senior product manager" in vault.get("user.job").values


# -- F9: a cap said of a plan is that plan's budget, never the user's budget -------------------------
@pytest.mark.parametrize(("said", "key"), [
    ("Keep gifts under $500 this year.", "user.budget.gift"),
    ("Please keep the hotel under $200 a night.", "user.budget.hotel"),
])
def test_a_cap_said_of_a_plan_is_that_plans_budget(reasoner, said, key):
    got = facts(reasoner, said)
    assert not [f for f in got if f[0] == "user.budget"]  # never the general budget
    assert all(e == key for e, _ in got if e.startswith("user.budget"))
