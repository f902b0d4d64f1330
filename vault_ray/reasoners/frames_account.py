"""Slot patterns for what an account needs: payment method, budget, consent, e-mail
address and phone number, contact preference, age, and likes and dislikes (food or not)."""

from __future__ import annotations

import re

from .. import gazetteer, number_words, values
from . import spending
from .clauses import PLAN_WORDS
from .favorites import favorite_frame
from .frames import Frame, name_frame
from .lexicon import CHANNEL_RE, CHANNELS, FROM_TO, PAYMENT_WORDS, Draft, cut, split_list
from .spending import slug

IC = re.IGNORECASE

_PAY = re.compile(
    r"\b(?:i(?:'ll|'d|\s+will|\s+would)?(?:\s+(?:always|usually|now|only|normally|mostly|rather|prefer to|want to|"
    r"like to))*\s+pay|"
    r"i'm (?:now )?paying|i'll be paying|paying|payments? (?:go|goes|will go)|i (?:now )?(?:use|prefer))\s+"
    r"(?:with|by|via|using|through|on|in|over)?\s*(?P<v>.+)$"
    r"|\b(?:charge|bill|put|charged|billed)(?:\s+(?:it|this|that|everything|them|purchases|all|the order|orders))?\s+"
    r"(?:to|on)\s+(?P<w>.+)$"
    r"|\b(?:use|switch to|i switched to|i changed to|i moved to|i've switched to)\s+(?P<x>.+?)\s+for\s+"
    r"(?:payments?|purchases|billing|paying|checkout|everything)\b"
    r"|\bmy (?:preferred |default |new |main |usual )?(?:payment method|payment|card|billing method|payment option)\s+"
    r"(?:is|will be|should be|is now)\s+(?P<y>.+)$"
    r"|\bi (?:switched|moved|changed) (?:to paying (?:with|by|via)|my payment method to|over to paying (?:with|by))\s+(?P<z>.+)$"
    r"|\b(?:please )?use my (?P<u>.+)$"
    r"|\b(?:please )?(?:charge|bill) (?P<b>my .+)$", IC)
_PAY_NOT = re.compile(r"\b(?:don't|do not|stop|never) (?:charge|charging|bill|billing|use|using) (?:my |the )?(?P<v>.+)$"
                      r"|\bi (?:no longer|don't|do not) (?:use|have|pay with|pay by) (?:my |a |an |the )?(?P<w>.+)$"
                      r"|\bi (?:cancelled|canceled|closed) my (?P<x>.+)$", IC)


def payment_frame(n: str) -> list[Draft]:
    m = _PAY_NOT.search(n)
    if m:
        raw = cut(m.group("v") or m.group("w") or m.group("x"))
        if PAYMENT_WORDS.search(raw) and not values.parse_amount(raw):
            return [Draft("user.payment.method", f"not:{_instrument(raw)}")]
        return []
    m = _PAY.search(FROM_TO.sub("", n))
    if not m:
        return []
    raw = cut(next(g for g in m.groups() if g))
    raw = re.split(r"\s+(?:for|from now on|instead of|rather than|when|if)\b", raw, maxsplit=1, flags=IC)[0]
    if not PAYMENT_WORDS.search(raw) or values.parse_amount(raw) and re.search(r"\d", raw):
        return []
    return [Draft("user.payment.method", _instrument(raw))]


def _instrument(raw: str) -> str:
    raw = re.sub(r"^(?:is\s+|are\s+)?(?:my|the|a|an|our)\s+", "", raw.strip(), flags=IC)
    return re.sub(r"\s+(?:card|account)$", "", raw, flags=IC) if re.search(r"\b(?:visa|mastercard|amex|discover|"
                                                                       r"american express|revolut)\b", raw, IC) else raw


_MONEY = re.compile(r"[$€£¥]|\b(?:dollars?|bucks|euros?|quid|grand|usd|eur|gbp|cad|aud|nzd|chf|inr|jpy|rupees|yen)\b|\d\s*k\b",
                    IC)
