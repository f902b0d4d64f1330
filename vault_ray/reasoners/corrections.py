"""A turn that only corrects a value ("Correction: Mountain time, not Pacific", "Oops, I
meant Denver", "nope, Berlin now"): read as the earlier statement with the value replaced.

A value corrected inside one turn is `restated.corrected`'s. Here the turn says the new
value and nothing else, so alone it reads as no statement about the user, and it was
dropped without a word. Only a value a check can tell from any word is taken (a zone, a
place the gazetteer knows, a country, a US state or a city of 100,000 people or more, so no first name that is
also a small town ("Actually, Alice"), an amount, an e-mail, a clock time, a phone number, and a
company's name for the employer: capitalized, no place, zone, greeting, day, language or person's first
name, so "Sorry, Amazon" is one and "Sorry, lol", "Sorry, Dave" are not; an allergy takes any word, so
none). The user's turn before it is searched, last clause first, for the
user's own fact of that kind that reads back as the new value; that clause with the new
value is the statement. An assistant reply between them other than an acknowledgement ("Here are
hotels in Rome." "Sorry, Florence.") makes it a correction of the assistant: nothing is
read. With no such clause, a zone after an explicit cue is the user's zone; any other
value is reported in `unextracted`, never dropped in silence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import gazetteer, places
from ..models import Fact, Unextracted
from ..values import canonical
from . import clauses as cl
from . import traits
from .amends import fits, kind_of, same_kind, shaped
from .base import Extraction, Message, as_messages
from .extraction import extract_turn, read_clause, value_in
from .finders import typed_values
from .lexicon import DIETS
from .prototypes import PrototypeClassifier
from .respelled import respelled

MAX_FIX_WORDS = 5

_CUE = (r"correction|sorry|oops|whoops|my bad|typo|scratch that|strike that|nope|no|nah|actually|wait|rather|"
        r"i mean|i meant|make (?:that|it)|change (?:that|it) to|should be|that should be|(?:it's|it is) actually")
_FIX = re.compile(rf"^(?:(?:{_CUE})\b[\s,:;.!\-–—]*)+(?:(?:it's|it is)\s+)?(?P<fix>(?:[^.!?;]|\.(?=\w))+?)[\s.!]*$",
                  re.IGNORECASE)  # "Actually it's Porto": after a cue, "it's" is no part of the value
_NOT = re.compile(r"^not\s+[^,;]+[,;]\s*(?:but\s+|it's\s+)?(?P<a>.+)$|^(?P<b>[^,;]+?)[,;]?\s+(?:not|instead of)\s+[^,;]+$",
                  re.IGNORECASE)
_TAIL = re.compile(r"\s+(?:now|instead|then|please|sorry)$", re.IGNORECASE)
_NO_VALUE = re.compile(r"\b(?:thanks|thank you|never ?mind|forget it|that's (?:right|wrong)|i|i'm|my|me|you|your|it|that|"
                       r"this|is|are|was|problem|worries|way|idea|sure|okay|ok|fine|good|great|wrong|right)\b", re.IGNORECASE)

_ACK = re.compile(r"^(?:(?:ok(?:ay)?|got it|noted|sure|thanks?|thank you|understood|great|perfect|will do|done|cool|"
                  r"alright|all right|saved|updated|i'll remember (?:that|it)|for letting me know|for the update|"
                  r"(?:i've |i have )?(?:noted|saved|updated|remembered) (?:that|it))[\s,.!]*)+$", re.IGNORECASE)
"""An assistant reply a correction may follow ("Noted!"): after any other, the correction is of what the assistant did."""
_STRONG = re.compile(r"\b(?:correction|oops|whoops|my bad|typo|scratch that|strike that|i meant|make (?:that|it)|"
                     r"change (?:that|it) to|should be|sorry|actually)\b", re.IGNORECASE)
"""A cue that corrects the user's own words (a bare "No, GMT." may answer anything)."""
_NOW = re.compile(r"\b(?:now|these days|anymore)\b", re.IGNORECASE)
_LASTING = ("user.hometown", "user.birthday", "user.name")
"""Facts that do not change "now": a correction said with "now" is not of these."""
_MONEY = re.compile(r"^(?:[$€£¥]\s?\d[\d,.]*\s?[kKmM]?|\d[\d,.]*\s?[kKmM]?\s?(?:dollars|usd|eur|euros?|pounds|gbp|cad|aud|"
                    r"bucks|yen|francs|chf))$", re.IGNORECASE)
