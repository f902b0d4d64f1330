"""Words a name slot may not take: a greeting, a thank-you, a day or a month, a kinship word
("I work at Google, sorry, Monday", "My name is Sam, sorry, Dad" correct nothing), and a
person's name where a company is meant ("I worked at Google, now I'm with Sarah" is company kept,
not a job). The lists are small and common on purpose: a name not in them is taken as said."""

from __future__ import annotations

import re

_NOT_NAMES_SAID = """
hi hello hey hiya howdy yo greetings morning evening afternoon night goodnight bye goodbye cheers thanks thank thx ty
please sorry oops ok okay yes yeah yep no nope nah sure lol haha hmm um uh wait well anyway monday tuesday wednesday
thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun today tomorrow yesterday tonight weekend
weekday january february march april june july august september october november december jan feb mar apr jun jul aug
sep sept oct nov dec mom mum mommy mummy mama mother dad daddy papa pa ma father brother sister bro sis son daughter
grandma grandpa granny nana grandmother grandfather aunt auntie uncle cousin wife husband hubby wifey babe baby honey
darling sweetie dear sir madam ma'am boss buddy dude man guys folks everyone everybody nobody someone
brb tbh idk imo imho btw fyi omg lmk ttyl np nvm smh afk gtg pls plz jk xd
christmas xmas easter thanksgiving halloween hanukkah diwali eid ramadan
chatgpt gpt
english spanish french german italian portuguese russian chinese mandarin cantonese japanese korean arabic hindi urdu
bengali punjabi tamil telugu persian farsi turkish dutch swedish norwegian danish finnish polish czech greek hebrew
thai vietnamese indonesian tagalog swahili ukrainian romanian hungarian
"""
_NOT_NAMES = frozenset(_NOT_NAMES_SAID.split())
"""Words that are no one's name nor a company's, said after "sorry" ("sorry, Hi", "sorry, BRB", "sorry, Spanish") or
after "now I'm with"."""

_FIRST_SAID = """
aaron adam adrian aiden alex alexander alice alicia allison amanda amber amy andrea andrew angela anna anne annie
anthony ashley austin ava barbara ben benjamin beth betty bill billy bob bobby brandon brenda brian brittany caleb
carl carlos carol caroline catherine charles charlie charlotte chloe chris christian christina christine christopher
cindy claire connor craig cynthia dan daniel danielle david deborah debbie dennis derek diana diane donald donna
dorothy doug douglas dylan edward eleanor elijah elizabeth ella ellen emily emma eric erica erin ethan eva evan evelyn
frank gabriel gary george grace greg gregory hannah harold harry heather helen henry isaac isabella jack jackson jacob
jake james jamie jane janet jason jeff jeffrey jen jennifer jenny jeremy jerry jess jessica jim jimmy joe joel john
johnny jon jonathan jordan jose joseph josh joshua joyce juan judy julia julie justin karen kate katherine kathy katie
keith kelly kevin kim kimberly kyle laura lauren leah lily linda lisa liam logan lucas lucy luis luke madison maria
marie mark martha mary matt matthew megan melissa michael michelle mike mia nancy natalie nathan nicholas nick nicole
noah olivia oliver pam pamela patricia patrick paul peter rachel ralph rebecca richard rick rob robert robin ron
ronald rose ruth ryan sally sam samantha samuel sandra sara sarah scott sean sharon shawn sophia sophie stephanie
stephen steve steven susan tammy taylor teresa terry thomas tim timothy tina todd tom tommy tony tyler victoria
vincent walter wayne william zach zachary zoe
abby al andy becky bert bella chuck dave davey deb dee ed eddie ellie fred freddie gabe gus gwen hank ian jay jill jo
joey kat ken kenny larry leo liz lou maggie mandy marty max meg nate ned nina pat peggy pete phil ray rich ricky russ
sandy stan steph stu sue ted teddy tess trish val vic vince walt will zack
claude alexa siri cortana jarvis
"""
_FIRST = frozenset(_FIRST_SAID.split())
"""Common first names, short forms too, and an assistant's ("Sorry, Claude"): "now I'm with Sarah" is company kept,
and "Sorry, Dave" an apology to Dave, not an employer."""

_SUFFIX = re.compile(r"\b(?:inc|llc|ltd|co|corp|group|labs?|bank|partners|associates|studios?|media|systems|foods|"
                     r"motors|health|capital|ventures|consulting|solutions|technologies|tech)\b\.?$", re.IGNORECASE)


def not_a_name(value: str) -> bool:
    """Whether `value` is a word no person or company is called by: "Hi", "Thanks", "Monday",
    "January", "Dad"."""
    words = value.strip(" .,!").lower().split()
    return bool(words) and all(w.strip("'") in _NOT_NAMES for w in words)


def person(value: str) -> bool:
    """Whether `value` reads as a person rather than a company: a kinship word, a common first
    name ("Sarah") or one with a surname after it ("Sarah Jones"), not a name with a company's
    suffix ("Sarah Lee Foods") or a possessive ("Wendy's")."""
    words = value.strip(" .,!").split()
    if not words or "'" in value or "&" in value or _SUFFIX.search(value):
        return False
    if not_a_name(value):
        return True
    return words[0].lower() in _FIRST and len(words) <= 2 and all(w[:1].isupper() for w in words)


def first_name(word: str) -> bool:
    """Whether `word` is a common first name ("Sarah", "Dave"; not "Google", "Monday")."""
    return word.strip(" .,!?").lower() in _FIRST


_ORDINARY_SAID = """
home work school church lunch dinner breakfast brunch class college uni university practice rehab camp office gym
hospital doctor doctors dentist clinic mall store shop airport park beach bar pub party meeting conference
appointment desk computer noon midnight least last first once all best most it this that there here moment times
peace rest sea war ease large risk heart bay hand play rest peace first sight random odds night nights weekends
job jobs company startup firm business place library church mass temple mosque synagogue hotel work's
"""
_ORDINARY = frozenset(_ORDINARY_SAID.split())
"""Words said after "at" that name no one ("now im at home", "at lunch", "at work", "at the gym")."""
_LEADS = frozenset(("a", "an", "the", "my", "our", "his", "her", "their", "your", "some", "this", "that", "one"))


def lower_name(value: str) -> bool:
    """Whether `value`, said in lower case by someone who writes names so ("i used to work at google, now im at meta"),
    may be a name: one to three words, none of them an ordinary word said after "at" ("home", "lunch", "work"),
    an adverb or a verb's -ing ("now im at meta, loving it"), after no article or possessive ("the gym", "my desk")."""
    words = value.strip(" .,!").split()
    if not words or len(words) > 3 or value != value.lower() or words[0] in _LEADS or not_a_name(value):
        return False
    return not any(w in _ORDINARY or re.fullmatch(r"[a-z]{3,}(?:ing|ly)", w) for w in words)
