"""Chat as typed in a hurry, spelled out before the rules read it: a contraction without its
apostrophe ("im at meta now", "i dont eat meat", "ive got 2 cats") is the contraction; a
correction said without a comma ("i work at google i mean meta") is one said with it; a message
shouted in capitals is read in lower case ("I WORK AT GOOGLE" names no zone "AT"), without its
smileys (":)", "<3").

Only forms that are no other word are restored: "cant", "dont", "ive" always; "id" and "ill"
only before a verb ("id love to", "ill be"; "im ill" stays ill); "its", "were", "well", "wed",
"hell", "lets" and "shell" are English words as they stand, and are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .base import Message, as_messages
from .kin_names import kin_names
from .typos import mended

IC = re.IGNORECASE

_ALWAYS = {
    "im": "i'm", "ive": "i've", "dont": "don't", "doesnt": "doesn't", "didnt": "didn't", "cant": "can't",
    "wont": "won't", "isnt": "isn't", "arent": "aren't", "wasnt": "wasn't", "werent": "weren't", "havent": "haven't",
    "hasnt": "hasn't", "hadnt": "hadn't", "couldnt": "couldn't", "wouldnt": "wouldn't", "shouldnt": "shouldn't",
    "youre": "you're", "theyre": "they're", "thats": "that's", "whats": "what's", "wheres": "where's", "shes": "she's",
}
_WORDS = re.compile(rf"\b(?:{'|'.join(sorted(_ALWAYS, key=len, reverse=True))})\b", IC)
_VERB = (r"(?:be|been|have|like|love|rather|prefer|say|go|move|need|want|never|probably|definitely|just|also|still|"
         r"always|try|take|get|pay|stay|live|work|call|email|text|send|let|check|do|see|think|start|switch|join|quit|"
         r"leave|eat|buy|spend|use|keep|learn|look|come|visit|tell|ask|give|put|make|pick|drive|fly|book|sign|cancel)\b")
_ID = re.compile(rf"\bid(?=\s+{_VERB})", IC)
_ILL = re.compile(rf"(?<!\bim )(?<!\bi'm )(?<!\bam )(?<!\bfeel )(?<!\bfeeling )(?<!\bwas )(?<!\bbeen )(?<!\bso )"
                  rf"(?<!\bvery )(?<!\breally )(?<!\bfell )\bill(?=\s+{_VERB})", IC)
_KIN = {"gf": "girlfriend", "bf": "boyfriend", "bff": "best friend", "hubby": "husband", "wifey": "wife",
        "bestie": "best friend", "roomie": "roommate", "bro": "brother", "sis": "sister"}
_KIN_SAID = re.compile(rf"\b(?P<my>my|our|his|her) (?P<who>{'|'.join(_KIN)})\b", IC)
"""A person said short after "my" ("my gf is vegan", "my hubby works at google"): someone else, as "my girlfriend"."""
_PEOPLE = (r"wife|husband|mom|mum|mother|dad|father|partner|girlfriend|boyfriend|spouse|manager|roommate|landlord|"
           r"neighbou?r|grandma|grandpa|aunt|uncle|cousin|son|daughter|brother|sister|kid|friend|baby|fianc[eé]e?|coworker|"
           r"colleague")
_WHOSE = re.compile(rf"\b(?P<my>my|our) (?P<who>{_PEOPLE}|boss(?=es))(?:s|es)(?=\s+(?:a|an|vegan|vegetarian|pescatarian|"
                    r"keto|allergic|name|birthday|budget|time ?zone|email|phone|number|job|company|employer|diet|gluten|"
                    r"lactose|dairy|not|also|still|[a-z]+ is)\b)", IC)
"""Someone's, said without its apostrophe ("my daughters vegan", "my bosses timezone is est"): "my daughter's"."""
_LETS = re.compile(r"\blets (?=(?:say|pretend|assume|imagine|suppose)\b)", IC)
_NOW_SAID = re.compile(r"(?<!\bthe )(?<!\ban )(?<!\ba )\b(?:rn|atm)\b", IC)
""""im in london rn", "living in berlin atm": right now, at the moment (no value's part; "at the atm" is a machine)."""
_MEAN = re.compile(r"(?<=\w)(?<!\bwhat)(?<!\bthat)\s+(?=(?:(?:sorry|oops|whoops|no)\s+)?i\s+mean\s+\w)", IC)
"""A correction said without a comma: "i live in denver sorry i mean boulder" (`amends` reads it with the comma)."""
_SMILEY = re.compile(r"(?<![\w:/])[:=]-?[)(D]+(?![\w/])|<3+")
"""A smiley typed in punctuation (":)", ":-(", ":D", "<3"): no part of what is said ("i live in berlin :)"); a wink
or a tongue (";)", ":P") is kept, a sign of jest ("I pay $900 rent ;)")."""


