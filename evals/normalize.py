"""Entity normalization (docs/jobs.md): find labels that name one thing, write a
reviewable merge plan, and apply it through the partition owners.

`normalize(...)` reads every claim through its owner, profiles each label
(label_profiles.py), embeds the profiles in a Ray Data actor pool and scores label pairs in
Ray Data tasks (similarity.py), decides the merges (merge_plan.py) and writes
plan.parquet and plan.md (plan_report.py). Nothing in the store changes.

`apply_plan(plan, ...)` checks the plan was made for this store and turns approved
"keep" rows into merges (plan_checks.py), then runs the approved merges:

1. each merged label becomes a registry alias of its target (future writes align);
2. the merged labels' live claims are written again, oldest first, through the one
   write path with their label, provenance and stored vector, under a claim id
   derived from theirs and the target: the registry aligns them onto the target
   (`aligned_from` = the old label) and passes 1 and 2 meet the target's claims, so
   contradicting values end in a strategy decision or a dispute;
3. each re-keyed claim gets an `entity_merged` event naming where it came from, and
   each original is superseded by it (with its own `entity_merged` event); open
   disputes left without a claim on the old label are closed.

A label with a dispute that waits for a person is held (not merged this run); a person's
decision on a label goes to the target before the copies (merge_disputes.py).

A claim can move to another partition: the copy is committed on the target's
partition before the original is retired on its own, so a crash in between leaves
both live and the next run finishes (the copy's id is deterministic and the write
path applies an id once). Applying a plan again changes nothing.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from vault_ray import Fact, InvalidInput, Policy, RegistryEntry, VaultError, WriteRequest
from vault_ray.engine.bulk import CarriedDecision, MergeRecord
from vault_ray.models import Dispute, Status, utcnow, validate_entity
from vault_ray.reasoners.base import Reasoner
from vault_ray.storage.erase import erased_rows

from . import merge_disputes
from .embedder_spec import EmbedderFactory, EmbedderSpec, as_factory, describe
from .job_store import JobStore, ensure_ray, open_store
from .label_profiles import CLAIM_COLUMNS, build_profiles
from .merge_plan import Thresholds, build_plan, decide_pairs, lowers
from .plan_checks import accept_keeps, check_columns, check_store, store_identity
from .plan_report import PLAN_FILE, approved_merges, plan_id_of, read_plan, write_plan
from .similarity import PAIR_SCHEMA, embed_profiles, score_pairs

WRITE_CHUNK = 1000


@dataclass(frozen=True)
class NormalizeResult:
    plan_id: str
    plan_path: str
    report_path: str
    labels: int
    pairs: int
    """Label pairs scored above the similarity floor."""
    merges: int
    claims: int
    """Live claims the merges would re-key."""
    conflicts: int
    seconds: float
    nodes: dict[str, int] = field(default_factory=dict)
    """Ray node -> texts it embedded plus label pairs it scored."""
    kept: int = 0
    """Label pairs considered and kept apart (the plan's `keep` rows: a reviewer may approve one)."""


@dataclass(frozen=True)
class ApplyResult:
    plan_id: str
    merges: int
    aliases: int
    """Registry aliases added (0 when the plan was applied before)."""
    rekeyed: int
    """Claims written onto their target by this run."""
    retired: int
    """Original claims superseded by their re-keyed copy."""
    outcomes: dict[str, int] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    """Claim id -> why the write path refused its copy (it stays on its old label; rerun)."""
    seconds: float = 0.0
    accepted: int = 0
    """Of `merges`, approved "keep" rows (pairs the job kept apart, accepted by a reviewer)."""
    warnings: list[str] = field(default_factory=list)
    """E.g. a plan that does not say which store it was made for."""
    held: dict[str, str] = field(default_factory=dict)
    """Merged label -> why it was not merged this run (a dispute on it waits for a person)."""
    carried: int = 0
    """Decisions a person made on a merged label, carried onto its target with the chosen claim."""
    nothing_to_do: str | None = None
    """Why the run changed nothing without looking at the store, when the plan has no approved row (it
    found nothing to merge, or a reviewer approved none of its rows); None when it had rows to apply."""


def normalize(*, store: str | Path | None = None, address: str | None = None, namespace: str = "vault",
              out: str | Path = "normalize-plan", embedder: str | EmbedderSpec | EmbedderFactory = "local",
              reasoner: Reasoner | None = None, thresholds: Thresholds | None = None, batch_size: int = 256,
              actors: int = 1, cpus_per_actor: int | None = None) -> NormalizeResult:
    """Write a merge plan for the store (embedded `store`, else the cluster-mode store in
    `namespace` at `address`) to `out`. `embedder` makes the similarity vectors (the
    local model by default: hashing vectors only see shared words)."""
    started = time.perf_counter()
    factory = as_factory(embedder)
    if isinstance(factory, EmbedderSpec):
        factory.check()  # a missing key or package is one error now, not an actor's traceback later
    th = thresholds or Thresholds()
    with open_store(store, address=address, namespace=namespace, reasoner=reasoner, job="this normalize") as target:
        policy, registry = target.vault.policy, target.vault.registry
        claims = read_claims(target)
        identity = store_identity(target, claims)
        profiles = build_profiles(claims.filter(pc.invert(erased_rows(claims))), policy, registry)  # no erased label
        ensure_ray(address, store=store, namespace=namespace)
        if profiles:
            vectors, nodes = embed_profiles(list(profiles.values()), registry, factory, batch_size=batch_size,
                                            actors=actors, cpus_per_actor=cpus_per_actor)
            pairs = score_pairs(vectors)
            nodes.update(pairs.column("node").to_pylist())
        else:
            nodes, pairs = Counter(), PAIR_SCHEMA.empty_table()
        decisions = decide_pairs(pairs, profiles, target.vault.reasoner, registry, th, policy)
        plan = build_plan(decisions, profiles, target.vault.reasoner, policy, th,
                          similarity_embedder=describe(factory)[0], store=target.info.store,
                          disputes=target.vault.disputes("all"))
        plan.identity = identity
    plan_path, report_path = write_plan(plan, out)
    return NormalizeResult(plan.plan_id, str(plan_path), str(report_path), len(profiles), pairs.num_rows,
                           len(plan.merges), sum(m.claims for m in plan.merges),
                           sum(len(m.conflicts) for m in plan.merges), time.perf_counter() - started, dict(nodes),
                           len(plan.kept))


def read_claims(target: JobStore) -> pa.Table:
    """CLAIM_COLUMNS and `meta` of every claim (erased ones too: `erased_rows` tells them)."""
    columns = [*CLAIM_COLUMNS, "meta"]
    tables = [t for p in range(target.info.partitions)
              if (t := target.backend.claim_columns(p, columns)) is not None and t.num_rows]
    return pa.concat_tables(tables) if tables else pa.table({c: pa.array([], pa.string()) for c in columns})


def rekeyed_id(claim_id: str, target: str) -> str:
    """The id of a claim's copy on `target`: the same on every run (the write path applies it once)."""
    return hashlib.blake2b(f"{claim_id}\x00{target}".encode(), digest_size=16).hexdigest()


def apply_plan(plan: str | Path, *, store: str | Path | None = None, address: str | None = None,
               namespace: str = "vault", reasoner: Reasoner | None = None, any_store: bool = False) -> ApplyResult:
    """Run a plan's approved merges (and approved keep rows, as merges) through the
    store's partition owners (see the module docstring). The plan is checked whole,
    and against the store it was made for (unless `any_store`), before anything changes."""
    started = time.perf_counter()
    table = check_columns(read_plan(plan), Path(plan) / PLAN_FILE if Path(plan).is_dir() else plan)
    merges, keeps = approved_merges(table), approved_merges(table, "keep")
    check_merges(merges)
    plan_id = plan_id_of(table)
    if not merges and not keeps:  # nothing the store is asked for: no store opened, nothing recorded
        return ApplyResult(plan_id or "", 0, 0, 0, 0, seconds=time.perf_counter() - started,
                           nothing_to_do=nothing_approved(table))
    if plan_id is None:  # every merge record names its plan
        raise InvalidInput("the plan names no plan id (its `plan` column is empty and its metadata gone): keep the "
                           "column as normalize wrote it, or make the plan again with `vault-ray normalize`")
    with open_store(store, address=address, namespace=namespace, reasoner=reasoner,
                    job="this normalize --apply") as job:
        warning = check_store(job, table, any_store=any_store)
        rows = accept_keeps(job, keeps, merges)
        targets = check_merges(rows)
        check_protection(job.vault.policy, targets)
        merged = {s for sources in targets.values() for s in sources}
        disputes = [d for d in job.vault.disputes("all") if d.entity in merged]
        held = {s: why for t, sources in targets.items() for s in sources
                if (why := merge_disputes.held_reason(s, t, disputes)) is not None}
        targets = {t: kept for t, sources in targets.items() if (kept := {s: r for s, r in sources.items() if s not in held})}
        aliases = register_aliases(job, targets)
        result: dict[str, Any] = {"rekeyed": 0, "retired": 0, "outcomes": {}, "errors": {}, "carried": 0}
        for target, sources in sorted(targets.items()):
            merge_into(job, target, sources, plan_id, result, disputes)
    return ApplyResult(plan_id, len(rows) - len(held), aliases, result["rekeyed"], result["retired"], result["outcomes"],
                       result["errors"], time.perf_counter() - started, len(rows) - len(merges),
                       [warning] if warning else [], held, result["carried"])


def nothing_approved(table: pa.Table) -> str:
    """Why a plan with no approved row changes nothing, in words."""
    if not table.num_rows:
        return "it found nothing to merge (no two labels look like one thing)"
    actions = table.column("action").to_pylist()
    return (f"none of its rows is approved ({actions.count('merge')} merge, {actions.count('keep')} keep): set approved "
            "to true on the rows to apply")


def check_merges(rows: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """target -> {source: its row}; refuses a plan whose merges contradict each other."""
    targets: dict[str, dict[str, dict[str, Any]]] = {}
    into: dict[str, str] = {}
    for row in rows:
        source, target = validate_entity(row["from_label"]), validate_entity(row["to_label"])
        if source == target or into.get(source, target) != target:
            raise InvalidInput(f"the plan merges {source!r} into {target!r} and {into.get(source, source)!r}")
        into[source] = target
        targets.setdefault(target, {})[source] = row
    chained = sorted(set(into) & set(targets))
    if chained:
        raise InvalidInput(f"the plan merges labels {chained} into others and others into them; merge each cluster "
                           "into one target")
    return targets


def check_protection(policy: Policy, targets: dict[str, dict[str, dict[str, Any]]]) -> None:
    """InvalidInput for a merge of a high-stakes label into one that is not: its disputes would be
    settled by the target's strategy and its future writes land unprotected (a merge never lowers
    protection; docs/jobs.md)."""
    for target, sources in sorted(targets.items()):
        for source in sorted(sources):
            if policy.is_high_stakes(source) and not policy.is_high_stakes(target):
                raise InvalidInput(f"the plan merges {source!r} into {target!r}: {lowers(source, target)}. Set approved="
                                   "false on the row; nothing was changed")


def register_aliases(job: JobStore, targets: dict[str, dict[str, dict[str, Any]]]) -> int:
    """Make every merged label an alias of its target (creating the target's entry if the
    registry has none); only entries that change are written. Returns aliases added."""
    registry = job.vault.registry
    keys = sorted(source for sources in targets.values() for source in sources if source in registry.entries)
    if keys:
        raise InvalidInput(f"{keys[0]!r} is a registry key: merge into it, or remove its entry first")
    added = 0
    for target, sources in targets.items():
        entry = registry.entries.get(target) or RegistryEntry(
            target, f"merged from {', '.join(sorted(sources))}",
            job.vault.policy.cardinality_for(target, registry.cardinality(target)))
        new = tuple(s for s in sorted(sources) if s not in entry.aliases)
        for other in registry.entries.values():  # an alias names one key only
            if other.key != target and set(other.aliases) & set(sources):
                job.vault.register(_replace_aliases(other, tuple(a for a in other.aliases if a not in sources)),
                                   check_claims=False)
        if new or target not in registry.entries:
            job.vault.register(_replace_aliases(entry, entry.aliases + new), check_claims=False)  # merged just after
            added += len(new)
        registry = job.vault.registry
    return added


def _replace_aliases(entry: RegistryEntry, aliases: tuple[str, ...]) -> RegistryEntry:
    return RegistryEntry(entry.key, entry.description, entry.cardinality, aliases)


def merge_into(job: JobStore, target: str, sources: dict[str, dict[str, Any]], plan_id: str,
               result: dict[str, Any], disputes: Sequence[Dispute] = ()) -> None:
    live = sorted((c for s in sources for c in job.backend.live_claims(s)), key=lambda c: (c.observed_at, c.id))
    active = {c.id for c in live if c.status == Status.ACTIVE}
    carried = [CarriedDecision(d, target, {i: rekeyed_id(i, target) for i in (d.challenger, *d.incumbents,
                                                                                *d.supporters)}, plan_id)
               for s in sorted(sources) for d in merge_disputes.carried(s, disputes, active)]
    if carried:  # before the copies: the chosen claim's copy arrives as a value a person chose
        result["carried"] += job.backend.carry_decisions(carried, utcnow())
    for start in range(0, len(live), WRITE_CHUNK):
        chunk = live[start:start + WRITE_CHUNK]
        requests = [WriteRequest(c.agent, facts=[Fact(
            entity=c.entity, text=c.text, value=c.value, kind=str(c.kind), observed_at=c.observed_at,
            claim_id=rekeyed_id(c.id, target), confidence=c.confidence, meta=dict(c.meta) or None, source=c.source)],
            session=c.session, vectors=None if c.embedding is None else c.embedding.reshape(1, -1)) for c in chunk]
        records = []
        for claim, answer in zip(chunk, job.vault.write_batch(requests, rate_limit=False), strict=True):
            if isinstance(answer, VaultError):
                result["errors"][claim.id] = str(answer)
                continue
            (decision,) = answer.decisions
            if decision.entity != target:
                result["errors"][claim.id] = f"the write path filed its copy under {decision.entity!r}, not {target!r}"
                continue
            result["outcomes"][str(decision.outcome)] = result["outcomes"].get(str(decision.outcome), 0) + 1
            result["rekeyed"] += 1
            row = sources[claim.entity]
            records.append(MergeRecord(claim.id, claim.entity, decision.claim_id, target, {
                "plan": plan_id, "score": row.get("score"), "found_by": row.get("decided_by"),
                "evidence": row.get("evidence")}))
        now = utcnow()
        job.backend.note_merged(records, now)  # the target side first: a crash leaves copies, never losses
        result["retired"] += job.backend.retire_merged(records, now)

