"""A user turn cut into sentences and clauses, the grammatical person of each, and
the third-person rewrite a claim's text is made of ("I'm in PST" -> "The user is in
PST"). No vocabulary of the world here: that is `gazetteer`'s."""

from __future__ import annotations

import functools
import re

from .couples import COUPLE, pair_ended
from .lexicon import SPECIES_RE
from .moves import later_move

# not after a title that comes before a name ("St. Mary's", "Dr. Lee"), nor inside "Ana.Lopez@x.com"
_TITLES = "".join(rf"(?<!\b{t}\.)" for t in ("St", "Dr", "Mr", "Ms", "Mrs", "Mt", "Prof", "Ste"))
_SENTENCE = re.compile(rf"(?<=[.!?;]){_TITLES}\s+|\n+|(?<=[.!?]){_TITLES}(?=[A-Z])(?![\w.%+-]*@)")
_SUBJECT = r"(?:i|i'm|i've|i'd|i'll|im|my|we|we're|we've|please|call|email|text|reach|contact|charge|use|stop|don't)"
_DROPPED = r"(?:now (?:in|at|based|living)|currently (?:in|at|based|living|working|interning)|originally from|based in|born\s|" \
           r"still (?:vegan|vegetarian|pescatarian|in|at|with|single|married)|(?:a )?new job (?:at|with)|home base is|used to)"
"""A part of a sentence whose subject ("I") was left out after a statement of the user's:
"I'm 41, originally from Naples, now in Chicago"."""
_FREE = r"(?:gluten|dairy|lactose|nut|egg|soy|sugar|meat)[- ]free"
_KEPT = r"(?:keep|follow|eat|stick to)(?=\s+(?:a |an |strictly |mostly )?(?:kosher|halal|keto|paleo|vegan|gluten|low[- ]carb)\b)"
"""A diet said after another without its "I'm" ("I'm dairy free and gluten free") or "I" ("I'm vegan and keep kosher")."""
_PAID = r"(?:pay|make|earn)(?=\s+(?:(?:about|around|roughly|only|over|like)\s+)?[$€£¥\d])"
"""Money said with its "I" left out: "I work at Google and pay $1,500 rent", "..., and make $90k a year"."""
_BARE = rf"(?:live|work|hate|love|like|dislike|prefer|speak|own|can't stand|don't like|allergic|vegan|vegetarian|moved|" \
        rf"from(?=\s+(?-i:[A-Z]))|relocated|(?:just |recently )?(?:joined|started at)|{_PAID}|" \
        rf"pescatarian|married|single|divorced|retired|\w+ intolerant|{_FREE}|{_KEPT}|" \
        r"(?:my |the )?(?:budget|time ?zone|birthday|email|phone|number) is)"
"""A verb or state whose "I" a list left out: "I live in Chicago and work at Rush", "I'm vegan and allergic to nuts",
"I love hiking, hate running", "..., budget is 1500 euros", "I'm 27, from Texas"."""
_THEN = (r"(?:(?:right now|at the moment|currently|now|previously|formerly|before that|then|these days|nowadays|today|"
         r"always|only|just|instead|never|actually),?\s+)?")
"""A time word before a clause's subject: "I worked at Microsoft for 3 years and now I work at Google" ("..., actually
I live in Dallas": a correction, its own clause)."""
_CLAUSE_SPLIT = re.compile(
    # not ", like shrimp": an example of what was said, not "I like"
    rf",\s*(?:and\s+|but\s+|so\s+|because\s+|since\s+|though\s+|although\s+)?(?={_THEN}{_SUBJECT}\b|{_DROPPED}\b|"
    rf"(?!like\s){_BARE}\b)"
    rf"|\s+(?:and|but|so|because|though|although)\s+(?={_THEN}(?:{_SUBJECT}|{_BARE})\b)"  # "..., and now live in London"
    r"|(?<=\w)(?<!\bright)(?<!\buntil)(?<!\bjust)(?<!\bby)\s+(?=now\s+(?:i|i'm|we|we're)\s)"  # "i left google now i'm at meta"
    rf"|:\s+(?={_THEN}{_SUBJECT}\b|(?:my|our|his|her|their) )"  # "I'm bilingual: my parents are Filipino"
    r"|\s+[-–—]+\s+"
    rf"|\s+[&+/]\s+(?=(?-i:[Ii](?:'m|'ve|'d|'ll)?|[Ww]e(?:'re|'ve)?|{_BARE})\b)"  # "at Google & I love it", "& love my job"
    r"|(?:(?<=married)|(?<=divorced)|(?<=widowed)|(?<=separated)|(?<=single)|(?<=single mom)|(?<=single dad)|(?<=single parent))"
    r",?\s+(?=with (?:a |an |one |two |three |four |five |six |\d+ )(?:kids?|children|sons?|daughters?|babies|baby)\b)", re.I)
