"""What a new user says in passing about school, diet, names and with a typo: a school is no
employer, a diet said twice is one diet, a known name is written as it is spelled, and a typo in a
word the rules read is read through, never into a wrong fact."""

from __future__ import annotations

import pytest
from extraction_qa import facts

SCHOOL = [
    ("I'm a student at UCLA", [("user.job", "student"), ("user.school", "UCLA")]),
    ("I'm a PhD student at MIT.", [("user.job", "PhD student"), ("user.school", "MIT")]),
    ("I'm a second-year law student at Georgetown", [("user.job", "second-year law student"),
                                                      ("user.school", "Georgetown")]),
    ("I'm a freshman at Yale", [("user.school", "Yale")]),
    ("I'm a senior at Stanford", [("user.school", "Stanford")]),
    ("I study at MIT", [("user.school", "MIT")]),
    ("I'm studying computer science at Berkeley", [("user.school", "Berkeley")]),
    ("I go to NYU", [("user.school", "NYU")]),
    ("I go to the University of Michigan", [("user.school", "University of Michigan")]),
    ("I'm doing my PhD at Oxford", [("user.school", "Oxford")]),
    ("I'm enrolled at Rutgers", [("user.school", "Rutgers")]),
    ("My university is McGill", [("user.school", "McGill")]),
    ("I studied at MIT, now at Stanford.", [("user.school", "Stanford")]),  # a school after a school
    ("I studied at Yale, now I'm at Harvard.", [("user.school", "Harvard")]),
    ("I'm a student at UCLA and I work at Starbucks", [("user.employer", "Starbucks"), ("user.job", "student"),
                                                      ("user.school", "UCLA")]),
    # an internship is a job; a senior or junior in a job title is no student
    ("I'm an intern at Google", [("user.employer", "Google"), ("user.job", "intern")]),
    ("I'm interning at Google", [("user.employer", "Google")]),
    ("I'm a senior engineer at Google", [("user.employer", "Google"), ("user.job", "senior engineer")]),
    ("I'm a professor at Stanford", [("user.employer", "Stanford"), ("user.job", "professor")]),
    ("I work at UCLA", [("user.employer", "UCLA")]),
    # a school's name typed in lower case, read by its words; a school said in the past
    ("i go to the university of michigan", [("user.school", "University of Michigan")]),
    ("im a student at university of toronto", [("user.job", "student"), ("user.school", "University of Toronto")]),
    ("i study at boston college", [("user.school", "Boston College")]),
    ("i go to georgia institute of technology", [("user.school", "Georgia Institute of Technology")]),
    ("i went to stanford", [("user.school", "Stanford")]),
    ("i went to ohio state university", [("user.school", "Ohio State University")]),
    ("i graduated from the university of michigan", [("user.school", "University of Michigan")]),
    ("I went to Harvard Law School", [("user.school", "Harvard Law School")]),
    ("i went to texas a&m university", [("user.school", "Texas A&M University")]),
    ("i got my degree from nyu", [("user.school", "NYU")]),
    ("i did my phd at cornell", [("user.school", "Cornell")]),
    # a school's name longer than a company's, with an "at" in it (no routine "at austin")
    ("i go to the university of texas at austin", [("user.school", "University of Texas at Austin")]),
    ("I'm a student at the University of Wisconsin at Madison", [("user.job", "student"),
                                                                ("user.school", "University of Wisconsin at Madison")]),
    ("i went to the university of north carolina at chapel hill",
     [("user.school", "University of North Carolina at Chapel Hill")]),
]


@pytest.mark.parametrize(("said", "want"), SCHOOL)
def test_a_school_is_where_the_user_studies_and_no_employer(reasoner, said, want):
    assert facts(reasoner, said) == sorted(want)


NO_SCHOOL = [
    "I go to the gym", "I attend church", "I study at home", "i study at night", "I study at the library",
    "my school is great", "I want to study at Oxford", "If I go to Harvard I'll be happy", "I used to study at MIT",
    "My daughter is a student at UCLA", "my son goes to NYU", "I'm a student of history", "I'm a student at 25",
    # a kind of school, a visit, a thing of a school: no school's name
    "i went to college", "i went to law school", "i went to a community college", "i go to school", "i went to the store",
    "i went to a college party", "i went to college parties", "i went to oxford", "I went to Oxford last week",
    "i went to berkeley for the weekend", "i went to the school to pick up my kid", "my daughter went to stanford",
    "i study at starbucks", "I study at Starbucks",  # a café
]


