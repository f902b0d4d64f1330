"""Rule-based extraction of first-person statements into facts (no network).

Each clause of the latest user turn goes through the slot patterns (`frames`,
`frames_account`); a clause no pattern reads is classified to a registry entry by
its nearest prototype statements (when the reasoner has an embedder) and its value
is looked for with that entity's typed finder (a zone, a place, an amount...).
Whatever reads as a statement about the user and still yields nothing is reported
as `Unextracted`, with the reason, instead of vanishing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from .. import gazetteer, values
from ..amount_words import bound
from ..models import Fact, Unextracted
from ..registry import BUILTIN_ENTRIES, RegistryEntry
from . import amends, asides, casual, caveats, dated, framing, later, leads, profile, restated, spending, swaps, then_now
from . import clauses as cl
from .allergens import allergic_to_said
from .base import Extraction
from .casing import cased
from .couples import couple_frame
from .diets import strictest, together, with_fish
from .expenses import expense_frame, set_by_another
from .finders import typed_value
from .frames import PROFILE_FRAMES
from .frames_account import ACCOUNT_FRAMES, PREFERENCE_FRAMES, this_not_that
from .frames_change import change_frame
from .frames_names import name_part_frame
from .frames_school import school_frame
from .frames_zone import zone_frame
from .gone import GONE, NAMED_GONE
from .introductions import greeted
from .job_place import job_place_frame
from .lexicon import Draft
from .lists import headed as headed_list
from .moves import back_again
from .prototypes import PrototypeClassifier

_TEMPLATES = {
    "user.timezone": "The user's time zone is {}", "user.location": "The user lives in {}",
    "user.employer": "The user works at {}", "user.job": "The user works as {}", "user.allergies": "The user is allergic to {}",
    "user.language": "The user speaks {}", "user.diet": "The user's diet is {}", "user.pets": "The user has a {}",
    "user.budget": "The user's budget is {}", "user.payment.method": "The user pays with {}",
}
_MANY = {"user.allergies", "user.language", "user.pets", "user.family", "user.food_preferences", "user.likes"}
ALL_FRAMES = (zone_frame, *ACCOUNT_FRAMES, *PROFILE_FRAMES, name_part_frame, couple_frame, expense_frame, job_place_frame,
             school_frame)


_OWN_CHANGES = frozenset({"user.location", "user.hometown", "user.employer"})
"""Slots whose frames read a change themselves ("I moved from Chicago to Austin", "I changed jobs from Amazon to Apple"):
"I moved from Google to Meta" is no move to a place called Meta."""
_ZERO = re.compile(r"(?<![\w$€£¥.,-])(?:0|zero)\s+(?=(?:[a-z]+s|children|people)\b)"
                   r"(?!(?:dollars|euros|pounds|bucks|cents|pesos|rupees|percent|degrees|[a-z]+ (?:dollars|euros))\b)", re.I)
_DENIED = re.compile(r"^(?:not|no longer|never)\s+(?P<v>\S.*)$", re.IGNORECASE)


def read_clause(clause: str) -> list[Draft]:
    """What the slot patterns read in one clause (empty if nothing)."""
    norm = _ZERO.sub("no ", cl.unhedged(clause))  # "I have 0 dogs": none, not a dog
    if not cl.about_user(norm):
        return []
    drafts: list[Draft] = change_frame(norm)  # "I went from vegetarian to vegan": vegan, whatever else reads vegetarian
    changed = {d.entity for d in drafts}
    for frame in (*ALL_FRAMES, spending.limit_frame):
        drafts += [d for d in frame(norm) if d.entity not in changed]
    if not drafts:
        for frame in PREFERENCE_FRAMES:
            drafts += frame(norm)
    if not drafts and (newer := swaps.newer(norm)) != norm:  # "We raised our budget from $500 to $800": the new one only
        return [d for d in read_clause(newer) if d.entity not in _OWN_CHANGES]
    drafts = spending.keyed(norm, drafts)  # "I can't spend more than $50 on this gift": user.budget.gift
    seen: set[tuple[str, str]] = set()
    unique = []
    zones = {values.canonical("user.timezone", d.value) for d in drafts if d.entity == "user.timezone"}
    for d in drafts:
        if d.entity == "user.location" and values.canonical("user.timezone", d.value) in zones and \
                (not gazetteer.find_place(d.value) or re.search(r"\b(?:time|zone)\b", d.value, re.IGNORECASE)):
            continue  # "I'm in Central time" says a clock, not a place (New York is both)
        denied = _DENIED.match(d.value)  # "my budget is no longer $5000": a value the clause denies
        if denied and values.value_kind(d.entity) == "amount" and bound(d.value)[0]:
            denied = None  # "not over $500" is a ceiling, "not under $500" a floor: no denial
        d = replace(d, value=f"not:{denied.group('v')}") if denied else d
        key = (d.entity, values.canonical(d.entity, d.value))
        if key not in seen:
            seen.add(key)
            unique.append(d)
    return unique


def extract_turn(text: str, *, classifier: PrototypeClassifier | None = None,
                 registry: Sequence[RegistryEntry] = ()) -> Extraction:
    facts: list[Fact] = []
    missed: list[str] = []
    theirs: dict[str, set[str]] = {}  # a missed clause -> what its sentence said of someone else before it
    foreign: list[str] = []
    now: set[int] = set()  # the facts said as how things are now, after a value said before
    years: dict[int, int] = {}  # the year a fact is dated by ("we divorced in 2021")
    text = profile.said_as_sentences(text)  # "Name: Sam Lee, Age: 35": My name is Sam Lee. I'm 35.
    text, taken = framing.set_aside(headed_list(back_again(text)))  # "About me: - 34 - ...": I'm 34; "... but moved back"
    doubts: list[tuple[str, str]] = []  # "I live in Boston, actually Alice": neither place is stored
    text = this_not_that(greeted(text))  # "Hi, I'm Jordan": my name is Jordan; "Text me, don't call": text me instead
    text = casual.run_on(text, value_in)  # "i live in austin i work at dell": two statements
    text = allergic_to_said(text)  # "No nuts please, I'm allergic": allergic to nuts
    text = swaps.not_but(text)  # "I no longer work at Google but at Meta": ..., now I'm at Meta
    text = then_now.carried(text, value_in)  # "I worked at Google, now I'm at Meta": now I work at Meta
    text = swaps.was_now(text)  # "My budget was $500 but now it's $800": my budget is $800
    text = amends.last_said(text)  # "Google, sorry, Microsoft, sorry, Google": the last one said
    text = amends.amended(restated.corrected(text, doubts, value_in), value_in, doubts)  # "march 12... actually march 21"
    unextracted: list[Unextracted] = [Unextracted(words, why) for words, why in (*taken, *doubts)]
    last_start, last, last_clause = 0, "", 0  # where the facts of the sentence before this one start, and that sentence
    for sentence in cl.sentences(text):
        if cl.is_question(sentence) or cl.narrative(sentence):
            continue
        if (back := amends.taken_back_at(sentence)) is not None and facts[last_start:]:  # "I'm vegan. Not really."
            unextracted.append(Unextracted(f"{last} ... {sentence[:back].strip()}", _TAKEN))
            del facts[last_start:]
            sentence = sentence[back:].strip()  # "Just kidding, still Boston": the rest is read as said
            if not sentence:
                continue
        kept: list[str] = []  # the clauses said before one a sentence moves, which stand
        if (off := caveats.moved_off(sentence)) and (facts[last_clause:] if off[0].start() == 0 else True):
            moved = off[0]  # only the statement it follows is moved, the last clause ("I live in Denver and I'm vegan")
            head = f"{last} ... {sentence}" if moved.start() == 0 else sentence[:moved.end()]
            unextracted.append(Unextracted(head, off[1]))  # "I live in Denver, or rather my parents do"
            del facts[last_clause if moved.start() == 0 else len(facts):]
            kept = cl.clauses(sentence[:moved.start()]) if moved.start() else []
            while kept and kept.pop() in cl.continued(sentence[:moved.start()]):
                pass  # the statement moved is the last, with any part that goes on with it ("and dairy free")
            sentence = sentence[moved.end():].strip(" ,;.!")
            if not sentence and not kept:
                continue
        last_start, last = len(facts), sentence
        others: set[str] = set()  # what the sentence said of someone else: a request that follows is theirs too
        said_before, before = len(facts), sentence  # where the facts of the clause before this one start
        going_on = cl.continued(sentence) if sentence else []
        for said in framing.with_hedges(kept + (cl.clauses(sentence) if sentence else [])):
            last_clause = last_clause if any(said.startswith(c) for c in going_on) else len(facts)
            if (amends.taken_back(said) or (undone := amends.not_so(said))) and facts[said_before:]:
                # "I told him I'm vegan but I'm actually not"; "..., now Meta, my wife says"; "..., hopefully soon"
                unextracted.append(Unextracted(f"{before} ... {said}", _TAKEN if amends.taken_back(said) else undone))
                del facts[said_before:]
                continue
            said_before, before = len(facts), said
            if (amends.kidding(said) or (undone := amends.not_so_after(said))) and read_clause(said):
                unextracted.append(Unextracted(said, _TAKEN if amends.kidding(said) else undone))
                continue
            real, why = framing.framed(said)  # the statement before a hypothetical said after it, or all of it
            clause, why = (real, None) if real else (said, why)
            drafts = read_clause(clause)
            entities = {d.entity for d in drafts}
            why = why or leads.why(sentence, said, entities)  # "For this example, I make $80k": no fact
            mine = [d for d in drafts if not asides.value_of_someone_else(clause, d.value)]  # "my wife, she's vegan"
            if drafts and ((cl.about_someone_else(clause) and "user.family" not in entities and not set_by_another(clause))
                           or not mine
                           or asides.follows_from(clause, entities, others)):
                # "my boss is in EST": a pattern read the boss's zone, not the user's ("my wife is Sarah": the user's family)
                unextracted.append(Unextracted(clause, asides.OTHER))
                others |= entities
            elif drafts and (reason := asides.aside(clause, entities) or (not why and caveats.caveat(clause, mine))):
                unextracted.append(Unextracted(clause, f"reads as {drafts[0].entity}, but {reason}"))
                others |= entities if reason in (asides.OTHER, asides.THING) else set()
            elif drafts and _stay_not_home(clause, drafts):
                unextracted.append(Unextracted(clause, _STAY))
            elif drafts and why:
                unextracted.append(Unextracted(clause, f"reads as {drafts[0].entity}, but as {why}"))
            elif drafts:
                facts += (new := _facts(clause, mine))
                dated.note(years, clause, new)
                if later.says_now(clause, sentence[:max(0, sentence.find(clause))]) or dated.then(clause):  # "Now I ..."
                    now |= {id(f) for f in new}
            elif cl.about_user(cl.unhedged(clause)):
                missed.append(clause)
                theirs[clause] = set(others)
                others |= {"*"} if cl.about_someone_else(clause) else set()  # "my wife loves ramen, so ..."
            elif NAMED_GONE.match(clause):  # "Rex died": whose Rex (a pet? a person?) is not said
                unextracted.append(Unextracted(clause, GONE))
            elif cl.foreign_first_person(clause):
                foreign.append(clause)
    unextracted += [Unextracted(c, "not in English: the rule reasoner reads English statements (an LLM reasoner, "
                                  "such as OpenAIReasoner, reads others)") for c in foreign]
    if missed:
        entries = _entries(registry)
        nearest = classifier.nearest(missed, entries) if classifier else [None] * len(missed)
        by_key = {e.key: e for e in entries}
        for clause, near in zip(missed, nearest, strict=True):
            drafts = typed_value(by_key[near.entity], cl.normalize_subject(clause)) if near else []
            kept = [d for d in drafts if not asides.value_of_someone_else(clause, d.value)]  # "my wife, she's vegan"
            if (cl.about_someone_else(clause) or asides.someone_else(clause, value_found=bool(kept)) or (drafts and not kept)
                    or (near and asides.follows_from(clause, {near.entity}, theirs[clause]))):
                unextracted.append(Unextracted(clause, asides.OTHER))
            elif near and (reason := asides.aside(clause, {near.entity}) or caveats.caveat(clause, kept)):
                unextracted.append(Unextracted(clause, f"reads as {near.entity}, but {reason}"))
            elif near and near.entity == "user.employer" and then_now.only_there(clause):
                unextracted.append(Unextracted(clause, _THERE))  # "I was at Google earlier, now I'm at Meta"
            elif near and near.entity == "user.location" and cl.not_now(clause):
                unextracted.append(Unextracted(clause, _STAY))
            elif near and cl.intention(clause):
                unextracted.append(Unextracted(clause, f"reads as {near.entity}, but as a plan or wish, not a current fact"))
            elif near and (why := framing.unreal(clause) or ("a denial the prototypes cannot read (no value "
                                                                   "stored)" if framing.negated(clause) else None)):
                unextracted.append(Unextracted(clause, f"reads as {near.entity}, but as {why}"))
            elif kept:
                facts += (new := _facts(clause, kept))
                dated.note(years, clause, new)
            elif near:
                unextracted.append(Unextracted(clause, f"reads as {near.entity} (similarity {near.similarity:.2f}) "
                                                       "but no value was found in it"))
            else:
                unextracted.append(Unextracted(clause, "no pattern reads it and no registry entry's examples are near it"))
    facts = later.later_wins(dated.latest(facts, years, _MANY), now, _MANY)  # "..., we divorced in 2021": divorced
    facts = together(strictest(with_fish(facts, text)))  # "I'm vegan, I don't eat meat": vegan only; with fish: pescatarian
    facts = cased(facts)  # "i live in berlin": Berlin
    return Extraction(tuple(_drop_superseded_negations(facts)), tuple(unextracted))


def value_in(clause: str) -> tuple[str, str] | None:
    """(entity, value) of a clause that reads as exactly one value, said as such in it."""
    said = read_clause(clause)
    return (said[0].entity, said[0].value) if len(said) == 1 and said[0].value.lower() in clause.lower() else None


_TAKEN = "said, then taken back by the user (\"but I'm actually not\", \"just kidding\")"
_THERE = "reads as user.employer, but \"I'm at ...\" says where the user is, not where the user works"
_STAY = "reads as user.location, but as a past or passing stay, not where the user lives now"


def _stay_not_home(clause: str, drafts: list[Draft]) -> bool:
    return all(d.entity == "user.location" for d in drafts) and cl.not_now(clause)


def _entries(registry: Sequence[RegistryEntry]) -> list[RegistryEntry]:
    given = {e.key: e for e in registry}
    return [e for e in (*given.values(), *(b for b in BUILTIN_ENTRIES if b.key not in given)) if e.examples]


def _facts(clause: str, drafts: list[Draft]) -> list[Fact]:
    own = cl.third_person(clause)
    out = []
    for d in drafts:
        if d.text:
            text = d.text
        elif len(drafts) == 1:
            text = own
        else:
            stance, shown = values.split_stance(d.value)
            shown = " named ".join(shown.split(":", 1)) if d.entity == "user.pets" else shown  # dog:Rex -> dog named Rex
            template = f"The user {stance} {{}}" if stance in ("likes", "dislikes") else _TEMPLATES.get(d.entity)
            text = template.format(shown) if template and not d.value.startswith("not:") else f"{own} ({d.entity}: {d.value})"
        out.append(Fact(entity=d.entity, text=text, value=d.value, kind=d.kind))
    return out


def _drop_superseded_negations(facts: list[Fact]) -> list[Fact]:
    """'I left Google and joined Microsoft': on a one-value entity the turn's positive
    value says it all; its `not:` companions are dropped."""
    positive = {f.entity for f in facts if f.entity not in _MANY and not (f.value or "").startswith("not:")}
    return [f for f in facts if not ((f.value or "").startswith("not:") and f.entity in positive)]