BUDGET_CHANGE = r"(?:cut|raise|lower|increase|reduce|drop|bump|up|set|move|change|push)"
"""A verb that sets a budget anew ("bump the gift budget to $800")."""
_SUBJECT_FIXES = [
    (re.compile(r"[’‘`]"), "'"),
    (re.compile(r"\bi am\b", re.I), "i'm"),
    (re.compile(r"\bim\b", re.I), "i'm"),
    (re.compile(r"\bi have\b", re.I), "i have"),
    (re.compile(r"^(?:the )?user is\b", re.I), "i'm"),
    (re.compile(r"^(?:the )?user's\b", re.I), "my"),
    (re.compile(r"^(?:the )?user\b", re.I), "i"),
    (re.compile(r"\bdo not\b", re.I), "don't"),
    (re.compile(r"^(?:now|currently|these days|nowadays),?\s+(?=(?:i|i'm|we|we're)\s)", re.I), ""),  # "now I'm in Seattle"
    # "Now in Seattle" is the user's; "Now my husband is vegan" is his
    (re.compile(r"^(?=(?:now|currently|still|originally|based)\s(?!,?\s*(?:my|our|his|her|their)\s))", re.I), "i'm "),
    (re.compile(r"^born\s", re.I), "i was born "),
    (re.compile(r"^(?:a )?new job (at|with)\b", re.I), r"i got a job \1"),
    (re.compile(r"^home base is\b", re.I), "my home base is"),
    (re.compile(r"^(?:work|working) (at|for)\b", re.I), r"i work \1"),
    # a dropped subject: "Just relocated to Berlin", "Moved to Denver last week"
    (re.compile(r"^(?=(?:just|recently|finally|now|then|later|eventually)\s+\w+ed\b|(?:moved|relocated|joined|started|switched|became|"
                r"went|got|quit|left)\b)", re.I), "i "),
    (re.compile(r"\bcannot\b", re.I), "can't"),
    # "Let's bump the gift budget to $800", "Please raise my budget to $800": the user's decision, as "I raise ..." says it
    (re.compile(rf"^(?:(?:let's|let us|please|ok(?:ay)?|so)[,\s]+)+(?=(?:just\s+)?{BUDGET_CHANGE}\s+"
                r"(?:the|my|our)\s+(?:[a-z]+\s+)?budget\b)", re.I), "i "),
    # "Hi, Tom here", "Robert Smith here.": the user's introduction, as "I'm Tom" says it
    (re.compile(r"^(?:(hi|hey|hello|hiya)(?: there| all| everyone)?[,!.]*\s+)?(?!(?:nobody|no one|everyone|everybody|someone|"
                r"somebody|anyone|nothing|everything|something|it|this|that|who|what|which|same|all|also|still|just|"
                r"right|over|out|up|us|me|you|them|him|her|newbie|noob|n00b|beginner|lurker|newcomer|novice|rookie|grandma|grandpa|"
                r"granny|nana|mom|mum|mommy|mama|dad|daddy|papa|parent|mother|father|problem|help|question|update|edit|"
                r"same|op|guys|folks|team|ditto|agreed|note|info|trouble|issue|confession|reminder|fyi)\b)"
                r"((?-i:[A-Z])[a-z']+(?:\s+(?-i:[A-Z])[a-z']+)?) here(?=\s*(?:$|[.!,;]))", re.I),
     lambda m: f"{m.group(1) + ', ' if m.group(1) else ''}i'm {m.group(2)}"),
    (re.compile(r"^i'm (?:bilingual|trilingual|multilingual)\b[\s,:;-]*(?:in\s+)?"
                r"(?=(?-i:[A-Z])\w+\s*(?:,|and|&|/)\s*(?-i:[A-Z]))", re.I), "i speak "),
    (re.compile(r"^with (?=(?:a|an|one|two|three|four|five|six|\d+) )", re.I), "i have "),  # "married with three kids"
    # "My name isn't Sam, it's Sean": the value said after the one denied
    (re.compile(r"^(my (?:(?:first |last |full |middle )?name|e-?mail|phone|number|budget|birthday|time ?zone)) "
                r"(?:isn't|is not|'s not) (?!on |in |at |the |a )[^,;]{1,40}[,;]\s*(?:it's|it is)\s+"
                r"(?!spelled|missing|wrong|right|fine|ok|okay|not)(?=[\w$€£¥])", re.I), r"\1 is "),
    (re.compile(r"\bi'm not\b", re.I), "i'm not"),
    # "My name is actually John", "my budget's, um, $500": a filler before the value is no part of it
    (re.compile(r"^(my(?: [\w-]+){1,4}?(?: is|'s))[\s,]+(?:(?:actually|really|truly|um+|uh+|erm|in fact|technically|"
                r"honestly)\b[\s,]+)+(?=\S)", re.I), r"\1 "),
    (re.compile(r"^(?:(?:oh|well|ok|okay|so|also|btw|by the way|fyi|actually|just so you know|heads up|"
                r"update|correction|quick update|oh and|and|but|yes|yeah|hey|hi|hello|note|"
                r"no(?!\s+(?:more\s+)?(?:[\w-]+\s+)?(?:e-?mails?|newsletters?|texts?|calls|ads|offers|promotions|marketing|spam)\b)"
                r")[,:!]?\s+)+", re.I), ""),
    (re.compile(r"^(?:[-*•·]+|\d+[.)])\s+"), ""),  # a list's bullet
    (re.compile(r"^(?:(?:officially|also|still|currently|actually|finally|really|just|now)\s+)*(?=(?:live in|work (?:at|for|as)|"
                r"speak)\b)", re.I), "i "),
    (re.compile(r"^(?=(?:budget|time ?zone|birthday|b-?day|email|phone|number) is\b|budget for [\w ]+? is\b"
                r"|(?!(?:my|our|the|your|a|this|that|his|her|their)\b)[a-z]+ budget is\b)", re.I), "my "),
    (re.compile(r"^(e-?mail|phone|cell|mobile|number|time ?zone|birthday|b-?day|allergies|budget)\s*:\s*", re.I), r"my \1 is "),
    # "New phone number: 206-555-0199", "My email changed to x@y.z", "my number is now ..."
    (re.compile(r"^(?:my )?(?:new|updated|current) ((?:e-?mail|phone|cell|mobile)(?: number| address)?|number|address)"
                r"(?: is)?\s*:?\s+", re.I), r"my \1 is "),
    (re.compile(r"^my ((?:e-?mail|phone|cell|mobile)(?: number| address)?|number|address|time ?zone|name) "
                r"(?:has |just )?(?:changed|been changed|changed over|switched) to\s+", re.I), r"my \1 is "),
    (re.compile(r"^i (?:work for myself|am self-employed|'m self-employed|run my own (?:business|company))\b", re.I),
     "i'm self-employed"),
]
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|my|me|mine|myself|we|we're|our|us)\b|^home is\b", re.IGNORECASE)
_IMPERATIVE_ABOUT_ME = re.compile(
    r"^(?:please\s+)?(?:(?:let's|let us|try to|try and)\s+keep|stay (?:under|below|within)|call|email|text|message|reach|"
    r"contact|charge|bill|schedule|book|use|send|stop|unsubscribe|remember|note|don't|do not|never|always|keep|no more|"
    r"no marketing|no (?:e-?mails?|texts?|calls|newsletters?))\b", re.IGNORECASE)
