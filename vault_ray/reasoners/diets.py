"""One diet said twice in a turn, the second time in other words: "I'm vegan, I don't eat meat"
(the meat read as vegetarian), "I'm keto, so low carb". The diet that says the other is the one
stored; the looser one adds nothing and would stand as a second value of a one-valued slot.

Diets that say different things ("vegan and gluten free", "halal", "kosher") are all kept."""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Fact

SAYS = {
    "raw vegan": frozenset({"vegan", "vegetarian", "dairy-free", "plant-based"}),
    "vegan": frozenset({"vegetarian", "dairy-free", "plant-based"}),
    # "I'm pescatarian, I don't eat meat": no meat is all "vegetarian" says of it ("I don't eat meat" reads so)
    "pescatarian": frozenset({"vegetarian"}),
    "keto": frozenset({"low-carb"}),
}
"""A diet -> the diets it says as well: a vegan eats no meat nor dairy; keto is a low-carb diet."""


def strictest(facts: Sequence[Fact]) -> list[Fact]:
    """`facts` without a `user.diet` value that another value of the turn says as well ("vegetarian"
    beside "vegan") or that it said before ("I'm vegetarian, I don't eat meat": once); a denial ("not:vegan")
    and a diet that says something else ("gluten-free") stay."""
    said = {(f.value or "").lower() for f in facts if f.entity == "user.diet"}
    implied = {looser for diet in said for looser in SAYS.get(diet, ())}
    out, seen = [], set()
    for f in facts:
        diet = (f.value or "").lower() if f.entity == "user.diet" else None
        if diet is not None and (diet in implied or diet in seen):
            continue
        seen |= {diet} if diet is not None else set()
        out.append(f)
    return out
