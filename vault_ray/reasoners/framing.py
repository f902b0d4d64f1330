"""Words that are not the user's statement of how things are now, found before any slot
is read: quoted speech and pasted code (someone's words, a story, a text to translate),
a past state ("I was vegetarian for 5 years in college"), a hypothetical or a pretence
("if I moved to London I'd be on GMT", "pretend I live in London"), and a negation the
prototype reading cannot carry ("I don't speak Spanish at all"). Each is reported in
`unextracted` with its reason, never stored as a fact.

A clause is judged by its main statement: "I live in Seattle, if I travel it's usually to
Portland" keeps Seattle (what follows the comma is the hypothetical), and a past verb
marks a past state only as the clause's own verb ("I have a dog I adopted when I was in
college" is about the dog the user has).
"""

from __future__ import annotations

import re

from . import compose

_FENCED = re.compile(r"```.*?(?:```|$)|`[^`\n]+`", re.DOTALL)
_MARKUP = re.compile(r"<(script|style)\b.*?(?:</\1\s*>|$)|</?[a-z][^<>]*>", re.IGNORECASE | re.DOTALL)
_ELISIONS = r"(?:cause|cos|em|til|tis|twas|n|s|round|bout|nuff|ol)\b"
_QUOTED = re.compile(r"\"[^\"\n]+\"|“[^”\n]+”|„[^“”\n]+[“”]|«[^»\n]+»"
                     rf"|(?<![\w'])'(?!{_ELISIONS})(?:[^'\n]|'(?=\w))+(?<!s)'(?!\w)", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|im|my|me|mine|we|we're|our)\b", re.IGNORECASE)
_SPEECH = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|im|my|me|mine|we|we're|our|you|you're|your)\b|\?\s*$", re.IGNORECASE)
_REQUEST = re.compile(r"^\s*(?:please\s+)?(?:(?:can|could|would|will) you\s+(?:please\s+)?(?:help me\s+)?|help me\s+(?:to\s+)?|"
                      r"i need (?:you to|help)\s+)?(?:translate|compose|create|writing|drafting|"
                      r"role-?play|example(?:\s+sentence)?|pretend|imagine|repeat after me|"
                      r"rephrase|proofread|paraphrase|summari[sz]e|write|draft|here'?s my (?:\w+ )?draft|sample|"
                      r"for (?:the|this|a) (?:role ?play|exercise|example|story|game|test))\b[^:\n]{0,60}:\s*(?P<rest>\S.*)$",
                      re.IGNORECASE | re.MULTILINE)

CODE = "code or markup, not a statement of the user's"
QUOTED = "quoted words (someone's speech, a story, a text to translate), not a statement of the user's"


