"""Slot patterns for the profile entities: time zone, location, hometown, diet,
language, name, job, employer, family, pets, allergies, schedule, birthday.

A frame reads one clause (subject already normalized: "I am" -> "i'm") and returns
drafts, or nothing. Values are kept as said ("PST", "New York"); `vault_ray.values`
makes their canonical form. A negated statement yields a `not:` value."""

from __future__ import annotations

import re
from collections.abc import Callable

from .. import gazetteer
from .frames_birthday import birthday_frame
from .frames_change import SCHEDULE_MOVED, eats_again
from .frames_family import HAVE_LIST, family_frame
from .frames_names import name_frame
from .frames_school import studies
from .introductions import introduced
from .leaving import left_employer
from .lexicon import (
    AT_NAME,
    DIET_RE,
    DIETS,
    FROM_TO,
    OCCUPATIONS,
    ROUTINE_END,
    SPECIES,
    SPECIES_RE,
    Draft,
    cut,
    is_capitalized,
    number_word,
    place_value,
    split_list,
)
from .moves import REMOTE, moved_to
from .names import lower_name
from .orgs import COMPANIES, FIRM, SAID_OF_IT, THE, a_person, org_name

Frame = Callable[[str], list[Draft]]
IC = re.IGNORECASE
_LIVE = re.compile(
    r"\b(?:i|we)(?:\s+(?:still |currently |now |actually )?(?:live|reside|stay)(?: with(?: [\w']+){1,3}?)?|'m (?:now |currently |"
    r"still )?(?:living|staying|residing|settled|located|based)|'re (?:living|based)|'ve been (?:living|based|staying)|'ve lived|"
    r"'ve settled|\s+settled|\s+(?:have|had) been (?:living|based))\s+(?:in|at|near|out of|outside(?: of)?)\s+(?P<v>.+)$", IC)
_MOVED = re.compile(r"\b(?:i|we)(?: just| recently| finally| then| later| eventually|'ve|'re| have)*\s+(?:moved|relocated|"
                    r"transferred|emigrated|immigrated)(?: back| over| out)?\s+(?:to|into|here to)\s+(?:(?:a|an|our|my|the)\s+"
                    r"(?:[\w'-]+\s+){0,2}?(?:place|apartment|flat|house|home|condo|studio|loft)\s+(?:in|near)\s+)?(?P<v>.+)$", IC)
_HOME = re.compile(r"\b(?:home is(?: now)?|my (?:home|(?:home |current |new )?(?:city|town|location|place|base)) is"
                   r"(?: now)?(?: in)?|i call)\s+(?P<v>.+?)(?:\s+home)?$", IC)
_IN = re.compile(r"^i'm (?:back |now |currently |still )?(?:in|based in) (?P<v>.+)$", IC)
_NOT_LIVE = re.compile(r"\b(?:i|we) (?:don't|no longer|do not) (?:live|reside)\s+(?:in|at)\s+(?P<v>.+)$"
                       r"|\b(?:i|we)(?: just| recently| finally|'ve| have)* (?:moved|relocated)"
                       r"(?: away)? from\s+(?P<w>.+)$", IC)  # not "moved here from London" (tests/test_extraction_qa93b.py)


def location_frame(n: str) -> list[Draft]:
    neg = _NOT_LIVE.search(n)
    if neg and not re.search(r"\bto\b", n, IC):
        place = place_value(neg.group("v") or neg.group("w"), strong=True)
        return [Draft("user.location", f"not:{place}")] if place else []
    origin = FROM_TO.search(n)  # "I moved from Google to Meta": no place on either side, no move
    for pattern, strong in ((_LIVE, True), (_MOVED, True), (_HOME, True), (REMOTE, True), (_IN, False)):
        m = pattern.search(FROM_TO.sub("", n))
        if m:
            said = moved_to(m.group("v")) if pattern is _MOVED else m.group("v")  # "to Seattle from Austin", "..., then Paris"
            said = re.sub(r"^the\s+(?=[A-Z])", "", cut(said)) if strong else said  # "the Bay Area"
            said = re.split(r"\s+(?:for|because|since|with|so)\s+(?-i:[a-z])", said, maxsplit=1)[0] if strong else said
            if origin and not gazetteer.find_place(cut(said)) and not gazetteer.find_place(origin.group(0)[5:].strip()):
                return []
            place = place_value(said, strong=strong and is_capitalized(said) or not strong)
            if place:
                return [Draft("user.location", place)]
    return []


