"""Shared pieces of the slot patterns: what a value looks like, where it ends, how a
negation or a change reads. The world's names (zones, places, languages,
currencies) are not here but in `vault_ray.gazetteer`; these are the closed word
classes of the domain that no library ships (diets, pet species, contact channels,
payment instruments, occupation heads)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import gazetteer, values


@dataclass(frozen=True)
class Draft:
    """One value a frame read from a clause; `text` overrides the clause rewrite."""

    entity: str
    value: str
    kind: str = "semantic"
    text: str | None = None


DIETS = {
    "vegetarian": "vegetarian", "veggie": "vegetarian", "lacto-ovo vegetarian": "vegetarian", "vegan": "vegan",
    "plant-based": "vegan", "plant based": "vegan", "pescatarian": "pescatarian", "pescetarian": "pescatarian",
    "omnivore": "omnivore", "omnivorous": "omnivore", "carnivore": "carnivore", "keto": "keto", "ketogenic": "keto",
    "paleo": "paleo", "halal": "halal", "kosher": "kosher", "gluten-free": "gluten-free", "gluten free": "gluten-free",
    "flexitarian": "flexitarian", "low-carb": "low-carb",
    "low carb": "low-carb", "dairy-free": "dairy-free", "dairy free": "dairy-free", "raw vegan": "raw vegan",
}
DIET_RE = "|".join(sorted((re.escape(d) for d in DIETS), key=len, reverse=True))
SPECIES = {
    "dog": "dog", "dogs": "dog", "puppy": "dog", "puppies": "dog", "pup": "dog", "cat": "cat", "cats": "cat",
    "kitten": "cat", "kittens": "cat", "kitty": "cat", "parrot": "parrot", "parrots": "parrot", "budgie": "budgie",
    "bird": "bird", "birds": "bird", "fish": "fish", "goldfish": "fish", "hamster": "hamster", "hamsters": "hamster",
    "rabbit": "rabbit", "rabbits": "rabbit", "bunny": "rabbit", "guinea pig": "guinea pig", "guinea pigs": "guinea pig",
    "turtle": "turtle", "tortoise": "tortoise", "snake": "snake", "lizard": "lizard", "gecko": "gecko",
    "bearded dragon": "lizard", "iguana": "iguana", "chinchilla": "chinchilla", "hedgehog": "hedgehog", "rat": "rat",
    "rats": "rat", "axolotl": "axolotl", "cockatiel": "bird", "canary": "bird",
    "horse": "horse", "horses": "horse", "pony": "horse", "ferret": "ferret", "chickens": "chicken", "hens": "chicken",
    # a breed is its species ("a golden retriever named Max" is a dog)
    **{form: "dog" for breed in ("retriever", "golden retriever", "labrador", "labrador retriever", "poodle", "beagle",
                                  "bulldog", "french bulldog", "terrier", "husky", "corgi", "dachshund", "chihuahua", "pug",
                                  "german shepherd", "collie", "border collie", "spaniel", "cocker spaniel", "rottweiler",
                                  "doberman", "greyhound", "schnauzer", "shih tzu", "pomeranian", "labradoodle",
                                  "goldendoodle", "whippet", "great dane", "bernese mountain dog", "shiba inu")
       for form in (breed, breed[:-1] + "ies" if breed.endswith("y") else breed + "s")},
    **{form: "cat" for breed in ("siamese cat", "persian cat", "tabby", "tabby cat", "maine coon", "ragdoll", "sphynx",
                                 "bengal cat", "british shorthair")
       for form in (breed, breed[:-1] + "ies" if breed.endswith("y") else breed + "s")},
}
SPECIES_RE = "|".join(sorted((re.escape(s) for s in SPECIES), key=len, reverse=True))
CHANNELS = {
    "email": "email", "e-mail": "email", "emails": "email", "mail": "email", "phone": "phone", "call": "phone",
    "calls": "phone", "calling": "phone", "phone calls": "phone", "phone call": "phone", "the phone": "phone",
    "text": "text", "texts": "text", "texting": "text", "sms": "text", "text message": "text",
    "message": "text", "messages": "text", "text messages": "text",
    "whatsapp": "whatsapp", "signal": "signal", "telegram": "telegram", "slack": "slack",
    "teams": "teams", "linkedin": "linkedin", "post": "post", "letter": "post", "video call": "video call",
    "video calls": "video call", "zoom": "zoom",
}
CHANNEL_RE = "|".join(sorted((re.escape(c) for c in CHANNELS), key=len, reverse=True))
PAYMENT_WORDS = re.compile(
    r"\b(?:visa|mastercard|master card|amex|american express|discover|paypal|apple pay|google pay|venmo|zelle|"
    r"cash app|cash|cheque|check|bank transfer|wire transfer|wire|direct debit|invoice|invoicing|crypto|bitcoin|"
    r"credit card|debit card|card|klarna|stripe|ach|sepa|bank account|revolut|alipay|wechat pay|gift card)\b",
    re.IGNORECASE)
OCCUPATIONS = re.compile(
    r"\b(?:engineer|developer|programmer|coder|designer|manager|director|nurse|doctor|physician|teacher|professor|"
    r"lecturer|lawyer|attorney|paralegal|accountant|consultant|analyst|scientist|researcher|student|chef|cook|baker|"
    r"pilot|writer|author|journalist|editor|artist|architect|dentist|pharmacist|therapist|electrician|plumber|"
    r"mechanic|carpenter|farmer|driver|officer|founder|co-founder|cofounder|ceo|cto|cfo|coo|cmo|vp|intern|freelancer|"
    r"photographer|musician|actor|actress|salesperson|marketer|recruiter|librarian|veterinarian|vet|surgeon|"
    r"paramedic|firefighter|soldier|banker|trader|economist|entrepreneur|administrator|admin|assistant|secretary|"
    r"clerk|technician|specialist|coordinator|supervisor|lead|executive|owner|tutor|coach|trainer|barista|waiter|"
    r"waitress|cashier|retiree|psychologist|counselor|counsellor|biologist|chemist|physicist|mathematician|"
    r"statistician|translator|interpreter|pm|product manager|sre|devops|qa|tester|investor|realtor|agent|broker|"
    r"professional|specialist|strategist|planner|producer|illustrator|animator|copywriter|blogger|streamer|"
    r"influencer|mentor|instructor|principal|dean|clinician|midwife|caregiver|carer|janitor|cleaner|guard|"
    r"servant|diplomat|politician|judge|police officer|detective|sailor|captain|bartender|housekeeper|"
    r"homemaker|stay-at-home \w+|nanny|welder|machinist|operator|contractor|builder|surveyor|optometrist|"
    r"radiologist|dietitian|nutritionist|physiotherapist|pediatrician|resident|fellow|postdoc|phd student|practitioner|"
    r"hygienist|aide|technologist|sonographer|phlebotomist|auditor|bookkeeper|teller|receptionist|hairdresser|stylist|"
    r"barber|underwriter|social worker|case worker|care worker|dispatcher|courier|estimator)s?$",
    re.IGNORECASE)

NEGATION = re.compile(r"\b(?:not|no longer|don't|doesn't|never|isn't|aren't|wasn't|won't|can't)\b|n't\b", re.I)
ANYMORE = re.compile(r"\b(?:anymore|any more|any longer|no longer)\b", re.I)
NOT_BEFORE = re.compile(r"\b(?:not|rather than|instead of)\s+$", re.I)
"""Right before a value that is set aside: 'PST, not EST', 'EST rather than PST'."""
NEGATED_BEFORE = re.compile(r"\b(?:not|no longer|never)\s+(?:(?:in|on|using|at)\s+)?(?:[a-z]+\s+){0,2}$", re.I)
"""Before a value the clause denies: 'I am not in PST', "I'm not on Pacific time", 'not PST'."""
VALUE_END = re.compile(
    r"\s+(?:(?:a|one|two|three|four|five|six|seven|eight|nine|ten|a few|few|a couple of|several|many|some|\d+)\s+)?"
    r"(?:years?|months?|weeks?|days?)\s+ago\b.*$"
    r"|\s+(?:since|because|'?cause|cuz|cos|as of|from now on|starting|these days|nowadays|anymore|any more|again|ago|last|this|"
    r"next|today|yesterday|recently|already|for (?:the past|about|over|almost|nearly|a|an|\d|two|three|several|"
    r"many|a few|years|months|weeks|[a-z]+(?:-[a-z]+)? (?:years?|months?|weeks?|days?|decades?))|"
    r"which|who|where|when|if|unless|so that|so|and now|but|though|although|(?-i:always|never|only)|"
    r"right now|now|at the moment|currently|lately|for now|instead|please|thanks|thank you|tho|though|btw|fwiw|haha|"
    r"lol|lmao|obviously|too|either|actually|forgot to mention|just saying|started|starting|including|originally|"
    r"(?:in|during|over|for) (?:the )?(?:winters?|summers?|springs?|falls?|autumns?|lent|ramadan)|"
    r"with (?:my|our|his|her|their|some|two|three|four|\d+|(?:a )?(?:roommates?|flatmates?|friends?|family|kids|parents|"
    r"partner|wife|husband|girlfriend|boyfriend)))\b.*$",
    re.IGNORECASE)
FROM_TO = re.compile(r"\bfrom\s+(?:the\s+)?[\w .'+\-/]+?\s+(?=to\b)", re.IGNORECASE)
CLOCK_BEFORE = re.compile(r"(?:\d{1,2}(?::\d\d)?\s*(?:a\.?m\.?|p\.?m\.?)?|noon|midnight)\s*$", re.IGNORECASE)


_FILLER = (r"believe it or not|if you can believe it|(?:or|and) (?:something|anything|stuff|things|whatever|whatnot|"
           r"so on|so forth|all that|the like|such|more)(?: (?:like that|along those lines|of that sort|jazz))?|etc\.?|et cetera|"
           r"whatever (?:that's|that is|it's) worth|for what it's worth|you name it|among others|as you know|"
           r"(?:that|this|the) (?:kind|sort|type) of (?:thing|stuff)s?|"
           r"as i (?:said|mentioned)|as a matter of fact|to be honest|after all|thankfully|luckily|fortunately|"
           r"unfortunately|sadly|honestly|of course|in fact|as it turns out|it turns out|apparently|technically|"
           r"strictly speaking|to be (?:exact|precise)")
ROUTINE_END = re.compile(r"(?:\s*[,;]\s*|\s+)(?:but|when|whenever|if|unless|except|though|although|because|sometimes|"
                         r"in a cold sweat|on (?:vacation|holiday)|while|sorry|oops|whoops|my bad|no(?=\s*,)|lol|haha)\b.*$",
                         re.IGNORECASE)
"""What follows a routine's time and is no part of it: "at 6 but tomorrow ...", "at 7am when I'm on vacation",
"at 9am, sorry, running late"."""
AT_NAME = re.compile(r"^at\s+(?:the\s+)?(?!(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|"
                     r"noon|midnight|dawn|dusk|night)\w*\b)"
                     r"(?-i:[A-Z])[\w&'.-]*(?:\s+(?-i:[A-Z&])[\w&'.-]*)*\s*[.!]*$", re.IGNORECASE)
"""A name said where a routine's time would be ("my job is at Apple"), with nothing after it."""
FILLER_END = re.compile(rf"(?:\s*[,;]\s*|\s+)(?:{_FILLER})\b.*$", re.IGNORECASE)
"""Words said after a value that are no part of it: "peanuts, believe it or not", "dust, pollen,
etc.", "hiking and stuff", "peanuts after all"."""
_FILLER_ITEM = re.compile(rf"^(?:{_FILLER}|stuff|things|etc|whatever|the like|so on|you name it)$", re.IGNORECASE)