PLAN_WORDS = (r"trip|travel|vacation|holiday|honeymoon|wedding|party|birthday|gift|gifts|renovation|house|home|apartment|"
              r"rent|moving|move|car|food|grocery|groceries|dinner|hotel|flight|flights|shopping|christmas|event|monthly|"
              r"weekly|yearly|annual")
_THE_BUDGET = re.compile(rf"^(?:the|our) (?:total |overall |new |current |max(?:imum)? )?(?:[a-z]+ )?(?:{PLAN_WORDS}) "
                         r"(?:budget|spending limit)\b", re.IGNORECASE)  # "the trip budget": the user's plans
_QUESTION = re.compile(
    r"\?\s*$|^(?:what|what's|when|where|who|why|how|which|can you|could you|would you|will you|do you|did you|"
    r"are you|is it|is there|should i|can i|could i|shall|any idea)\b", re.IGNORECASE)
_SMALL_TALK = re.compile(r"^(?:thanks?|thank you|ok|okay|cool|great|sure|hi|hello|hey|bye|lol|nice|got it|sounds good)"
                         r"\b[\s!.,]*(?:you|so much|a lot)?[\s!.]*$", re.IGNORECASE)
_VERB_S = {"have": "has", "do": "does", "go": "goes", "'m": "is", "am": "is"}
_ADVERBS = {"never", "always", "usually", "only", "also", "really", "absolutely", "often", "sometimes", "now", "still",
            "just", "actually", "recently", "mostly", "currently", "finally", "no", "definitely", "generally"}