_FROM = re.compile(r"\b(?:i'm (?:originally )?from|i'm an? [a-z\- ]+? (?:originally )?from(?=\s+(?-i:[A-Z]))|i (?:grew up|"
                   r"was born(?: and raised)?|was raised) in|i come from|my hometown is)\s+(?P<v>.+)$", IC)


def hometown_frame(n: str) -> list[Draft]:
    m = _FROM.search(n)
    if m and not re.search(r"\bborn on\b", n, IC):
        place = place_value(m.group("v"), strong=True)
        if place:
            return [Draft("user.hometown", place)]
    return []


_DIET_IS = re.compile(
    rf"\b(?:i'm|i've been|i have been|i've gone|i went|i became|i turned|i switched to|i converted to|i'm going|"
    rf"i'm now|i (?:only |mostly |strictly |just )?eat|i follow|i keep|i'm on|i do|i try to eat|i stick to|my diet is|"
    rf"i started eating|i'm eating|"
    rf"i stay|i live)\s+(?:(?:a|an|now|strictly|fully|mostly|completely|pretty much|100%|totally|entirely|mainly|"
    rf"basically|also|still|back)\s+)*(?P<v>{DIET_RE})\b(?![\s-]friendly\b)", IC)  # "vegan-friendly": no diet
_DIET_WE = re.compile(  # "We're vegetarian", "My wife and I are vegan" (we are), "My sister and I are vegan" (I are)
    rf"^(?:we're|we are|i are|we've been|we have been|we (?:went|became|turned))\s+(?:(?:both|all|now|strictly|fully|"
    rf"mostly|completely|totally|also|still)\s+)*(?P<v>{DIET_RE})(?=\s*(?:$|[,;.!]|(?:and|but|so|now|too|as well|these days)\b))",
    IC)
"""The user's diet said with someone else's: "we" includes the user. Only the diet alone, so no "we're vegetarian-friendly",
"we're a vegan bakery" or "vegetarian restaurant owners"."""
_DIET_NOT = re.compile(
    rf"\b(?:i'm not|i am not|i'm no longer|i no longer|i stopped being|i quit being|i gave up being|i'm done being|"
    rf"i stopped eating|i'm not eating|i don't eat|i no longer eat|i'm not following|i stopped following)\s+"
    rf"(?:(?:a|an|strictly|fully|really)\s+)*(?P<v>{DIET_RE})\b", IC)
_MEAT_FREE = re.compile(r"\bi (?:don't|never|no longer|stopped|quit|gave up|cut out)(?: eat(?:ing)?| touch)? (?:any |all )?"
                        r"(?P<v>meat|animal products)\b", IC)
_MEAT = re.compile(r"\bi(?:'m| am)? (?:eat(?:ing)?|started eating|eat(?:ing)? meat again|went back to eating) "
                   r"(?:(?:meat|everything|anything)\b|.*\bmeat\b)", IC)


def diet_frame(n: str) -> list[Draft]:
    if ended := eats_again(n):  # "I started eating fish again": not vegan, not vegetarian
        return ended
    if m := _DIET_NOT.search(n):
        return [Draft("user.diet", f"not:{DIETS[m.group('v').lower()]}")]
    m = _DIET_IS.search(n) or _DIET_WE.match(n)
    if m:
        return [Draft("user.diet", DIETS[m.group("v").lower()])]
    if re.search(r"\bi (?:only )?eat (?:fish|seafood)(?:,)?(?: but| and)? (?:no|not|never) meat\b"
                 r"|\bi don't eat meat(?:,)? but (?:i )?(?:do )?eat (?:fish|seafood)\b", n, IC):
        return [Draft("user.diet", "pescatarian")]
    if m := _MEAT_FREE.search(n):
        return [Draft("user.diet", "vegan" if "animal" in m.group("v").lower() else "vegetarian")]
    if _MEAT.search(n) and not re.search(r"\b(?:no|don't|never|not)\b", n, IC):
        return [Draft("user.diet", "omnivore")]
    return []