"""A cap said as money ("under $800", "under 500 euros"); "under 200 pounds" may be a weight."""
_POUNDS = re.compile(r"\b(?:pounds?|sterling)\b", IC)
_STAYS = re.compile(r"^(?:hotels?|rooms?|stays?|accommodations?|airbnbs?|trips?|holidays?|vacations?|honeymoons?|weddings?|"
                    r"parties|party|dinners?|rent|renovations?|shopping|events?|birthdays?|christmas)$", IC)
"""... but money when said of a stay or a plan nothing is weighed by ("Keep the hotel under 200 pounds", "... a night")."""
_A_NIGHT = re.compile(r"(?:a|per|each|every)\s+night", IC)
_EACH = re.compile(r"\b(?:a|per|each)\s+(?:person|head|guest|plate|item|ticket|piece|pair|seat)\b|\b(?:each|apiece)\b", IC)
_BUDGET = re.compile(
    r"\b(?:my|our|the) (?:total |(?P<per>monthly |weekly |yearly |annual |daily |quarterly )|max(?:imum)? |overall |new "
    r"|current |approved )?(?:(?:[a-z]+ )?(?P<pre>(?!total|overall|new|current|approved|max)[a-z]+) (?=budget))?"
    r"(?:budget|spending limit|spending cap|spend limit|price range|limit|cap|max)(?:\s+for\s+(?P<topic>[\w' ]+?))?"
    r"\s+(?:is|will be|is now|has changed to|changed to|went up to|went down to|went to|increased to|dropped to|of|=|:|'s)\s*"
    r"(?P<v>.+)$"
    r"|\bi(?:\s+(?:can|could|only|now|also))*(?:\s+want to|'d like to|\s+would like to|'m willing to|\s+am willing to|"
    r"\s+plan to|'m able to|\s+am able to|'m happy to|'m ok(?:ay)? to)?\s+(?:spend|afford|pay|go)\s+"
    r"(?:up to|at most|no more than|about|around|max|maximum|a max of|roughly|only|at least)\s+(?P<w>.+)$"
    r"|\b(?:keep (?:it|things|(?:the|my|our) (?:cost|price|total|spend|spending))|stay|budget is)\s+(?:under|below|within"
    r"|at most|around|about)\s+(?P<x>.+)$"
    r"|\bkeep (?:(?:the|my|our) )?(?P<pre3>(?!(?:spending|spend|costs?|prices?|total|budget|it|things|everything|all|that|"
    r"this|them|stuff|expenses|me|us|him|her|you|each|both|one|any|anything|something|whatever|those|these|mine)\b)"
    r"[a-z]+)(?: (?:cost|price|bill|spend|spending))?"
    r" (?:under|below|within|at most|around"
    r"|about)\s+(?P<r>.+)$"
    r"|\bi (?:don't|do not) want to (?:spend|pay) more than\s+(?P<y>.+)$"
    r"|\b(?:i have|i've got|i've)\s+(?P<z>.+?)\s+to spend\b"
    r"|\b(?:my )?budget (?:is |of |around |about |up to |at )+(?P<u>.+)$"
    r"|\bi'm (?:working with|on) a (?:budget|limit) of\s+(?P<t>.+)$"
    r"|\b(?:we|i)(?:'ve| have)?\s+(?:just\s+)?(?:cut|raised|lowered|increased|reduced|dropped|bumped|upped|set|moved|"
    r"changed|pushed|raise|lower|increase|reduce|drop|bump|up|move|change|push)\s+"
    r"(?:the|my|our)\s+(?:(?P<pre2>[a-z]+)\s+)?budget\s+(?:up\s+|down\s+)?(?:to|at|down to|up to)\s+(?P<s>.+)$", IC)


