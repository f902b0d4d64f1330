"""The front stage of the write path: validate, embed once, resolve entity.

Stateless and parallel: it runs in the caller, in embedded and cluster mode alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, NamedTuple, Protocol

import numpy as np

from vault_ray.storage.layout import partition_of

from ..embedders import Embedder, check_vectors
from ..errors import DisputeCapExceeded, InvalidEntity, InvalidFact, InvalidInput
from ..fact_checks import check_fact
from ..models import (
    ENTITY_RE,
    MAX_FUTURE,
    MAX_SESSION,
    AddResult,
    Decision,
    EntityView,
    Fact,
    Unextracted,
    WriteRequest,
    as_utc,
    new_ids,
    utcnow,
    validate_entity,
)
from ..policy import Policy
from ..reasoners.base import Reasoner
from ..reasoners.contrast import contrasting
from ..registry import NOTES_ENTITY, EntityRegistry, RegistryEntry
from ..texts import check_agent, check_line, check_string
from .suggest import with_suggestions
from .timeline import view_as_of
from .txn import WriteItem, fact_digest


class Neighbours(Protocol):
    """What entity resolution asks of the store (every backend answers it)."""

    def entities_present(self, entities: Iterable[str]) -> set[str]: ...
    def nearest_entities(self, vectors: np.ndarray, k: int) -> list[list[tuple[float, str]]]:
        """Per query, the k entities whose representative claim is most similar: (cosine, entity)."""
        ...

NEIGHBOURS = 5
NEARBY_FLOOR = 0.3
"""Least statement similarity for a nearest entity below the ask band to be a candidate
(drifted statements of one entity measure 0.39 and up with the local model; unrelated ones near 0)."""


class Alignment(NamedTuple):
    """Where a fact's claim goes: its entity, and the label it was given when that differs. A
    named tuple, not a frozen dataclass: a bulk write makes one per fact, at about half the cost."""

    entity: str
    aligned_from: str | None
    similarity: float | None = None
    asked: bool = False


def check_request(req: WriteRequest) -> list[Fact] | None:
    """A write request's agent, session and idempotency key checked; its facts as a list
    (None for a request of messages, extracted later)."""
    check_agent(req.agent)
    if not isinstance(req.resolve, bool):  # "no" is truthy: it would resolve
        raise InvalidInput(f"resolve must be True or False, got {req.resolve!r}")
    check_line(req.session, "session", limit=MAX_SESSION, optional=True)
    if req.key is not None:
        check_string(req.key, "key", limit=128)
    if req.facts is None:
        if req.messages is None:
            raise InvalidInput("a write request needs facts or messages")
        if req.vectors is not None:  # they would be laid on whatever extraction finds
            raise InvalidInput("vectors go with facts; a request of messages is embedded as its facts are extracted")
        return None
    if req.messages is not None or req.observed_at is not None:  # else silently unwritten, or the write's time
        raise InvalidInput("a write request takes facts or messages, not both: send two requests" if req.messages is not None
                           else "observed_at of a write request is its messages' time: give each Fact its own observed_at")
    if isinstance(req.facts, Fact):
        return [req.facts]
    if isinstance(req.facts, str | bytes | Mapping) or not isinstance(req.facts, Iterable):
        raise InvalidInput(f"facts must be a Fact or a list of Facts, got {type(req.facts).__name__}")
    return list(req.facts)


Staged = tuple[list[Fact], "np.ndarray | None", tuple[Unextracted, ...], int, int]
"""A request ready to plan: its facts (notes last), their vectors if given, what was not
extracted, how many of the facts are notes, and the rate budget it spent (receipts.charged)."""


def too_long(facts: Sequence[Fact], max_text: int) -> tuple[list[Fact], tuple[Unextracted, ...]]:
    """Extracted facts the policy can keep, and the rest as parts of the turn not kept (a
    long list the user gave in one sentence): the turn's other facts are still written."""
    kept: list[Fact] = []
    long: list[Fact] = []
    for f in facts:
        (kept if len(f.text) <= max_text and len(f.value or "") <= max_text else long).append(f)
    return kept, tuple(Unextracted(f.text[:200] + ("..." if len(f.text) > 200 else ""),
                                   f"reads as {f.entity}, but longer than the policy's max_text ({max_text} characters): "
                                   "say it in shorter parts") for f in long)