_SPEAK = re.compile(
    r"\b(?:i (?:(?:also|can|mostly|mainly|still|only) )*speak|i'm (?:fluent|native|conversational|bilingual|proficient) in|"
    r"i'm a native speaker of|my (?:native|first|mother|primary|second|main|home) (?:language|tongue) is|i grew up speaking)"
    r"(?:\s+(?:only|just|mostly|mainly|fluent|fluently))?\s+(?P<v>.+)$", IC)
_SPEAK_NOT = re.compile(r"\bi (?:don't|can't|no longer|cannot) speak\s+(?P<v>.+)$", IC)
_LANG_FIRST = re.compile(r"^(?P<v>[A-Za-z]+(?: and [A-Za-z]+)?) (?:is|are) my (?:native|first|mother|second|main) "
                         r"(?:language|tongue)s?", IC)
_TURN = re.compile(r"(?:,\s*|\s+)(?:but\s+)?(?:only|just|i (?:only |just )?speak)\s+", IC)
_ONLY = re.compile(r"^(?:only|just)\s+|\s+only$", IC)
_NATIVE = re.compile(r"\bi'm a native (?P<v>[A-Za-z]+) speaker", IC)


def language_frame(n: str) -> list[Draft]:
    for pattern, stance in ((_SPEAK_NOT, "not:"), (_SPEAK, ""), (_LANG_FIRST, ""), (_NATIVE, "")):
        m = pattern.search(n)
        if m:
            said = m.group("v").rsplit(":", 1)[-1]  # "three languages: English, French and German"
            # "I don't speak French, only English": what follows "only" / "just" is spoken
            turn = _TURN.search(said) if stance else None
            parts = [(said[:turn.start()], stance), (said[turn.end():], "")] if turn else [(said, stance)]
            out = []
            for text, said_as in parts:
                for part in split_list(cut(text) if said_as or pattern is not _LANG_FIRST else text):
                    lang = _ONLY.sub("", cut(part))
                    if gazetteer.find_language(lang):
                        out.append(Draft("user.language", f"{said_as}{lang}"))
            return out
    return []


_JOB = re.compile(r"\b(?:i (?:work|am working|'m working|now work)(?: part[- ]time| full[- ]time)? as|my (?:job|role|position|"
                  r"title|occupation|profession|job title) is(?: now)?|i (?:(?:just|recently|finally|officially|now)\s+)?"
                  r"(?:became|(?:got|was|'ve been|have been)(?: just| recently| finally| officially)? promoted to|got a job as|"
                  r"started as|now work as|retrained as|trained as)|i'm(?: (?:now|currently|actually|still))?(?: working as)?|"
                  r"i've been|i have been|by (?:profession|trade),? i'm)\s+(?:(?:a|an|the)\s+)?(?P<v>[\w\- ]+?)"
                  r"(?:\s+(?P<sep>at|for|with|in|by|of|(?:based|living|located) in|from)\s+(?P<org>.+))?$", IC)
_FIELDS = (r"engineering|sales|marketing|operations|ops|products?|finance|hr|human resources|people|talent|design|research|"
           r"it|technology|communications|security|data|data science|analytics|growth|strategy|legal|compliance|"
           r"customer (?:success|service|support|experience)|support|education|nursing|medicine|surgery|history|english|"
           r"math|mathematics|physics|chemistry|biology|economics|philosophy|music|art|science|computer science|psychology|"
           r"business development|partnerships|development|infrastructure|platform|procurement|logistics|admissions|"
           r"programs|content|events|facilities|quality|manufacturing|innovation|software|hardware|ai")