def budget_frame(n: str) -> list[Draft]:
    m = _BUDGET.search(n)
    if not m:
        return []
    key, raw = next((k, g) for k, g in m.groupdict().items() if g and k not in ("topic", "per", "pre", "pre2", "pre3"))
    # "I can spend up to $3,500 on the laptop": what it is for, keyed as "my laptop budget" is
    spent_on = re.search(rf"\s+on\s+(?:(?:the|my|our|an?)\s+(?:new\s+)?(?P<on>[a-z]+)|(?P<plan>{PLAN_WORDS}))\b", raw, IC)
    # what follows the amount is cut ("for the trip", "on food"), but not its period ("a month")
    raw = re.split(r"\s+(?:for|on|per|a|an|each|every)\s+(?!thousand|million|hundred|half|hour|day|night|week|fortnight|month"
                   r"|quarter|year|annum)|\s*,\s*(?=(?:it's|it is|that's|that is|which|but|so|though)\b)",  # "$400, it's for"
                   raw, maxsplit=1, flags=IC)[0]
    raw = re.sub(r"((?:per|a|an|each|every)\s+(?:hour|day|night|week|fortnight|month|quarter|year|annum))\b.*$", r"\1", raw,
                 flags=IC)
    if not (re.search(r"\d", raw) or re.search(r"\b(?:hundred|thousand|million|billion|grand)\b", raw, IC)):
        return []
    money = _MONEY.search(raw) or (_POUNDS.search(raw) and (_STAYS.match(m.group("pre3") or "") or _A_NIGHT.search(raw)))
    if values.parse_amount(raw) is None or spending.not_money(raw) \
            or (m.group("r") and (not money or _EACH.search(m.group("r")))):  # "$40 a person": a cap per person
        return []  # "Keep the temperature below 70", "Keep my weight under 200 pounds", "Keep it under 5 minutes": no money
    spent_on = spent_on and (spent_on.group("on") or spent_on.group("plan"))
    topic = m.group("topic") or m.group("pre") or m.group("pre2") or m.group("pre3") or spent_on  # "for the trip"
    entity = "user.budget." + slug(topic) if topic and slug(topic) else "user.budget"  # "my birthday party budget"
    value = spending.with_bound(n[:m.start(key)], cut(raw) or raw.strip())  # "Keep it under £200": "under £200"
    if m.group("per") and not values.PERIOD.search(value):  # "my monthly budget is $500": the period is the label's
        value = f"{value} {m.group('per').strip()}"
    return [Draft(entity, value)]


_CONSENT_YES = re.compile(
    r"\bi(?:\s+(?:hereby|do|now|fully|also))*(?:\s+(?:consent|agree|opt in|opt-in|give (?:my )?(?:consent|permission)|"
    r"give you permission|accept)\s+(?:to|for|with|that you)?"
    r"|(?:'m|\s+am) (?:okay|ok|fine|happy) (?:with|for|that you|to let you))"
    r"\s*(?P<t>.+)$"
    r"|\b(?:you (?:can|may|have my (?:permission|consent) to)|feel free to|go ahead and)\s+(?P<u>(?:share|use|record|"
    r"send|email|text|call|contact|store|keep|process|track|sell)(?! me (?:at|on)\b).+)$"
    r"|\bsign me up (?:for|to) (?P<v>.+)$", IC)
_CONSENT_NO = re.compile(
    r"\bi (?:hereby |now |want to |'d like to )?(?:withdraw|revoke|retract|take back|pull)\s+(?:my |the )?"
    r"(?:consent|permission|agreement|opt-in)\s*(?:to|for|from|on|regarding|about)?\s*(?P<t>.*)$"
    r"|\bi (?:no longer|don't|do not|won't|never) (?:consent|agree|give (?:my )?(?:consent|permission))\s+(?:to|for)\s+(?P<u>.+)$"
    r"|\b(?:stop|quit)\s+(?:sending|emailing|texting|calling|contacting|messaging|spamming)\s+me\s*(?P<v>.*)$"
    r"|\bunsubscribe me\s*(?:from)?\s*(?P<w>.*)$|^no (?:more )?(?P<p>(?:[\w\-]+ )?(?:emails?|newsletters?|texts?|calls|ads"
    r"|offers|promotions|marketing))(?:,?\s+(?:please|anymore|any more|at all|thanks|thank you|ever))*$"
    r"|\b(?:count me out of|take me off|remove me from|leave me off)\s+(?P<o>.+)$"
    r"|\bi (?:no longer|don't|do not) want (?:to (?:receive|get) )?(?:any (?:more )?)?(?P<q>(?:[\w\-]+ )?(?:emails?|newsletters?|"
    r"texts?|messages|offers|updates|ads|notifications|promotions)\b.*)$"
    r"|\bi (?:want to |'d like to |would like to )?(?:opt out|opt-out|unsubscribe)\s*(?:of|from)?\s*(?P<x>.*)$"
    r"|\b(?:please )?(?:don't|do not|never) (?:send me\s+(?P<y>.+)"
    r"|(?P<z>(?:share|use|record|track|sell|process|store)\s+.+))$", IC)
