"""RuleReasoner: the offline default. Extraction by slot patterns, then prototype
statements for what no pattern reads (when it has an embedder); classification and
contradiction by comparing canonical values (`vault_ray.values`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .. import places
from ..embedders import Embedder
from ..models import Claim, Fact, Op
from ..qualifiers import changed_item, changes
from ..registry import RegistryEntry
from ..roles import denies, other_holder, same_role
from ..values import canonical, singular, split_stance, value_kind
from .base import Extraction, JudgeCase, Judgement, Message, OwnVerdict
from .diets import already_said
from .judging import judge_sides
from .labels import LabelMatcher, by_shared_words, described, label_phrase
from .prototypes import PrototypeClassifier

if TYPE_CHECKING:
    from .lexicon import Draft
# The text path (turns.py, extraction.py and the modules they use: about a second of CPU to import) is
# imported when a text is first read: a shard actor, the control actor and most CLI commands never read one.

_WORD = re.compile(r"[a-z0-9]+")


def normalized_value(claim: Claim | Fact) -> str:
    """The claim's canonical value for comparison (`values.canonical`): of its `value`,
    else of one parsed from its text, else its text with case and punctuation folded.
    Equal canonical values corroborate; they never contradict."""
    if claim.value:
        return canonical(claim.entity, claim.value)
    from .extraction import read_clause  # noqa: PLC0415  (imported when first used: see the imports)
    family = claim.entity.split(".")[:2]
    for draft in read_clause(claim.text):
        if draft.entity.split(".")[:2] == family:
            return canonical(claim.entity, draft.value)
    return " ".join(_WORD.findall(claim.text.lower()))


def polarity_object(value: str) -> tuple[str, str]:
    """'likes:italian' -> ('likes', 'italian'); 'not:dog' -> ('dislikes', 'dog'): a
    retraction stands against the plain value. A value without a stance is positive; a count
    of none ('0 dog', 'zero dog', 'no dog') is a denial of the thing."""
    stance, obj = split_stance(value)
    none = _NONE.match(obj.strip())
    if none and stance is None:
        return "dislikes", none.group(1)
    return ("dislikes" if stance in ("dislikes", "not") else "likes"), obj.strip()


_NONE = re.compile(r"^(?:0|zero|no|none of (?:the|my)?)\s+(\D+)$")


def refines(new: str, old: str, *, name: bool = False) -> bool:
    """`new` says everything `old` says and more ('7am' -> '7am on weekdays'), in words that
    change nothing of it ('vegan' -> 'used to be vegan' or 'not:vegan' is no refinement,
    `qualifiers.py`), in the same stance."""
    new_words, old_words = set(_WORD.findall(new)), set(_WORD.findall(old))
    return (bool(old_words) and old_words < new_words and not changes(new_words - old_words, name=name)
            and split_stance(new)[0] == split_stance(old)[0])


_YEAR = re.compile(r"^(?:19|20)\d\d$")


def detail_of(entity: str, a: str, b: str) -> bool:
    """Whether one of two values says the other and more, in words that change nothing of it
    (no "former", "not", "expired", "vice", "used to", `qualifiers.py`): for names and free text; for places, a city in its
    state or country; zones, amounts, phones and the like compare whole ("York" is no part
    of "New York")."""
    if split_stance(a)[0] or split_stance(b)[0]:
        return False
    if value_kind(entity) == "place":  # "lisbon" in "portugal": a city in its state or country
        return places.within(a, b) or places.within(b, a)
    if value_kind(entity) not in ("name", "text"):
        return False
    wa, wb = set(_WORD.findall(a)), set(_WORD.findall(b))
    small, big = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    more = big - small
    # a number said more exactly is another number ("9" / "9.5"), save a date's year ("march 5" / "march 5 1990")
    numbers = {w for w in more if w.isdigit() and not _YEAR.match(w)}
    return bool(small) and small < big and not changes(more, name=value_kind(entity) == "name") and not numbers


_COUNTED = re.compile(r"^(?P<n>\d+)\s+(?P<noun>\D+)$")


def counted(obj: str) -> tuple[int | None, str]:
    """'2 child' -> (2, 'child'); 'child' -> (None, 'child'): a count said with the noun."""
    m = _COUNTED.match(obj)
    count, noun = (int(m.group("n")), m.group("noun").strip()) if m else (None, obj)
    noun = noun.partition(":")[0].strip() or noun  # 'dog:rex' is a dog: "my dog died" retracts it
    return count, _IRREGULAR.get(noun) or singular(noun)


_IRREGULAR = {"children": "child", "kid": "child", "kids": "child",  # "2 children" / "3 kids": two counts of one thing
               "grandchildren": "grandchild", "people": "person", "mice": "mouse", "geese": "goose"}


def contradicts(a: str, b: str, cardinality: str) -> bool:
    """'one': any two different values. 'many': a value and its retraction ('cat' /
    'not:cat'), or two counts of the same thing ('2 children' / '3 children'; a bare
    'child' counts one), or two people in a role one holds at a time ('wife:maria' /
    'wife:anna', `roles.py`), while different things stand side by side ('cat' / 'dog',
    'dog:rex' / 'dog:max')."""
    if cardinality == "many":
        pa_, oa = polarity_object(a)
        pb, ob = polarity_object(b)
        (na, thing_a), (nb, thing_b) = counted(oa), counted(ob)
        if pa_ == pb == "likes" and (other_holder(oa, ob) or changed_item(oa, ob)):
            return True  # "my wife is Maria" / "my wife is Anna": one wife at a time; "dog:rex" / "dog:rex died"
        if pa_ != pb and (said := denies(*((oa, ob) if pa_ == "dislikes" else (ob, oa)))) is not None:
            return said  # "not:mother:ann" denies "mom:ann"; a bare "not:father" denies any father
        # different things stand side by side; but "not:pet" ("I don't have pets") retracts every pet
        if oa != ob and thing_a != thing_b and not (pa_ != pb and "pet" in (thing_a, thing_b)):
            return False
        if oa != ob and pa_ != pb and ":" in (oa if pa_ == "dislikes" else ob):
            return False  # "Rex died" (not:dog:rex) retracts Rex, not Max (dog:max) nor a dog whose name was not said
        if pa_ != pb:
            return True
        if ":" in oa or ":" in ob:
            return False  # "dog:rex" is one of the "2 dogs": naming one of several leaves the count
        return pa_ == "likes" and (na is not None or nb is not None) and (na or 1) != (nb or 1)
    (sa, oa), (sb, ob) = split_stance(a), split_stance(b)
    if "not" in (sa, sb):  # "not:vegan" denies vegan only: it stands beside "vegetarian"
        # but "not:rent" ("I don't pay rent anymore") denies any rent, as "not:pet" every pet
        return sa != sb and (oa.strip() == ob.strip() or (oa if sa == "not" else ob).strip() in _DENIED_WHOLE)
    return a != b


def kept_denial(claims: Iterable[Claim]) -> tuple[str, str] | None:
    """(denial, denied) as written, for the first two claims of a `many` entity of which one
    denies the other's value by `contradicts` ('not:peanuts' / 'peanuts', 'not:pet' / 'dog:rex',
    'no dog' / 'dog:rex'): values no resolution may keep side by side; None if none do. A
    dislike is no denial ('likes:jazz' / 'dislikes:jazz' may both be kept: mixed feelings)."""
    seen = {normalized_value(c): c.value or c.text for c in claims}
    denials = [v for v in seen if polarity_object(v)[0] == "dislikes" and split_stance(v)[0] != "dislikes"]
    for denial in denials:
        for other in seen:
            if polarity_object(other)[0] == "likes" and contradicts(denial, other, "many"):
                return seen[denial], seen[other]
    return None


def same_item(a: str, b: str) -> bool:
    """Whether two values of a `many` entity are about one item: one thing whatever the stance
    ('likes:jazz' / 'dislikes:jazz'), two counts or a denial of it ('2 cats' / '5 cats',
    'not:dog' / 'dog:rex'), or one single-valued role whoever holds it ('wife:maria' /
    'husband:anna', `roles.py`). An agent's later claim about an item replaces its own earlier
    one (`RuleReasoner.classify`), and consensus counts its newest claim per item (`engine/tally.py`)."""
    return polarity_object(a)[1] == polarity_object(b)[1] or same_role(a, b) or contradicts(a, b, "many")


def at_odds(entity: str, a: str, b: str, cardinality: str) -> bool:
    """Whether two values of `entity` may not both stand: they contradict, and on a `one`
    entity neither only says more of the other (`detail_of`: "maria" / "maria gonzalez")."""
    return contradicts(a, b, cardinality) and not (cardinality != "many" and detail_of(entity, a, b))


def agrees(entity: str, a: str, b: str, cardinality: str) -> bool:
    """Whether two canonical values say the same in other words (consensus counts their agents
    for one value): equal; on a `one` entity, one says more of the other ("maria" / "maria
    gonzalez", `detail_of`: never a conflict); on a `many` entity, one holder of a single-valued
    role named by any of its words or more fully ("mom:ann" / "mother:ann lee", `roles.py`)."""
    if a == b:
        return True
    if cardinality == "many":
        return same_role(a, b) and not other_holder(a, b) and not changed_item(a, b)
    return detail_of(entity, a, b)


_DENIED_WHOLE = frozenset({"rent", "mortgage", "income"})
"""Denials of an amount entity as a whole (`user.rent`: "not:rent"): no amount at all, against any amount."""


_FAMILIES = ("user.budget.", "user.consent.", "user.schedule.")
_STRICT_KINDS = frozenset({"amount", "consent"})


def _may_be(label: str, candidate: str) -> bool:
    """Whether a new label may be re-keyed to `candidate`: "user.budget.birthday" (a spending
    limit) is never the birthday, a consent is never a name; a label of a family (a budget for a
    purpose, a consent, a routine) stays in it."""
    family = next((f for f in _FAMILIES if label.startswith(f)), None)
    if family and not candidate.startswith(family):
        return False
    kinds = {value_kind(label), value_kind(candidate)}
    return len(kinds) == 1 or not kinds & _STRICT_KINDS


def _offered(entity: str, candidates: Sequence[str]) -> bool:
    return entity in candidates or any(c.endswith(".*") and entity.startswith(c[:-1]) for c in candidates)


def _same_value(entity: str, read: str, given: str) -> bool:
    """Whether the value the patterns read is the fact's own ("on monday 7am" / "monday
    7am", "visa" / "visa card"): then the statement is about that entity's slot."""
    if canonical(entity, read) == canonical(entity, given):
        return True
    a, b = set(_WORD.findall(read.lower())), set(_WORD.findall(given.lower()))
    labelled = ":" in read.removeprefix("not:")  # "cat:Tom", "wife:Sarah": the name alone ("Tom") is another thing
    return bool(a and b) and (a <= b or (b <= a and not labelled))


class RuleReasoner:
    """Offline reasoner: no network, deterministic."""

    name = "rules"

    def __init__(self, embedder: Embedder | None = None, *, prototype_threshold: float | None = None) -> None:
        """`embedder` (the vault's, passed by `Vault.open`) lets extraction classify what no
        pattern reads by the registry's prototype statements; without one, patterns only."""
        self.classifier = PrototypeClassifier(embedder, threshold=prototype_threshold) if embedder is not None else None
        # label evidence needs vectors of meaning: hashing vectors of two or three label words
        # collide (user.pref.topic12 scored 0.67 against user.email and was re-keyed there);
        # without them a label needs two words in common with a candidate
        meaningful = embedder is not None and not str(getattr(embedder, "name", "")).startswith("hashing")
        self.labels = LabelMatcher(embedder) if meaningful else None

    def __getstate__(self) -> dict[str, object]:
        # a copy sent to a shard actor leaves the embedder behind: shards never extract
        # nor disambiguate, and torch stays out of them
        return {**self.__dict__, "classifier": None, "labels": None}

    def extract(self, messages: Sequence[Message] | str, registry: Sequence[RegistryEntry] = ()) -> list[Fact]:
        return list(self.extract_turn(messages, registry).facts)

    def extract_turn(self, messages: Sequence[Message] | str, registry: Sequence[RegistryEntry] = ()) -> Extraction:
        """The facts of the latest user turn and what reads as a statement but gave none."""
        from .turns import read_turn  # noqa: PLC0415  (the text path's patterns: imported when a text is first read)
        return read_turn(messages, registry, self.classifier)

    def classify(self, incoming: Claim, own: Sequence[Claim], cardinality: str) -> OwnVerdict:
        new = normalized_value(incoming)
        replaced, refined = [], []
        diet = incoming.entity.rsplit(".", 1)[-1] == "diet" and cardinality != "many"
        for claim in own:
            old = normalized_value(claim)
            if old == new:
                return OwnVerdict(Op.NOOP, (claim.id,), "already known")
            if diet and already_said(incoming.value or "", incoming.text, claim.value or ""):
                # "I don't eat meat" after "I'm vegan": vegan says it; the looser diet must not replace it
                return OwnVerdict(Op.NOOP, (claim.id,), f"already known: {claim.value} says it")
            if cardinality == "many":
                if contradicts(new, old, "many"):
                    replaced.append(claim.id)
                elif not same_item(new, old):
                    continue  # another item; but "wife:maria gonzalez" says more of "wife:maria"
                elif refines(new, old):
                    refined.append(claim.id)
            elif refines(new, old, name=value_kind(incoming.entity) == "name"):
                refined.append(claim.id)
            elif contradicts(new, old, cardinality):
                replaced.append(claim.id)
        if replaced:
            return OwnVerdict(Op.REPLACE, tuple(replaced + refined), "contradicts own earlier claim")
        if refined:
            return OwnVerdict(Op.UPDATE, tuple(refined), "refines own earlier claim")
        return OwnVerdict(Op.ADD, (), "new for this agent")

    def conflicts(self, incoming: Claim, others: Sequence[Claim], cardinality: str) -> list[str]:
        """Other agents' claims the incoming one contradicts. One that only says more or less
        of the same ("Maria" / "Maria Gonzalez", "product manager" / "senior product manager",
        "March 5" / "March 5, 1990") is no contradiction: both stand."""
        new = normalized_value(incoming)
        out = []
        for c in others:
            old = normalized_value(c)
            if at_odds(incoming.entity, new, old, cardinality):
                out.append(c.id)
        return out

    # -- entity resolution ------------------------------------------------------------------
    def label_texts(self, labels: Iterable[str]) -> list[str]:
        """The phrases of these labels a disambiguation would embed and has no vector of
        (none without an embedder): the vault embeds them with the facts' texts."""
        return self.labels.missing(label_phrase(label) for label in labels) if self.labels is not None else []

    def remember_labels(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        if self.labels is not None:
            self.labels.remember(texts, vectors)

    def prepare(self, cases: Sequence[tuple[Fact, Sequence[str], Sequence[RegistryEntry]]]) -> None:
        """Before a batch of `disambiguate` calls: embed every label and candidate text the
        label evidence will compare, in one call. A case `disambiguate` settles without label
        evidence needs none: the statement reads as a candidate, or as other slots only, or no
        candidate is left to compare (only patterns such as `user.schedule.*`, or keys of
        another kind, `_may_be`): most new labels of a bulk write (`_compared`)."""
        if self.labels is None:
            return
        texts = []
        for fact, candidates, registry in cases:
            _read, concrete = _compared(fact, candidates)
            if concrete:
                entries = {e.key: e for e in registry}
                texts.append(label_phrase(fact.entity))
                texts += [t for c in concrete for t in (label_phrase(c), described(c, entries.get(c)))]
        self.labels.warm(texts)

    def disambiguate(self, fact: Fact, candidates: Sequence[str], registry: Sequence[RegistryEntry] = ()) -> str | None:
        """Which candidate entity a new label's fact is about, or None to keep its label.

        1. What the statement says: the patterns read the claim's text (first person
           again) as one of the candidates, with the fact's own value.
        2. With an embedder, what the label means: its words next to each candidate's
           words and registry description (labels.py), when one clearly leads.
        3. Without one (or with hashing vectors), shared words of the text and the candidates
           (two at least), among the candidates whose label shares a word with the fact's
           (labels.py, `by_shared_words`)."""
        read, concrete = _compared(fact, candidates)
        if not concrete:  # settled by the statement, or nothing to compare the label with
            return read
        if self.labels is not None:
            return self.labels.choose(fact.entity, concrete, registry)
        return by_shared_words(fact, concrete, registry)

    def judge(self, case: JudgeCase) -> Judgement:
        """Without a language model: a clear authority gap between the sides (values, with the
        claims that say them in other words), then a clear confidence gap, else ambiguous
        (`judging.py`)."""
        def together(a: Claim, b: Claim) -> bool:
            return agrees(a.entity, normalized_value(a), normalized_value(b), case.cardinality)

        def apart(a: Claim, b: Claim) -> bool:
            return at_odds(a.entity, normalized_value(a), normalized_value(b), case.cardinality)

        return judge_sides(case, together, apart)

    def close(self) -> None:
        pass


@lru_cache(maxsize=16_384)
def _statement_drafts(text: str) -> tuple[Draft, ...]:
    """What the patterns read in a statement put in the first person (`prepare` and then
    `disambiguate` read each new label's statement: once is enough)."""
    from .extraction import read_clause  # noqa: PLC0415
    from .paraphrase import first_person  # noqa: PLC0415
    return tuple(read_clause(first_person(text)))


def _reads_elsewhere(fact: Fact, candidates: Sequence[str]) -> bool:
    """Whether the statement reads as facts about other slots only: "the user is 34 years
    old" is an age, not the birthday a label's words may resemble; "the user's work email
    is bob@acme.com" an email, not the employer. The label stays its own entity."""
    read = {draft.entity for draft in _statement_drafts(fact.text)}
    return bool(read) and not any(_offered(entity, candidates) for entity in read)


def _compared(fact: Fact, candidates: Sequence[str]) -> tuple[str | None, list[str]]:
    """How `disambiguate` goes for `fact`: (the candidate its statement reads as, []) when
    the statement settles it; else (None, the concrete candidates whose label evidence it
    weighs), none when the statement reads as other slots only (`_reads_elsewhere`) or only
    patterns and keys of another kind (`_may_be`) were offered. `prepare` embeds the label
    phrases of exactly the cases with candidates to compare."""
    candidates = [c for c in candidates if _may_be(fact.entity, c)]
    read = _read_statement(fact, candidates)
    if read is not None:
        return read, []
    if _reads_elsewhere(fact, candidates):
        return None, []
    return None, [c for c in candidates if not c.endswith(".*")]


def _read_statement(fact: Fact, candidates: Sequence[str]) -> str | None:
    """The candidate the fact's statement, read again in the first person, is about
    (with the fact's own value), if any."""
    for draft in _statement_drafts(fact.text):
        if _offered(draft.entity, candidates) and (not fact.value or _same_value(draft.entity, draft.value, fact.value)):
            return draft.entity
    return None