_NO_S = {"is", "was", "has", "does", "can", "will", "would", "should", "could", "might", "must", "did", "don't",
         "doesn't", "can't", "won't", "didn't", "longer", "had", "may", "shall", "need", "ought", "used"}
_IRREGULAR_PAST = frozenset(re.findall(r"\w+",
    "left quit got went came became began made took gave found bought sold lost won met ran saw said told kept spent sent "
    "built felt heard held paid put set read wrote knew grew drove flew ate drank fell forgot broke chose spoke stood taught "
    "thought brought caught sat slept swam understood wore woke rode sang shut split cut hit let lent led fed fought "
    "forgave hid hung lay meant overslept rang rose sought shot sank stole stuck struck swore threw tore won wound"))
"""Past forms without -ed: "I left Google" is "the user left Google", not "lefts"."""
_PRONOUNS = {"my": "the user's", "our": "the user's", "mine": "the user's", "me": "the user", "myself": "the user",
             "us": "the user"}


_ADDRESS = re.compile(r"[\w.%+-]+@[\w-]+(?:\.[\w-]+)+|\b(?:https?://|www\.)\S+", re.IGNORECASE)
_DOT = "\x00"


def sentences(text: str) -> list[str]:
    """The sentences of `text`; the dots of an e-mail address or a URL end none ("ANA@EXAMPLE.COM")."""
    text = _ADDRESS.sub(lambda m: m.group(0).replace(".", _DOT), text or "")
    return [s.strip().replace(_DOT, ".") for s in _SENTENCE.split(text) if s and s.strip(" .!?;")]


_LEAD = re.compile(r"^((?:after|once|since|ever since|as soon as)\s+(?:i|we)\s+(?:(?:just|first|finally|recently)\s+)?"
                   r"(?:moved|relocated|started|joined|retired|settled|got married|married)\b[^,;]*?)"
                   r"(?:\s*,\s*|\s+)(?=(?:i|we)(?:'m|'ve|'re)?\s)", re.IGNORECASE)
"""A past event before a sentence's main clause: "After I moved to Denver I got a dog" (read as two clauses)."""
_LATER = re.compile(r"\b(?:then|later|now|until|but|quit|left|no longer|anymore|not)\b|n't\b", re.IGNORECASE)


def narrative(sentence: str) -> bool:
    """A sentence that opens with a past event (`_LEAD`'s) and says more than one thing after it ("After I moved to
    Denver I started at Apple, and then I moved to Austin", "..., but I quit"), or whose main clause is not the user's:
    a story whose end is unsure, nothing in it stored ("When ..." is a question's form and stays one)."""
    if not re.match(r"(?:after|once|since|ever since|as soon as)\s+(?:i|we)\s+(?:(?:just|first|finally|recently)\s+)?"
                    r"(?:moved|relocated|started|joined|retired|settled|got married|married)\b", sentence, re.IGNORECASE):
        return False
    m = _LEAD.match(sentence)
    return not m or len(clauses(sentence)) != 2 or bool(_LATER.search(sentence[m.end(1):]))