_TOPIC_DROP = {"the", "my", "me", "you", "your", "our", "a", "an", "any", "all", "to", "for", "of", "with", "from",
               "about", "further", "more", "receive", "receiving", "get", "getting", "send", "sending", "sent", "be",
               "being", "by", "anymore", "please", "those", "these", "them", "that", "this", "it", "partner", "partners",
               "third", "parties", "party", "affiliates", "affiliate", "others", "other", "companies", "anytime",
               "whenever", "always", "ok", "okay", "fine"}
"""Words a consent's topic is said with that do not change what it covers ("share my data with partners" is data
sharing, as "I withdraw my consent for data sharing" is: one key, so the two meet)."""
_GERUND = {"share": "sharing", "shared": "sharing", "record": "recording", "recorded": "recording", "track": "tracking",
           "tracked": "tracking", "process": "processing", "processed": "processing", "sell": "selling", "sold": "selling",
           "store": "storage", "storing": "storage", "use": "use", "using": "use", "used": "use", "contact": "contact",
           "contacting": "contact", "emailing": "email", "texting": "text", "calling": "call", "spamming": "spam",
           "promotional": "marketing", "promo": "marketing", "promos": "marketing", "promotions": "marketing",
           "advertising": "marketing", "ads": "marketing", "ad": "marketing", "advertisement": "marketing",
           "advertisements": "marketing", "emails": "email"}


def consent_frame(n: str) -> list[Draft]:
    m = _CONSENT_NO.search(n)
    if m and m.group("z") and re.search(r"\b(?:i|we)\s+(?:\w+ly\s+|just\s+)?$", n[:m.start()], IC) \
            and not re.match(r"\w+\s+(?:my|our)\b", m.group("z"), IC):
        return []  # "I don't use credit cards": what the user does ("I don't share my location" is of their data)
    status = values.CONSENT_WITHDRAWN
    if not m:
        m = _CONSENT_YES.search(n)
        status = values.CONSENT_GIVEN
    if m and status == values.CONSENT_GIVEN and re.match(r"call me\b", m.group("u") or "", IC) and name_frame(n):
        return []  # "feel free to call me Tom": a name, not a consent to phone calls
    if not m:
        return []
    verb = re.search(r"\b(?:stop|quit)\s+(\w+)", m.group(0), IC)
    raw = next((g for g in m.groups() if g), "") or ""
    if verb and not raw.strip():
        raw = verb.group(1)
    # "I agree to the terms but no marketing emails": the exception is withdrawn
    raw, unless = (re.split(r"\s+(?:but|except)\s+(?:no|not)\s+", raw, maxsplit=1, flags=IC) + [""])[:2] \
        if status == values.CONSENT_GIVEN else (raw, "")
    topic = _topic(raw)
    if status == values.CONSENT_GIVEN and not topic:
        return []
    out = [Draft("user.consent" + (f".{topic}" if topic else ""), status)]
    return out + ([Draft(f"user.consent.{_topic(unless)}", values.CONSENT_WITHDRAWN)] if _topic(unless) else [])


def _topic(raw: str) -> str:
    """'receiving marketing emails' and 'marketing email' -> 'email_marketing'; 'you sharing my
    data' and 'data sharing' -> 'data_sharing': content words, one form each, in a fixed order."""
    words = [w for w in re.findall(r"[a-z]+", cut(raw).lower()) if w not in _TOPIC_DROP]
    words = [_GERUND.get(w, values.singular(w)) for w in words][:4]
    return "_".join(sorted(dict.fromkeys(words)))[:60]


