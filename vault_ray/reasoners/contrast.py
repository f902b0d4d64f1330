"""Labels that name different things however alike their statements read.

Entity resolution aligns a new label with an entity whose statements are near its own
(DESIGN §2.3). Statement and label similarity cannot tell a drifted label from a
sibling: the local model rates "Work phone 555-0100" against "Home phone 555-0199" at
0.78, and the words "birthday" and "anniversary" at 0.53, above "residence" and
"location" (a true drift pair). Aligning a sibling supersedes a different fact, the
silent overwrite this library exists to prevent; keeping a drifted label apart only
leaves two entities (normalization can merge them later). So a few structural signs
keep two labels apart, whatever they score:

- **Siblings under a namespace**: `user.phone.home` and `user.phone.work`,
  `user.schedule.gym` and `user.schedule.yoga` (a parent path of two segments or more).
- **Contrasting words**, one of each side of a closed set: home / work, mother /
  father, first / last name, start / end, birthday / anniversary, cat / dog, ...
- **A person (or a pet) on one side only**: `user.mother_name` is not `user.name`,
  `user.dog_name` not `user.name`, `user.wife_birthday` not `user.birthday`,
  `user.client_timezone` not `user.timezone`.
- **A qualifier of when on one side only, or different ones** (closed sets by meaning:
  a past, a wish, a value to come, a stay away): `user.previous_employer` and
  `user.old_timezone` are not the current value, `user.goal_weight` not `user.weight`,
  `user.next_location`, `user.planned_diet`, `user.vacation_location` not the user's
  location or diet; `user.old_timezone` may still join `user.previous_timezone`.
- **The same qualifier of two different things**: with a person on both sides, or the same
  qualifier of when, what it qualifies must share a word: `user.wife_location` is not
  `user.wife_timezone`, `user.dream_location` not `user.dream_job`.
- **Different numbers**: `user.child_1` and `user.child_2`.

A registry key's words include its aliases' (`user.location` is also `user.home`), so
`user.work_city` stays apart from it while `user.home_city` may join it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache


def _sets(*groups: str) -> tuple[frozenset[str], ...]:
    return tuple(frozenset(group.split()) for group in groups)


_KIN = _sets("mother mom mum mommy mama", "father dad daddy papa", "sister", "brother", "son", "daughter", "wife", "husband",
             "grandmother grandma granny", "grandfather grandpa", "aunt", "uncle", "niece", "nephew", "cousin",
             "boss manager supervisor", "friend", "roommate", "neighbor neighbour", "colleague coworker")
_ANIMALS = _sets("cat kitten", "dog puppy", "bird", "fish", "horse", "rabbit bunny", "hamster")
_GROUPS: tuple[tuple[frozenset[str], ...], ...] = (
    # where or for what: a home phone is not a work phone
    _sets("home house personal private", "work office business professional job corporate", "school university college campus"),
    _KIN, _ANIMALS, *(_sets(*groups) for groups in (
        # which part of a name
        ("first given forename", "last surname", "middle", "maiden", "nick nickname"),
        ("primary main", "secondary second backup alternate alternative"),
        ("start begin beginning", "end finish"),
        ("wake wakeup waking", "bed bedtime sleep"),
        ("morning", "afternoon", "evening", "night"),
        ("breakfast", "lunch", "dinner supper"),
        ("weekday workday", "weekend"),
        ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
        ("birthday birth born dob", "anniversary", "wedding", "graduation"),
        ("departure outbound origin", "arrival destination"),
        ("min minimum lowest", "max maximum highest"),
    )),
)
_PERSON = frozenset().union(*_KIN, *_ANIMALS, {"partner", "spouse", "child", "kid", "baby", "parent", "sibling", "pet"}, {
    "girlfriend", "boyfriend", "fiance", "fiancee", "twin", "client", "landlord", "landlady", "secretary",
    "doctor", "dentist", "therapist", "lawyer", "accountant", "coach", "tutor", "mentor", "teammate", "classmate"})
"""Words that make a label about someone (or some animal) other than its subject: `user.dog_name` is not `user.name`,
`user.client_timezone` not `user.timezone`."""
_COLLECTIVE = frozenset({"family", "relative", "household", "contact", "people", "children", "kid", "child", "pet", "animal"})
"""Labels that hold many people or pets: `user.mother_name` may join `user.family`, `user.dog_name` `user.pets`."""
_WHEN = tuple(frozenset(group.split()) for group in (
    # a past value: `user.old_timezone` is not `user.timezone`
    "previous previously former formerly ex past prior old earlier before original",
    # a wish: `user.dream_job` is not `user.job`
    "dream ideal wish wished desired target goal aspiration",
    # a value to come: `user.next_location`, `user.planned_diet`
    "next future upcoming planned intended intend coming eventual prospective tomorrow",
    # somewhere or something for a while: `user.vacation_location` is not `user.location`
    "vacation holiday trip travel traveling travelling visit visiting temporary destination abroad",
))
"""Qualifiers of when, or for how long, a label's value holds, by meaning. A label with one
of them names another value than a label without (or with another): `user.old_timezone`,
`user.next_location`, `user.vacation_location` are not the user's current timezone or
location, and aligning them would let a past, a plan or a trip supersede it."""
_QUALIFIERS = frozenset().union(*_WHEN)
_DIGITS = re.compile(r"\d+")


def contrasting(label: str, key: str, aliases: Iterable[str] = ()) -> bool:
    """Whether `label` and `key` name different things by their words alone (the module's
    rules); `aliases`: other labels `key` is known by (the registry's), whose words count
    as the key's. A pattern (`user.schedule.*`) contrasts with nothing.

    Entity resolution asks this of every near hit of every new label (five per label in a
    bulk write): each label's parts, numbers and marks are worked out once (`_traits`, `_marks`)."""
    if key.endswith(".*") or label.endswith(".*") or label == key:
        return False
    a_parts, a_numbers = _traits(label)
    b_parts, b_numbers = _traits(key)
    if len(a_parts) >= 3 and a_parts[:-1] == b_parts[:-1] and not respelled(a_parts[-1], b_parts[-1]):
        return True
    if a_numbers and b_numbers and a_numbers != b_numbers:
        return True
    a = _marks(words(label))
    b = _marks(words(key).union(*map(words, aliases)) if aliases else words(key))
    a_groups, a_person, a_collective, a_when, a_rest = a
    b_groups, b_person, b_collective, b_when, b_rest = b
    for mine, theirs in zip(a_groups, b_groups, strict=True):  # one of each side of a closed set
        if mine - theirs and theirs - mine:
            return True
    if a_person != b_person and not (b_collective if a_person else a_collective):
        return True  # a person (or a pet) on one side only, the other no collective
    if a_when != b_when:
        return True  # a past, a wish, a plan or a trip on one side only (or different ones)
    # the same qualifier on both sides: what it qualifies must be the same thing too
    # (`user.wife_location` is not `user.wife_timezone`, `user.dream_location` not `user.dream_job`)
    return bool((a_when or (a_person and b_person)) and a_rest and b_rest and not a_rest & b_rest
                and not any(respelled(x, y) for x in a_rest for y in b_rest))


Marks = tuple[tuple[frozenset[int], ...], bool, bool, frozenset[int], frozenset[str]]


@lru_cache(maxsize=65_536)
def _traits(label: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A label's dotted parts and its numbers."""
    return tuple(label.split(".")), tuple(_DIGITS.findall(label))


@lru_cache(maxsize=16_384)
def _marks(found: frozenset[str]) -> Marks:
    """Per set of `_GROUPS`, which of its groups the words touch; whether they name a person
    (or a pet), many of them; which of `_WHEN` they touch (a past, a wish, a plan, a trip); the
    words that are none of those qualifiers (what they qualify)."""
    groups = tuple(frozenset(n for n, g in enumerate(sets) if g & found) for sets in _GROUPS)
    when = frozenset(n for n, g in enumerate(_WHEN) if g & found)
    return groups, bool(found & _PERSON), bool(found & _COLLECTIVE), when, found - _PERSON - _QUALIFIERS


def respelled(a: str, b: str) -> bool:
    """Two leaves that are one word said two ways: `seat` / `seating`, `diet` / `dietary`,
    `email` / `email_address`."""
    short, long = sorted((a, b), key=len)
    return len(short) >= 3 and long.startswith(short)


@lru_cache(maxsize=16_384)
def words(label: str) -> frozenset[str]:
    """A label's words below its subject, singular: `user.phone.home` -> {phone, home},
    `user.kids_names` -> {kid, name}."""
    parts = label.split(".")
    below = parts[1:] if len(parts) > 1 else parts
    out = set()
    for part in below:
        for word in re.split(r"[_\W\d]+", part.lower()):
            if word:
                out.add(singular_word(word))
    return frozenset(out)


def singular_word(word: str) -> str:
    """`names` -> `name`; `address`, `status`, `basis` stay."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) else word