def cut(value: str) -> str:
    """A slot's text without what follows the value ('Chicago last month' -> 'Chicago')."""
    value = re.sub(r"\s*\([^)]*\)", "", value)
    value = re.sub(r"^only\s+", "", value.strip())  # "allergic to only peanuts" (not "Only Natural Pet")
    if not _OR_MORE.search(value):  # "$500 or more" is a floor, not "$500 and the like"
        value = FILLER_END.sub("", value.strip())
    value = VALUE_END.sub("", value.strip())
    value = values.strip_time_words(_EMOJI.sub("", value))
    value = re.sub(r"\s+(?:for|on|at|in|to|of|with|and|or|but)$", "", value.strip(" ,.;:!?\"'"), flags=re.I)
    return value.strip(" ,.;:!?\"'")


_OR_MORE = re.compile(r"\d\s*(?:k|m|bn|thousand|million|billion|grand)?\s*(?:[a-z]{3}|dollars|euros|pounds|bucks)?\s*[,;]?\s+"
                      r"(?:or|and) more\b", re.IGNORECASE)
_EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\U0001F1E6-\U0001F1FF]+")


def is_capitalized(text: str) -> bool:
    return bool(text) and text[:1].isupper()


def place_value(raw: str, *, strong: bool) -> str | None:
    """A place as said, if it is one: known to GeoNames or CLDR; with a strong cue
    ("I live in", "moved to") also an unknown capitalized name."""
    value = cut(raw)
    value = re.sub(r"^(?:the\s+)?(?:city|town|village|state|country|area|suburbs?) of\s+", "", value, flags=re.I)
    zone = gazetteer.find_zone(value)
    if not value or (zone and (value.isupper() or not gazetteer.find_place(value))):  # "Singapore" is both
        return None
    if gazetteer.find_place(value):
        return value
    head = value.split(",")[0].strip()
    if gazetteer.find_place(head):
        return head
    words = value.split()
    if strong and is_capitalized(value) and len(words) <= 4 and all(is_capitalized(w) or w in ("de", "la", "of") for w in words):
        return value
    return None