_CONTACT = re.compile(
    rf"\b(?:contact|reach|ping|message|get (?:in touch with|hold of)|call|notify|update)\s+me\s+(?:only\s+)?"
    rf"(?:by|via|through|over|on|at|using|with)\s+(?:my\s+)?(?P<v>{CHANNEL_RE})\b"
    rf"|\bi(?:\s+prefer|'d prefer|'d rather|\s+would rather|\s+would prefer|\s+like|\s+want)\s+"
    rf"(?:(?:to )?be (?:contacted|reached) (?:by|via|through|over|on)\s+)?"
    rf"(?P<w>{CHANNEL_RE})\b"
    rf"|(?:^|,\s*)(?P<x>{CHANNEL_RE}) (?:is|are|works?) (?:the )?(?:best|easiest|preferred|quickest|better)"
    rf"|\bthe best way to (?:reach|contact|get hold of) me is (?:by |via |through |over |on )?(?P<y>{CHANNEL_RE})\b"
    rf"|\b(?:just |only |please )*(?P<z>email|text|call|message|whatsapp) me\s+(?:instead|only|from now on|rather)\b"
    rf"|\bmy (?:preferred )?(?:contact (?:method|channel|preference)|preferred channel) is (?P<u>{CHANNEL_RE})\b", IC)
_CONTACT_NOT = re.compile(r"^(?:please )?(?:don't|do not|never) (?P<v>call|text|email|message) me"
                          r"(?:,?\s+(?:anymore|any more|again|ever|at all|please|thanks|thank you))*\s*[.!]*$"
                          r"|\bi (?:don't|do not) (?:want|like) (?P<w>phone calls|calls|texts|emails)\b", IC)


_EMAIL = re.compile(r"\b(?:my (?:(?P<q>work|business|office|company|job) |personal |new |current )?"
                    r"(?:e-?mail(?: address)?|address|one)(?: is| is now|'s|:)\s*|"
                    r"(?:e-?mail|write to|reach|contact) me at\s+|i'm (?:best )?(?:reachable|reached) at\s+|"
                    r"\be-?mail(?: address)?\s*:\s*)(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)", IC)
_PHONE = re.compile(r"\b(?:my (?:(?P<q>work|business|office|company|desk) |personal |new |home |current )?"
                    r"(?:(?:phone|cell|mobile|telephone)(?: phone)?(?: number)?|number)"
                    r"(?: is| is now|'s|:)\s*|(?:call|text|reach|ring) me (?:at|on)\s+|"
                    r"i'm (?:best )?(?:reachable|reached) (?:at|on)\s+|\b(?:phone|cell|mobile|tel)\s*:\s*)"
                    r"(?P<v>\+?\(?\d[\d ().-]{4,}\d)", IC)


def address_frame(n: str) -> list[Draft]:
    """The user's e-mail address or phone number, as said ("my email is ana@example.com",
    "call me at 555-1234": that also says how to reach them)."""
    said: list[Draft] = []
    bare = _BARE_EMAIL.search(n) if _ASKED_BY_EMAIL.search(n) and not _EMAIL.search(n) else None
    if bare:  # "pls email me instead of texting, maya.r@gmail.com works"
        said.append(Draft("user.email", bare.group(0)))
    for pattern, entity, channel in ((_EMAIL, "user.email", "email"), (_PHONE, "user.phone", "phone")):
        m = pattern.search(n)
        # "my work phone is ...", "for work, email me at ...": a sibling of the user's own (contrast.py: home / work)
        if m and (m.group("q") or _FOR_WORK.search(n)):
            said.append(Draft(f"{entity}.work", m.group("v").strip(" .").rstrip(".")))
        elif m:
            said.append(Draft(entity, m.group("v").strip(" .").rstrip(".")))
            # "call me at ...": the way to reach them too ("text me at ...": by text), unless only for one
            # purpose ("reach me at ana@x.com for receipts")
            # "you can reach me at +44 ...": an address given, not a way preferred
            if not said[1:] and not re.match(r"my |reach|contact", m.group(0), IC) and not _FOR_ONE.search(n, m.end()):
                said.append(Draft("user.contact_preference", "text" if re.search(r"\btext me\b", m.group(0), IC) else channel))
            # "reach me at ana@x.com or 617-555-0142": the number said beside the address
            beside = _OR_NUMBER.match(n, m.end()) if entity == "user.email" else None
            if beside and not _PHONE.search(n):
                said.append(Draft("user.phone", beside.group("v").strip(" .")))
    return said


