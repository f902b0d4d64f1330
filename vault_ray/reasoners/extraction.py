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
from collections.abc import Callable, Sequence
from dataclasses import replace

from .. import gazetteer, values
from ..amount_words import bound
from ..models import Fact, Unextracted
from ..registry import BUILTIN_ENTRIES, RegistryEntry
from . import amends, asides, caveats, dated, framing, later, leads, lexicon, names, orgs, passing, restated, spending, then_now
from . import clauses as cl
from .base import Extraction
from .couples import couple_frame
from .expenses import expense_frame, set_by_another
from .frames import PROFILE_FRAMES
from .frames_account import ACCOUNT_FRAMES, PREFERENCE_FRAMES, payment_frame
from .frames_change import CHANGE, change_frame, employer_to
from .frames_names import name_part_frame
from .frames_zone import zone_frame, zone_mentions
from .gone import GONE, NAMED_GONE
from .job_place import job_place_frame
from .lexicon import CHANNEL_RE, CHANNELS, DIET_RE, DIETS, FROM_TO, OCCUPATIONS, PAYMENT_WORDS, SPECIES, SPECIES_RE, Draft, cut
from .lists import headed as headed_list
from .moves import back_again, later_move
from .prototypes import PrototypeClassifier

_TEMPLATES = {
    "user.timezone": "The user's time zone is {}", "user.location": "The user lives in {}",
    "user.employer": "The user works at {}", "user.job": "The user works as {}", "user.allergies": "The user is allergic to {}",
    "user.language": "The user speaks {}", "user.diet": "The user's diet is {}", "user.pets": "The user has a {}",
    "user.budget": "The user's budget is {}", "user.payment.method": "The user pays with {}",
}
_MANY = {"user.allergies", "user.language", "user.pets", "user.family", "user.food_preferences", "user.likes"}
ALL_FRAMES = (zone_frame, *ACCOUNT_FRAMES, *PROFILE_FRAMES, name_part_frame, couple_frame, expense_frame, job_place_frame)


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
    text, taken = framing.set_aside(headed_list(back_again(text)))  # "About me: - 34 - ...": I'm 34; "... but moved back"
    doubts: list[tuple[str, str]] = []  # "I live in Boston, actually Alice": neither place is stored
    text = then_now.carried(text, value_in)  # "I worked at Google, now I'm at Meta": now I work at Meta
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
            drafts = _typed_value(by_key[near.entity], cl.normalize_subject(clause)) if near else []
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


# -- typed finders: a value of the classified entity anywhere in the clause ------------------
def _windows(text: str, longest: int = 3) -> list[str]:
    words = re.findall(r"[A-Za-z][\w'\-]*", text)
    return [" ".join(words[i:i + k]) for k in range(longest, 0, -1) for i in range(len(words) - k + 1)]


def _find_zone(n: str) -> list[Draft]:
    # a zone right after a clock time ("lands at 5pm Eastern time") is that time's, not the user's
    said = zone_mentions(n) or [w for w in _windows(n) if w[:1].isupper() and gazetteer.find_zone(w)
                                and not lexicon.CLOCK_BEFORE.search(n[:n.find(w)])
                                and not _NAME_GOES_ON.match(n[n.find(w) + len(w):])]  # "Central Park"
    return [Draft("user.timezone", said[0])] if said else []


_NAME_GOES_ON = re.compile(r"&|\s+(?!(?:Time|Standard|Daylight|Zone|Mountain|Pacific|Eastern|Central)\b)(?-i:[A-Z])[a-z]")
"""A zone word inside a longer name ("I'm at Central Park", "AT&T Stadium"): no zone."""


_RELOCATED = re.compile(r"\b(?:mov|relocat|transferr|emigrat|immigrat)\w*\b", re.IGNORECASE)


def _find_place(n: str) -> list[Draft]:
    """A known place in a locative position: after in/to/at/near, or before 'home'; "to" only
    after a move ("I drove to Denver" is a trip), "from" never after one ("I moved here from
    London": where the user left), and a move "from X to Y" is to Y."""
    moved = bool(_RELOCATED.search(n))
    n = FROM_TO.sub("", n[later.start():] if moved and (later := later_move(n)) else n)  # "..., then to Paris": Paris
    go = ("to|" if moved else "") + ("from|" if not moved else "")
    for w in _windows(n):
        # "Miami in the winter": a lower-case last word is no state's code ("Miami IN")
        if w[:1].isupper() and w.lower() not in ("i", "i'm") and not w.split()[-1].islower() and gazetteer.find_place(w) and (
                re.search(rf"\b(?:{go}in|at|near|around)\s+(?:the\s+)?{re.escape(w)}\b", n)
                or re.search(rf"\b{re.escape(w)}\s+(?:is\s+)?(?:my\s+)?home\b", n, re.IGNORECASE)):
            return [Draft("user.location", w)]
    return []


def _find_org(n: str) -> list[Draft]:
    if CHANGE.search(n):  # "I switched from Google to Meta": Meta now, never Google
        return [Draft("user.employer", org)] if (org := employer_to(n)) else []
    m = re.search(r"\b(?:at|for|with|by|joined)\s+((?:[A-Z][\w&'.\-]*)(?:\s+[A-Z][\w&'.\-]*){0,3})", n)
    if m and not gazetteer.find_place(m.group(1)) and not gazetteer.find_zone(m.group(1)) and not orgs.bought(n[:m.start()]) \
            and not (names.person(m.group(1)) or orgs.a_person(m.group(1))):  # "I left Tom for Mike", "Dr. Smith": a person
        return [Draft("user.employer", m.group(1))]
    return []