def split_list(value: str) -> list[str]:
    """'peanuts, shellfish and eggs' -> ['peanuts', 'shellfish', 'eggs']."""
    parts = re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|as well as|plus)\s+", FILLER_END.sub("", value))
    # "nuts, especially peanuts": a hedge before an item is no part of it ("like" only after the first: "Like a Prayer")
    # what a hedge leaves must be a thing ("nuts, even a little", "music, especially live": no item), and "except
    # almonds", "not so much ramen" (`_NO_ITEM`) are items left out of the list, not in it
    items = [(_HEDGED if i else _HEDGED_FIRST).sub("", p.strip()) for i, p in enumerate(parts)]
    parts = ["" if i and h != p.strip() and _NOT_A_THING.search(h) else h
             for i, (p, h) in enumerate(zip(parts, items, strict=True))]
    return [p.strip() for i, p in enumerate(parts) if p and p.strip(" .") and not _FILLER_ITEM.match(p.strip(" ."))
            and not (i and _NO_ITEM.match(p.strip()))]  # the first is the value said ("I Will Always Love You")


_HEDGE_WORDS = r"especially|particularly|mostly|mainly|primarily|chiefly|largely|specifically|notably|mildly|severely|even"
_HEDGED_FIRST = re.compile(rf"^(?-i:(?:(?:{_HEDGE_WORDS}|in particular)\s+)+)")
_HEDGED = re.compile(rf"^(?-i:(?:(?:{_HEDGE_WORDS}|like|in particular|but mostly|and especially)\s+)+)")