_FOR_WORK = re.compile(r"\b(?:for|at) (?:work|business)(?: (?:things|stuff|matters|purposes))?\W*$", IC)
"""An address given for work, said after it: "email me at ana@acme.com for work"."""
_FOR_ONE = re.compile(r"\bfor (?:the |my |any |all )?(?:receipts?|invoices?|billing|bills|statements?|confirmations?|"
                      r"orders?|shipping|deliver(?:y|ies)|work|business|emergencies|urgent)\b", IC)
_BARE_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_ASKED_BY_EMAIL = re.compile(r"\b(?:e-?mail me|reach me|contact me|write (?:to )?me)\b(?!.*\b(?:his|her|their)\b)", IC)
_OR_NUMBER = re.compile(r"\s*(?:,|or|and|/)\s*(?:at\s+|on\s+)?(?P<v>\+?\(?\d[\d ().-]{6,}\d)")


_AGE = re.compile(r"\b(?:i'm|i am|i turned|i just turned|i'll be|i will be)\s+(?P<v>\d{1,3})(?:\s+(?:years? old|yrs? old|yo)|"
                  r"(?=\s*(?:$|[,.;!]|(?:and|but|last|this|since|today|yesterday|now|in|on)\b)))"
                  r"|\bmy age is\s+(?P<w>\d{1,3})\b|\bi'm an? (?P<x>\d{1,3})[- ]y(?:ea)?rs?[- ]old\b", IC)


def age_frame(n: str) -> list[Draft]:
    """"I'm 30 years old", "I turned 41", "my age is 25", "I'm a 35-year-old nurse" (not "I'm 5 minutes away")."""
    m = _AGE.search(number_words.small_numbers(n))  # "I'm twenty-eight years old"
    if not m or re.search(r"\bi'll be|\bi will be", m.group(0), IC):
        return []
    age = int(m.group("v") or m.group("w") or m.group("x"))  # "I'm a 35 year old nurse": 35
    return [Draft("user.age", str(age))] if 0 < age < 130 else []


_THIS_NOT_THAT = re.compile(r"\b(?:please\s+)?(?P<a>text|e-?mail|call|message|whatsapp) me(?:\s+please)?(?:\s*[,;.!-]\s*|\s+)"
                            r"(?:and\s+|but\s+)?(?:please\s+)?(?:don't|do not|never|not)\s+(?:to\s+)?(?P<b>text|e-?mail|call|"
                            r"message|phone|ring)(?: me)?(?:\s+please)?\b", IC)


def this_not_that(text: str) -> str:
    """ "Text me, don't call" as the one channel it asks for: "text me instead" (split at the comma, neither half says it)."""
    return _THIS_NOT_THAT.sub(lambda m: f"{m['a']} me instead" if m["a"].lower() != m["b"].lower() else m[0], text)


def contact_frame(n: str) -> list[Draft]:
    m = _CONTACT.search(n)
    if m:
        word = next(g for g in m.groups() if g).lower()
        if not re.search(r"\b(?:pay|paying|payment)\b", n, IC):
            return [Draft("user.contact_preference", CHANNELS[word])]
    m = _CONTACT_NOT.search(n)
    if m and not re.search(r"\b(?:marketing|promotional|newsletter|spam)\b", n, IC):
        return [Draft("user.contact_preference", f"not:{CHANNELS[(m.group('v') or m.group('w')).lower()]}")]
    return []


