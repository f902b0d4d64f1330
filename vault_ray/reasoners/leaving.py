"""Leaving an employer ("I quit Google", "I left my job at Acme", "I was laid off from Meta":
`not:<employer>`), told from giving something else up. A bare "quit" or "left" names an employer
only when what follows reads as an organisation: a capitalized name that is no place, no person
("I left Tom"), no app or social network, no habit or substance ("I quit caffeine", "I quit
Twitter", "I quit Coke"), no faith, party, church or club ("I left the Catholic Church"); or when
the clause says a job ("I quit Twitter to join Google", "I left Facebook after 5 years there").
The verbs that only say a job ("resigned from", "laid off from", "quit my job at", "quit working
at") take any organisation's name as before. A move said with the leaving ("I quit Google to
join Meta", "... for a job at Meta") names the new employer."""

from __future__ import annotations

import re

from .. import gazetteer
from .lexicon import Draft, cut, is_capitalized
from .names import person
from .orgs import COMPANIES, THE, org_name

IC = re.IGNORECASE
_JOB_VERB = (r"resigned from|was laid off from|got laid off from|got fired from|was fired from|was let go from|"
             r"got let go from|no longer work (?:at|for)|don't work (?:at|for)|(?:quit|left|stopped) working (?:at|for)|"
             r"retired from")
_LEFT = re.compile(r"\bi (?:just |finally |recently |officially )?(?:(?P<job>" + _JOB_VERB + r")|"
                   r"(?P<bare>left|quit|lost(?= my (?:job|position|role)\b)))\s+"
                   r"(?P<mine>(?:my|the|our) (?:old |current |previous |former )?(?:job|position|role|post|gig)"
                   r"(?: as (?:a|an) [\w\- ]+?)? (?:at|with|for)\s+)?(?P<v>.+)$", IC)  # "my job at Google"
_NOT_EMPLOYERS = re.compile(
    r"^(?:twitter|x|facebook|fb|instagram|insta|ig|tiktok|snapchat|snap|reddit|youtube|whatsapp|tinder|bumble|hinge|grindr|"
    r"okcupid|discord|pinterest|tumblr|threads|mastodon|bluesky|telegram|wechat|twitch|netflix|spotify|hulu|duolingo|"
    r"wordle|fortnite|linkedin|myfitnesspal|strava|peloton|crossfit|orangetheory|soulcycle|noom|candy crush|roblox|"
    r"minecraft|league of legends|world of warcraft|wow|xbox|playstation|chatgpt|meetup|nextdoor|quora|substack|"
    r"coke|diet coke|coca-cola|pepsi|diet pepsi|red bull|monster|juul|marlboro|adderall|xanax|ambien|zyn|"
    r"weight watchers|ww|keto|atkins|whole30|paleo|dry january|lent|ramadan|social media|"
    r"islam|christianity|judaism|catholicism|mormonism|scientology|buddhism|hinduism)$", IC)
"""Apps, social networks, habits and substances, faiths: what a user quits or leaves that is no employer."""
_MEMBERSHIP = re.compile(r"\b(?:church|party|cult|club|faith|religion|congregation|mosque|synagogue|temple|parish|"
                         r"scouts|fandom|subreddit|server|group chat|chat|league|choir|band|gym)$", IC)
"""A body the user belongs to rather than works for ("the Catholic Church", "the Labour Party")."""
_SAYS_JOB = re.compile(r"\b(?:to (?:go )?(?:join|work (?:at|for|with))|for a (?:new )?(?:job|role|position|offer)|job|"
                       r"jobs|role|position|career|employer|company|boss|manager|coworkers|co-workers|colleagues|"
                       r"after \w+ (?:years?|months?) (?:there|as an?|of working)|resign\w*|notice|laid off|hired)\b", IC)
_NEW = re.compile(r"\b(?:to (?:go )?(?:join|work (?:at|for|with))|for a (?:new )?(?:job|role|position) (?:at|with))\s+"
                  r"(?:the\s+)?(?:(?P<v>(?-i:[A-Z])[\w&'.\-]*(?:\s+(?-i:[A-Z&])[\w&'.\-]*){0,3})|(?P<low>(?-i:[a-z])[\w&'.\-]*)\b)",
                  IC)
"""The new employer a leaving names: a capitalized name, or a company known by one name typed in lower case ("i quit
stripe to join openai"; after "to join" even one whose name is also a word, "... to join meta")."""


_NO_LONGER = re.compile(r"\bi(?:'m| am|m) (?:(?P<gone>no longer)|not) (?:(?P<job>(?:working|employed) )?(?:at|with|for)|"
                        r"(?P<by>employed by))\s+"
                        r"(?P<v>.+?)(?P<any>\s+(?:anymore|any more|any longer))?[\s.!]*$", IC)
