"""Words that say what the user is, not who: "I'm Deaf", "I'm Hispanic", "I'm Widowed".

`introductions` reads "I'm <Capitalized>" as a name; a word here is never that name, whatever
its capital: a people, an ethnicity or a nationality, a condition of body or mind, a marital
state, or another word that describes a person. Real names that are also such words stay names
("Grace", "Joy", "Hope", "Faith": not listed here), and a word that is no state by its form
alone is judged by `trait` ("Widowed", "Exhausted", "Nervous", "Thankful", "Homeless").
"""

from __future__ import annotations

import re

_PEOPLES = frozenset((
    "hispanic", "latino", "latina", "latinx", "latine", "chicano", "chicana", "black", "white", "brown", "asian", "arab",
    "arabic", "caucasian", "biracial", "multiracial", "mixed", "indigenous", "native", "aboriginal", "inuit", "maori",
    "metis", "métis", "mestizo", "mestiza", "creole", "cajun", "romani", "roma", "gypsy", "kurd", "pashtun", "hmong",
    "filipino", "filipina", "pinoy", "pinay", "thai", "greek", "dutch", "swiss", "czech", "slovak", "welsh", "scots",
    "scottish", "irish", "basque", "catalan", "afrikaner", "boer", "zulu", "xhosa", "yoruba", "igbo", "hausa", "akan",
    "tamil", "punjabi", "gujarati", "bengali", "sindhi", "iraqi", "israeli", "pakistani", "bangladeshi", "nepali",
    "somali", "saudi", "kuwaiti", "omani", "yemeni", "qatari", "emirati", "azerbaijani", "afghan", "afghani", "kazakh",
    "uzbek", "tajik", "turkmen", "kyrgyz", "lao", "samoan", "tongan", "argentine", "moroccan", "kenyan",
    "ugandan", "cuban", "german", "venezuelan", "tibetan", "rwandan", "sri lankan", "american", "mexican", "puerto rican",
    "dominican", "haitian", "jamaican", "trinidadian", "bajan", "guyanese", "ghanaian", "ethiopian", "eritrean", "sudanese",
    "congolese", "senegalese", "malian", "nigerian", "cameroonian", "tanzanian", "zimbabwean", "zambian", "malawian",
    "korean", "japanese", "chinese", "taiwanese", "vietnamese", "burmese", "cambodian", "khmer", "malay", "malaysian",
    "indonesian", "singaporean", "indian", "persian", "iranian", "turkish", "armenian", "georgian", "lebanese", "syrian",
    "jordanian", "palestinian", "egyptian", "libyan", "tunisian", "algerian", "yankee", "texan", "midwestern", "southern",
    "northern", "european", "african", "polynesian", "melanesian", "micronesian", "hawaiian", "alaskan", "kiwi", "aussie",
    "brit", "british", "english", "canuck", "quebecois", "québécois", "flemish", "walloon", "gaelic", "cornish",
    "pole", "swede", "turk", "serb", "croat", "slovene", "yank", "briton", "quebecer", "frenchman", "englishman",
    "irishman", "scotsman", "welshman", "dutchman",
    # peoples ending as given names do ("-ian", "-ean", "-ese"): `introductions` reads those alone as no name, but after
    # a greeting ("Hi, I'm Canadian") only a word listed here is no name
    "canadian", "brazilian", "australian", "austrian", "belgian", "chilean", "colombian", "peruvian", "bolivian",
    "ecuadorian", "argentinian", "uruguayan", "paraguayan", "guatemalan", "honduran", "salvadoran", "salvadorean",
    "nicaraguan", "costa rican", "panamanian", "bahamian", "barbadian", "belizean", "grenadian", "surinamese",
    "mozambican", "mauritian", "maldivian", "montenegrin", "cypriot", "maltese", "new zealander", "nepalese",
    "bhutanese", "mongolian", "moldovan", "slovakian", "slovenian", "bosnian", "liberian", "gambian", "namibian",
    "angolan", "chadian", "gabonese", "togolese", "beninese", "ivorian", "burundian", "djiboutian", "fijian",
    "timorese", "spaniard", "dane", "finn", "scot", "russian", "ukrainian", "belarusian", "romanian", "bulgarian",
    "hungarian", "serbian", "croatian", "albanian", "macedonian", "estonian", "latvian", "lithuanian", "norwegian",
    "italian", "sicilian", "bavarian", "prussian", "californian", "floridian", "bostonian", "parisian", "londoner",
    "new yorker", "virginian", "carolinian", "oregonian", "ontarian", "albertan", "tasmanian", "siberian", "corsican",
))
"""A people, an ethnicity, a nationality (or its short form): "I'm Hispanic", "I'm Filipino", "I'm Iraqi"."""