def clauses(sentence: str) -> list[str]:
    sentence = COUPLE.sub("we", _LEAD.sub(r"\1, ", pair_ended(sentence), count=1))  # "my wife and I are ...": "we are ..."
    parts = [c.strip(" ,.!;") for c in _CLAUSE_SPLIT.split(sentence) if c and c.strip(" ,.!;")]
    head = parts and _HEADED.match(parts[0])  # "Quick context: vegetarian, allergic to nuts": I'm vegetarian
    if head and _said_alone(head.group("rest"), verb=len(parts) > 1):
        parts[0] = _LEFT_OUT.sub(_with_subject, head.group("rest"))
    elif len(parts) > 1 and _said_alone(parts[0], verb=False) and _LEFT_OUT.match(parts[1]):
        parts[0] = _LEFT_OUT.sub(_with_subject, parts[0])  # "Vegetarian, allergic to tree nuts": a list said of the user
    out, theirs = parts[:1], parts and _THEIR_SUBJECT.match(normalize_subject(parts[0]))
    am = parts and _I_AM.match(normalize_subject(parts[0]))  # "I'm 27, from Texas", "My name is Ana, from Ohio"
    for part in parts[1:]:
        bare = _LEFT_OUT.match(part)
        if not bare:  # a part with its own subject: the parts after it continue that one
            out.append(part)
            theirs, am = _THEIR_SUBJECT.match(normalize_subject(part)), _I_AM.match(normalize_subject(part))
        elif (bare.group("state") or "").lower() == "from":  # "a gift from Mom and from Dad": not the user's home
            out.append(_LEFT_OUT.sub(_with_subject, part) if am else part)
        elif theirs and bare.group("state") and not theirs.group("them"):
            out.append(f"we're {part}")  # "We're vegan and gluten free": a state of "we", the user's too
        elif theirs and (bare.group("state") or theirs.group("them")):
            out.append(part)  # "My kids are dairy free and gluten free": not the user's "I'm", left as said
        elif theirs and (bare.group("verb") or "").lower() in ("pay", "make", "earn"):
            out.append(f"we {part}")  # "We live in Denver and make $150k": the household's money, as said
        else:
            out.append(_LEFT_OUT.sub(_with_subject, part))
    return out


def continued(sentence: str) -> list[str]:
    """The clauses of `clauses(sentence)` that go on with the statement before them, their subject left out ("I'm
    gluten free and dairy free": the second): a statement moved to someone else moves them with it."""
    sentence = COUPLE.sub("we", _LEAD.sub(r"\1, ", pair_ended(sentence), count=1))  # "my wife and I are ...": "we are ..."
    parts = [c.strip(" ,.!;") for c in _CLAUSE_SPLIT.split(sentence) if c and c.strip(" ,.!;")]
    return [c for i, (c, p) in enumerate(zip(clauses(sentence), parts, strict=True)) if i and _LEFT_OUT.match(p)]


_I_AM = re.compile(r"i'm\b|my name is\b", re.IGNORECASE)
_THEIR_SUBJECT = re.compile(r"^(?:(?P<them>(?:both |all |one of )?(?:my|our|his|her|their|the)\s(?!(?:\w+\s+){1,2}and i\b)"
                            r"|he\b|she\b|they\b|he's|she's|they're|(?-i:[A-Z])[a-z]+(?:'s|\s+is|\s+are)\b)"
                            r"|we\b|we're\b|we've\b)", re.IGNORECASE)
"""A part whose subject is not the user ("my wife is vegan", "we're", "Sam is"): a bare state after it ("and gluten
free") is said of that subject, not of the user; a bare verb ("and work at Rush") too, but after "we" still the user's."""


