"""Label evidence for entity resolution: how close a new label's words are to a
candidate entity's words and, for a registered entity, to its description.

`user.residence` and `user.location` share no word, and their statements ("the user
lives in Berlin", "my home city is Paris") may share little; but "residence" and
"location: the city or country where the user lives" are close in meaning. The rule
reasoner weighs this when it disambiguates a new label (with an embedder)."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np

from ..embedders import Embedder
from ..models import Fact
from ..registry import RegistryEntry
from ..values import value_kind
from .contrast import respelled, singular_word, words

LABEL_FLOOR = 0.5
"""Least similarity for a label to name the same thing as a candidate (MiniLM: true
drift pairs 0.53-0.93, the closest wrong ones 0.45; docs/policies.md)."""
LABEL_MARGIN = 0.05
"""How far the best candidate must lead the next one."""


@lru_cache(maxsize=65_536)
def label_phrase(key: str) -> str:
    """`user.home_town` -> "home town"; `user.schedule.gym` -> "schedule gym"."""
    parts = key.split(".")
    if parts[0] == "user" and len(parts) > 1:
        parts = parts[1:]
    return " ".join(parts).replace("_", " ").strip()


def described(key: str, entry: RegistryEntry | None) -> str:
    """A candidate's words with its registry description, when it has one."""
    phrase = label_phrase(key)
    return f"{phrase}: {entry.description}" if entry is not None and entry.description else phrase


def label_texts(keys: Sequence[str], registry: Sequence[RegistryEntry] = ()) -> list[str]:
    """Every text `LabelMatcher` may embed for these labels and entries (precompute them
    where the embedder cannot embed new text, as the evaluation's replays)."""
    entries = {e.key: e for e in registry}
    texts = [label_phrase(k) for k in keys] + [described(k, entries.get(k)) for k in keys]
    texts += [described(e.key, e) for e in registry] + [label_phrase(e.key) for e in registry]
    return list(dict.fromkeys(texts))