_OF_FIELD = re.compile(rf"^(?P<f>(?:{_FIELDS})(?:\s*(?:,|and|&)\s*(?:{_FIELDS}))*)\b(?:\s+(?:at|for|with)\s+(?P<rest>.+))?", IC)
"""A department or field after a title ("VP of Engineering at Stripe", "professor of History"): part of the job, no employer."""
_RETIRED = re.compile(r"\bi (?:(?:just|recently|finally|officially|already|have|'ve|fully)\s+)*retired\b"
                      r"(?!\s+(?:the|my|our|a|an|his|her|it|them|this|that|those|these)\b)", IC)
"""Retiring, said as done ("I retired last June", "I just retired"; not "I retired my old laptop"): the job is "retired",
as "I'm retired" says."""
_JOB_NOT = re.compile(r"\bi'm (?:no longer|not) (?:a|an|the) (?P<v>[\w\- ]+?)(?:\s+(?:anymore|any more|any longer))?$"
                      r"|\bi (?:quit|left|stopped) (?:being|working as) (?:a|an|the) (?P<w>[\w\- ]+?)$", IC)


_WORK_STATUS = {"retired", "unemployed", "self-employed", "self employed", "between jobs", "out of work", "a stay-at-home mom",
                "stay-at-home mom", "stay-at-home dad", "stay-at-home parent", "a homemaker", "homemaker", "semi-retired"}
"""What the user does for a living when it is no occupation ("I'm retired": no marital status)."""
_STAY_HOME = re.compile(r"\bstay[- ]at[- ]home\b(?=[- ](?:mom|mum|dad|parent|mother|father|wife|husband|spouse)s?\b)", IC)


_SOMEONE_ELSES_JOB = re.compile(r"^(?:married|engaged|dating|seeing|related|friends|going out|living|partnered|divorced|"
                                r"separated|widowed|raised|mentored|supervised)\b|\s(?:to|with|a|an|the|my|our)\s", IC)
"""A job said after a relation to someone ("married to a nurse", "dating a doctor"): the other person's."""


def job_frame(n: str) -> list[Draft]:
    n = _STAY_HOME.sub("stay-at-home", n)  # "a stay at home dad": one word, no employer "home dad"
    m = _JOB_NOT.search(n)
    if m:
        job = cut(m.group("v") or m.group("w"))
        return [Draft("user.job", f"not:{job}")] if OCCUPATIONS.search(job) else []
    m = _JOB.search(n)
    if not m:
        return [Draft("user.job", "retired")] if _RETIRED.search(n) else []
    job, said = re.sub(r"^\d{1,3}[- ]y(?:ea)?rs?[- ]old\s+", "", cut(m.group("v")), flags=IC), m.group("org") or ""
    if _SOMEONE_ELSES_JOB.search(job):  # "I'm married to a nurse", "I'm engaged to Tom Baker": the other's job or name
        return []
    if not job or not (OCCUPATIONS.search(job) or job.lower() in _WORK_STATUS) or job.lower() in DIETS or \
            job in (introduced(n) or ""):
        return []
    if (m.group("sep") or "").lower() == "of" and (field := _OF_FIELD.match(said)):  # "VP of Engineering at Stripe"
        job, said = f"{job} of {cut(field.group('f'))}", field.group("rest") or ""
    out = [Draft("user.job", job)]  # "a nurse in Toronto", "at Microsoft in Redmond": where it is, not the employer
    firm = FIRM.match(said)  # "a lawyer at Morgan, Lewis & Bockius": one firm
    where = r"[,;(]|\s+(?:in|near|outside)\s+" + ("" if said.islower() else "(?=[A-Z])")  # "at starbucks in seattle"
    org = firm.group(0) if firm else cut(re.split(where, said, maxsplit=1)[0])
    named = any(is_capitalized(w) for w in org.split()) and not a_person(org)  # "for 20 years", "for Sarah": no employer
    sep = (m.group("sep") or "").lower()
    named = named or org.lower() in COMPANIES or (sep == "at" and lower_name(org))  # "at kaiser"
    if org and named and not studies(job) and not sep.endswith(("in", "from")) and not gazetteer.find_place(org) and \
            not re.match(r"(?:home|night|the moment|a |an |the )", org, IC):  # "a student in Paris for the semester"
        out.append(Draft("user.employer", org))
    return out