def add_result(decisions: tuple[Decision, ...], missed: tuple[Unextracted, ...], n_notes: int) -> AddResult:
    """Decisions of the extracted facts; the notes' decisions name the notes in `unextracted`."""
    if not n_notes:
        return AddResult(decisions, missed)
    facts, notes = decisions[:-n_notes], decisions[-n_notes:]
    return AddResult(facts, tuple(replace(u, note_id=d.claim_id) for u, d in zip(missed, notes, strict=True)))


def validate_batch(facts: Sequence[Fact], policy: Policy) -> list[Fact]:
    if isinstance(facts, Fact):
        facts = [facts]
    facts = list(facts)
    if not facts:
        raise InvalidFact("no facts given")
    latest = utcnow() + MAX_FUTURE
    checked = [check_fact(f, i, max_text=policy.max_text, latest=latest) for i, f in enumerate(facts)]
    first: dict[str, int] = {}
    for i, f in enumerate(checked):
        if f.claim_id is not None and first.setdefault(f.claim_id, i) != i:
            raise InvalidFact(f"claim id {f.claim_id!r} is given to facts {first[f.claim_id]} and {i}: a claim id names one "
                              "fact", index=i, field="claim_id")
    return checked


def placed(error: Exception, groups: Mapping[int, Sequence[tuple[int, Any]]], *, whole: bool = True) -> Exception:
    """`error` naming the position of its fact in the call (`index`) when a partition refused
    a given claim id, or a claim opened one dispute too many (with how many facts the call held,
    and whether the others were written: `whole`, the call stored all or nothing): a partition sees
    items, not the caller's list of facts."""
    claim_id = getattr(error, "claim_id", None)
    pos = next((pos for items in groups.values() for pos, item in items if item.id == claim_id), None)
    if pos is not None and isinstance(error, DisputeCapExceeded) and error.index is None:
        return DisputeCapExceeded(error.agent, error.entity, error.cap, claim_id=claim_id, index=pos,
                                  batch=sum(map(len, groups.values())), written=not whole)
    if not isinstance(error, InvalidFact) or error.index is not None or claim_id is None:
        return error
    return error if pos is None else InvalidFact(str(error), index=pos, field=error.field, claim_id=claim_id)


def embed_batch(facts: Sequence[Fact], embedder: Embedder, vectors: object | None) -> np.ndarray:
    if vectors is not None:
        return check_vectors(vectors, len(facts), embedder.dim, given=True)
    return check_vectors(embedder.embed([f.text for f in facts]), len(facts), embedder.dim)


# A call with at most this many new labels embeds their phrases with its texts, before
# knowing whether a disambiguation will compare them: a single write with a new label costs
# one model call, not two. A larger call leaves them to the disambiguations that do compare
# them (`prepare`: one more call, for those only), since most new labels have no candidate
# and their phrases would add a third to the call's tokens.
SPECULATE_LABELS = 4


def embed_texts(embedder: Embedder, reasoner: Reasoner, texts: Sequence[str], labels: Iterable[str],
                registry: EntityRegistry) -> np.ndarray:
    """The texts' vectors. When the call has few new labels (`SPECULATE_LABELS`), the same
    model call embeds the phrases of those a disambiguation would compare and the reasoner
    has none of yet (kept by the reasoner): a write with a new label costs one call, not two."""
    label_texts = getattr(reasoner, "label_texts", None)
    new = {label for label in map(registry.canonical, labels) if label not in registry}
    phrases = label_texts(new) if label_texts is not None and 0 < len(new) <= SPECULATE_LABELS else []
    vectors = check_vectors(embedder.embed([*texts, *phrases]), len(texts) + len(phrases), embedder.dim)
    if phrases:
        reasoner.remember_labels(phrases, vectors[len(texts):])  # type: ignore[attr-defined]
    return vectors[: len(texts)]