_LEFT_OUT = re.compile(r"^(?:(?:officially|also|still|currently|actually|finally|really|just|now)\s+)*(?:(?P<verb>live|work|hate|"
                       r"love|like|dislike|prefer|speak|own|can't stand|don't like|" + _PAID + "|" + _KEPT + r")|(?P<state>"
                       r"from(?=\s+(?-i:[A-Z]))|allergic|vegan|vegetarian|pescatarian|married|single|divorced|retired|"
                       r"\w+ intolerant|" + _FREE + r"))\b", re.IGNORECASE)


_HEADED = re.compile(r"^(?:(?:quick|some|a bit of|brief|little|short)\s+)?(?:context|about me|a bit about me|background|"
                     r"profile|info|notes?|fyi|me|details|quick facts|facts about me|for reference|for context|re me)\s*:\s*"
                     r"(?P<rest>.+)$", re.IGNORECASE)
"""A list headed as the user's own ("Quick context: vegetarian, ..."): its first item is the user's as the others are."""


def _said_alone(part: str, *, verb: bool) -> bool:
    """Whether a first part is an item of a list said of the user: a state word alone ("vegetarian"; "allergic to
    nuts" with what it is to), not a word that goes on to name a thing ("Vegetarian restaurants"); with `verb` also a
    bare verb ("live in Leeds")."""
    bare = _LEFT_OUT.match(part)
    if not bare:
        return False
    return bool(bare.group("verb")) and verb if not bare.group("state") else (
        not part[bare.end():].strip() or bare.group("state").lower() == "allergic")


def _with_subject(m: re.Match[str]) -> str:
    """A part after the first whose "I" was left out, with it: "hate running" -> "I hate running"."""
    return ("I " if m.group("verb") else "I'm ") + m.group(0)


@functools.lru_cache(maxsize=4096)
def normalize_subject(clause: str) -> str:
    """The clause with its subject normalized (cached: one clause is read by `about_user`,
    `is_question` and `unhedged` in turn)."""
    out = clause.strip()
    for pattern, repl in _SUBJECT_FIXES:
        out = pattern.sub(repl, out)
    return out.strip()


def is_question(sentence: str) -> bool:
    return bool(_QUESTION.search(normalize_subject(sentence)))


def about_user(clause: str) -> bool:
    """Whether a clause reads as a statement about the user (first person, or a request
    about how to treat them), not a question or small talk."""
    norm = normalize_subject(clause)
    if not norm or _SMALL_TALK.match(norm) or is_question(norm):
        return False
    return bool(_FIRST_PERSON.search(norm) or _IMPERATIVE_ABOUT_ME.match(norm) or _THE_BUDGET.match(norm))


_FOREIGN_FIRST_PERSON = re.compile(
    r"(?:^|[\s,;.!?¿¡\"'(])(?:(?:ich|mein|meine|meinen|meiner|mir|mich|je|moi|soy|estoy|vivo|tengo|me llamo|sono"
    r"|mi chiamo|sou|estou|meu|minha|ik|mijn|jag|mitt|jeg|minun|jestem|mieszkam)(?=$|[\s,;.!?\"')])|j'(?=\w))"
    r"|[私我僕俺]|나는|저는|제가", re.IGNORECASE)
_ENGLISH_WORDS = re.compile(r"\b(?:i|i'm|i've|my|me|the|is|am|are|was|and|to|of|a|an|it|that|this|we|you|at|on|for"
                            r"|with|said|have|has)\b", re.IGNORECASE)


def foreign_first_person(clause: str) -> bool:
    """Whether a clause reads as a first-person statement in another language ("Ich wohne
    in Berlin", "J'habite à Paris", "私は東京に住んでいます"): the patterns read English, so it
    is reported as not read rather than dropped unseen."""
    return bool(_FOREIGN_FIRST_PERSON.search(clause)) and not _ENGLISH_WORDS.search(clause)