_CONDITIONS = frozenset((
    "deaf", "blind", "mute", "autistic", "dyslexic", "dyspraxic", "diabetic", "prediabetic", "epileptic", "asthmatic",
    "celiac", "coeliac", "anemic", "anaemic", "arthritic", "allergic", "disabled", "handicapped", "paralyzed",
    "paralysed", "paraplegic", "quadriplegic", "immunocompromised", "neurodivergent", "neurotypical", "adhd", "bipolar",
    "schizophrenic", "anorexic", "bulimic", "depressed", "anxious", "sober", "colorblind", "colourblind", "hoh",
    "deafblind", "hearing", "sighted", "vaccinated", "unvaccinated", "infertile", "menopausal", "postpartum",
    "ill", "unwell", "injured", "hurt", "recovering", "healthy", "fit", "overweight", "obese", "underweight",
    "left-handed", "right-handed", "ambidextrous", "nearsighted", "farsighted", "insomniac", "lactose", "intolerant",
))
"""A condition of body or mind: "I'm Deaf", "I'm Autistic", "I'm Diabetic"."""

_STATES = frozenset((
    "widowed", "widow", "widower", "engaged", "separated", "partnered", "remarried", "unmarried", "wed", "newlywed",
    "coupled", "taken", "available", "celibate", "male", "female", "man", "woman", "nonbinary", "non-binary", "cis",
    "cisgender", "transgender", "intersex", "pansexual", "demisexual", "homosexual", "heterosexual", "old", "young",
    "older", "younger", "tall", "short", "bald", "broke", "poor", "wealthy", "shy", "introverted", "extroverted",
    "introvert", "extrovert", "ambivert", "lonely", "bored", "hungry", "thirsty", "cold", "hot", "warm", "awake",
    "asleep", "sleepy", "nervous", "excited", "curious", "confused", "lost", "stuck", "stressed", "exhausted", "tipsy",
    "drunk", "high", "vegan", "vegetarian", "pescatarian", "kosher", "halal", "adopted", "orphaned", "homeless",
    "jobless", "unemployed", "employed", "freelance", "pregnant", "expecting", "childless", "childfree", "blessed",
    "grateful", "thankful", "proud", "honored", "honoured", "humbled", "delighted", "thrilled", "glad", "upset",
    "angry", "mad", "furious", "annoyed", "worried", "scared", "afraid", "terrified", "embarrassed", "ashamed",
    "jealous", "right", "wrong", "correct", "late", "early", "local", "foreign", "alone", "online", "offline",
    "away", "around", "available", "unavailable", "fine", "well", "okay", "alright", "ok", "great", "good", "bad",
    "awesome", "cool", "new", "senior", "retired", "student", "atheist", "agnostic", "spiritual",
    # slang and moods too short for `_FORM`: "I'm Stoked", "I'm Skint"
    "stoked", "pumped", "hyped", "psyched", "jazzed", "buzzed", "baked", "wasted", "stoned", "smashed", "wrecked",
    "gutted", "vaxxed", "jabbed", "boosted", "wired", "fried", "toasted", "beat", "spent", "starving", "famished",
    "peckish", "skint", "legit", "honest", "human", "alive", "dead", "crazy", "insane", "sane", "lit", "chill",
    "knackered", "shattered", "chuffed", "hammered", "plastered", "sloshed",
    "rich", "clean", "mean", "lean", "posh", "selfish", "childish", "foolish", "stylish", "feverish", "sluggish",
))
"""A marital state, a gender or orientation, an age, a mood and other words that describe a person."""

_NAMES_OF_THEIR_FORM = frozenset((
    "ahmed", "mohammed", "muhammed", "mohamed", "hamed", "javed", "majed", "sayed", "rashed", "saeed", "rasheed",
    "mildred", "winifred", "alfred", "manfred", "siegfried", "wilfred", "wilfried", "elfried", "fred", "ted", "ed",
    "jed", "ned", "reed", "zed", "jarred", "jared", "khaled", "jamshed", "mehmed", "zahed", "obed", "eldred", "precious",
))
"""Names with the form of a described state ("Ahmed", "Mildred" end like "Widowed")."""
_FORM = re.compile(r"^(?![a-z]*(?:[^s]hamed|xamed|fried)$)[a-z][a-z-]{3,}(?:[^e]ed|ous|ful|less)$")
"""A word whose ending makes it a state or a quality: "Widowed", "Separated", "Nervous", "Grateful", "Homeless" (not
the names "Muhamed", "Maxamed", "Gottfried", "Winfried")."""


def trait(word: str) -> bool:
    """Whether `word` (one word, or a people's name like "Sri Lankan") says what a person is
    rather than who: never a name after "I'm"."""
    w = word.strip().lower().rstrip(".!,")
    if w in _NAMES_OF_THEIR_FORM:
        return False
    return w in _PEOPLES or w in _CONDITIONS or w in _STATES or bool(_FORM.match(w))