_JOB_IS = r"(?:my (?:new |current |day |main |full[- ]time )?job is(?: now)?|(?:love|like|hate|enjoy) my job) (?:at|with)"
"""Where the user's job is: "my new job is at amazon" (an employer, no time of a routine), "I love my job at Google"."""
_WORK_AT = re.compile(
    r"\b(?:(?:i|and) (?:still |now |currently |actually )?work|i'm (?:now |currently )?(?:working|employed|interning)"
    r"|i've been working|i'm with|i'm employed|i(?:'ve| have) (?:worked|been)(?=\s+(?:at|for|with)\s+(?-i:[A-Z])[^,;]*?\s"
    r"(?:for\s+(?:\w+\s+){0,3}(?:years?|months?|decades?)|since\s+(?:\w+\s+)?\d{4})\b))"
    r"(?:\s+(?:remotely|from home|full[- ]time|part[- ]time|freelance|hybrid|in person|on[- ]site|as a contractor))?"
    r"\s+(?:at|for|with|by)\s+(?P<v>.+)$"
    r"|\b(?:(?:i|and|i've|i have) (?:just |recently |finally |then |now |also )?(?:joined|started at|started with|"
    r"started working at|started working for|(?:got|started|landed) a (?:new )?job (?:at|with)|got hired (?:at|by)|was hired by|"
    r"accepted an offer from|accepted a job at|signed with)|my (?:employer|company|workplace) is(?: now)?|i'm now at|i'm joining|"
    r"(?:moved|relocated|came)\b[^,;]*?\sfor a new (?:job|role) (?:at|with)|" + _JOB_IS + r")\s+(?P<w>.+)$", IC)



def employer_frame(n: str) -> list[Draft]:
    left = left_employer(n)  # "I left Amazon": not:Amazon; "I quit caffeine": no employer
    m = _WORK_AT.search(n)
    if not m:
        return left
    org = org_name(m.group("v") or m.group("w"))  # "at Amazon", "for Orange": a place said with work is a company
    if not org or (m.group("w") and gazetteer.find_place(org)) or re.search(r"\btime\b", org, IC) or (  # "joined a gym"
            re.search(r"\bjoined\s+an?\s", m.group(0), IC) and not any(map(is_capitalized, org.split()[1:]))):
        return []
    if a_person(org, colleague=bool(re.search(r"\bwith\s*$", n[:m.start("v" if m.group("v") else "w")], IC))):
        return []  # "I work for Sarah", "I work for my dad", "I work with Sarah Jones": a person, no employer
    if re.search(r"\bwith\s*$", n[: m.start("v")] if m.group("v") else "", IC) and org.islower() and org not in COMPANIES:
        return []  # "I work with kids", "i work with my hands": whom or what the user works with
    if m.group("w") and re.search(r"\bis(?: now)?\s*$", n[: m.start("w")]) and SAID_OF_IT.match(org):
        return []  # "my company is great", "my company is hiring": said of the company, not its name
    if m.group("w") and re.search(r"\bi'm now at\s+$", n[: m.start("w")], IC) and (
            THE.match(org) or (org.islower() and org.lower() not in COMPANIES)):
        return []  # "Now at the Hilton", "im now at the gym": a stay at a venue as much as a job (`frames_at`)
    out = [Draft("user.employer", THE.sub("", org))]  # "I work at the Hilton": Hilton
    role = re.search(r"\bas (?:a |an |the )?(?P<v>[\w\- ]+)$", m.group(0), IC)
    if role and OCCUPATIONS.search(cut(role.group("v"))):
        out.append(Draft("user.job", cut(role.group("v"))))
    return out


_PET_COUNT = r"a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+"
_PET_HAVE = re.compile(rf"\b(?:i|we)(?: also| still)?(?P<verb>'ve got|'ve| have got| have| own| got| adopted| rescued| just got"
                       rf"| just adopted"
                       rf"| bought| brought home)\s+(?P<n>(?:(?:{_PET_COUNT}|some|new|little|pet|rescue|another|baby)\s+)*)"
                       rf"(?P<v>{SPECIES_RE})\b(?:,?\s+(?:called|named)\s+(?P<name>(?-i:[A-Z])[\w'-]+))?", IC)
