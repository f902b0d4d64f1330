"""An employer's name as said after "I work at" ("at Amazon, in Seattle": Amazon). A part of
the employer said with it is its place, not its name ("Marks & Spencer's head office": Marks &
Spencer); a firm named for its partners is one name ("Morgan, Lewis & Bockius")."""

from __future__ import annotations

import re

from .lexicon import cut
from .names import first_name, person

IC = re.IGNORECASE
_NOT_EMPLOYERS = re.compile(r"^(?:\d+(?:[:.]\d\d)?\s*(?:am|pm)?(?![\w-])|home|night|nights|weekends?|the moment|remote(?:ly)?|"
                            r"part[- ]time|full[- ]time|a (?:desk|computer)|myself|my own|it|this|that|them|him|her|"
                            r"in|at|on|near|based|located|headquartered|from|"  # "my company is in London": a place
                            r"is|are|was|were|has|had|pays|sucks)\b(?!&)", IC)  # "the company I work for is great"


COMPANIES = frozenset((
    "google", "alphabet", "youtube", "meta", "facebook", "instagram", "whatsapp", "amazon", "aws", "apple", "microsoft",
    "netflix", "ibm", "intel", "oracle", "salesforce", "adobe", "nvidia", "amd", "cisco", "dell", "hp", "samsung", "sony",
    "tesla", "spacex", "uber", "lyft", "airbnb", "twitter", "linkedin", "spotify", "stripe", "shopify", "paypal",
    "openai", "anthropic", "deepmind", "walmart", "target", "costco", "starbucks", "mcdonald's", "disney", "nike",
    "boeing", "ford", "gm", "toyota", "deloitte", "accenture", "pwc", "kpmg", "ey", "mckinsey", "goldman sachs",
    "jpmorgan", "morgan stanley", "citi", "citibank", "verizon", "comcast", "pfizer", "kaiser", "fedex", "ups", "usps",
))
"""Employers well known by one name: one joined to another by "&", "/" or "+" ("Google & Meta", "Acme/Google") is two
(`caveats`); said in lower case after "quit" or "left" ("i quit google"), still a company (`leaving`)."""

THE = re.compile(r"^the\s+(?=(?-i:[A-Z]))", IC)
"""The article before a name ("the Hilton"): no part of the employer's name."""
_WORD = r"(?-i:[A-Z])[\w'.-]*(?:\s+(?-i:[A-Z])[\w'.-]*)?"
FIRM = re.compile(rf"{_WORD}(?:,\s*{_WORD})+,?\s*&\s*{_WORD}")
"""A firm named for its partners, commas and a last "&" ("Morgan, Lewis & Bockius", "Skadden, Arps, Slate, Meagher & Flom")."""
_PART_OF = re.compile(r"^(?P<org>.+?)'s\s+(?:[\w-]+\s+){0,2}?(?:head office|main office|offices?|headquarters|hq|branch(?:es)?|"
                      r"stores?|shop|plant|factory|warehouse|campus|team|department|dept|division|unit|labs?|site|outlet|"
                      r"facility|hub|studio|subsidiary|call cent(?:er|re)|data cent(?:er|re)|distribution cent(?:er|re))\b", IC)

_OWNED = re.compile(r"^(?:st\.?|saint)\s+\S+$|(?:^|\s)(?:McDonald|Wendy|Macy|Trader Joe|Sainsbury|Lowe|Dillard|Moody|Jerry|Kohl|"
                    r"Denny|Arby|Hardee|Domino|Papa John|Applebee|Chili|Friendly|Claire|Kellogg|Sotheby|Christie|Lloyd|"
                    r"Nando|Zaxby|Culver|Cane|Jimmy John|Church|Carter|BJ|Sam|Dunkin|Mrs\. Fields|Auntie Anne|Carl|Rudy|"
                    r"Levi|Hershey|Campbell|Smucker|Dick|Fuddrucker|Bojangle|Wetzel|Famous Dave|"
                    r"Lowe|Marshall|Wegman|Raley|Schnuck|Dierberg|Fry|Smith|Casey|Love|Buc-ee)$", re.IGNORECASE)
"""A name the "'s" is part of ("McDonald's headquarters", "Ben & Jerry's factory", "St. Mary's campus"): kept with it."""