_SOMEONE_ELSE = re.compile(
    # "Now my husband is vegan", "And these days my wife is ...": a word of time or of going on before the subject
    r"^(?:(?:and|but|so|also|plus|oh|well|now|and now|actually|btw|by the way|these days|nowadays|lately|currently|"
    r"today|recently|since then|anyway)\b,?\s+)*"
    r"(?:my|our) (?:\w+ )?(?:ex|ex-(?:wife|husband|boyfriend|girlfriend|partner)|boss|wife|husband|partner|spouse|"
    r"sons?|daughters?|kids?|children|child|mom|mum|mother|dad|grandkids?|grandchildren|nieces?|nephews?|"
    r"father|parents?|brothers?|sisters?|siblings?|friends?|colleagues?|co-?workers?|managers?|team|neighbou?rs?|cousins?|"
    r"uncles?|aunts?|girlfriend|boyfriend|fianc[eé]e?|roommates?|flatmates?|landlord|clients?|customers?|grandma|grandpa|"
    r"grandparents?|in-laws|family|baby|students?|employees?|assistant)\b"
    # "my family budget", "my team's standup" are the user's; "my wife's budget" is hers
    r"(?!'s name|(?:\s+|'s\s+)(?:tongue|meetings?|lunch|calls?|standup|sync|dinner|events?|schedule)|\s+(?:budget|account))",
    re.IGNORECASE)
_INTENTION = re.compile(
    r"\b(?:learning|want to|wanna|going to|gonna|i'll|will|would like|i'd like|might|may|planning|plan to|thinking about|"
    r"thinking of|considering|hope to|hoping to|trying to|about to|someday|one day|back|later|tomorrow|soon|next|moving|"
    r"relocating|applied|applying|interviewing|interviewed|if|when|whether)\b"
    # having it later: "I'm getting a parrot", "we're adopting a puppy", "I want a cat", "I'd love to get a dog"
    r"|\b(?:i'm|we're|i am|we are)\s+(?:(?:also|finally|soon|probably|just|maybe)\s+)?(?:getting|adopting|buying|"
    r"bringing home|picking up|looking (?:to|for|into)|saving (?:up )?for)\b"
    # not of a pet the user has: "I'm getting my cat spayed", "a new collar for my dog Rex" ("a dog for my son" is a plan)
    rf"(?!\s+(?:my|our)\s+(?:{SPECIES_RE})\b(?:\s+(?-i:[A-Z])\w*)?\s+(?:a|an|some|[a-z]+ed)\b"
    rf"|[^,;.]*\b(?:for|of) (?:my|our) (?:(?:new|little|old)\s+)?(?:{SPECIES_RE})\b)"
    r"|\b(?:i|we) (?:\w+ )?(?:want|wanted|wish|need) (?:a|an|another|some|to get|to adopt|to have)\b"
    r"|\b(?:i'd|we'd|i would|we would) (?:really )?(?:love|like) (?:a|an|another|to (?:get|have|adopt|own|buy))\b",
    re.IGNORECASE)


_HEDGE = re.compile(r"^(?:i (?:think|guess|believe|suppose|heard|feel like|bet|assume|reckon|imagine)|"
                    r"i'm (?:pretty |fairly )?sure|i'm told|i was told)(?: that)?\s+", re.IGNORECASE)


def unhedged(clause: str) -> str:
    """'I think the meeting is on Eastern time' -> 'the meeting is on Eastern time'."""
    return _HEDGE.sub("", normalize_subject(clause))


def about_someone_else(clause: str) -> bool:
    """'My boss lives in Berlin': a statement whose subject is another person."""
    return bool(_SOMEONE_ELSE.match(normalize_subject(clause)))


_PAST = re.compile(
    r"\b(?:used to|tried (?:living|staying|being based)|"
    r"until (?:\d{4}|last|recently|a (?:few|couple)|\w+ (?:years?|months?) ago)|(?:was|were) (?:living|based|"
    r"staying)|(?<!'ve )(?<!have )(?<!has )(?<!'s )"
    r"lived in [^,;]+ (?:until|before|for \w+ years?|when|as a)|formerly|previously|in the past|back then|"
    # an event that happened there, no home: "My wife and I met in Paris", "we got married in Rome"
    r"(?:first |originally )?met|(?:got|get|getting|was|were|been) (?:married|engaged|hitched)|engaged|honeymooned|"
    r"fell in love|had our (?:wedding|honeymoon))\b",
    re.IGNORECASE)