_PET_ITEM = re.compile(rf"^(?:(?P<n>{_PET_COUNT})\s+)?(?:(?:new|little|pet|rescue|baby|young|old)\s+)*(?P<v>{SPECIES_RE})"
                       rf"(?:,?\s+(?:called|named)\s+(?P<name>(?-i:[A-Z])[\w'-]+))?$", IC)
_PET_MY = re.compile(rf"^(?:one of )?(?:my|our) (?:other |second |third |older |younger |new )?"
                     rf"(?P<v>{SPECIES_RE})(?:'s name)? (?:is|was) (?:called |named )?(?P<name>(?-i:[A-Z])[\w'-]+)", IC)
_PET_KIND = r"(?:old|little|sweet|beloved|poor|first|other|family|senior|rescue|baby|elderly|dear|precious)"
_PET_NAME = r"(?-i:[A-Z])[\w'-]*"
_PET_GONE = re.compile(rf"\b(?:i|we)(?: (?:do(?:n't| not)|no longer) (?:have|own) (?:an?|any)?|"
                       rf"(?: have| own|'ve got) (?:no|zero))\s*(?P<v>{SPECIES_RE}\b|pets?(?=(?: anymore| now| at all)?\W*$))"
                       rf"|(?:\b(?P<named>{_PET_NAME}), (?=(?:my|our) (?:{_PET_KIND}\s+)*(?:{SPECIES_RE}), ))?"
                       rf"\b(?:my|our) (?:{_PET_KIND}\s+)*(?P<w>{SPECIES_RE})(?:,? (?P<called>{_PET_NAME}),?)?"
                       rf",?(?: (?:just|sadly|finally|suddenly|peacefully))? (?:died|passed away|passed|ran away"
                       rf"|(?:was|got|had to be) (?:put down|put to sleep|euthanized))\b"
                       rf"|\b(?:i|we) (?:just |sadly |finally )?(?:had to )?(?:g[ia]ve away|rehomed?|lost|put down|euthanized"
                       rf"|said goodbye to) (?:my|our) (?:{_PET_KIND}\s+)*(?P<x>{SPECIES_RE})\b(?!')"
                       rf"(?:,? (?P<called2>{_PET_NAME}))?"
                       rf"|\b(?:i|we) (?:just |sadly |finally )?(?:had to )?put (?:my|our) (?:{_PET_KIND}\s+)*(?P<y>{SPECIES_RE})"
                       rf"(?:,? (?P<called3>{_PET_NAME}),?)? (?:down|to sleep)\b", IC)
"""A pet the user no longer has: "I don't have a dog", "Our dog Rex passed away", "Biscuit, our golden retriever,
died", "We had to put our dog down", "We lost our cat Luna" (a name said retracts that pet only)."""


def pets_frame(n: str) -> list[Draft]:
    if m := _PET_GONE.search(n):
        called = m.group("called") or m.group("named") or m.group("called2") or m.group("called3")
        kind = m.group("v") or m.group("w") or m.group("x") or m.group("y")
        return [Draft("user.pets", f"not:{SPECIES.get(kind.lower(), 'pet')}"
                      + (f":{called}" if called else ""))]  # "our dog Rex died": Rex only
    if re.search(r"\ballerg", n, IC):
        return []
    m = _PET_HAVE.search(n)
    if m:  # "I have 2 cats and a dog": each species, with its count when more than one
        counts = [w for w in m.group("n").split() if number_word(w)]
        owned = m.group("verb").strip().lower() in ("have", "'ve got", "'ve", "own", "have got")  # not "adopted two"
        first = _pet(counts[0] if counts and owned else None, m.group("v"), m.group("name"))
        tail = re.match(r"\s*(?:,\s*(?:and\s+)?|\s(?:and|as well as|plus)\s+)(?P<rest>.+)$", n[m.end():], IC)
        items = [_PET_ITEM.match(x) for x in split_list(tail.group("rest"))] if tail else []
        return [first, *(_pet(x.group("n"), x.group("v"), x.group("name")) for x in items if x)]
    have = HAVE_LIST.search(n)  # "I have two kids and a dog": the dog
    if pets := [_pet(x["n"], x["v"], x["name"]) for x in map(_PET_ITEM.match, split_list(have["list"]) if have else []) if x]:
        return pets
    m = _PET_MY.search(n)
    return [_pet(None, m.group("v"), m.group("name"))] if m else []