SAID_OF_IT = re.compile(r"^(?:great|good|bad|awesome|amazing|nice|fine|ok|okay|terrible|awful|horrible|cool|fun|small|big|"
                         r"large|huge|tiny|remote|new|old|private|public|toxic|stressful|busy|boring|pretty|really|very|so|too|"
                         r"quite|kind of|sort of|not|super|the best|the worst|better|worse|profitable|global|international|"
                         r"local|family[- ]owned|owned|run|closing|expanding|hiring|growing|struggling|doing|going)\b")
"""What is said of a company in lower case ("my company is great", "my company is hiring"): no name of it."""


def org_name(raw: str) -> str | None:
    firm = FIRM.match(cut(raw))
    if firm:  # "Morgan, Lewis & Bockius": one name with its commas (`caveats` tells a list of known companies)
        return firm.group(0)
    org = re.split(r"\s*[,;]|\s+(?:as|in|on|where|doing|since|after|full[- ]time|part[- ]time|to(?= (?-i:[a-z])))\b",
                   cut(raw), maxsplit=1, flags=IC)[0]
    org = re.sub(r"^(?:an? (?:[\w-]+ ){0,2}?(?:company|startup|firm|business|agency|studio|shop|organi[sz]ation|"
                 r"non-?profit) (?:called|named)|the company)\s+", "", org, flags=IC).strip()  # "a small company called Nimbus"
    part = _PART_OF.match(org)  # "Marks & Spencer's head office", "Google's London office": the company
    if part and part.group("org")[:1].isupper():  # "my dad's shop", "the city's water department": said whole
        org = part.group("org") + ("'s" if _OWNED.search(part.group("org")) else "")
    # "I quit being vegan", "I left smoking": an activity, not a company
    if not org or _NOT_EMPLOYERS.match(org) or len(org.split()) > 5 or re.match(r"[a-z]+ing\b", org):
        return None
    if re.fullmatch(r"(?:a|an|the|some|my)\s+(?:\w+\s+)?(?:company|companies|startup|firm|business|place|organi[sz]ation|"
                    r"employer|job|corporation|client|agency)", org, IC):
        return None  # "a company in Berlin", "a small startup": no name said ("a bakery" is one)
    return org


_BOUGHT = re.compile(r"\b(?:pay|pays|paid|paying|spend|spends|spent|spending|costs?|charged?|subscri\w+|sign(?:ed)? up|"
                     r"buy|buys|bought|renew\w*)\b", IC)
_PRICE = re.compile(r"(?:[$€£¥]\s*\d|\d\s*(?:dollars|bucks|euros|pounds)\b).*\bfor\s*$", IC)
_WORKING = re.compile(r"\b(?:work|works|working|worked|employed|job|contract|contracting|freelancing|consulting)\s+\w+\s*$", IC)


def bought(before: str) -> bool:
    """Whether a name said after `before` is something the user pays for ("I pay $60 a month for Netflix", "I spend
    $20 at Starbucks", "$15 a month for Spotify"): a purchase, no employer ("I make $90k a year working for Netflix" is one)."""
    return not _WORKING.search(before) and bool(_BOUGHT.search(before) or _PRICE.search(before))


_PEOPLE = (r"(?:mom|mum|mother|dad|father|parents|brother|sister|son|daughter)(?:-in-law)?|cousin|aunt|uncle|"
           r"grand(?:ma|pa|mother|father|parents)|in-laws|family|wife|husband|spouse|partner|boyfriend|girlfriend|fianc[eé]e?|friends?|buddy|neighbou?r|"
           r"ex|relatives?|step(?:dad|mom|mum|father|mother)|godfather|godmother|mentor|boss|manager")
_KIN = re.compile(rf"^(?:(?:my|our|a|an)\s+(?:(?:own|old|best|close|former|younger|older|little|big|late|good|family)\s+)*)?"
                  rf"(?:{_PEOPLE})$", IC)
_TITLE = re.compile(r"^(?:dr|mr|mrs|ms|miss|mx|prof|professor|sir|dame|judge|rev|reverend)\.?\s+(?-i:[A-Z])", IC)


def a_person(org: str, *, colleague: bool = False) -> bool:
    """Whether an employer as said is a person: a relative or a friend ("my dad", "a family friend"; "my dad's
    company" is a workplace), someone with a title ("Dr. Smith"), a single common first name ("Sarah"; "Sarah's"
    names a shop); said after "with" (`colleague`), a first name and a surname too ("I work with Sarah Jones")."""
    if _KIN.match(org.strip()) or _TITLE.match(org.strip()):
        return True
    if len(org.split()) == 1 and "'" not in org and first_name(org):
        return True
    return colleague and person(org) and org[:1].isupper()