_ZONE_SAID = re.compile(r"\btime\b|(?-i:^[A-Z]{2,5}$)|^(?:UTC|GMT)\s?[+-]", re.IGNORECASE)
"""A zone said as one ("Mountain time", "PST", "UTC+2"), not a word the zone list also has ("Amazon")."""
_PLACED = re.compile(r"\b(?:in|to|at|from|near|for|around|on)\s+((?-i:[A-Z$€£¥\d])[\w'.,$€£¥-]*(?:\s+(?-i:[A-Z])[\w'.-]*)*)",
                     re.IGNORECASE)
"""A value said after a preposition in a clause that is no fact: what a correction may be of."""
_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")
_CLOCK = re.compile(r"^(?:at\s+)?(?:\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d\d|noon|midnight)$", re.IGNORECASE)
_PHONE = re.compile(r"^\+?(?=(?:[\s().-]*\d){7,15}[\s().-]*$)[\d\s().-]+$")
_HOLDS = {"zone": ("user.timezone",), "place": ("user.location", "user.hometown"),
          "money": ("user.budget", "user.income", "user.rent", "user.mortgage"), "email": ("user.email",),
          "time": ("user.schedule.",), "phone": ("user.phone",), "employer": ("user.employer",)}
"""The facts a value of each kind can correct ("Actually, Boston" is no name)."""

NO_EARLIER = ("a correction ({fix!r}) with no statement of its own and none earlier in the conversation to correct: "
              "say the whole fact (\"I live in ...\"), or pass the earlier turns with it")


def the_fix(turn: str) -> str | None:
    """The new value a turn that only corrects says ("Correction: Mountain time, not
    Pacific" -> "Mountain time"), or None."""
    m = _FIX.match(turn.strip())
    if m is None:
        return None
    fix = m.group("fix").strip(" ,:-–—\"'")
    instead = _NOT.match(fix)
    fix = _TAIL.sub("", (instead.group("a") or instead.group("b")) if instead else fix).strip(" ,")
    if not fix or len(fix.split()) > MAX_FIX_WORDS or _NO_VALUE.search(fix):
        return None
    return fix


def corrected_statement(messages: Sequence[Message] | str, turn: str) -> tuple[str | None, Unextracted | None]:
    """(the statement a correcting `turn` makes, or None; what to report when it makes none)."""
    if named := respelled(messages, turn):  # "My name is Jon." "Nice to meet you, John!" "It's Jon, no h"
        return named, None
    fix = the_fix(turn)
    if fix is None:
        return None, None
    previous, between = _before(messages)
    if not all(_ACK.match(said.strip()) or _says_back(said, previous) for said in between):
        return None, None  # "Here are hotels in Rome." "Sorry, Florence.": what the assistant did is corrected
    kinds = _kinds(fix)
    missed = Unextracted(turn, NO_EARLIER.format(fix=fix))
    if not kinds:  # "Sorry, lol", "Actually, Dave": no value a correction can be checked to be
        return None, missed if any(ch.isdigit() or ch.isupper() for ch in fix) else None
    if previous is not None:
        for kind in kinds:  # "Sorry, Central" after "My time zone is EST": a zone (Central is a town too)
            statement = _in_place(previous, fix, kind, now=bool(_NOW.search(turn)))
            if statement is not None:
                return statement or None, None
        return None, missed
    if "zone" in kinds and _ZONE_SAID.search(fix) and _STRONG.search(turn[: turn.lower().rfind(fix.lower())]):
        return f"My time zone is {fix}", None  # alone, "Correction: Mountain time, not Pacific" is the user's zone
    return None, missed


_ACK_HEAD = re.compile(r"^(?:(?:ok(?:ay)?|got it|noted|sure|thanks?|thank you|understood|great|perfect|cool|alright|"
                       r"all right|i'll remember(?: that)?|i've noted(?: that)?|so)\b[\s,.!:;\-–—]*)+", re.IGNORECASE)
_YOU = {"you're": "I'm", "you are": "I am", "you've": "I've", "you have": "I have", "your": "my", "yours": "mine",
        "you": "I"}
_YOU_RE = re.compile(r"\b(?:you're|you are|you've|you have|yours|your|you)\b", re.IGNORECASE)
_ITS_OWN = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|me|my|mine|we|we're|our|us)\b", re.IGNORECASE)


_CHECK_TAIL = re.compile(r"(?:[\s,]+(?:right|correct|yes|yeah|yep|no|is that (?:right|correct)|did i get that right|"
                         r"am i right))?\s*\?+\s*$", re.IGNORECASE)