_PASSING = re.compile(
    r"\b(?:this (?:week|weekend)|for (?:a|the|an) (?:conference|trip|visit|week|weekend|few days|meeting|wedding|holiday|"
    r"vacation)|on (?:vacation|holiday|a trip|business)|visiting|travell?ing|temporarily|"
    r"(?:until|till) (?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow|tonight|the weekend|next \w+|the end of \w+)|"
    r"at (?:my|a|our) [\w' ]*?(?:place|house|flat|apartment|parents|parents'))\b", re.IGNORECASE)
_SETTLED = re.compile(r"\b(?:moved|relocated|moving|settled|live|living|home|based|since)\b", re.IGNORECASE)


_YEARS_AGO = re.compile(r"\byears ago\b", re.IGNORECASE)
_MOVED_IN = re.compile(r"(?:\b(?:i|we|and)(?:'ve| have)?\s+|^)(?:(?:just|recently|finally|eventually|permanently)\s+)*"
                       r"(?:moved|relocated|emigrated|immigrated)(?:\s+(?:back|over|out|here|there))*\s+(?:to|into|here)\b"
                       r"(?!.*\b(?:for (?:a|an|one|two|three|a few|a couple of|\d+|six) (?:years?|months?|weeks?|semesters?|"
                       r"terms?)|then|later|after that|moved|relocated)\b)", re.IGNORECASE)
"""A move to a place said with when ("I moved to Berlin two years ago"): the home since, unless the move was for a
while ("for a year") or a first one ("I first moved to Berlin years ago" says later ones)."""


def not_now(clause: str) -> bool:
    """'I was living in Denver until 2020', 'I'm in Berlin this week for a conference': a stay
    that ended, or one for a while, not where the user lives. A move years ago with no later one
    said is the home now ("I moved to Berlin two years ago"); a stay years ago is past ("I lived in
    Berlin two years ago"). Of moves said one after the other ("... years ago and then to Paris"), the last."""
    if (later := later_move(clause)) is not None and later.group("v"):
        clause = f"I moved to {later.group('v')}"  # "I moved to Berlin years ago and then to Paris": Paris, said now
    if _PAST.search(clause) or (_YEARS_AGO.search(clause) and not _MOVED_IN.search(clause)):
        return True
    return bool(_PASSING.search(clause)) and not _SETTLED.search(clause)


def intention(clause: str) -> bool:
    """'I'm learning Korean', 'I'll email you tomorrow': a plan, a wish or a request for later."""
    return bool(_INTENTION.search(normalize_subject(clause)))


def third_person(clause: str) -> str:
    """'I'm in PST' -> 'The user is in PST'; 'I love sushi' -> 'The user loves sushi'."""
    words = normalize_subject(clause).split()
    out: list[str] = []
    i = 0
    while i < len(words):
        w, lw = words[i], words[i].lower()
        if lw == "i'm":
            out += ["the", "user", "is"]
        elif lw == "i":
            out += ["the", "user"]
            while i + 1 < len(words) and words[i + 1].lower() in _ADVERBS:
                out.append(words[i + 1])
                i += 1
            if i + 1 < len(words):
                nxt = words[i + 1].lower()
                if nxt == "don't":
                    out.append("doesn't")
                    i += 1
                elif (nxt not in _NO_S and nxt not in _IRREGULAR_PAST and re.fullmatch(r"[a-z]+", nxt)
                      and not nxt.endswith("ed")):
                    out.append(_VERB_S.get(nxt, nxt + ("es" if re.search(r"(s|sh|ch|x|o)$", nxt) else "s")))
                    i += 1
        elif lw in _PRONOUNS and (w == lw or (i == 0 and w == lw.capitalize())):
            # only the pronoun: "the US", "2,500 US dollars", "Meet Me Inc", "Our Lady of Lourdes" are names
            out.append(_PRONOUNS[lw])
        elif lw in ("i've", "we've"):
            out += ["the", "user", "has"]
        elif lw in ("i'll",):
            out += ["the", "user", "will"]
        elif lw in ("i'd",):
            out += ["the", "user", "would"]
        elif lw in ("we", "we're"):
            out += ["the", "user"] + (["is"] if lw == "we're" else [])
        else:
            out.append(w)
        i += 1
    text = " ".join(out).strip()
    return text[:1].upper() + text[1:] if text else text