def resolve_entities(
    facts: Sequence[Fact], vectors: np.ndarray, *, backend: Neighbours, reasoner: Reasoner, policy: Policy,
    registry: EntityRegistry, embedder: Embedder,
) -> list[Alignment]:
    """Align new entity labels with the incumbents they duplicate (DESIGN §2.3).

    Labels that already have claims, are in the registry or are named by the policy
    (`Policy.names`) are never moved; one
    batched search of the entities' representatives serves the whole batch."""
    labels = [registry.canonical(f.entity) for f in facts]
    # registered labels never move: only the others need the (per-partition) presence check
    present = backend.entities_present({label for label in labels if label not in registry})
    out: list[Alignment | None] = [None] * len(facts)
    pending = []
    for i, (fact, label) in enumerate(zip(facts, labels, strict=True)):
        moved = label if label != fact.entity else None
        if label in present or label in registry or policy.names(label):
            out[i] = Alignment(label, fact.entity if moved else None)
        else:
            pending.append(i)
    if pending:
        neighbours = backend.nearest_entities(vectors[pending], NEIGHBOURS)
        relevant = registry.relevant_many(vectors[pending], embedder.embed)
        cases = {i: _align_one(facts[i], labels[i], hits, near, policy, registry)
                 for i, hits, near in zip(pending, neighbours, relevant, strict=True)}
        # the reasoner reads each asked fact under its canonical label
        asked = {i: replace(facts[i], entity=c.label) for i, c in cases.items() if isinstance(c, _Ask)}
        prepare = getattr(reasoner, "prepare", None)  # optional: one embedding call for the batch
        if asked and prepare is not None:
            prepare([(asked[i], cases[i].candidates, cases[i].entries) for i in asked])  # type: ignore[union-attr]
        for i, case in cases.items():
            out[i] = case.ask(asked[i], facts[i].entity, reasoner) if isinstance(case, _Ask) else case
    return [a for a in out if a is not None]


def aliases_only(facts: Sequence[Fact], registry: EntityRegistry) -> list[Alignment]:
    """`resolve=False`: no similarity search, but a registry alias is still stored on its key
    (policies.md), so the key's policy decides it."""
    canonical = registry.canonical
    return [Alignment(key, None) if (key := canonical(f.entity)) == f.entity else Alignment(key, f.entity) for f in facts]


@dataclass(frozen=True)
class _Ask:
    """A new label the reasoner chooses for among `candidates`."""

    label: str
    drift: str | None
    best_score: float | None
    candidates: list[str]
    entries: list[RegistryEntry]

    def ask(self, fact: Fact, given: str, reasoner: Reasoner) -> Alignment:
        """`fact` under `label`; `given`: the label the writer gave."""
        chosen = reasoner.disambiguate(fact, self.candidates, self.entries)
        if offered(chosen, self.candidates):
            return Alignment(chosen, given, self.best_score, asked=True)
        return Alignment(self.label, self.drift, self.best_score, asked=True)