"""A confirming question's tail ("You live in Lisbon, right?", "Lisbon?"): what it asks is whether it heard right."""
_ACK_TAIL = re.compile(r"(?:[\s,.!\-–—]+(?:noted|got it|saved|updated|understood|thanks|thank you|perfect|great|"
                       r"cool|lovely|nice))+[\s.!]*$|[\s.!]+$", re.IGNORECASE)


def _says_back(reply: str, previous: str | None) -> bool:
    """Whether an assistant reply only says back the user's statement before it ("Got it, you live
    in Austin.", "Got it, Lisbon!", "Lisbon, noted.") or asks to confirm it ("You live in Lisbon,
    right?", "So you're at Google?", "Lisbon?"): a correction may follow it. A reply that says what
    the assistant did ("Great, I booked a table in Boston"), asks anything else ("Do you like Lisbon?")
    or says anything the user did not say ("Got it, Madrid!") is no such reply."""
    rest = _ACK_HEAD.sub("", reply.strip()).strip()
    if previous is None or not rest or _ITS_OWN.search(rest):
        return False
    back = _YOU_RE.sub(lambda m: _YOU[m.group(0).lower()], rest)  # "you live in Austin": I live in Austin
    facts = extract_turn(previous).facts
    mine = {(f.entity, canonical(f.entity, f.value)) for f in facts}
    for sentence in cl.sentences(back):  # each sentence says back the user's ("..., Here are hotels in Rome" does not)
        asked = _CHECK_TAIL.sub("", sentence).strip()  # "I live in Lisbon, right?": whether it heard right
        if asked and any(canonical(f.entity, _ACK_TAIL.sub("", asked).strip(" ,")) == canonical(f.entity, f.value)
                         for f in facts):
            continue  # the value alone, said back: "Lisbon!", "Lisbon, noted.", "Lisbon?"
        said = {(f.entity, canonical(f.entity, f.value)) for f in extract_turn(asked).facts} if asked else set()
        if not said or not said <= mine:
            return False
    return True


def _before(messages: Sequence[Message] | str) -> tuple[str | None, list[str]]:
    """The user's turn before the latest one (None: there is none) and the messages between them."""
    msgs = [] if isinstance(messages, str) else as_messages(messages)
    users = [i for i, m in enumerate(msgs) if m["role"] == "user"]
    if not users:
        return None, []
    start = users[-2] + 1 if len(users) > 1 else 0
    return (msgs[users[-2]]["content"] if len(users) > 1 else None), [m["content"] for m in msgs[start: users[-1]]]


def _kinds(value: str) -> list[str]:
    """The kinds of value a correction may replace that `value` is, checkable on its own: a zone,
    a place the gazetteer knows, an amount of money, an e-mail address, a clock time, a phone
    number; none for any other word."""
    for kind, said in (("money", _MONEY), ("email", _EMAIL), ("time", _CLOCK), ("phone", _PHONE)):
        if said.search(value.strip()):
            return [kind]
    if not value[:1].isupper():  # "same" is a town in Tanzania
        return []
    kind = kind_of(value)
    # a notable place first ("Sorry, Singapore"); "Actually, Alice": a name first, a town in Texas second
    kinds = ["place"] if kind == "place" and places.notable(value) else []
    company = _company(value)
    zone = kind == "zone" or bool(gazetteer.find_zone(value))  # "Central": a zone, and a town
    if zone and company and not (_ZONE_SAID.search(value) or _BARE_ZONES.match(value)):
        zone = False  # "Sorry, Amazon": a zone's name too (Amazon time), but said alone it is the company
    kinds += ["zone"] if zone else []
    # last, a company's name ("Sorry, Oracle"): no place, no zone ("Sorry, Pacific"), no greeting, day, person or diet
    return kinds + (["employer"] if company and not zone else [])


_BARE_ZONES = re.compile(r"^(?:eastern|central|mountain|pacific|atlantic|alaska|hawaii|greenwich)$", re.IGNORECASE)
"""A zone a user says by its word alone ("Sorry, Pacific"); another zone's name said alone ("Amazon", "Gulf") is no zone."""
_LINKS = frozenset({"&", "and", "of", "the", "de", "la", "y"})