def _pet(count: str | None, species: str, called: str | None = None) -> Draft:
    """'2', 'cats' -> '2 cats' (a count of one is the bare species); named: 'dog', 'Rex' -> 'dog:Rex' (as 'wife:Sarah')."""
    n = number_word(count) if count else None
    name = SPECIES[species.lower()]
    plural = name if name.endswith("fish") else name + ("es" if name.endswith(("s", "sh", "ch", "x")) else "s")
    if n and n > 1:
        return Draft("user.pets", f"{n} {plural}")
    return Draft("user.pets", f"{name}:{called}" if called else name)


_ALLERGIC = re.compile(r"(?:\bi'm|^(?:we're|we are|i are)(?: both| all)?) "  # "My wife and I are allergic to ...": we
                       r"(?:severely |very |mildly |deathly |quite |also |highly )?allergic to\b:?\s*(?P<v>.+)$"
                       r"|^my (?:food )?allergies(?: are| include|:)\s*(?P<u>.+)$"
                       r"|\bi have (?:an? )?(?:(?:severe|mild|serious|bad)\s+)?allerg(?:y|ies) to (?P<y>.+)$"
                       r"|\bi have (?:an? )?(?:(?:severe|mild|serious|bad) )?(?!(?:no|any)\b)(?P<w>[\w\- ]+?) allerg(?:y|ies)\b"
                       r"|^(?P<x>(?!(?:my|the|this|that|it|work|people|everything|he|she|they)\b)[a-z\-]+(?: [a-z\-]+)?) "
                       r"(?:gives?|makes?) me (?:a reaction|hives|an allergic reaction|sick|ill)|\bi'm (?P<z>\w+) intolerant\b"
                       r"|\bi have (?:an? )?(?P<t>\w+) intolerance\b"
                       r"|\bi can't (?:eat|digest) (?!before|after|late|much|anything)(?P<s>.+)$"
                       r"|\bi(?:'m| am| have)(?: an?)? (?P<c>co?eliac)(?: disease)?\b", IC)  # celiac: no gluten
_NOT_ALLERGIC = re.compile(r"\bi'm (?:not|no longer) allergic to (?P<v>.+)$|\bi outgrew my (?P<w>[\w\- ]+?) allergy", IC)


_NO_ALLERGEN = frozenset(("anything", "nothing", "everything", "it", "them", "that", "this", "those", "these"))
"""Said after "allergic to" of no allergen: none, all, or one said elsewhere ("please no shellfish, I'm allergic to it")."""
_BUT_ONLY = re.compile(r",?\s+(?:just|only|but(?: i am| i'm)?(?: allergic to)?|except)\s+", IC)


def allergies_frame(n: str) -> list[Draft]:
    m = _NOT_ALLERGIC.search(n)
    if m and not re.search(r"\ballergic to (?:anything|nothing)\b", n, IC):
        # "not allergic to nuts, just shellfish": what follows "just" / "only" / "but" is an allergy
        said, *only = _BUT_ONLY.split(m.group("v") or m.group("w"), maxsplit=1)
        said = re.split(r",\s*(?:that|it|which|this)\b", said, maxsplit=1, flags=IC)[0]  # "..., that was my brother"
        return [Draft("user.allergies", f"not:{cut(x)}") for x in split_list(cut(said))] + \
            [Draft("user.allergies", cut(x)) for x in split_list(cut(only[0] if only else "")) if cut(x)]
    m = _ALLERGIC.search(n)
    if m and m.group("c"):
        return [Draft("user.allergies", "gluten")]
    if m:
        raw = cut(m.group("z").lower() if m.group("z") else next(g for g in m.groups() if g))  # "I'm Lactose intolerant" too
        items = [cut(x) for x in split_list(raw) if cut(x)]
        return [Draft("user.allergies", x) for x in items if x.lower() not in _NO_ALLERGEN]
    return []