def _align_one(fact, label, hits, relevant, policy, registry) -> Alignment | _Ask:  # type: ignore[no-untyped-def]
    """Bands on the nearest incumbent: >= align_threshold take its entity; otherwise
    ask the reasoner to choose among the entities in the ask band, the other entities
    of the nearest claims, and the registry keys relevant to the fact (`relevant`:
    `EntityRegistry.relevant` of its vector); else keep.

    Statement similarity alone cannot decide below the band: the local model rates
    "The user is in EST" vs "... PST" at 0.56, and "the user lives in Berlin" vs "my
    home city is Paris" at 0.39, while "the user lives in ___" is nearer "the user is
    ___" (a diet) than "my home city is ___" (docs/design.md, "Entity resolution").
    The reasoner weighs what the statement says and what the label means."""
    drift = fact.entity if label != fact.entity else None
    # free-text notes are never an entity to align to: they hold any subject; nor is an
    # ancestor of the label: `user.budget.trip` names a part of `user.budget` on purpose
    # nor another subject's: `alice.employer` is not `user.employer`, however alike the statements
    # nor a label that names a different thing by its words (a sibling: `user.phone.work`
    # for `user.phone.home`), however alike the statements read (reasoners/contrast.py)
    others = _others(label, hits, registry, min(NEARBY_FLOOR, policy.ask_threshold, policy.align_threshold))
    best_score = others[0][0] if others else None
    if others and others[0][0] >= policy.align_threshold:
        return Alignment(others[0][1], fact.entity, best_score)
    band = [e for s, e in others if s >= policy.ask_threshold]
    nearby = [e for s, e in others if s >= NEARBY_FLOOR]
    # a pattern (user.schedule.*) offers its subtree
    keys = [e.key for e in relevant if e.key != label and not _ancestor(e.key, label) and same_subject(e.key, label)
            and not _contrasting(label, e.key, registry)]
    candidates = list(dict.fromkeys(band + nearby + keys))
    if not candidates:
        return Alignment(label, drift, best_score)
    entries = list({e.key: e for e in [*relevant, *filter(None, map(registry.lookup, candidates))]}.values())
    return _Ask(label, drift, best_score, candidates, entries)


def _others(label: str, hits: Sequence[tuple[float, str]], registry: EntityRegistry,
            floor: float) -> list[tuple[float, str]]:
    """The hits (best first) that may be `label`'s entity; below `floor` (no band takes it)
    only the best one, whose score is recorded: the word rules run on few hits per label."""
    out: list[tuple[float, str]] = []
    subject, dotted = label.partition(".")[0], "." in label  # `same_subject`, the label's half once
    for s, e in hits:
        if e in (label, NOTES_ENTITY) or _ancestor(e, label) or (dotted and "." in e and e.partition(".")[0] != subject):
            continue
        if out and s < floor:
            break
        if not _contrasting(label, e, registry):
            out.append((s, e))
    return out


def _contrasting(label: str, key: str, registry: EntityRegistry) -> bool:
    entry = registry.lookup(key)
    return contrasting(label, key, entry.aliases if entry is not None and entry.key == key else ())


def same_subject(key: str, label: str) -> bool:
    """Whether two keys are about the same subject, their first segment (`user`, `alice`,
    `team`); a one-segment key names no subject and may align with any."""
    a, b = key.partition(".")[0], label.partition(".")[0]
    return a == b or "." not in key or "." not in label


def _ancestor(key: str, label: str) -> bool:
    """Whether `key` (or pattern `key.*`) is above `label` in the dotted namespace."""
    root = key[:-2] if key.endswith(".*") else key
    return label.startswith(root + ".")


def offered(key: object, candidates: Sequence[str]) -> bool:
    """Whether `key` is one of the candidates, or a key under a candidate pattern (`x.*`)."""
    if not isinstance(key, str) or key.endswith(".*") or not ENTITY_RE.match(key):
        return False
    return key in candidates or any(c.endswith(".*") and key.startswith(c[:-1]) for c in candidates)


def build_items(
    facts: Sequence[Fact], vectors: np.ndarray, alignments: Sequence[Alignment], *, agent: str, session: str | None,
    policy: Policy, registry: EntityRegistry, now: datetime, partitions: int, key: str | None = None,
) -> dict[int, list[tuple[int, WriteItem]]]:
    """Group write items by partition, each with its position in the batch. Under an
    idempotency `key` a fact's digest also holds how many facts the request had: the key
    sent again with a longer or shorter body is no retry either."""
    groups: dict[int, list[tuple[int, WriteItem]]] = {}
    salt = f"{len(facts)} facts" if key is not None else ""
    fresh = iter(new_ids(sum(1 for f in facts if not f.claim_id)))
    cardinality_for, registered = policy.cardinality_for, registry.cardinality
    for pos, (fact, vec, al) in enumerate(zip(facts, vectors, alignments, strict=True)):
        entity, text, given, observed = al.entity, fact.text.strip(), fact.claim_id, fact.observed_at
        item = WriteItem(  # positional, in the fields' order: a bulk write makes one per fact
            given or next(fresh), entity, text, fact.value, fact.kind, agent, session,
            now if observed is None else as_utc(observed), float(fact.confidence), dict(fact.meta or {}), vec,
            cardinality_for(entity, registered(entity)), al.aligned_from, fact.source,
            fact_digest(fact.entity, text, fact.value, fact.kind, salt) if given else "",
        )
        groups.setdefault(partition_of(entity, partitions), []).append((pos, item))
    return groups


