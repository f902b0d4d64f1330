"""Single-valued roles inside a `many` entity.

A `many` entity holds several items at once (`user.family`: "2 children", "brother:Tom",
"wife:Maria"), and two items contradict only when they say opposite things about the same
one (`reasoners.rules.contradicts`). Some items are a role that one person holds at a time:
a wife, a husband, a spouse, a partner; a mother, a father. Two *names* for such a role
contradict like two values of a `one` entity ("wife:Maria" against "wife:Anna"), while a
name said more fully is the same person ("wife:Maria" / "wife:Maria Gonzalez"). Roles that
many hold together (children, siblings, friends, pets: two dogs named differently are two
dogs) are not listed, and stand side by side as before.

`SINGLE_ROLES` maps each word of such a role to the role it names: synonyms ("mom",
"mum", "mother") name one role, so "mom:Ann" and "mother:Jane" contradict too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .qualifiers import changes

_GROUPS = {
    "spouse": ("spouse", "wife", "husband"),
    "partner": ("partner",),
    "boyfriend": ("boyfriend",),
    "girlfriend": ("girlfriend",),
    "fiance": ("fiance", "fiancee", "fiancé", "fiancée"),
    "mother": ("mother", "mom", "mum", "mommy", "mummy", "mama", "mamma"),
    "father": ("father", "dad", "daddy", "papa", "pa"),
}
SINGLE_ROLES: dict[str, str] = {word: role for role, words in _GROUPS.items() for word in words}
"""word of a single-valued role -> the role (see the module docstring)."""

_WORD = re.compile(r"\w+")


def single_role(item: str) -> tuple[str, str] | None:
    """'wife:maria' -> ('spouse', 'maria'): the single-valued role an item names and the name
    given for it; None for any other item (a role many hold, or a role without a name)."""
    noun, sep, name = item.partition(":")
    role = SINGLE_ROLES.get(noun.strip())
    return (role, name.strip()) if role is not None and sep and name.strip() else None


def other_holder(a: str, b: str) -> bool:
    """Whether two items name different people in one single-valued role ("wife:maria" /
    "husband:anna", "father:bob" / "father:bob jr"); a name said more fully ("maria" /
    "maria gonzalez") is the same one."""
    ra, rb = single_role(a), single_role(b)
    if ra is None or rb is None or ra[0] != rb[0]:
        return False
    wa, wb = set(_WORD.findall(ra[1].lower())), set(_WORD.findall(rb[1].lower()))
    return not (wa <= wb or wb <= wa) or changes(wa ^ wb, name=True)  # "bob" / "bob jr": his son


def clashing_holders(items: Iterable[str]) -> tuple[str, str, str] | None:
    """(role, a, b) for the first two of `items` naming different holders of one single-valued
    role ("wife:anna", "wife:sarah"): values no resolution may keep side by side; None if none do."""
    seen = [i for i in dict.fromkeys(items) if single_role(i.casefold()) is not None]
    for n, a in enumerate(seen):
        for b in seen[n + 1:]:
            if other_holder(a.casefold(), b.casefold()):
                return single_role(a.casefold())[0], a, b  # type: ignore[index]
    return None


def same_role(a: str, b: str) -> bool:
    """Whether two items name one single-valued role (whoever holds it)."""
    ra, rb = single_role(a), single_role(b)
    return ra is not None and rb is not None and ra[0] == rb[0]


def denies(denial: str, item: str) -> bool | None:
    """Whether a denial's object ("mother:ann lee" of "not:mother:ann lee", or the bare role
    "father") denies an item, each role said by any of its words ("mom:ann lee", "dad:bob"): a
    bare role denies whoever holds it, a name denies that name only. The spouse's gendered words
    meet every word that may name what they deny: "wife" meets "wife" and "spouse", never "husband"
    (a husband is no wife; docs/policies.md), "spouse" meets all three. None when the two are not
    one single-valued role (the caller compares them as other items)."""
    rd, ri = _role(denial), _role(item)
    if rd is not None and ri is not None and rd[0] == "partner" and rd[1] and ri[0] in _COUPLED:
        return rd[1].casefold() == ri[1].casefold()  # "not:partner:Jess" ("I broke up with Jess"): girlfriend:Jess too
    if rd is None or ri is None or rd[0] != ri[0]:
        return None
    if {denial.partition(":")[0].strip(), item.partition(":")[0].strip()} == {"wife", "husband"}:
        return False  # "no husband" says nothing of a wife, nor the other way round
    return not rd[1] or rd[1].casefold() == ri[1].casefold()


_COUPLED = frozenset({"spouse", "partner", "boyfriend", "girlfriend", "fiance"})
"""The roles a partner may be said in: a named "partner" denial denies that person in any of them."""


def _role(obj: str) -> tuple[str, str] | None:
    noun, _, name = obj.partition(":")
    role = SINGLE_ROLES.get(noun.strip())
    return None if role is None else (role, name.strip())