FOOD_WORDS = {
    "food", "cuisine", "pizza", "sushi", "pasta", "ramen", "curry", "tacos", "burgers", "burger", "steak", "salad",
    "italian", "japanese", "chinese", "mexican", "indian", "thai", "french", "korean", "vietnamese", "greek",
    "spicy", "coffee", "tea", "chocolate", "cheese", "seafood", "fish", "meat", "chicken", "beef", "pork", "tofu",
    "noodles", "rice", "bread", "dessert", "desserts", "cake", "ice", "fruit", "vegetables", "wine", "beer",
    "eggs", "dairy", "milk", "mushrooms", "olives", "peanuts", "cilantro", "garlic", "onions", "dumplings",
    "dishes", "dish", "cooking", "bbq", "barbecue", "sandwiches", "soup", "oysters", "shrimp", "lamb", "avocado",
    "broccoli", "spinach", "kale", "pho", "kimchi", "bagels", "pancakes", "cookies", "candy", "sweets", "snacks",
    "lattes", "latte", "espresso", "cappuccino", "juice", "soda", "whisky", "whiskey", "cocktails", "brunch",
    "alcohol", "booze", "liquor", "caffeine", "vodka", "tequila", "rum", "gin", "sake", "decaf", "water",
    "kombucha",
}
_LIKE = (r"(?:really |absolutely |totally |also |just |still |do |so |pretty )*(?:love|like|enjoy|adore|dig|crave|into|only eat|"
         r"mostly eat|only drink|mostly drink|a (?:big |huge |massive )?fan of|crazy about|obsessed with|can't get enough of|"
         r"addicted to|prefer)")
_DISLIKE = (r"(?:really |absolutely |totally |also |just |still )*(?:hate|dislike|detest|can't stand|don't like|don't enjoy|"
            r"don't eat|don't drink|avoid|not (?:really |that |so |much of )?a (?:big |huge )?fan of|"
            r"not (?:really |that |so |too |very |as )?into|loathe|despise|don't care for|'m sick of|'m tired of|"
            r"no longer (?:like|enjoy|eat|love|drink)|stopped (?:liking|eating|enjoying|drinking)|can't eat|can't drink|"
            r"sick of|tired of)")
_PREF = re.compile(rf"^i(?:'m)? (?P<neg>{_DISLIKE})\s+(?P<d>.+)$|^i(?:'m)? {_LIKE}\s+(?P<v>.+)$", IC)
_HOBBIES = re.compile(r"^my (?:main |favou?rite |big )?(?:hobbies|hobby|interests|passions|passion) (?:are|is|include)\s+", IC)
_FAN_WORDS = r"big|huge|massive|die-?hard|lifelong|longtime|avid|total|true|real"
_FAN = re.compile(rf"^i'm (?:a |an )(?:(?:{_FAN_WORDS}) )*(?P<v>(?!(?:of|{_FAN_WORDS})\b)[\w' .&-]+?) "
                  r"(?:fan|fanatic|buff|nerd|geek|lover)$|^i'm an? (?P<v2>cat|dog|coffee|tea|beach|book) person$", IC)
"""What the user likes said as who they are: "I'm a huge Star Wars fan", "I'm a film buff" ("I'm a fan of Star Wars")."""


def _fan_of(m: re.Match[str]) -> str:
    """'i'm a fan of X' for a fan's words; an animal in the plural ("a cat lover": cats, not the zone CAT)."""
    what = m["v"] or m["v2"]
    return f"i'm a fan of {what}s" if what.lower() in ("cat", "dog", "book", "horse", "bird") else f"i'm a fan of {what}"


_FAVORITE = re.compile(r"^my (?:absolute |all-time |new )?(?:favou?rite|fave|go-to) (?P<what>[\w ]+?) (?:is|are) (?P<v>.+)$"
                       r"|^(?P<w>.+?) (?:is|are) my (?:absolute |all-time |new )?(?:favou?rite|fave|go-to)\b", IC)


