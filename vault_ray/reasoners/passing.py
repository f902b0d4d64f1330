"""A diet word said of a thing, not of the user: "we went to a vegan restaurant", "I bought a
vegan cookbook", "my vegan friend Sam". The word stands before a noun it describes; a diet of
the user's is said on its own ("I eat vegan", "I'm vegan now", "I follow a vegan diet")."""

from __future__ import annotations

import re

_OWN = re.compile(
    r"\s*(?:$|[,;:.!?)\-–—]|(?:diet|lifestyle|eater|cooking|meals?|food|now|nowadays|these|this|that|last|since|for|"
    r"and|or|but|so|too|again|anymore|any|at|in|on|by|from|mostly|most|lately|ever|because|as|after|before|though|"
    r"although|while|with|without|fully|strictly|only|myself|all|if|when|until|til|pretty|mainly|basically|"
    r"who|which|except|excluding|right|under|whenever|wherever|every|daily|religiously|completely|entirely|exclusively|"
    r"happily|proudly|largely|partly|generally|usually|currently|recently|seriously|faithfully|consistently|really|"
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b|person|people|lover|fan|friendly)\b)", re.IGNORECASE)


def attributive(after: str) -> bool:
    """Whether the words after a diet word make it describe a thing ("vegan restaurant",
    "vegan cookbook") rather than the user's diet ("vegan now", "vegan diet", "vegan food")."""
    return not _OWN.match(after)
