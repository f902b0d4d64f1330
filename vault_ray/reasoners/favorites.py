"""A favourite of a kind is one value: "My favorite color is blue", "my fave band is Muse", "Blue is my
favourite colour", "my favorite food is sushi" -> `user.favorite_color` = blue, `user.favorite_band` = Muse,
`user.favorite_food` = sushi. The slot is named by the kind said, in one spelling (`favourite` / `fave` /
`fav` / `go-to` are `favorite`, `colour` is `color`, `kind of music` is `music`), so two agents and two
spellings meet on one key; it is a `one` entity (the policy's default for a key no registry entry names),
so a second favourite of the kind is a revision or a contradiction, never a second like.

A favourite said without its kind ("Sushi is my favorite") or of several ("My favorite bands are Muse and
Blur") is a like, as before (`frames_account.preference_frame`): `user.likes` / `user.food_preferences`.
"""

from __future__ import annotations

import re

from .lexicon import Draft, cut, split_list

IC = re.IGNORECASE
FAV = r"(?:favou?rite|fave|fav|go-to|go to)"
_LEAD = r"(?:(?:absolute|all-time|all time|new|current|very|ultimate|personal|top)\s+)*"
_KIND = r"(?P<what>[a-z][a-z' -]*?)"
_IS = r"(?:'s|’s| is| are| has to be| would be| would have to be| has always been| has been| will always be)"
FAVORITE = re.compile(rf"^my {_LEAD}{FAV} {_KIND}{_IS} (?P<v>.+)$"
                      rf"|^(?P<w>.+?)(?:'s|’s| is| are) (?:definitely |probably |still |now |always |easily )?my {_LEAD}{FAV}"
                      rf"(?: (?P<kind>[a-z][a-z' -]*?))?(?:\s+(?:ever|of all time|these days|right now|now))?[\s.!]*$", IC)
"""A favourite, the kind named before the value ("my favorite color is blue") or after it ("blue is my favorite
color"); no kind said ("Sushi is my favorite") leaves `kind` and `what` empty."""

_NOT_FAVORITE = re.compile(rf"^my {_LEAD}{FAV} {_KIND} (?:is no longer|isn't|is not)\s+(?P<v>.+?)"
                           r"(?:\s+(?:anymore|any more|any longer|these days))?[\s.!]*$", IC)
"""A favourite denied ("My favorite color isn't blue anymore", "... is no longer blue"): `not:` the value."""

_SPELLING = {"colour": "color", "colours": "colors", "flavour": "flavor", "flavours": "flavors", "humour": "humor",
             "theatre": "theater", "jewellery": "jewelry", "programme": "program", "programmes": "programs",
             "tv": "tv", "telly": "tv", "film": "movie", "films": "movies", "footy": "football"}
"""One spelling of a kind's word: the British one is the American one (`colour` / `color`), a film a movie."""
_OF = re.compile(r"^(?:kind|type|sort|genre|style|brand|variety|form) of\s+", IC)
_NO_KIND = {"thing", "things", "one", "ones", "part", "bit", "way", "place", "person", "people", "memory", "moment",
            "activity", "activities", "hobby", "hobbies", "pastime", "pastimes", "stuff", "time", "day"}
"""Words that name no kind of one value ("my favorite thing is hiking", "my favorite part is the ending"): a like."""
_PLURAL = re.compile(r"(?:[^s]s|ies)$", IC)
MAX_KIND_WORDS = 3


def kind_key(what: str) -> str | None:
    """The key of a favourite's kind said in `what` ("colour" -> `user.favorite_color`, "kind of music" ->
    `user.favorite_music`, "TV show" -> `user.favorite_tv_show`), or None when it names no kind of one value
    (a thing, a part, a place to go) or several (a plural: "bands")."""
    words = _OF.sub("", what.strip().lower()).replace("-", " ").split()
    words = [_SPELLING.get(w, w) for w in words]
    if not words or len(words) > MAX_KIND_WORDS or words[0] in _NO_KIND or words[-1] in _NO_KIND \
            or not all(re.fullmatch(r"[a-z]+", w) for w in words):
        return None
    if _PLURAL.search(words[-1]) and words[-1] not in ("series", "news", "species", "genres", "bus"):
        return None  # "my favorite bands are ...": several, each a like
    return "user.favorite_" + "_".join(words)


def favorite_frame(n: str) -> list[Draft] | None:
    """The favourite a clause says, as its kind's one value: [Draft("user.favorite_color", "blue")]; [] when it
    says one but no value to keep ("My favorite color is maybe blue": a guess); None when the clause says no
    favourite of a kind (a like then reads it)."""
    if (no := _NOT_FAVORITE.search(n.strip())) and (key := kind_key(no.group("what"))):
        value = cut(no.group("v")).strip(" \"'“”‘’.!,")  # "My favorite color isn't blue anymore": not:blue
        return [Draft(key, f"not:{value}")] if value and len(value.split()) <= 8 else []
    m = FAVORITE.search(n.strip())
    if m is None:
        return None
    what = m.group("what") or m.group("kind") or ""
    key = kind_key(what) if what else None
    if key is None:
        return None
    if re.search(r"\b(?:maybe|perhaps|probably|possibly)\b", n, IC):
        return []  # "My favorite color is probably blue", "Blue is probably my favorite": a guess, no value stored
    value = cut(m.group("v") or m.group("w")).strip(" \"'“”‘’.!,")
    value = re.sub(r"^(?:definitely|still|now|currently|easily|hands down)\s+|\s+(?:hands down|for sure|"
                   r"by far|of course|though|these days|right now|now|ever)$", "", value, flags=IC).strip(" \"'“”.!,")
    if not value or len(value.split()) > 8 or re.match(r"^(?:my|your|it|this|that|them|you|him|her|what|which|who|"
                                                        r"not|no longer|n't)\b", value, IC):
        return None
    if len(split_list(value)) > 1 and not re.search(r"\b(?:and|&|n)\b", value, IC):
        return None  # "blue, green" said as a list: several, each a like
    return [Draft(key, value)]