_WHEN = (r"(?P<when>(?:on|at(?! least| most| max)|every|each|in the|before|after|around(?=\s+(?:\d|noon|midnight|half|quarter|"
         r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b)))\s+.+)$")
"""When a routine happens ("at 7am", "every Monday"; not "at least 5000 dollars")."""
_SCHEDULE = re.compile(r"\bi (?:(?:usually|always|normally|often|also) )?(?:go to|go|do|have|attend|take|hit|play)\s+"
                       r"(?:the |my |a )?(?P<thing>[a-z ]+?)\s+" + _WHEN, IC)
_SCHEDULE_MY = re.compile(r"^my (?:weekly |daily |regular |usual )?(?P<thing>[a-z ]+?) (?:is|are|happens|happen|takes place) "
                          r"(?:usually |always |now )?(?P<when>(?:on|at(?! least| most| max)|every|each|in the)\s+.+)$", IC)
_SCHEDULE_FIRST = re.compile(r"^(?P<when>(?:every|each|on) [\w ]+?),? i (?:usually |always )?(?:have|go to|do|attend|play)\s+"
                             r"(?:a |the |my )?(?P<thing>[a-z ]+)$", IC)
_SCHEDULE_DO = re.compile(r"\bi (?:usually |always |normally )?(?P<thing>work out|exercise|run|swim|train|meditate|jog|cycle|"
                          r"wake up|get up|go to sleep|start work|finish work|leave work|get off work)\s+" + _WHEN, IC)
_NOT_THINGS = re.compile(r"time|call|birthday|(?:\w+_)?(?:been|had|got|gone|done|lived|worked|seen|made|named|called)")
"""Not a routine's subject: "I have been at", "I have a dog named after my dad"."""
_TIMEISH = re.compile(r"\d|\b(?:noon|midnight|nights?|mornings?|afternoons?|evenings?|dawn|dusk|sunrise|sunset|lunch\w*|"
                      r"dinner\w*|breakfast|bedtime|weekends?|weekdays?|week|day|daily|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
                      r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|half|quarter|o'?clock)\b", IC)
"""A routine's "at ..." says a time ("at 7", "at noon", "at the Y on Mondays"); "the university of texas at austin" none."""


def schedule_frame(n: str) -> list[Draft]:
    for pattern in (SCHEDULE_MOVED, _SCHEDULE_MY, _SCHEDULE_DO, _SCHEDULE, _SCHEDULE_FIRST):
        m = pattern.search(n)
        if m:
            thing = re.sub(r"\s+(?:session|sessions|class|classes|time|appointment)$", "", m.group("thing").lower().strip())
            thing = re.sub(r"[^a-z0-9]+", "_", thing).strip("_")
            thing = {"work_out": "workout", "exercise": "workout", "train": "workout", "get_up": "wake_up"}.get(thing, thing)
            when = " ".join(ROUTINE_END.sub("", m.group("when")).lower().split()).strip(" .,")  # not "..., but tomorrow"
            if pattern is SCHEDULE_MOVED and not re.match(r"(?:at|around|on)\b", when):  # "... to 7pm": at 7pm
                when = f"at {when}" if re.match(r"\d|noon|midnight", when) else f"on {when}"
            if AT_NAME.match(m.group("when")) or (re.match(_JOB_IS, n, IC) and not re.search(r"\d", when)) \
                    or (when.startswith("at ") and (when[3:].strip(" .!") in COMPANIES or not _TIMEISH.search(when))):
                continue  # "My job is at Apple", "my job is at deloitte", "an interview at google": a place, no time
            if thing and when and len(thing) <= 30 and not _NOT_THINGS.fullmatch(thing):
                return [Draft(f"user.schedule.{thing}", when, kind="procedural")]
    return []


PROFILE_FRAMES: tuple[Frame, ...] = (
    allergies_frame, diet_frame, language_frame, name_frame, birthday_frame, family_frame, pets_frame,
    hometown_frame, job_frame, employer_frame, schedule_frame, location_frame,
)
