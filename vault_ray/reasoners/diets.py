"""The user's diet as one value: `user.diet` holds one value at a time (the registry's cardinality "one"),
so the diets a turn says are stored as one claim.

- One diet said twice, the second time in other words: "I'm vegan, I don't eat meat" (the meat read
  as vegetarian), "I'm keto, so low carb". The diet that says the other is the one stored; the
  looser one adds nothing.
- Diets that say different things ("I'm vegan and gluten free", "I'm vegan and I keep kosher") are
  one value listing each, as said: "vegan, gluten-free" ("The user's diet is vegan and gluten-free").
  Two claims would be two values of a one-valued slot: the second would replace the first.

A later turn is compared with the diet on record by `already_said` (`RuleReasoner.classify`): "I
don't eat meat" after "I'm vegan" says nothing new, and must not replace the stricter diet."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..models import Fact
from .base import Extraction

SAYS = {
    "raw vegan": frozenset({"vegan", "vegetarian", "dairy-free", "plant-based"}),
    "vegan": frozenset({"vegetarian", "dairy-free", "plant-based"}),
    # "I'm pescatarian, I don't eat meat": no meat is all "vegetarian" says of it ("I don't eat meat" reads so)
    "pescatarian": frozenset({"vegetarian"}),
    "keto": frozenset({"low-carb"}),
}
"""A diet -> the diets it says as well: a vegan eats no meat nor dairy; keto is a low-carb diet."""
_AXES = {
    **dict.fromkeys(("vegan", "raw vegan", "vegetarian", "pescatarian", "omnivore", "carnivore", "flexitarian", "plant-based"),
                    "meat"),
    "halal": "faith", "kosher": "faith", "keto": "carbs", "paleo": "carbs", "low-carb": "carbs",
}
"""What a diet rules on: one of a kind holds at a time ("vegetarian" after "vegan" is a change), diets of other kinds
stand together ("vegan" and "kosher"); a diet not listed is a kind of its own ("gluten-free")."""
DIET = "user.diet"
_PARTS = re.compile(r"\s*(?:,|\band\b|&|\+)\s*", re.IGNORECASE)
_NAMES = {  # how a diet of `SAYS` may be named in a statement ("The user is veggie"): named, not inferred
    "vegetarian": ("vegetarian", "veggie"), "vegan": ("vegan", "plant-based", "plant based"),
    "dairy-free": ("dairy-free", "dairy free"), "plant-based": ("plant-based", "plant based", "vegan"),
    "low-carb": ("low-carb", "low carb"),
}


def parts(value: str) -> list[str]:
    """The diets a `user.diet` value lists ("vegan, gluten-free" -> ["vegan", "gluten-free"]), folded."""
    return [p for p in (" ".join(p.lower().replace("_", " ").split()) for p in _PARTS.split(value)) if p]


def strictest(facts: Sequence[Fact]) -> list[Fact]:
    """`facts` without a `user.diet` value that another value of the turn says as well ("vegetarian"
    beside "vegan") or that it said before ("I'm vegetarian, I don't eat meat": once); a denial ("not:vegan")
    and a diet that says something else ("gluten-free") stay."""
    said = {(f.value or "").lower() for f in facts if f.entity == DIET}
    implied = {looser for diet in said for looser in SAYS.get(diet, ())}
    out, seen = [], set()
    for f in facts:
        diet = (f.value or "").lower() if f.entity == DIET else None
        if diet is not None and (diet in implied or diet in seen):
            continue
        seen |= {diet} if diet is not None else set()
        out.append(f)
    return out


_FISH = re.compile(r"\b(?:i(?:'m| am)?|but|and) (?:(?:do|also|still|sometimes)\s+)?(?:eat|eating) (?:fish|seafood)\b",
                   re.IGNORECASE)


def with_fish(facts: Sequence[Fact], turn: str) -> list[Fact]:
    """`facts` with a vegetarian diet said beside eating fish read as pescatarian: "I'm vegetarian but I eat fish",
    "I don't eat meat, but I do eat seafood" (each part its own clause, so no frame sees both)."""
    if not _FISH.search(turn):
        return list(facts)
    return [replace(f, value="pescatarian", text=f.text if re.search(r"\b(?:fish|seafood)\b", f.text, re.IGNORECASE)
                    else f"{f.text.rstrip('.')}, but eats fish")
            if f.entity == DIET and (f.value or "").lower() == "vegetarian" else f for f in facts]


def together(facts: Sequence[Fact]) -> list[Fact]:
    """`facts` with the user's diets said in the turn as one fact, where the first was: "vegan" and
    "gluten-free" -> "vegan, gluten-free", stated "The user's diet is vegan and gluten-free". A denial
    ("not:vegan") stays its own fact."""
    diets = [f for f in facts if f.entity == DIET and f.value and not f.value.startswith("not:")]
    if len(diets) < 2:
        return list(facts)
    names = [f.value for f in diets if f.value]
    one = replace(diets[0], value=", ".join(names),
                  text=f"The user's diet is {', '.join(names[:-1])} and {names[-1]}")
    out = []
    for f in facts:
        if f is diets[0]:
            out.append(one)
        elif all(f is not d for d in diets):
            out.append(f)
    return out


def already_said(new_value: str, new_text: str, old_value: str) -> bool:
    """Whether a diet on record (`old_value`) already says the new one, so the new claim adds nothing and
    replaces nothing: each diet it lists is listed on record ("vegan" after "vegan, gluten-free"), or is
    a looser diet the record's says and the statement does not name it ("The user doesn't eat meat",
    read as vegetarian, after "vegan"). A looser diet named ("The user is vegetarian now") is a change."""
    new, old = parts(new_value), parts(old_value)
    if not new or any(p.startswith("not:") for p in new):
        return False
    implied = {looser for diet in old for looser in SAYS.get(diet, ())}
    kinds, text = {axis(o) for o in old}, new_text.lower()
    less = bool(_NO_LONGER.search(text))  # "vegan, no longer gluten-free": less than the record says, said as a change
    return all((p in old and not less) or (p in implied and not (axis(p) in kinds and _named(p, text))) for p in new)


_NO_LONGER = re.compile(r"\b(?:no longer|not|anymore|any more|stopped|quit|gave up)\b")


def axis(diet: str) -> str:
    """What `diet` rules on (`_AXES`): "meat" for vegan and vegetarian, "faith" for kosher; else the diet itself."""
    return _AXES.get(diet, diet)


def known_diet(found: Extraction, on_record: Callable[[str], Sequence[str]], said: str = "") -> Extraction:
    """`found` with its diet read with the one on record (`on_record(DIET)`, asked only when the turn says a diet): a
    diet of another kind joins it ("I'm vegan", later "I'm gluten free": "vegan, gluten-free"), one of the same kind
    takes its place ("vegan, gluten-free", later "I'm vegetarian now": "vegetarian, gluten-free"), a denial of one of
    its parts leaves the others ("I'm not gluten free anymore": "vegan"). A looser diet the record already says is read
    as the record's ("I don't eat meat" of "vegan": vegan, `already_said`), a part of it stays as read; any diet stays
    as read when the store holds none, or two (a dispute). A part of the record the turn (`said`) names but does not
    keep is dropped ("I'm not vegan, I'm gluten free", "I used to be vegan, now I'm gluten free": gluten-free alone)."""
    mine = [f for f in found.facts if f.entity == DIET and f.value]
    denials = [f for f in mine if (f.value or "").startswith("not:")]
    if not mine or (len(mine) > 1 and len(denials) < len(mine)):
        return found
    if len(held := [v for v in on_record(DIET) if not v.startswith("not:")]) != 1:
        return found
    fact, old = mine[0], parts(held[0])
    dropped = {p for p in old if p not in parts(fact.value or "") and _named(p, said.lower())}
    if denials:
        denied = {p for f in denials for p in parts((f.value or "").removeprefix("not:"))}
        diets = [p for p in old if p not in denied]
        if len(old) < 2 or not diets or len(diets) == len(old):
            return found  # a denial of the whole diet, or of none of its parts: as read
        gone = ", ".join(p for p in old if p in denied)
    elif not dropped and already_said(fact.value or "", fact.text, held[0]):
        if set(parts(fact.value or "")) <= set(old):
            return found  # "vegan" said of "vegan, gluten-free": a part of it, which says no less (`rules.agrees`)
        # "I don't eat meat" of "vegan": said of the diet on record, so another agent's claim corroborates it
        # rather than contradicting it (a looser value would replace it by recency, or open a dispute)
        return Extraction(tuple(replace(f, value=held[0]) if f is fact else f for f in found.facts), found.unextracted)
    else:
        new = parts(fact.value or "")
        implied = {looser for diet in new for looser in SAYS.get(diet, ())}
        diets = [_taking(p, new) for p in old if p not in implied and p not in dropped]
        diets = list(dict.fromkeys(diets + new))
        if diets == new and not dropped:
            return found  # else stated by name ("The user's diet is gluten-free"): a change of the record, not more of it
    listed = ", ".join(_spelled(held[0], fact.value or "", d) for d in diets)
    head, _, tail = listed.rpartition(", ")
    text = f"The user's diet is {f'{head} and {tail}' if head else tail}" + (f", no longer {gone}" if denials else "")
    one = replace(fact, value=listed, text=text)
    facts = tuple(one if f is fact else f for f in found.facts if f is fact or all(f is not d for d in denials))
    return Extraction(facts, found.unextracted)


def _taking(held: str, new: list[str]) -> str:
    """The part of the new diet that takes the place of `held` (one of its kind), `held` if none does."""
    same = [n for n in new if axis(n) == axis(held)]
    return same[0] if same else held


def _spelled(held: str, said: str, diet: str) -> str:
    """`diet` (folded) as the record or the turn writes it ("Gluten-Free" stays so)."""
    return next((p.strip() for p in _PARTS.split(f"{held},{said.removeprefix('not:')}") if p.strip().lower() == diet), diet)


def _named(diet: str, text: str) -> bool:
    return any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text) for n in _NAMES.get(diet, (diet,)))
