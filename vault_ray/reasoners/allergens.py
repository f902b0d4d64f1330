"""An allergy said after what the user asks to leave out: "No nuts please, I'm allergic", "Hold the shellfish, I'm
allergic to it", "I can't have peanuts because I'm allergic". The allergen is named in the clause before; the
allergy's clause is read as if it named it ("..., I'm allergic to nuts"). Only right after the thing left out, and
only a bare "allergic" or one "to it / to them": "No nuts please, I'm allergic to shellfish" is read as said."""

from __future__ import annotations

import re

_LEFT_OUT = re.compile(
    r"\b(?:no|without|hold the|skip the|leave out the|nothing with|can't have|cannot have|can't eat|cannot eat)\s+"
    r"(?P<x>(?!(?:thanks|thank|problem|worries|way|one|thing|idea)\b)[a-z][a-z' -]{1,40}?)"
    r"(?:,?\s+(?:please|pls|thanks|thank you))?"
    r"(?:\s*(?:[,;.!]+|\s[-–—]+)\s*(?:(?:because|since|as|cause|cuz)\s+)?|\s+(?:because|since|cause|cuz)\s+)"
    r"(?P<said>i'?m\s+(?:(?:severely|very|deathly|really|super|so)\s+)?allergic)(?:\s+to\s+(?:it|them|those|that))?"
    r"(?=\s*(?:$|[.!,;]))", re.IGNORECASE)


def allergic_to_said(text: str) -> str:
    """`text` with a bare "I'm allergic" after something left out read as an allergy to it."""
    return _LEFT_OUT.sub(lambda m: m.group(0)[: m.end("said") - m.start()] + f" to {m.group('x')}", text)