def _spell(m: re.Match[str]) -> str:
    word = m.group(0)
    out = _ALWAYS[word.lower()]
    return out[0].upper() + out[1:] if word[0].isupper() else out


def spelled(text: str) -> str:
    """`text` as if typed with care: contractions with their apostrophes ("im at meta now" -> "i'm at meta now"),
    short kin words and possessives spelled out ("my gf" -> "my girlfriend", "my daughters vegan" -> "my daughter's
    vegan"), "rn" / "atm" said whole, a correction's "i mean" set off by a comma, capitals and smileys dropped."""
    if not re.search(r"[a-z]", text) and len(re.findall(r"[A-Z]{2,}", text)) >= 2:
        text = text.lower()  # "I WORK AT GOOGLE" is no zone "AT": shouted, read as typed in lower case
    text = _WORDS.sub(_spell, _SMILEY.sub("", mended(text)))  # "my timezome": a typo no other word is, read through
    text = _WHOSE.sub(lambda m: f"{m.group('my')} {m.group('who')}'s", _LETS.sub("let's ", text))
    text = _KIN_SAID.sub(lambda m: f"{m.group('my')} {_KIN[m.group('who').lower()]}", text)
    text = _NOW_SAID.sub(lambda m: "right now" if m.group(0).lower() == "rn" else "at the moment", text)
    text = _ID.sub(lambda m: "I'd" if m.group(0)[0] == "I" else "i'd", text)
    text = _ILL.sub(lambda m: "I'll" if m.group(0)[0] == "I" else "i'll", text)
    return kin_names(_MEAN.sub(", ", text))  # "i have a dog named max": Max


def spelled_turn(messages: Sequence[Message] | str) -> Sequence[Message] | str:
    """`messages` with each user message `spelled` (a string: one user message)."""
    if isinstance(messages, str):
        return spelled(messages)
    return [{**m, "content": spelled(m["content"])} if m["role"] == "user" else m for m in as_messages(messages)]


_NEXT = re.compile(r"(?<=[\w'])\s+(?=(?:i'm|i've|i\s+(?:live|work|moved|speak|have|am|also|just|used|was|got|love|hate|like|"
                   r"prefer|don't|can't|eat|grew|study|teach|make|earn|need|quit|left|joined|started|relocated))\b)", IC)
_SAID_BEFORE = re.compile(r"[.!?;,]\s*")


def run_on(text: str, value_in: Callable[[str], tuple[str, str] | None]) -> str:
    """`text` with a comma where one statement runs on into the next without one: "i live in austin i work at dell",
    "i work at google im an engineer". Only after a statement whose value ends right there, so "the company i work
    for" and "i think im vegan" run on as said."""
    out, start = [], 0
    for m in _NEXT.finditer(text):
        head = _SAID_BEFORE.split(text[:m.start()])[-1]
        found = value_in(head) if head.strip() else None
        if found and head.lower().rstrip(" .!").endswith(found[1].lower()):
            out.append(text[start:m.start()] + ",")
            start = m.start()
    return "".join(out) + text[start:]