class LabelMatcher:
    MAX_CACHED = 65_536
    """Label and description vectors kept (least recently used dropped first)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self.changed = False
        """Vectors were added since `kept()` was last saved (the embedded store saves them at close)."""

    def kept(self) -> tuple[list[str], np.ndarray]:
        """Every kept (text, vector), least recently used first, as texts and one matrix."""
        texts = list(self._vectors)
        matrix = np.stack(list(self._vectors.values())) if texts else np.zeros((0, self.embedder.dim), np.float32)
        return texts, matrix

    def missing(self, texts: Iterable[str]) -> list[str]:
        """The texts (distinct, in order) with no vector kept yet."""
        return [t for t in dict.fromkeys(texts) if t not in self._vectors]

    def remember(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Keep vectors embedded elsewhere (the vault embeds new label phrases together
        with the facts' texts: one model call, not two)."""
        for text, vector in zip(texts, np.asarray(vectors, dtype=np.float32), strict=True):
            self._vectors[text] = vector
            self._vectors.move_to_end(text)
            self.changed = True
        while len(self._vectors) > self.MAX_CACHED:
            self._vectors.popitem(last=False)

    def warm(self, texts: Iterable[str]) -> None:
        """Embed, in one call, every text not kept yet (those kept count as used now)."""
        missing = self._used(texts)
        if missing:
            self.remember(missing, self.embedder.embed(missing))

    def _used(self, texts: Iterable[str]) -> list[str]:
        """The texts with no vector kept (as `missing`); the kept ones become the most
        recently used. A registry key's phrase, compared with one new label after another,
        stays kept however many new labels' phrases pass through (they are dropped first)."""
        missing = []
        for text in dict.fromkeys(texts):
            if text in self._vectors:
                self._vectors.move_to_end(text)
            else:
                missing.append(text)
        return missing

    def _embed(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        missing = self._used(texts)
        fresh = dict(zip(missing, np.asarray(self.embedder.embed(missing), dtype=np.float32), strict=True)) if missing else {}
        out = {t: fresh[t] if t in fresh else self._vectors[t] for t in texts}
        if fresh:
            self.remember(list(fresh), np.asarray(list(fresh.values())))
        return out

    def rank(self, label: str, candidates: Sequence[str], registry: Sequence[RegistryEntry] = ()) -> list[tuple[float, str]]:
        """(similarity, candidate), best first: the better of the candidate's bare words and
        its words with its registry description."""
        entries = {e.key: e for e in registry}
        mine = label_phrase(label)
        pairs = [(c, label_phrase(c), described(c, entries.get(c))) for c in candidates if label_phrase(c)]
        if not pairs:  # nothing to compare: the label's own phrase is not embedded for nothing
            return []
        vecs = self._embed([mine] + [t for _, bare, full in pairs for t in (bare, full)])
        own = vecs[mine]
        out = [(max(float(own @ vecs[bare]), float(own @ vecs[full])), c) for c, bare, full in pairs]
        return sorted(out, reverse=True)

    def choose(self, label: str, candidates: Sequence[str], registry: Sequence[RegistryEntry] = ()) -> str | None:
        ranked = self.rank(label, candidates, registry)
        if not ranked or ranked[0][0] < LABEL_FLOOR:
            return None
        if len(ranked) > 1 and ranked[0][0] - ranked[1][0] < LABEL_MARGIN:
            return None
        return ranked[0][1]


_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset({"the", "user", "users", "s", "e", "g", "or", "a", "an", "is", "in", "of", "to", "and", "not", "on", "at",
                   "with"})


def _topic(text: str) -> set[str]:
    """The words of a text that say what it is about: no stop words, no numbers (a number is
    a value: "agent-a 0" and `user.rs_agent_a_0` share the token `0`, not a topic)."""
    return {w for w in _WORD.findall(text.lower()) if not w.isdigit()} - _STOP


def by_shared_words(fact: Fact, candidates: Sequence[str], registry: Sequence[RegistryEntry] = ()) -> str | None:
    """Without vectors of meaning (no embedder, or hashing vectors, whose few label words
    collide): the candidate whose words and registry description share the most words with the
    fact's statement, two at least; only among the candidates whose label shares a word with
    the fact's own label (`same_words`). Hashing vectors measure shared tokens, so a statement
    that happens to say a key's words ("wh agent-a 0" under `user.wh.ka_0`, near
    `user.rs_agent_a_0`) is no evidence that the writer's own key names that entity."""
    said = _topic(fact.text)
    entries = {e.key: e for e in registry}
    best, best_overlap = None, 0
    for key in candidates:
        entry = entries.get(key)
        if not same_words(fact.entity, key, entry):
            continue
        overlap = len(said & (_topic(label_phrase(key)) | _topic(entry.description if entry is not None else "")))
        if overlap > best_overlap:
            best, best_overlap = key, overlap
    return best if best_overlap >= 2 else None


def same_words(label: str, key: str, entry: RegistryEntry | None = None) -> bool:
    """Whether a new label and a candidate key say a word in common (`contrast.words`: singular,
    below the subject): the same word, one word said two ways (`fav` / `favorite`, `diet` /
    `dietary`), a word and its compound (`zone` / `timezone`, `city` / `hotcity`); or name the
    same kind of value (`values.value_kind` of the label or a word of it: `residence` and
    `location` are places, `mobile_no` and `phone` phones). A registered key's aliases
    (`user.tz` for `user.timezone`) and description count as its words."""
    if _kinds(label) & _kinds(key):
        return True
    theirs = set(words(key))
    if entry is not None:
        theirs.update(*map(words, entry.aliases))
        theirs |= {singular_word(w) for w in _topic(entry.description)}
    mine = [w for w in words(label) if len(w) > 1 and w not in _STOP]  # `a` of `agent_a` is no topic
    return any(a == b or respelled(a, b) or _compound(a, b) for a in mine for b in theirs)


def _kinds(label: str) -> set[str]:
    """The kinds of value a label or one of its words names (`user.mobile_no`: a phone)."""
    return ({value_kind(label)} | {value_kind(f"user.{w}") for w in words(label)}) - {"text"}


def _compound(a: str, b: str) -> bool:
    """`timezone` / `zone`, `hotcity` / `city`: a word that ends with the other (of 4 letters
    at least; a common start is `contrast.respelled`)."""
    short, long = sorted((a, b), key=len)
    return len(short) >= 4 and long.endswith(short)