def set_aside(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The turn without its code, markup, quoted speech and text given to work on ("Translate
    to French: ...", "Role-play: ..."), and what was taken out, each with its reason: 'She
    texted "I work at Google"' reads as 'She texted'. A quoted title stays ("Up", "I Will
    Always Love You")."""
    taken: list[tuple[str, str]] = []

    def code(m: re.Match[str]) -> str:
        if m.group(0).strip("`").strip() and _FIRST_PERSON.search(m.group(0)):
            taken.append((m.group(0).strip(), CODE))
        return " "

    def quoted(m: re.Match[str]) -> str:
        inner = m.group(0)[1:-1].strip()
        if _SPEECH.search(inner) and not _title(inner):  # words someone says, asks or is told
            taken.append((inner, QUOTED))
            return " "
        return m.group(0)

    def request(m: re.Match[str]) -> str:
        taken.append((m.group("rest").strip(), QUOTED))
        head = m.group(0)[: m.start("rest") - m.start()]
        return "" if _FIRST_PERSON.search(head) else head  # "Help me write my bio: ...": the request says nothing

    text = _MARKUP.sub(code, _FENCED.sub(code, text or ""))
    kept = []
    for line in text.split("\n"):
        if _looks_like_code(line):
            if _FIRST_PERSON.search(line):
                taken.append((line.strip(), CODE))
            continue
        kept.append(line)
    text = _REQUEST.sub(request, _QUOTED.sub(quoted, "\n".join(kept)))
    return compose.set_aside(text, taken, PRETEND), taken  # "Write a short story where I work at NASA"


def _title(words: str) -> bool:
    """A title ("I Will Always Love You", "Don't Stop Me Now"), not speech: its words capitalized."""
    long = [w for w in re.findall(r"[A-Za-z][\w']*", words) if len(w) > 3]
    return len(words.split()) >= 2 and bool(long) and sum(w[0].isupper() for w in long) >= 0.75 * len(long)


def _looks_like_code(line: str) -> bool:
    """A line of a program, not prose that happens to hold '=' or brackets: a whole line that
    is a call (`print('I live in Berlin')`), or an assignment of a literal (`tz = 'PST'  # ...`)."""
    s = line.strip()
    return bool(re.fullmatch(r"[A-Za-z_][\w.]*\([^()]*\)\s*;?", s)
                or re.fullmatch(r"[A-Za-z_][\w.\[\]'\"]*\s*=\s*(?:'[^']*'|\"[^\"]*\"|[\d.]+|True|False|None)\s*;?\s*"
                                r"(?:(?:#|//).*)?", s)
                or re.match(r"^(?:def|function)\s+\w+\s*\(|^(?:import|const|var)\s+[\w.]+\s*(?:=|;|$)", s))


_PAST_MARK = re.compile(
    r"\bused to\b|\b(?:that's|that is|it's|which is) (?:outdated|old news|no longer true|not true anymore|out of date)\b|"
    r"\b(?:formerly|previously)\b|^my (?:old|previous|former|last)\b(?! name)|\buntil (?:\d{4}|last|recently|a (?:few|couple)|"
    r"\w+ (?:years?|months?) ago)\b|\bfrom (?:19|20)\d\d (?:to|until|till) (?:19|20)\d\d\b", re.IGNORECASE)
_PAST_VERB = re.compile(
    r"^(?:[\w',-]+\s+){0,4}?(?:i|we)\s+(?:(?:also|still|just|really|even|only|once|briefly|actually)\s+)?"
    r"(?P<verb>was|were|had|lived|worked|spoke|stayed|spent|studied)\b(?P<after>.*)$", re.IGNORECASE)
_STILL_TRUE = re.compile(
    r"^\s*(?:just\s+|recently\s+)?(?:born|diagnosed|promoted|hired|raised|relocated|transferred|moved|named|told|given|"
    r"adopted|engaged|accepted|offered|assigned|elected|appointed|able|asked|invited|sent|a baby|twins|to\s|"
    r"married(?![^,;]*\bfor\s))", re.IGNORECASE)
"""What follows a past verb that leaves a current fact ("I was promoted to manager")."""
_PRETEND = re.compile(
    r"\bif (?:i|we|i'm|we're)\b|\bi'd be\b|\bi would be\b|"
    r"\b(?:might|could|may) (?:switch|move|go|change|be|start|become|end up)\b|"
    r"\bonce (?:i|i'm|we|we're) (?:move|get|start|switch|have|am|in|at|on|moved)?\b|\b(?:assume|assuming|pretend|pretending|"
    r"suppose|supposing|hypothetically|let's say)\b|\bimagine\b(?!\s+(?-i:(?!I\b|I'|We\b|My\b|Me\b)[A-Z]))|"
    r"\bfor (?:the|this|a) (?:role ?play|exercise|example|story|game|test|hypothetical)\b|"
    r"\bask me (?:if|whether|about)\b|^(?:please\s+)?translate\b|\btranslate (?:this|that|the following|to|into)\b|"
    r"\beither\b.+\bor\b|\bwhat if\b",
    re.IGNORECASE)
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_DATE = rf"(?:{_DAY}|the \d{{1,2}}(?:st|nd|rd|th)|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{{1,2}}\b)"
_FUTURE = re.compile(
    r"\b(?:i|we)(?:'ll| will| shall)\s+(?:(?:probably|definitely|also|just|soon|then|officially|finally)\s+)?be\b"
    r"(?!\s+(?:paying|using|reachable|available)\b)|\b(?:i'm|i am|we're|we are) (?:going to|gonna) be\b"
    r"|\b(?:tomorrow|next (?:week|weekend|month|year|semester|term|quarter|spring|summer|fall|autumn|winter|" + _DAY + r")"
    r"|later (?:this|next) (?:week|month|year)|this coming \w+|(?:the )?end of (?:this|next) (?:week|month|year)"
    r"|in (?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple(?: of)?|few|several|\d+) (?:more )?"
    r"(?:days?|weeks?|months?|years?)\b(?! ago)|(?:starting|beginning|from|as of|effective) (?:on )?" + _DATE + r")"
    r"|\b(?:start|starts|begin|begins|join|joins|move|moves|relocate|fly|flies|leave|leaves|switch|transfer|head)\b"
    r"[^,;]*?\bon " + _DATE + r"(?!s)",
    re.IGNORECASE)
"""A plan for a time to come, said in the present ("I start at Netflix in two weeks", "I fly to Tokyo tomorrow",
"I join Stripe on Monday", "I'm vegan starting next week") or as what the user will be ("I'll be on JST for two
weeks"): no state of now. A time that bounds a state of now ("on Eastern time until next week"), a purpose ("my
budget for next month") or a count in a span ("3 times in a week") says none."""
_STILL_NOW = re.compile(r"(?:\b(?:for|for the|until|till|through|by|before)|[\d$€£¥][\w.,]*|\b(?:times|once|twice|days|"
                        r"hours|nights|ago))\s+$", re.IGNORECASE)
_QUALIFIER = re.compile(r"\s*(?:(?:starting|beginning|from|as of|effective|again|only|officially|at least)\s*)*", re.IGNORECASE)
_WISH = re.compile(
    r"\b(?:i|we)(?:'d| would)\s+(?:really\s+|so\s+|much\s+)?(?:love|like|prefer|rather)\s+(?:to\s+)?(?=\w)"
    r"|\b(?:i|we)\s+(?:should|ought to|must|(?:really\s+)?(?:need|want|hope|plan|intend|aim) to)\s+"
    r"(?:(?:really|probably|definitely|seriously|finally|just|eventually|honestly|totally)\s+)?"
    r"(?=(?:work|live|move|go|be|become|get|join|start|switch|eat|relocate|settle|try|learn|speak|adopt|apply)\b"
    r"(?!\s+(?:called|addressed|contacted|reached|emailed|texted|paid|charged|billed|reminded|notified|sure|honest|clear)\b))",
    re.IGNORECASE)
"""A wish or what the user ought to do ("I'd love to work at Google", "I should go vegan"), not a
current fact; a request how to be treated ("I'd like to be called Sam", "I'd prefer email") is not one."""
_BOUNDARY = re.compile(r"\s*[,;:—–]\s*|\s+-+\s+|\s+(?:and|but|so|though|although|while)\s+", re.IGNORECASE)
_WISH_HEAD = re.compile(_BOUNDARY.pattern + r"|\s+(?:where|since|until|till|because|as|when|whenever|unless|once)\s+",
                        re.IGNORECASE)
_NEGATED = re.compile(
    r"\b(?:don't|do not|doesn't|didn't|not|never|no longer|nobody|no one|none|neither|nor|wouldn't say|isn't|aren't|"
    r"wasn't|can't|won't|hardly)\b", re.IGNORECASE)
_DENYING = re.compile(r"^(?:i wouldn't say|i would not say|i'd not say|it's not like|it isn't like|not that|i never said|"
                      r"i didn't say|i don't think)\b(?![^:]*:)", re.IGNORECASE)

_REMOVE = re.compile(r"^(?:(?:please|pls|kindly|can you|could you|would you)\s+)*(?:remove|delete|erase|forget|wipe|clear|"
                     r"take off|get rid of)\s+(?:my|the|our|all)\b", re.IGNORECASE)
REMOVE = "a request to remove what is stored, not a statement about the user (a person can retract a claim)"
PAST = "a past state, not how things are now"
PRETEND = "hypothetical, pretend or a request, not a current fact"
WISH = "a wish, a plan or what the user ought to do, not a current fact"
PLAN = "a plan for a time to come (tomorrow, next week, in two weeks, \"I'll be\"), not a current fact"
HEDGED = "a guess the user is not sure of ('maybe', 'I think', 'not sure'...), not a certain fact"

_HEDGE_WORDS = (r"(?:maybe|perhaps|probably|possibly"
                r"|i (?:think|guess|believe|suppose|reckon|assume|imagine)(?! (?:so|not|of|about)\b)"
                r"|(?:i'm |i am )?(?:not (?:100% |entirely |totally |quite )?(?:sure|certain)|unsure)|iirc"
                r"|if i (?:remember|recall) (?:right|rightly|correctly))")
_HEDGED = re.compile(
    rf"^(?:(?:so|well|um+|hmm+|honestly|ok|okay|actually|oh|and|but),?\s+)*{_HEDGE_WORDS}\b(?:,?\s+(?:that|but|if|whether))?[,\s]+\S"
    r"|\bor (?:maybe|perhaps|possibly|probably)\b"
    rf"|(?:^|[,;]|\s)\s*{_HEDGE_WORDS}(?:\s+(?:though|tbh|honestly))?\W*$"
    r"|\b(?:i|i'm|i am|i've|i have)\s+(?:probably|maybe|possibly|perhaps)\b", re.IGNORECASE)
"""A statement said as a guess: "Maybe I'm vegetarian now, not sure", "I guess I work at Alphabet",
"I think I'm allergic to shellfish", "I'm probably on Central time". "I'm sure" and "I'm pretty sure" are
said as known."""
_HEDGE_ONLY = re.compile(rf"^(?:but\s+|and\s+)?{_HEDGE_WORDS}(?:\s+(?:though|tbh|honestly|lol))?\W*$", re.IGNORECASE)


def hedged(clause: str) -> bool:
    """Whether a clause is said as a guess (see `_HEDGED`)."""
    return bool(_HEDGED.search(clause.strip()))


def with_hedges(parts: list[str]) -> list[str]:
    """Clauses with a hedge that stands alone ("I'm vegan, I think") joined to the one it
    hedges: the one before it, or after it when it comes first."""
    out: list[str] = []
    pending = ""
    for part in parts:
        if _HEDGE_ONLY.match(part.strip()):
            if out:
                out[-1] = f"{out[-1]}, {part}"
            else:
                pending = f"{pending}{part}, "
            continue
        out.append(pending + part)
        pending = ""
    return out + ([pending.strip(" ,")] if pending else [])


def framed(clause: str) -> tuple[str, str | None]:
    """(what of the clause states how things are now, why the rest does not). The statement
    before a hypothetical said after it stays ("I'm allergic to peanuts, so ask me if a dish
    has nuts"); a clause that is a hypothetical, a past state or its own denial is ("", why)."""
    if _DENYING.search(clause.strip()):
        return "", "a statement the user denies or doubts, not a fact"
    if hedged(clause):
        return "", HEDGED
    if _REMOVE.search(clause.strip()):
        return "", REMOVE
    masked = _QUOTED.sub(lambda m: '"' + "x" * (len(m.group(0)) - 2) + '"', clause)  # a title says nothing ("What If")
    if _PAST_MARK.search(masked):
        return "", PAST
    verb = _PAST_VERB.search(masked)
    if verb and not _STILL_TRUE.match(verb.group("after")):
        return "", PAST
    m, why = _PRETEND.search(masked), PRETEND
    if m is None:
        m, why = _future(masked), PLAN
    if m is None:
        m, why = _wish(masked), WISH
    if m is None:
        return clause, None
    cut = _BOUNDARY if why != WISH else _WISH_HEAD  # "I work at Google where I need to be on call": Google
    before = [b for b in cut.finditer(masked[: m.start()]) if b.start() > 0]  # the last one before it
    if why == PLAN and before and _QUALIFIER.fullmatch(masked[before[-1].end():m.start()]) \
            and len(re.findall(r"\w+", masked[m.end():])) <= 2:
        return "", why  # "I'm vegan, starting tomorrow": the time said of the statement before it (not "..., but tomorrow I")
    head = clause[: before[-1].start()].strip(" ,;:") if before else ""
    return (head, why) if len(head.split()) >= 2 else ("", why)


def _future(masked: str) -> re.Match[str] | None:
    if _BIRTHDAY.search(masked):  # "my birthday is next Friday, March 13": a date, not a plan (frames_birthday.py)
        return None
    return next((m for m in _FUTURE.finditer(masked) if not _STILL_NOW.search(masked[: m.start()])), None)


_BIRTHDAY = re.compile(r"\b(?:birthday|bday|b-day|born)\b", re.IGNORECASE)


def _wish(masked: str) -> re.Match[str] | None:
    m = _WISH.search(masked)
    # "I'd like to be called Sam", "I'd prefer email", "I'd like it under $300": how to treat the user, not a wish
    if m and re.match(r"(?:be (?:called|addressed|contacted|reached|emailed|texted)|keep|stay|spend|pay|receive"
                      r"|get (?:emails?|texts?|calls?))\b"
                      r"|(?!to\b|be\b|work|live|move|go\b|become|join|start|switch|eat|relocate|settle|learn|adopt)",
                      masked[m.end():], re.IGNORECASE):
        return None
    return m


def unreal(clause: str) -> str | None:
    """Why no part of a clause states how things are now, or None (see `framed`)."""
    head, why = framed(clause)
    return why if not head else None


_LIMIT = re.compile(r"\b(?:don't|do not|not|never|can't|cannot|won't)\s+(?:\w+\s+){0,2}?(?:over|above|more than|beyond|exceed)\b",
                    re.IGNORECASE)


def negated(clause: str) -> bool:
    """Whether a clause denies something ("I don't speak Spanish at all"): the prototype
    reading types a positive value, so such a clause is reported rather than stored. A
    limit ("don't go over 3000 dollars") is no denial."""
    return bool(_NEGATED.search(_LIMIT.sub(" ", clause)))