@pytest.mark.parametrize("said", NO_SCHOOL)
def test_no_school_where_none_is_said_as_the_users(reasoner, said):
    assert [f for f in facts(reasoner, said) if f[0] in ("user.school", "user.employer")] == []


@pytest.mark.parametrize(("said", "want"), [
    ("I go to the gym at 7am", [("user.schedule.gym", "at 7am")]), ("I go to yoga at the Y on Mondays",
                                                                   [("user.schedule.yoga", "at the y on mondays")]),
    ("i go to choir at noon", [("user.schedule.choir", "at noon")]), ("i go to church at st marys", []),
    ("I go to the office at Acme Corp", []), ("i have dinner at my moms", []),
])
def test_a_routine_at_a_place_and_no_time_is_no_schedule(reasoner, said, want):
    assert [f for f in facts(reasoner, said) if f[0].startswith("user.schedule")] == want


DIET = [
    ("I'm vegan, I don't eat meat", [("user.diet", "vegan")]),
    ("I'm vegan and I don't eat meat", [("user.diet", "vegan")]),
    ("I don't eat meat, I'm vegan", [("user.diet", "vegan")]),
    ("I'm vegan. I don't eat meat.", [("user.diet", "vegan")]),
    ("I'm vegetarian and vegan", [("user.diet", "vegan")]),
    ("I'm vegetarian, I don't eat meat", [("user.diet", "vegetarian")]),
    ("I'm pescatarian, I don't eat meat", [("user.diet", "pescatarian")]),
    ("I'm raw vegan, I don't eat meat", [("user.diet", "raw vegan")]),
    ("I'm plant based, I don't eat meat", [("user.diet", "vegan")]),
    ("I'm keto and low carb", [("user.diet", "keto")]),
    # diets that say different things, a correction, a denial: as said
    ("I'm vegan and gluten free", [("user.diet", "vegan, gluten-free")]),  # one value (tests/test_text_diets.py)
    ("I'm vegan, sorry, vegetarian", [("user.diet", "vegetarian")]),
    ("I'm not vegan, I'm vegetarian", [("user.diet", "vegetarian")]),
    ("I'm vegan and my wife is vegetarian", [("user.diet", "vegan")]),
]


@pytest.mark.parametrize(("said", "want"), DIET)
def test_a_diet_said_twice_in_other_words_is_the_stricter_one(reasoner, said, want):
    assert facts(reasoner, said) == sorted(want)


CASED = [
    # a known name typed in lower case is written as it is spelled
    ("no longer at google, im at meta now", [("user.employer", "Meta")]),
    ("i work at ibm", [("user.employer", "IBM")]),
    ("i work at openai", [("user.employer", "OpenAI")]),
    ("i live in berlin", [("user.location", "Berlin")]),
    ("i moved to san francisco", [("user.location", "San Francisco")]),
    ("i live in portland, oregon", [("user.location", "Portland, Oregon")]),
    ("i live in austin tx", [("user.location", "Austin TX")]),
    ("i live in the uk", [("user.location", "the UK")]),
    ("im from germany", [("user.hometown", "Germany")]),
    ("i moved to sao paulo", [("user.location", "Sao Paulo")]),
    ("i go to ucla", [("user.school", "UCLA")]),
    ("i quit google", [("user.employer", "not:Google")]),
    # a name no list knows, one typed with a capital, or no name at all: as typed
    ("i work at nimbus", [("user.employer", "nimbus")]),
    ("i work at eBay", [("user.employer", "eBay")]),
    ("I live in NYC", [("user.location", "NYC")]),
    ("my name is john smith", [("user.name", "john smith")]),
    ("im allergic to peanuts", [("user.allergies", "peanuts")]),
]


AT_A_COMPANY = [
    # "I'm at X" names the employer when X is a company known by one name that is no store one visits
    ("im at meta now", [("user.employer", "Meta")]),
    ("i'm at google now", [("user.employer", "Google")]),
    ("now im at stripe", [("user.employer", "Stripe")]),
    ("I'm at Meta these days", [("user.employer", "Meta")]),
    ("I'm over at Netflix now", [("user.employer", "Netflix")]),
    ("im at goldman sachs now", [("user.employer", "Goldman Sachs")]),
    ("I'm at Google on the search team", [("user.employer", "Google")]),
    ("im at meta now, loving it", [("user.employer", "Meta")]),
    ("i worked at google but im at meta now", [("user.employer", "Meta")]),
    # a visit, a venue, a store, a name no list knows typed in lower case: no employer
    ("im at the gym now", []), ("im at home now", []), ("i'm at starbucks now", []), ("im at target now", []),
    ("im at a conference now", []), ("im at google for a meeting", []), ("im at amazon picking up a package", []),
    ("im now at the gym", []), ("im now at a conference", []), ("i'm at the airport now", []),
    ("im at google in a meeting", []),
    # beside a visit or a job left, "I'm at X" is where the user is (tests/test_extraction_qa99c.py)
    ("I was at Google earlier, now I'm at Meta", []), ("I quit my old job, now I'm at Meta", []),
]