def preference_frame(n: str) -> list[Draft]:
    if (kind := favorite_frame(n)) is not None:  # "my favorite color is blue": the kind's one value (`favorites.py`)
        return kind
    n = _FAN.sub(_fan_of, _HOBBIES.sub("i like ", n))  # "My hobbies are chess", "I'm a Star Wars fan", "a cat person"
    m = _PREF.search(n)
    fav = _FAVORITE.search(n) if not m else None
    if not m and not fav:
        return []
    if m:
        negative = bool(m.group("neg")) or bool(re.search(r"\b(?:anymore|any more)\b", n, IC) and "don't" in n.lower())
        raw = m.group("d") or m.group("v")
        if re.search(r"\bprefer\b", m.group(0), IC):  # "I prefer tea over coffee": tea
            raw = re.split(r"\s+(?:over|to|rather than|instead of|more than)\s+", raw, maxsplit=1, flags=IC)[0]
    else:
        negative, raw = False, fav.group("v") or fav.group("w")
        if fav.group("what"):
            raw = f"{raw} {fav.group('what')}" if fav.group("what").lower() in ("food", "cuisine") else raw
    raw = re.sub(r"\s+(?:so much|a lot|very much|the most|more than anything|like crazy)$", "", cut(raw), flags=IC)
    raw = re.sub(r"\s+(?:on|at|in|during|every|most|after|before)\s+(?:the\s+)?(?:weekends?|weekdays?|evenings?|mornings?|"
                 r"nights?|summers?|winters?|work|holidays?|vacations?)\b.*$", "", raw, flags=IC)
    gerund = re.match(r"(?:eating|drinking) (?P<rest>.+)", raw, IC)  # "drinking coffee": coffee; "drinking games": as said
    raw = gerund.group("rest") if gerund and set(re.findall(r"[a-z]+", gerund.group("rest").lower())) & FOOD_WORDS else raw
    raw = re.sub(r"^(?:to |having )", "", raw, flags=IC)
    if not raw or re.match(r"^(?:my|your|it|this|that|them|you|him|her|when|how|the way|being|after|before|until|till|"
                           r"past|during)\b|^[$€£¥]?\d", raw, IC):
        return []  # "..., like 200 max": a filler "like" before an amount; "i dont eat after 8pm": a time, no food
    if m and re.search(r"\bdrink", n[: m.start("d" if m.group("d") else "v")], IC) and (
            not set(re.findall(r"[a-z]+", raw.lower())) & FOOD_WORDS
            or re.match(r"(?:enough|much|too|as|that|a lot)\b", raw, IC)):
        return []  # "I don't drink alcohol": a drink; "I don't drink and drive", "I only drink on weekends": none
    stance = "dislikes" if negative else "likes"
    eats = bool(re.search(r"\b(?:eat|eating)\b", m.group(0) if m else "", IC))
    items = [raw] if _COMPOUND.search(raw) else split_list(raw)  # "sushi and jazz": two things; "mac and cheese": one
    if len(items) > 1 and any(len(item.split()) > 3 for item in items):
        items = [raw]  # a clause, not a list ("hiking when it is warm and dry")
    out = []
    for item in items:
        words = set(re.findall(r"[a-z]+", item.lower()))
        food = bool(words & FOOD_WORDS) or eats
        if CHANNELS.get(item.lower()) or gazetteer.find_zone(item) or PAY_ONLY.match(item) or (
                gazetteer.find_language(item) and not food):
            continue
        obj = re.sub(r"\s+(?:food|cuisine|dishes)$", "", item, flags=IC) if food else item
        out.append(Draft("user.food_preferences" if food else "user.likes", f"{stance}:{obj}"))
    return out


_COMPOUND = re.compile(r"\b(?:mac|macaroni|fish|rock|salt|bread|rhythm|drum|surf|sweet|peanut butter|pb|cheese|rice|"
                       r"gin|rum|bacon|ham|spaghetti|chicken|strawberries|biscuits|pie|tea|milk|cookies|bed|arts|"
                       r"black|hide|cops|dungeons|lord of the rings|pride|war|beauty) (?:and|n|&) \w+", IC)
"""A dish, genre or title whose name holds "and": one thing, not a list."""


PAY_ONLY = re.compile(r"^(?:paypal|visa|mastercard|amex|apple pay|google pay|venmo|cash|bank transfer|invoice)$", IC)

ACCOUNT_FRAMES: tuple[Frame, ...] = (consent_frame, budget_frame, payment_frame, address_frame, contact_frame, age_frame)
PREFERENCE_FRAMES: tuple[Frame, ...] = (preference_frame,)