"""An employer the user is no longer at or with ("I'm no longer at Google", "I'm not with Google anymore", "I'm no
longer working for Meta"): said without "no longer" or "anymore", "I'm not at Google" is where the user is not now."""


def no_longer_at(n: str) -> list[Draft]:
    """`not:<employer>` for "I'm no longer at Google" / "I'm not with Google anymore": a name that reads as an
    organisation, said whole (as after a bare "left"); with "working" or "employed" any organisation's name ("I'm no
    longer working at the Hilton"). A place, a person, an app, "I'm no longer at home" name none."""
    m = _NO_LONGER.search(n)
    if not m or not (m.group("gone") or m.group("any")):
        return []
    org = org_name(m.group("v"))
    if not org or gazetteer.find_place(org) or re.match(r"(?:my|our|his|her|their|your|home|work)\b", org, IC):
        return []
    org = THE.sub("", org)
    if not (m.group("job") or m.group("by")) and not ((_RUN.fullmatch(org) or _known(org)) and _organisation(org)):
        return []
    return [Draft("user.employer", f"not:{org}")] if not person(org) else []


def left_employer(n: str) -> list[Draft]:
    """`not:<employer>` for an employer the clause says the user left, and the new one a move names; none when what
    was left is no organisation (see the module docstring)."""
    m = _LEFT.search(n)
    if not m:
        return no_longer_at(n)
    org = org_name(re.split(r"\s+and\s+", m.group("v"), maxsplit=1)[0])
    if not org or gazetteer.find_place(org) or re.match(r"(?:my|our|his|her|their|your)\b", org, IC):
        return []  # "I got fired from my band": no employer's name
    org = THE.sub("", org)
    bare = m.group("bare") and not m.group("mine")
    if bare and (moved := _FOR.fullmatch(org) or _FOR_LOW.fullmatch(org)):  # "I left Uber for Lyft": a name for a name
        old, new_org = moved.group("old"), moved.group("new")
        if not (_organisation(old) and _organisation(new_org)) or gazetteer.find_place(new_org):
            return []  # "I left London for Paris": a move, no employer
        return [Draft("user.employer", f"not:{old}"), Draft("user.employer", new_org)]
    if (m.group("mine") or "").rstrip().lower().endswith("for"):
        return []  # "I quit my job for good", "... for personal reasons": no name; "... for Meta": the new one, or the old
    if bare and not (_RUN.fullmatch(org) or _known(org)):
        return []  # "I left Google Docs open", "I left Amazon a review": no name said whole; "i quit google" is one
    if bare and not _SAYS_JOB.search(n[m.start("v"):]) and not _organisation(org):
        return []  # "I quit caffeine", "I quit Twitter, too toxic", "I left my husband", "I left the Catholic Church"
    out = [Draft("user.employer", f"not:{org}")]
    new = _NEW.search(n[m.start("v"):])
    if new and new.group("low") and new.group("low").lower() in COMPANIES and not _NOT_EMPLOYERS.match(new.group("low")):
        out.append(Draft("user.employer", new.group("low")))  # "i quit stripe to join openai": openai
    elif new and new.group("v") and not gazetteer.find_place(name := cut(new.group("v"))):
        out.append(Draft("user.employer", name))  # "I quit Google to join Meta": Meta (the `not:` is dropped)
    return out


_NAME_WORD = r"(?-i:[A-Z0-9])[\w&'.\-]*"
_RUN = re.compile(rf"{_NAME_WORD}(?:\s+(?:{_NAME_WORD}|&|of|de|du|von|van))*")
"""A name said whole after a bare "left"/"quit": capitalized words ("Goldman Sachs", "Procter & Gamble", "Bank of America")."""
_FOR = re.compile(rf"(?P<old>{_RUN.pattern})\s+for\s+(?P<new>{_RUN.pattern})")
_FOR_LOW = re.compile(r"(?P<old>(?-i:[a-z])[\w&'.\-]*)\s+for\s+(?P<new>(?-i:[a-z])[\w&'.\-]*)")
"""... or two companies known by one name typed in lower case ("i left stripe for shopify"; `_known`)."""


def _known(org: str) -> bool:
    """A company known by one name said in lower case, as chat users type ("i quit google", "i left stripe"); not one
    whose name is also an everyday word ("target", "apple"), nor an app ("netflix")."""
    return org in COMPANIES and org not in _WORDS_TOO and not _NOT_EMPLOYERS.match(org)


_WORDS_TOO = frozenset({"target", "apple", "ups", "ey", "gm", "hp", "citi", "ford", "nike", "oracle", "meta"})


def _organisation(org: str) -> bool:
    """Whether a name said after a bare "quit"/"left" reads as an organisation (a capitalized name that is no person,
    app, social network, habit, substance, faith or club)."""
    return ((is_capitalized(org) or _known(org)) and not _NOT_EMPLOYERS.match(org) and not person(org)
            and not _MEMBERSHIP.search(org) and not re.search(r"ism$", org, IC))