def _find_job(n: str) -> list[Draft]:
    m = re.search(r"\b(?:a|an)\s+([\w\-]+(?:\s+[\w\-]+)?)\b", n)
    if m and OCCUPATIONS.search(m.group(1)):
        return [Draft("user.job", m.group(1))]
    return []


_DISLIKED = r"|\b(?:hate|dislike|detest|loathe|can't stand|cannot stand|avoid|not a (?:big )?fan of|sick of|tired of)\b"
"""A channel the user dislikes is not their preference ("I hate phone calls" is `not:phone`)."""


def _find_word(entity: str, pattern: str, table: dict[str, str], dislike: str = "") -> Callable[[str], list[Draft]]:
    def find(n: str) -> list[Draft]:
        m = re.search(rf"\b({pattern})\b", n, re.IGNORECASE)
        # "a dog person", "a cat lover": a kind of person, not a pet or a diet
        if not m or re.match(r"[\s-]+(?:person|people|lover|fan|friendly)\b", n[m.end():], re.IGNORECASE) \
                or (entity == "user.diet" and passing.attributive(n[m.end():])):  # "a vegan restaurant": a thing's
            return []
        value = table[m.group(1).lower()]
        negated = re.search(r"\b(?:not|no longer|don't|never|stopped|quit|gave up)\b|\b(?:no|zero)\s+(?:\w+\s+)?$" + dislike,
                            n[:m.start()], re.IGNORECASE)  # "I have no dog": no dog
        return [Draft(entity, f"not:{value}" if negated else value)]

    return find


def _find_language(n: str) -> list[Draft]:
    found = [w for w in _windows(n, 2) if w[:1].isupper() and gazetteer.find_language(w) and not re.search(
        rf"\bi'm\s+(?:(?:half|part|also|originally|fully|100%)\s+)?{re.escape(w)}\s*(?:$|[,.!;]|and\b)", n, re.IGNORECASE)]
    # "I'm French", "I'm Filipino": a people or a nationality, not a language the user speaks
    return [Draft("user.language", found[0])] if found else []


_SPENDING = re.compile(r"\b(?:budget|spend|spending|afford|limit|cap|max|maximum|up to|no more than|at most|under|"
                       r"willing to pay|can pay|ceiling|capped|over|above|more than|exceed)\b", re.IGNORECASE)


def _find_amount(n: str) -> list[Draft]:
    """An amount in a clause about what the user can spend ("I can spend up to $3,500"), not
    any price said ("My rent is $2,400 a month" is no budget)."""
    if not _SPENDING.search(n):
        return []
    m = re.search(spending.AMOUNT, n)
    if m and values.parse_amount(spending.amount(m.group(0))):
        # "we cut the trip budget to 2500", "spend up to $3,500 on the laptop": the plan it is for, as the patterns key it
        plan = _PLAN.search(n)
        topic = plan and (plan.group("pre") or plan.group("topic") or plan.group("on") or plan.group("cap"))
        found = Draft(f"user.budget.{topic.lower()}" if topic else "user.budget", spending.amount(m.group(0)))
        return spending.keyed(n, [found])  # "$50 on this gift", "for my mom's birthday gift"
    return []


_PLAN = re.compile(rf"\b(?P<pre>{cl.PLAN_WORDS}) budget\b|\bbudget for (?:the|my|our|a) (?P<topic>{cl.PLAN_WORDS})\b"
                   rf"|\b(?:spend|spending)\b.*\bon (?:the|my|our|a|a new) (?P<on>[a-z]+)\b"
                   rf"|\b(?P<cap>{cl.PLAN_WORDS}) (?:under|below|within|at or under|at most|to under) ", re.IGNORECASE)
"""... or the plan a cap is said of: "Keep gifts under $500" is the gift budget (`spending.keyed`: user.budget.gift)."""


def _find_payment(n: str) -> list[Draft]:
    n = FROM_TO.sub("", n)  # "I switched from Visa to Mastercard": Mastercard
    found = payment_frame(f"i pay with {PAYMENT_WORDS.search(n).group(0)}") if PAYMENT_WORDS.search(n) else []
    return found


_TYPED: dict[str, Callable[[str], list[Draft]]] = {
    "user.timezone": _find_zone,
    "user.location": _find_place,
    "user.diet": _find_word("user.diet", DIET_RE, DIETS),
    "user.pets": _find_word("user.pets", SPECIES_RE, SPECIES),
    "user.contact_preference": _find_word("user.contact_preference", CHANNEL_RE, CHANNELS, _DISLIKED),
    "user.language": _find_language,
    "user.budget": _find_amount,
    "user.payment.method": _find_payment,
    "user.employer": _find_org,
    "user.job": _find_job,
}


def typed_values(entity: str, norm: str) -> list[Draft]:
    """What the typed finder of a built-in `entity` sees in a clause (none for an entity without one)."""
    finder = _TYPED.get(entity)
    return finder(norm) if finder else []


def _typed_value(entry: RegistryEntry, norm: str) -> list[Draft]:
    finder = _TYPED.get(entry.key)
    return finder(norm) if finder else _example_slot(entry, norm)


def _example_slot(entry: RegistryEntry, norm: str) -> list[Draft]:
    """For an entry without a typed finder (your own entries): examples that mark their
    value in brackets ("I drive a [Tesla]") give the slot: the words before the bracket,
    then the value."""
    if entry.key.endswith(".*"):
        return []
    for example in entry.examples:
        head, bracket, _ = example.partition("[")
        words = re.findall(r"[\w']+", cl.normalize_subject(head).lower())
        if not bracket or not words:
            continue
        pattern = r"\b" + r"\s+".join(re.escape(w) for w in words) + r"\s+(?P<v>.+)$"
        m = re.search(pattern, norm, re.IGNORECASE)
        value = cut(m.group("v")) if m else ""
        if value:
            return [Draft(entry.key, value)]
    return []