_NOT_A_THING = re.compile(r"^(?:a|an|the|some|any|trace|small|tiny|little|slight|ones?|stuff|when|if|though|[a-z]+ing\s+(?:it|"
                          r"them|those|that)|(?:live|raw|cooked|spicy|hot|cold|mild|sweet|sour|salty|savory|fresh|dark|"
                          r"old|new|classic|loud|strong|iced|homemade|local|organic|[a-z]+ed)$)\b|\b(?:ones|stuff|amounts?)$",
                          re.IGNORECASE)
"""What a hedge leaves that is no item: a quantity, a sense, a way or a kind ("even a little", "even the smell",
"especially live", "especially spicy", "mostly old stuff", "especially watching them")."""
_NO_ITEM = re.compile(r"^(?:rather|always|never|actually|really|i|i'm|i've|i'd|i was|he|she|they|we|it|that|which|since|but|"
                      r"though|my|our|his|her|their|your|not|except|excluding|apart from|other than|besides|save for)\b"
                      r"|^(?:even|especially|like|mostly|mainly|particularly)$",
                      re.IGNORECASE)
"""A part that goes on about the list, not an item: "peanuts, always have been", "penicillin, or rather I was as a kid",
"cats, like my mom" (someone the user compares themselves to)."""


def number_word(word: str) -> int | None:
    words = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
             "eight": 8, "nine": 9, "ten": 10}
    if word.isdigit():
        return int(word)
    return words.get(word.lower())