def read_keys(backend: Any, entities: Iterable[str]) -> dict[str, str]:
    """The key each asked entity reads: an alias reads its key (`user.tz` -> `user.timezone`),
    as writes do, unless the alias holds claims of its own (written before it became an
    alias, or a label `normalize` retired: its history stays readable by its name)."""
    registry = backend.control(fresh=False, reading=True)[1]
    asked = {e: registry.canonical(_readable(backend, e)) for e in entities}
    aliased = {e for e, key in asked.items() if key != e}
    own = backend.entities_present(aliased) if aliased else set()
    return {e: e if e in own else key for e, key in asked.items()}


def _readable(backend: Any, entity: object) -> str:
    """`validate_entity`, but a key ending in a newline that the store holds claims on still reads (an older
    check let such keys be written): search, history and forget reach them; a new one is refused."""
    try:
        return validate_entity(entity)
    except InvalidEntity:
        if not (isinstance(entity, str) and entity.endswith("\n") and ENTITY_RE.match(entity[:-1])
                and backend.entities_present([entity])):
            raise
        return entity


def read_views(backend: Any, entities: Iterable[str], at: datetime | None, policy: Policy | None) -> dict[str, EntityView]:
    """`Vault.get_many`: each asked label's view, as of `at` (else now). A label that reads
    nothing there reads where its writes go: an alias whose own claims are all gone (a label
    `normalize` merged) reads its key; a label that is no alias, but that entity resolution
    aligned a live claim from, reads the entity that claim went to (as of `at`, only while a
    claim aligned from it is in that view). The view names the entity it reads."""
    wanted = read_keys(backend, entities)
    registry = backend.control(fresh=False, reading=True)[1]

    def read(keys: set[str]) -> dict[str, EntityView]:
        return backend.views(keys) if at is None else {k: view_as_of(backend, k, at, policy) for k in keys}

    views = read(set(wanted.values()))
    blank = [e for e, key in wanted.items() if key == e and _blank(views[key])]
    moved = {e: registry.canonical(e) for e in blank if registry.canonical(e) != e}
    aligned = aligned_keys(backend, [e for e in blank if e not in moved])
    views.update(read((set(moved.values()) | set(aligned.values())) - views.keys()))
    moved.update({e: key for e, key in aligned.items() if at is None or _written_as(views[key], e)})
    out = {e: views[moved.get(e, key)] for e, key in wanted.items()}
    return with_suggestions(backend, out, [e for e in blank if e not in moved and _blank(out[e])])


def read_key(backend: Any, entity: str) -> str:
    """The one key `history`, `search(entity=)` and `events(entity=)` read for `entity`: an alias its
    key (unless it has claims of its own), a label with no claims the entity it was aligned to."""
    key = read_keys(backend, [entity])[entity]
    if key == entity and not backend.entities_present([entity]):
        key = aligned_keys(backend, [entity]).get(entity, key)
    return key


def aligned_keys(backend: Any, labels: list[str]) -> dict[str, str]:
    """label -> the entity entity resolution sent its newest live claim to, for those it moved."""
    return {label: entity for label, (_, entity) in backend.aligned_to(labels).items()} if labels else {}


def _written_as(view: EntityView, label: str) -> bool:
    """Whether a claim the view shows was written under `label` (and aligned to the view's entity)."""
    return any(c.aligned_from == label for c in (*view.active, *(x.claim for x in view.candidates)))


def _blank(view: EntityView) -> bool:
    return not (view.active or view.candidates or view.disputes)
