"""Words that change what a value says, so a value that adds them is another value, never
"the same and more" (`reasoners.rules.detail_of`, and an item of a `many` entity).

"Visa (expired)", "Visa, reported stolen", "suspended PayPal", "vice president", "fired
engineer", "used to be vegan", "wife:Maria (deceased)": each says the other's words and more,
and each says the thing no longer holds, does not hold or is another thing. Before, only a
short list of words ("former", "cancelled") made the difference, and the rest read as
detail, so such a value stood uncontested beside the authority's.

A word changes a value when it
- negates, ends or puts it in the past: not, no, non-, un- (unpaid, unemployed), ex-,
  former, was, used (to be), before, late, deceased, died ...;
- is a participle of something that happened to it: expired, stolen, blocked, declined,
  fired, laid (off), disbarred, suspended: any word in -ed or an irregular participle
  (stolen, frozen, lost, broken), save the few that only say what kind it is (certified,
  licensed, registered, qualified, experienced ...);
- makes it another rank or role: vice, deputy, assistant, associate, co-, sub-, substitute,
  intern, trainee, junior, acting, interim, honorary, Jr / Sr / II on a name;
- says it is only tried, wanted or planned, or takes something from it: trying,
  considering, planning, aspiring, but, except, without.
Anything else (a surname, "senior", "software", a year, "debit") only says more of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_NEGATE_OR_END = frozenset({
    "not", "no", "non", "never", "nor", "ex", "former", "formerly", "previous", "previously", "old", "was", "were", "used",
    "before", "until", "til", "till", "anymore", "longer", "stopped", "quit", "left", "gone", "late", "deceased", "died",
    "dead", "passed", "away", "lost", "stolen", "frozen", "broken", "withdrawn", "invalid", "inactive", "expired", "void",
    "cancelled", "canceled", "retired", "without", "except", "excluding", "but", "unless", "anti", "less", "free", "pre",
    "post", "leave", "off", "pending", "temporary", "temp", "trial", "probation", "probationary", "defunct", "closed",
    "stopping", "quitting", "leaving", "resigned", "dismissed", "sacked", "laid", "divorced", "separated", "widowed",
    "estranged", "disowned", "missing", "sold", "rehomed", "adopted", "shut", "banned", "revoked", "overdue", "maxed", "hold",
    "overdrawn",
})
_OTHER_RANK = frozenset({
    "vice", "deputy", "assistant", "associate", "co", "sub", "substitute", "intern", "interns", "internship", "trainee",
    "apprentice", "junior", "student", "acting", "interim", "honorary", "emeritus", "adjunct", "elect", "designate",
    "volunteer", "unpaid", "aspiring", "wannabe", "would", "future", "soon", "prospective", "potential", "candidate",
    "nominee", "almost", "nearly", "half", "part", "semi", "fake", "mock", "pseudo", "alleged", "supposed", "foster",
    "aide", "assistants", *("jr", "sr", "ii", "iii", "iv", "2nd", "3rd"),
})
_ATTEMPT = frozenset({
    "trying", "try", "tries", "considering", "consider", "planning", "plan", "plans", "thinking", "think", "wanting",
    "want", "wants", "hoping", "hope", "becoming", "become", "going", "gonna", "learning", "transitioning", "switching",
    "attempting", "pretending", "maybe", "perhaps", "possibly", "sometimes", "occasionally", "mostly", "ish",
    "sorta", "kinda", "partly", "partially",
})
_KIND_PARTICIPLES = frozenset({
    "certified", "licensed", "registered", "qualified", "chartered", "experienced", "skilled", "trained", "employed",
    "tenured", "salaried", "accredited", "advanced", "dedicated", "insured", "verified", "preferred", "linked", "saved",
    "connected", "approved", "based", "united", "limited", "unlimited", "published", "board", "self", "named", "called",
    "married", "engaged", "shared", "fried", "roasted", "grilled", "baked", "smoked", "steamed", "boiled", "pickled",
    "dried", "aged", "canned", "processed", "flavored", "flavoured", "sweetened", "salted", "spiced", "stuffed", "blended",
    "brewed", "iced", "printed", "animated", "detailed", "specialized", "specialised", "handed", "minded", "sized",
    "mixed", "integrated", "authorized", "authorised", "personalized", "backed",
    "secured", "contracted", "appointed", "elected", "ordained", "decorated", "distinguished", "talented", "gifted",
})
_IRREGULAR_PARTICIPLES = frozenset({"stolen", "frozen", "broken", "lost", "taken", "forgotten", "hidden", "seized",
                                    "gone", "done", "beaten", "fallen", "shut", "split"})
_WORD = re.compile(r"[a-z0-9]+")


def changing(word: str, *, name: bool = False) -> bool:
    """Whether one word added to a value changes what it says (the module docstring). In a
    name (`name=True`) only the words that end it or make another person count: "Ahmed" is
    no participle, "Jr" and "Sr" are other people."""
    if word in _NEGATE_OR_END or word in _IRREGULAR_PARTICIPLES or word in _GENERATIONS:
        return True
    if name:
        return word in ("junior", "senior")
    if word in _OTHER_RANK or word in _ATTEMPT:
        return True
    if word in _KIND_PARTICIPLES:
        return False
    if len(word) >= 5 and word.endswith("ed") and not word.endswith("eed"):
        return True  # a participle: something happened to it ("expired", "blocked", "fired", "suspended")
    return len(word) > 5 and word.startswith("un") and not word.startswith(("uni", "under", "unc"))


_GENERATIONS = frozenset({"jr", "sr", "ii", "iii", "iv", "2nd", "3rd"})


def changes(words: Iterable[str], *, name: bool = False) -> bool:
    """Whether any of the words a value adds to another's changes what it says."""
    return any(changing(w, name=name) for w in words)


def core(value: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the words of an item that name the thing, the words that say it ended): "wife:maria
    deceased" -> ({wife, maria}, {deceased}); "ex-wife:maria" -> ({wife, maria}, {ex}). Only
    the words that end a thing count here: items of a `many` entity stand side by side, and
    "likes:fried chicken" is another item beside "likes:chicken", not a change of it."""
    words = _WORD.findall(value.lower())
    return frozenset(w for w in words if w not in _ENDED), frozenset(w for w in words if w in _ENDED)


_ENDED = frozenset({"not", "no", "never", "ex", "former", "formerly", "previous", "previously", "was", "were", "used", "before",
                    "until", "anymore", "longer", "late", "deceased", "died", "dead", "passed", "lost", "stolen", "gone",
                    "missing", "sold", "rehomed", "divorced", "separated", "widowed", "estranged", "disowned", "cancelled",
                    "canceled", "expired", "retired", "quit", "left", "stopped"})


def changed_item(a: str, b: str) -> bool:
    """Whether two items of a `many` entity name one thing and one of them says it ended:
    "dog:rex" / "dog:rex died", "wife:maria" / "late wife:maria" or "wife:maria (deceased)"."""
    (ca, xa), (cb, xb) = core(a), core(b)
    return bool(ca) and ca == cb and xa != xb