@pytest.mark.parametrize(("said", "want"), AT_A_COMPANY)
def test_a_job_said_as_where_the_user_is(reasoner, said, want):
    assert [f for f in facts(reasoner, said) if f[0] == "user.employer"] == want


@pytest.mark.parametrize(("said", "want"), CASED)
def test_a_known_name_typed_in_lower_case_is_written_as_spelled(reasoner, said, want):
    assert facts(reasoner, said) == sorted(want)


def test_the_statement_stored_writes_the_name_as_its_value_does(reasoner):
    (fact,) = reasoner.extract_turn("i work at google").facts
    assert (fact.value, fact.text) == ("Google", "The user works at Google")


TYPOS = [
    ("i moved too Berlin", [("user.location", "Berlin")]),
    ("i moved too berlin", [("user.location", "Berlin")]),
    ("my timezome is PST", [("user.timezone", "PST")]),
    ("I work att Google", [("user.employer", "Google")]),
    ("i work forr Acme", [("user.employer", "Acme")]),
    ("i live inn Boston", [("user.location", "Boston")]),
    ("i live in teh uk", [("user.location", "the UK")]),
    ("my birhtday is March 3", [("user.birthday", "March 3")]),
    ("im vegitarian", [("user.diet", "vegetarian")]),
    ("I'm alergic to peanuts", [("user.allergies", "peanuts")]),
    ("I'm allergic too peanuts", [("user.allergies", "peanuts")]),  # was the allergy "o peanuts"
    ("my compnay is Acme", [("user.employer", "Acme")]),
    ("my email is teh.birhtday@compnay.com", [("user.email", "teh.birhtday@compnay.com")]),  # an address as typed
]


@pytest.mark.parametrize(("said", "want"), TYPOS)
def test_a_typo_no_other_word_is_read_through(reasoner, said, want):
    assert facts(reasoner, said) == sorted(want)


NO_FACT_FROM_A_TYPO = [
    # "too" said as "too", a word one typo from a trigger that is a word itself: no fact
    "I moved too fast", "i moved too much", "I moved too many times", "I work too much", "i live too far from work",
    "I'm allergic too", "my wife is allergic to cats and I'm allergic too", "my employee is Sam",
    "there are three of us", "i relocate to Denver next year",
]


@pytest.mark.parametrize("said", NO_FACT_FROM_A_TYPO)
def test_a_typo_that_may_be_another_word_makes_no_fact(reasoner, said):
    assert facts(reasoner, said) == []


@pytest.mark.parametrize("said", ["i dont eat after 8pm", "I don't eat before noon", "I never eat after 9",
                                  "i don't eat until lunch", "I don't eat past 7pm"])
def test_a_time_said_after_a_like_is_no_food_or_thing_liked(reasoner, said):
    assert [f for f in facts(reasoner, said) if f[0] in ("user.food_preferences", "user.likes")] == []


KIN_NAMES = [
    # a pet's or a relative's name typed in lower case is written with its capital
    ("i have a dog named max", [("user.pets", "dog:Max")]),
    ("i have a cat called whiskers", [("user.pets", "cat:Whiskers")]),
    ("my cat's name is luna", [("user.pets", "cat:Luna")]),
    ("my husbands name is tom", [("user.family", "husband:Tom")]),
    ("i have a boyfriend named jake", [("user.family", "boyfriend:Jake")]),
    ("i have a son named leo", [("user.family", "son:Leo")]),
    ("my wife is maria", [("user.family", "wife:Maria")]),
    ("my wife is maria and my son is leo", [("user.family", "son:Leo"), ("user.family", "wife:Maria")]),
    # no name: a state of someone else, a word after "named", the user's own name (as typed)
    ("my wife is pregnant", []), ("my daughter is sick", []), ("i was named after my dad", []),
    ("my name is john smith", [("user.name", "john smith")]),
]


@pytest.mark.parametrize(("said", "want"), KIN_NAMES)
def test_a_pets_or_relatives_name_in_lower_case_is_kept(reasoner, said, want):
    assert facts(reasoner, said) == sorted(want)