def _company(value: str) -> bool:
    """Whether a bare reply may be a company's name: at most four words, each capitalized (or "&", "of"...), no
    notable place nor a zone said as one, no greeting, day, month or kinship word, no person's first name."""
    words = value.split()
    return 0 < len(words) <= 4 and words[0][:1].isupper() and \
        all(w[:1].isupper() or w[:1].isdigit() or w.lower() in _LINKS for w in words) and \
        same_kind("user.employer", "", value) and fits("user.employer", "", value) and \
        not traits.trait(value) and value.lower() not in DIETS  # "Sorry, Korean", "Sorry, Vegan", "Sorry, Keto": no company


def _in_place(said: str, fix: str, kind: str, *, now: bool) -> str | None:
    """The clause of the user's previous turn `fix` corrects, with `fix` in place of its
    value: the last one whose value is of the same kind and reads back as `fix` for the
    same entity. "" when a later clause names something of that kind that no fact holds
    ("Find me hotels in Rome": the correction may be of that); None when none fits."""
    for sentence in reversed(cl.sentences(said)):
        for clause in reversed(cl.clauses(sentence)):
            found = value_in(clause)
            if found is None:
                if any(kind in _kinds(n) for n in _PLACED.findall(clause)):  # "Find me hotels in Rome"
                    return ""
                continue
            if not found[0].startswith(_HOLDS[kind]) or (now and found[0] in _LASTING):  # "born in Boston" "Nope, Berlin now"
                continue
            if not any(f.entity == found[0] for f in extract_turn(clause).facts):
                return ""  # "My boss is on Pacific time", "My meeting is at 3pm Pacific": not the user's fact to correct
            old = found[1]  # "on mondays" corrected by "Tuesdays": on Tuesdays; "Pacific time" by "Mountain": Mountain time
            at = clause.lower().rfind(old.lower())
            fixed = clause[:at] + shaped(found[0], old, fix) + clause[at + len(old):]
            reads = value_in(fixed)  # "I love Thai food" corrected by "Microsoft" reads as a like: not this clause
            if reads and reads[0] == found[0] and fix.lower() in reads[1].lower():
                return fixed
    return None


def theirs(messages: Sequence[Message] | str, turn: str, facts: Sequence[Fact]) -> set[str]:
    """The entities of a correcting turn's facts that correct someone else's fact said in the
    user's previous turn ("My office is on Pacific time." "Oops, I meant Eastern"): the turn
    alone reads as the user's, it is not. A clause about someone else no pattern reads ("My
    daughter is vegetarian" "Actually, vegan") counts when the entity's typed finder sees a value in it."""
    previous = _before(messages)[0] if facts and the_fix(turn) is not None else None
    if previous is None:
        return set()
    entities, found = {f.entity for f in facts}, set()
    for clause in (c for s in cl.sentences(previous) for c in cl.clauses(s)):
        said = {d.entity for d in read_clause(clause)} & entities
        if said and not said & {f.entity for f in extract_turn(clause).facts}:
            found |= said
        elif cl.about_someone_else(clause):  # "My daughter is vegetarian" "Actually, vegan": no pattern reads hers
            found |= {e for e in entities if typed_values(e, cl.normalize_subject(clause))}
    return found


def kept(messages: Sequence[Message] | str, turn: str, found: Extraction,
         classifier: PrototypeClassifier | None = None) -> Extraction:
    """The facts of a correcting `turn` that correct the user's own fact of the previous turn, in its
    slot: one of someone else's ("My office is on Pacific time." "Oops, I meant Eastern", see `theirs`)
    or of a slot the previous turn never said ("I work at Google." "Sorry, Vegan": no diet) is left
    out and reported. A turn after an assistant reply that is no acknowledgement keeps its facts."""
    if not found.facts or the_fix(turn) is None:
        return found
    previous, between = _before(messages)
    gone = theirs(messages, turn, found.facts)
    if gone:
        found = Extraction(tuple(f for f in found.facts if f.entity not in gone), (*found.unextracted, Unextracted(
            turn, f"corrects someone else's fact said before it ({', '.join(sorted(gone))}), not the user's")))
    if previous is None or not found.facts or \
            not all(_ACK.match(said.strip()) or _says_back(said, previous) for said in between):
        return found
    said = {f.entity for f in extract_turn(previous, classifier=classifier).facts}
    said |= {d.entity for s in cl.sentences(previous) for c in cl.clauses(s) for d in read_clause(c)}
    other = {f.entity for f in found.facts} - said
    if not other:
        return found
    return Extraction(tuple(f for f in found.facts if f.entity in said), (*found.unextracted, Unextracted(
        turn, f"a correction of the previous turn that says no value of its slots ({', '.join(sorted(other))})")))
