"""A couple's end read with the partner the conversation named: "We split up" or "We broke up" says
nothing alone (a group splits up at a mall too), but after "My girlfriend is Jess" it ends that
relationship (`not:girlfriend:Jess`), after "I'm married" or "My wife is Ann" it is a separation
(`separated`, as "My husband and I split up" says), after "I'm engaged" it ends the engagement
(`not:engaged`). "Dan and I split up" (`not:partner:Dan`, `couples.py`) is a separation too when
the user said Dan is their husband or wife ("I'm married to Dan"), in the conversation or to any agent
(`known_spouse`: the store holds `spouse:Dan` and no status but married).

"We" is the partner's only when the nearest earlier sentence that names anyone, or says "we", names the
partner: "My wife is Ann. My co-founder and I ran a startup. We split up last year" is the startup's
end, "My wife and I went hiking. We split up" a hike's, and nothing is stored. A turn that says the
couple got back together stores nothing."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..models import Fact
from . import clauses as cl
from .base import Extraction, Message, as_messages
from .extraction import extract_turn
from .names import first_name
from .paraphrase import first_person_turn

IC = re.IGNORECASE
_WHEN = (r"(?:last|this|earlier this|early this|late last) (?:week|weekend|month|year|night|spring|summer|fall|autumn|winter|"
         r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|yesterday|today|recently|finally|officially|for good|"
         r"in the end|a (?:little )?while (?:ago|back)|(?:in|over|during) (?:the )?(?:spring|summer|fall|autumn|winter|"
         r"holidays|january|february|march|april|may|june|july|august|september|october|november|december|(?:19|20)\d\d)|"
         r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?:a|an|one|two|three|four|five|six|\d+|a few|"
         r"a couple(?: of)?|several) (?:days?|weeks?|months?|years?) ago|after (?:(?:almost|nearly|about|over) )?(?:a|an|one|"
         r"two|three|four|five|six|seven|eight|nine|ten|\d+|a few|many|several) (?:years?|months?)(?: (?:together|of "
         r"(?:marriage|dating|being together)))?")
WE_ENDED = re.compile(
    r"^(?:(?:so|and|but|well|sadly|unfortunately|anyway|yeah|update|actually|also|then|oh)[,:]?\s+)*(?:we|we've|we have"
    r"|we're|we are)(?:\s+(?:just|finally|officially|recently|eventually|actually|have|now))*\s+(?:(?P<v>broke up|split up|"
    r"called it quits|parted ways|went our separate ways|ended things|broke it off|called off (?:the|our) (?:engagement|"
    rf"wedding))(?P<rest>(?:,?\s+(?:{_WHEN}))*)|split(?:,?\s+(?:{_WHEN}))+|(?:(?:not|no longer) together|broken up|not a "
    r"couple|no longer a couple)(?:,?\s+(?:now|anymore|any more))*)[\s.!]*$", IC)
"""A couple's end said of "we", with at most when it happened: "We split up last month", "We broke up after 3 years"
("We split" only with its when: "We split." after dinner splits the bill); a state with at most "now" or "anymore":
"We're not together anymore" ("We're not together today" says a day apart)."""
_BACK = re.compile(r"\b(?:back together|got back|getting back|reconcil\w*|made up|patched (?:it|things) up|working (?:it|"
                   r"things) out|trying again|try again|another (?:try|chance|shot))\b", IC)
_READ = re.compile(r"^(?:no pattern reads it|reads as [\w.]+ \(similarity [\d.]+\) but no value was found in it|reads as "
                   r"[\w.]+, but as a denial the prototypes cannot read)", IC)
"""What a plain statement no rule read is reported as (a guess, a plan, a hypothetical are reported otherwise)."""
_ROLE = re.compile(r"^(?P<r>wife|husband|spouse|partner|boyfriend|girlfriend|fianc[eé]e?)(?::(?P<n>.+))?$", IC)
_SPOUSE = ("wife", "husband", "spouse")
_OTHERS = re.compile(
    r"\b(?:(?:my|our) (?:\w+ )?(?:mom|mum|mother|dad|father|parents?|brothers?|sisters?|siblings?|sons?|"
    r"daughters?|kids?|children|child|baby|cousins?|aunt|uncle|grand\w+|in-laws?|family|ex|roommates?|flatmates?|"
    r"housemates?|boss|manager|business|company|startup|band|landlord|neighbou?rs?)|friends?|buddies|colleagues?|"
    r"co-?workers?|co-?founders?|team(?:mates?)?|classmates?|band|group|everyone|guys)\b", IC)
"""Words that name someone other than the partner: "we" after them may be that someone and the user."""
_WE = re.compile(r"\b(?:we|we're|we've|we'd|we'll|us|our|ours|ourselves|and i|me and)\b", IC)
"""A sentence the user says of "we" that names no partner: a split after it may be of what it tells ("We went
hiking. We split up")."""
_WORD = re.compile(r"[A-Za-z]+")


def _names(sentence: str) -> set[str]:
    """The first names a sentence says ("Tom came over", "Jess and I went out", "I saw Sam"), lowercased."""
    words = _WORD.findall(sentence)
    return {w.casefold() for i, w in enumerate(words) if w[:1].isupper() and first_name(w) and (i or w != "I")}


def ended_with(messages: Sequence[Message] | str, turn: str, found: Extraction) -> Extraction:
    """`found` (the facts of `turn`, the latest user turn of `messages`) with a couple's end read against the
    partner the conversation named (see the module docstring)."""
    if _BACK.search(turn):
        return found
    earlier = _earlier(messages)
    facts, kept, dropped = list(found.facts), [], set()
    for u in found.unextracted:
        m = WE_ENDED.match(u.text.strip()) if _READ.match(u.reason) else None
        said = _partner_of_we(turn[:max(0, turn.find(u.text))], earlier) if m else None
        if not said:
            kept.append(u)
            continue
        role, name, same_turn = said
        said_now = {f.value for f in facts if f.entity == "user.marital_status"} - {"married", "engaged"}
        new = [(e, v) for e, v in _end_of(role, name) if not (e == "user.marital_status" and said_now)]  # "..., I'm divorced"
        if not new:
            kept.append(u)
            continue
        who = f"their {role}{' ' + name if name else ''}" if role not in ("married", "engaged") else "their partner"
        text = re.sub(r"^the user\b", f"The user and {who}", cl.third_person(u.text.strip(" .!")), flags=IC)
        facts += [Fact(entity, text, value=value) for entity, value in new]
        dropped |= {(e, v.casefold()) for e, v in _ended_values(role, name)} if same_turn else set()
    for f in list(facts):  # "Dan and I split up" after "I'm married to Dan": separated too
        named = re.fullmatch(r"not:partner:(?P<n>.+)", f.value or "", IC)
        spouse = _named_before(named.group("n"), turn, earlier) if named else None
        if spouse and not any(g.entity == "user.marital_status" and g.value not in ("married", "engaged") for g in facts):
            facts.append(Fact("user.marital_status", f.text, value="separated" if spouse in _SPOUSE else "not:engaged"))
            dropped |= {("user.marital_status", "married"), ("user.marital_status", "engaged")}
            dropped |= {("user.family", g.value.casefold()) for g in facts if g.entity == "user.family" and (m := _ROLE.match(
                g.value or "")) and (m.group("n") or "").casefold() == named.group("n").casefold()}
    if len(facts) == len(found.facts):
        return found
    facts = [f for f in facts if (f.entity, (f.value or "").casefold()) not in dropped]
    return Extraction(tuple(facts), tuple(kept))


def _end_of(role: str, name: str | None) -> list[tuple[str, str]]:
    if role in _SPOUSE or role == "married":
        return [("user.marital_status", "separated")]
    if role.startswith("fianc") or role == "engaged":
        return [("user.marital_status", "not:engaged"), *([("user.family", f"not:fiance:{name}")] if name else [])]
    return [("user.family", f"not:{role}{':' + name if name else ''}")]


def _ended_values(role: str, name: str | None) -> list[tuple[str, str]]:
    """What the turn said before the end that the end replaces ("My girlfriend is Jess, but we broke up": no girlfriend)."""
    if role in _SPOUSE or role in ("married", "engaged") or role.startswith("fianc"):
        return [("user.marital_status", "married"), ("user.marital_status", "engaged")]
    return [("user.family", f"{role}:{name}")] if name else []


def _earlier(messages: Sequence[Message] | str) -> list[tuple[str, str]]:
    """The (role, content) of the messages before the latest user turn, latest first."""
    if isinstance(messages, str):
        return []
    msgs = as_messages(messages)
    last = max((i for i, m in enumerate(msgs) if m["role"] == "user"), default=-1)
    return [(m["role"], m["content"]) for m in reversed(msgs[:max(0, last)])]


def _sentences(before: str, earlier: list[tuple[str, str]]) -> list[tuple[str, str, bool]]:
    """(role, sentence, said in this turn) of what was said before, the latest first."""
    out = [("user", s, True) for s in reversed(cl.sentences(before))]
    for role, text in earlier:
        said = first_person_turn(text) if role == "user" else text
        out += [(role, s, False) for s in reversed(cl.sentences(said))]
    return out


def _partner_in(sentence: str) -> tuple[str, str | None] | None:
    """The partner a user's sentence names ("My girlfriend is Jess": girlfriend, Jess; "I'm married": married), or
    None; ("", None) for one that says the user has none now ("I'm divorced", "I broke up with Jess")."""
    facts = extract_turn(sentence).facts
    status = {f.value.lower() for f in facts if f.entity == "user.marital_status" and f.value}
    roles = [m for f in facts if f.entity == "user.family" and (m := _ROLE.match(f.value or ""))]
    if any((f.value or "").startswith("not:") for f in facts if f.entity == "user.family" and "not:" in (f.value or "")) \
            or status & {"divorced", "separated", "single", "widowed", "not:married", "not:engaged"}:
        return "", None
    spouse = next((m for m in roles if m.group("r").lower() in _SPOUSE), None)
    if spouse or "married" in status:
        return (spouse.group("r").lower(), spouse.group("n")) if spouse else ("married", None)
    if roles:
        return roles[0].group("r").lower().replace("é", "e"), roles[0].group("n")
    if "engaged" in status:
        return "engaged", None
    return None


def _partner_of_we(before: str, earlier: list[tuple[str, str]]) -> tuple[str, str | None, bool] | None:
    """(role, name, said in this turn) of the partner "we" names: the nearest sentence said before that names
    anyone must name the partner (names said between are the partner's only)."""
    names: set[str] = set()
    for role, sentence, same_turn in _sentences(before, earlier):
        said = _partner_in(sentence) if role == "user" else None
        if said is not None:
            kind, name = said
            if not kind or not names <= {(name or "").split(" ")[0].casefold()}:
                return None
            return kind, name, same_turn
        if _OTHERS.search(sentence) or (role == "user" and _WE.search(sentence)):
            return None  # "My brother and I ran a shop", "My wife and I went hiking", "We went hiking": whose split?
        names |= _names(sentence)
    return None


def _named_before(name: str, before: str, earlier: list[tuple[str, str]]) -> str | None:
    """The role ("wife", "husband", "spouse", "fiance") in which the conversation named `name` the user's spouse or
    fiance, or None."""
    for role, sentence, _ in _sentences(before, earlier):
        if role != "user" or name.casefold() not in sentence.casefold():
            continue
        said = _partner_in(sentence)
        if said and said[1] and said[1].casefold().split(" ")[0] == name.casefold().split(" ")[0]:
            return said[0] if said[0] in _SPOUSE or said[0].startswith("fianc") else None
    return None


def known_spouse(found: Extraction, on_record: Callable[[str], Sequence[str]]) -> Extraction:
    """`found` with a separation (or an engagement's end) for a partner named in a split ("Dan and I split up":
    `not:partner:Dan`) whom the store holds as the user's spouse or fiance (`on_record(entity)`: its current values,
    asked only for such a split), unless the store's marital status is already no marriage ("divorced")."""
    named = [(f, m.group("n")) for f in found.facts if (m := re.fullmatch(r"not:partner:(?P<n>.+)", f.value or "", IC))]
    if not named or any(f.entity == "user.marital_status" for f in found.facts):
        return found
    roles = {(m.group("r").lower(), (m.group("n") or "").casefold()) for v in on_record("user.family")
             if (m := _ROLE.match(v)) and m.group("n")}
    for f, name in named:
        role = next((r for r, n in roles if n.split(" ")[0] == name.casefold().split(" ")[0] and (
            r in _SPOUSE or r.startswith("fianc"))), None)
        status = set(on_record("user.marital_status")) if role else set()
        if role and status <= {"married", "engaged"}:
            status = "separated" if role in _SPOUSE else "not:engaged"
            return Extraction((*found.facts, Fact("user.marital_status", f.text, value=status)), found.unextracted)
    return found
