"""A profile written as fields ("Name: Sam Lee", "Age: 35, Location: NYC", one per line or after
commas): each field said as the statement it stands for ("My name is Sam Lee. I'm 35. I live in
NYC."), which the slot patterns read. A field this module does not know is left as written (the
ones the subject fixes read already, "Email: ...", "Timezone: ...", stay too), and so is a text with
an e-mail's headers or an event's fields ("From:", "Location: Room B"): a name must read as one,
a place must be one the gazetteer knows."""

from __future__ import annotations

import re

from .. import gazetteer

_SAID = {
    "name": "My name is {}", "full name": "My name is {}", "first name": "My first name is {}",
    "last name": "My last name is {}", "surname": "My last name is {}", "nickname": "My nickname is {}",
    "age": "I'm {}", "location": "I live in {}", "city": "I live in {}", "lives in": "I live in {}",
    "based in": "I'm based in {}", "home": "I live in {}", "current city": "I live in {}", "residence": "I live in {}",
    "hometown": "My hometown is {}", "origin": "I'm from {}",
    "job": "My job is {}", "occupation": "My job is {}", "profession": "My job is {}", "job title": "My job title is {}",
    "employer": "I work at {}", "company": "I work at {}", "works at": "I work at {}", "workplace": "I work at {}",
    "school": "I study at {}", "university": "I study at {}", "college": "I study at {}",
    "diet": "I'm {}", "dietary restrictions": "I'm {}", "allergies": "I'm allergic to {}", "allergy": "I'm allergic to {}",
    "allergic to": "I'm allergic to {}", "languages": "I speak {}", "language": "I speak {}", "speaks": "I speak {}",
    "marital status": "I'm {}", "relationship status": "I'm {}",
}
_KEYS = "|".join(sorted((re.escape(k) for k in _SAID), key=len, reverse=True))
_FIELD = re.compile(rf"(?:^|(?<=[\n;|])|(?<=,)|(?<=\.\s))[ \t]*(?:[-*•]\s*)?(?P<key>{_KEYS})[ \t]*:[ \t]*"
                    rf"(?P<v>[^\n;|]+?)(?=[ \t]*(?:$|\n|[;|]|,[ \t]*(?:{_KEYS})[ \t]*:))", re.IGNORECASE | re.MULTILINE)
_NUMBER_ONLY = re.compile(r"^\d{1,3}$")
_NAME = re.compile(r"^(?-i:[A-Z])[\w'.-]*(?:\s+(?-i:[A-Z])[\w'.-]*){0,3}$")
_PLACES = frozenset(("location", "city", "lives in", "based in", "home", "current city", "residence", "hometown", "origin"))
_NOT_A_PROFILE = re.compile(r"(?:^|\n)[ \t]*(?:from|to|cc|bcc|subject|date|time|when|where|attendees|organizer|agenda|"
                            r"meeting|event|duration|start|end|title|host|venue|guests?)[ \t]*:", re.IGNORECASE)
"""An e-mail's headers or an event's fields ("Location: Room B", "Title: Weekly sync"): no profile, left as written."""


def said_as_sentences(text: str) -> str:
    """`text` with its profile fields as statements; unchanged when it holds none."""
    if ":" not in text or _NOT_A_PROFILE.search(text):
        return text

    def said(m: re.Match[str]) -> str:
        key, value = m["key"].lower(), m["v"].strip(" .")
        if not value or value[0] in "-*•" or (key == "age" and not _NUMBER_ONLY.match(value)) \
                or (key.endswith("name") and not _NAME.match(value)) or (key in _PLACES and not gazetteer.find_place(value)):
            return m[0]  # "Name: team offsite", "Location: Room B": not the user's; "Kids: - Max": a headed list
        return _SAID[key].format(value) + "."

    out = _FIELD.sub(said, text)
    return re.sub(r"\.\s*,\s*", ". ", out) if out != text else text
