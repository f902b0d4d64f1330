"""What if a real store had used another policy? Replay its claim log and compare.

The claim log is read with `vault_ray.storage.StoreReader`: from a `Vault.export(dir)`
directory or straight from a store's DuckDB files (read-only: only when no process
holds the store). Every claim is re-written, in the order the
store recorded it and in the batches it was recorded in (same recording time,
agent and session), into a fresh vault under each policy, on the entity it was
stored on (entity resolution is not re-run) with `resolve=False`, with the embedding
the claim log holds for it: the fresh vault has the store's dimension and an embedder
(`StoredVectors`) that refuses to embed, so no model is loaded and the replay indexes
exactly the vectors the store did. The final view of each entity is compared with the
stored one.

Retractions (`Vault.retract`, `forget`: a person's "not true") are replayed, each at
its place in the recorded order, as an import's merge replays them (transfer_retract.py):
a retracted claim comes back under no policy, and under `lww` it is deleted.

Not replayed: manual `resolve_dispute` decisions and time-based rules, which are
not claims. The `store` policy (the store's own, from its control.json) shows how
much of the stored state they account for.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from itertools import groupby
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from vault_ray import DisputeCapExceeded, EntityRegistry, Fact, HashingEmbedder, Policy, RuleReasoner, Vault
from vault_ray.engine.control import ControlFile
from vault_ray.errors import InvalidEmbedding, StoreError, StoreMismatch
from vault_ray.models import EntityView
from vault_ray.storage import StoreReader
from vault_ray.storage.erase import erased_rows
from vault_ray.transfer_retract import SourceRetraction, replay, retractions_in

WHATIF_POLICIES = ("lww", "store", "recency", "authority", "consensus", "judge")
CLAIM_COLUMNS = ["id", "entity", "text", "value", "kind", "agent", "session", "observed_at", "recorded_at",
                 "status", "confidence", "meta", "embedding"]
FALLBACK_DIM = 384
"""The replay vault's dimension when neither vault.json nor any claim gives one."""
DISPUTE_COLUMNS = ["entity", "status", "winner", "decided_by", "resolved_at", "keep_both"]
DISPUTE_SCHEMA = pa.schema([("entity", pa.string()), ("status", pa.string()), ("winner", pa.string()),
                            ("decided_by", pa.string()), ("resolved_at", pa.float64()), ("keep_both", pa.bool_())])


@dataclass(frozen=True)
class ClaimLog:
    claims: pa.Table
    """CLAIM_COLUMNS plus `partition`, in recording order; `embedding` is the stored
    float32 vector as bytes (null when the claim has none)."""
    open_disputes: pa.Table
    """entity of every open dispute."""
    policy: Policy
    registry: EntityRegistry
    dim: int = FALLBACK_DIM
    """The store's embedding dimension (vault.json, else the stored vectors' size)."""
    embedder: str = ""
    """The name of the embedder that made the stored vectors (vault.json; "" when unknown)."""
    disputes: pa.Table = field(default_factory=DISPUTE_SCHEMA.empty_table)
    """Every dispute (DISPUTE_COLUMNS): what labels.py reads resolutions from."""
    erased: int = 0
    """Claims left out of `claims` because they were erased (`Vault.erase`): retracted, with no
    text, value or vector left, they have nothing to replay."""
    retractions: tuple[SourceRetraction, ...] = ()
    """The retractions of claims in `claims`, oldest first: replayed between the claims
    recorded before and after each."""

    @property
    def missing_vectors(self) -> int:
        """Claims without a stored embedding (the replay gives them hashing vectors)."""
        return self.claims.column("embedding").null_count


class StoredVectors:
    """The embedder of a replay vault: every vector comes from the claim log.

    Its `dim` and `name` are the store's, so the replay vault is built like the store
    (and holds its vectors) without loading the model that made them; the replay
    passes every vector to `add_facts`. Being asked to embed text means some code path
    wanted a vector the log does not have: refuse, rather than index vectors of another
    model next to the store's."""

    def __init__(self, dim: int, name: str = "") -> None:
        self.dim = dim
        self.name = name or f"stored-vectors-{dim}"

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:  # nothing to embed, nothing foreign to index
            return np.zeros((0, self.dim), dtype=np.float32)
        raise InvalidEmbedding(
            f"this replay vault only takes the stored vectors of {self.name!r} ({self.dim} dims); "
            f"pass vectors= with the texts ({len(texts)} asked)", expected_dim=self.dim)

    def close(self) -> None:
        pass


def _control(reader: StoreReader) -> tuple[Policy, EntityRegistry]:
    """The policy and registry the log was written under: a store's control.json, or an
    export's policy.json and registry.json (the defaults where there are none)."""
    base = Path(reader.base)
    if reader.kind != "archive" or (base / "control.json").exists():
        return ControlFile(reader.base).load()
    policy, registry = (json.loads((base / name).read_text()) if (base / name).exists() else None
                        for name in ("policy.json", "registry.json"))
    return (Policy.from_dict(policy) if policy is not None else Policy(),
            EntityRegistry.from_list(registry) if registry is not None else EntityRegistry())


def read_claim_log(path: str | Path) -> ClaimLog:
    """Read an export directory, a store directory or one partition's .duckdb file. A store
    or export without a claim is refused: there is nothing to evaluate. Erased claims (the
    skeletons `Vault.erase` leaves: no content, a zeroed vector) are left out and counted
    (`ClaimLog.erased`); a stored all-zero vector on any other claim counts as missing."""
    empty = f"{str(path)!r} has no claims to evaluate: nothing was written to this store yet"
    try:
        reader = StoreReader(path)
    except StoreError:
        if any((Path(path) / name).exists() for name in ("vault.json", "manifest.json")):  # a store, never written to
            raise StoreError(empty) from None
        raise
    claims = reader.claims(CLAIM_COLUMNS)
    if claims.num_rows == 0:
        raise StoreError(empty)
    erased = erased_rows(claims)
    claims = claims.filter(pc.invert(erased))
    if claims.num_rows == 0:
        raise StoreError(f"{str(path)!r} has no claims to evaluate: every claim of it was erased")
    claims = _zero_vectors_missing(claims)
    disputes = reader.table("disputes", DISPUTE_COLUMNS).select(DISPUTE_COLUMNS).cast(DISPUTE_SCHEMA)
    open_ = disputes.filter(pc.equal(disputes.column("status"), "open")).select(["entity"])
    policy, registry = _control(reader)
    dim, embedder = _embedding_meta(reader, claims.column("embedding"))
    ids = set(claims.column("id").to_pylist())
    retractions = tuple(r for r in retractions_in(reader.table("events", where="status=retracted").to_pylist())
                        if r.claim_id in ids)
    return ClaimLog(claims, open_, policy, registry, dim, embedder, disputes, pc.sum(erased).as_py() or 0, retractions)


def _zero_vectors_missing(claims: pa.Table) -> pa.Table:
    """`claims` with every all-zero embedding made null: a zero vector has no direction, so the
    replay gives such a claim a hashing vector, as it does a claim stored without one."""
    column = claims.column("embedding")
    zero = pa.chunked_array([pa.array([False] * claims.num_rows, pa.bool_())])
    for size in pc.unique(pc.binary_length(column)).drop_null().to_pylist():
        zero = pc.or_(zero, pc.fill_null(pc.equal(column, pa.scalar(bytes(size), column.type)), False))
    if not pc.any(zero).as_py():
        return claims
    blobs = pc.if_else(zero, pa.scalar(None, column.type), column)
    return claims.set_column(claims.schema.get_field_index("embedding"), "embedding", blobs)


def _embedding_meta(reader: StoreReader, blobs: pa.ChunkedArray) -> tuple[int, str]:
    """(dim, embedder name) from the store's vault.json, checked against the stored vectors'
    size; an export has no vault.json: the size alone gives the dim."""
    sizes = set(pc.unique(pc.binary_length(blobs)).drop_null().to_pylist())
    if any(size % 4 for size in sizes) or len(sizes) > 1:
        raise StoreMismatch(f"the claim log's embeddings have sizes {sorted(sizes)} bytes: not one float32 dimension")
    found = sizes.pop() // 4 if sizes else None
    meta = reader.meta
    dim = meta.get("dim", found or FALLBACK_DIM)
    if found is not None and found != dim:
        raise StoreMismatch(f"{str(reader.base)!r}: vault.json says {dim} dims, the stored embeddings have {found}",
                            path=str(reader.base))
    return int(dim), str(meta.get("embedder", ""))


def whatif_policy(name: str, base: Policy) -> Policy | None:
    """`store`: the store's own policy; a strategy name: the store's policy (weights,
    cardinality, high stakes...) with that strategy for every entity; `lww`: None."""
    if name == "lww":
        return None
    if name == "store":
        return replace(base, rate_limit=None)
    if name not in WHATIF_POLICIES:
        raise ValueError(f"unknown policy {name!r} for --from-store; known: {', '.join(WHATIF_POLICIES)}")
    return replace(base, default_strategy=name, strategies={}, rate_limit=None)


def describe(active: set[str], contested: bool = False, challengers: Iterable[str] = ()) -> str:
    """An entity's answer as text: its active values ('-' for none); while a dispute is
    open, '(contested: ...)' with the values parked against them."""
    text = " · ".join(sorted(active)) if active else "-"  # not "|": the answers go into Markdown tables
    if not contested:
        return text
    others = sorted(set(challengers) - active)
    return f"{text} (contested: {' · '.join(others)})" if others else f"{text} (contested)"


def stored_answers(log: ClaimLog) -> dict[str, str]:
    contested = set(log.open_disputes.column("entity").to_pylist())
    active: dict[str, set[str]] = {}
    parked: dict[str, set[str]] = {}
    for row in log.claims.select(["entity", "value", "text", "status"]).to_pylist():
        value = row["value"] or row["text"]
        active.setdefault(row["entity"], set())
        if row["status"] == "active":
            active[row["entity"]].add(value)
        elif row["status"] == "disputed":
            parked.setdefault(row["entity"], set()).add(value)
    return {e: describe(v, e in contested, parked.get(e, set())) for e, v in active.items()}


def lww_answers(log: ClaimLog) -> dict[str, str]:
    """The last recorded claim per entity; a retraction of that claim deletes it ('-')."""
    last: dict[str, tuple[str, str | None]] = {}  # entity -> (claim id, value; None once retracted)
    pending = list(log.retractions)

    def retract(entity: str, ids: list[str], by: str, note: str) -> list[Any]:
        if entity in last and last[entity][0] == ids[0]:
            last[entity] = (ids[0], None)
        return []

    for row in log.claims.select(["id", "entity", "value", "text", "recorded_at"]).to_pylist():
        replay(pending, row["recorded_at"], retract)
        last[row["entity"]] = (row["id"], row["value"] or row["text"])
    replay(pending, None, retract)
    return {e: describe(set() if v is None else {v}) for e, (_, v) in last.items()}


def replay_answers(log: ClaimLog, policy: Policy, *, directory: str | Path | None = None) -> tuple[dict[str, str], int]:
    """Final answers per entity under `policy`, and how many writes it refused. The replay
    vault lives in a temporary directory, or in `directory` (kept: to inspect it)."""
    views, rejected = replay_views(log, policy, directory=directory)
    answers = {e: describe({c.value or c.text for c in v.active}, v.contested,
                           {c.claim.value or c.claim.text for c in v.candidates}) for e, v in views.items()}
    return answers, rejected


def replay_views(log: ClaimLog, policy: Policy, *, directory: str | Path | None = None) -> tuple[dict[str, EntityView], int]:
    """The final view of every entity under `policy`, and how many writes it refused."""
    if directory is None:
        with tempfile.TemporaryDirectory(prefix="vault-whatif-") as tmp:
            return replay_views(log, policy, directory=tmp)
    if Path(directory).exists() and any(Path(directory).iterdir()):
        raise StoreError(f"{str(directory)!r} is not empty: a replay needs a fresh vault (claim ids already "
                         "there would be taken as retries)")
    rows = log.claims.to_pylist()
    fallback = HashingEmbedder(log.dim) if log.missing_vectors else None
    pending = list(log.retractions)
    with Vault.open(directory, partitions=1, embedder=StoredVectors(log.dim, log.embedder), reasoner=RuleReasoner(),
                    policy=policy, registry=log.registry) as vault:
        rejected = 0

        def retract(entity: str, ids: list[str], by: str, note: str) -> list[Any]:
            return [vault.retract(ids[0], decided_by=by, note=note)]

        for (at, agent, session), group in groupby(rows, key=lambda r: (r["recorded_at"], r["agent"], r["session"])):
            replay(pending, at, retract)  # the retractions recorded before this batch
            batch = list(group)
            rejected += _write_batch(vault, agent, session, batch, claim_vectors(batch, log.dim, fallback))
        replay(pending, None, retract)
        entities = sorted({r["entity"] for r in rows})
        views = vault.get_many(entities)
    return {e: views[e] for e in entities}, rejected


def _write_batch(vault: Vault, agent: str, session: str | None, batch: list[dict[str, Any]], vectors: np.ndarray) -> int:
    """Write one recorded batch; past the dispute cap, fact by fact. Returns the refused writes."""
    facts = [_fact(r) for r in batch]
    try:
        vault.agent(agent).add_facts(facts, session=session, vectors=vectors, resolve=False)
        return 0
    except DisputeCapExceeded:
        pass
    rejected = 0
    for i, fact in enumerate(facts):
        try:
            vault.agent(agent).add_facts([fact], session=session, vectors=vectors[i:i + 1], resolve=False)
        except DisputeCapExceeded:
            rejected += 1
    return rejected


def claim_vectors(rows: list[dict[str, Any]], dim: int, fallback: HashingEmbedder | None = None) -> np.ndarray:
    """The stored embeddings of `rows` as a (len(rows), dim) float32 array. A claim without
    one (none of the store's own writes; only rows imported without vectors) gets a
    hashing vector of the same dim: with entity resolution off, vectors decide nothing in
    a replay, they only fill its index."""
    out = np.empty((len(rows), dim), dtype=np.float32)
    stored = [i for i, r in enumerate(rows) if r["embedding"] is not None]
    missing = [i for i, r in enumerate(rows) if r["embedding"] is None]
    if stored:
        out[stored] = np.frombuffer(b"".join(rows[i]["embedding"] for i in stored), dtype=np.float32).reshape(-1, dim)
    if missing:
        if fallback is None:
            raise InvalidEmbedding(f"{len(missing)} claims have no stored embedding and no fallback embedder was given",
                                   expected_dim=dim)
        out[missing] = fallback.embed([rows[i]["text"] for i in missing])
    return out


def _fact(row: dict[str, Any]) -> Fact:
    return Fact(row["entity"], row["text"], value=row["value"], kind=row["kind"], observed_at=row["observed_at"],
                claim_id=row["id"], confidence=row["confidence"], meta=json.loads(row["meta"]) if row["meta"] else None)


@dataclass(frozen=True)
class WhatIf:
    stored: dict[str, str]
    answers: dict[str, dict[str, str]]
    """policy -> entity -> answer."""
    rejected: dict[str, int]
    claims: int
    dim: int = FALLBACK_DIM
    embedder: str = ""
    missing_vectors: int = 0
    """Claims replayed with a hashing vector because the log held no embedding for them."""
    erased: int = 0
    """Erased claims left out of the replay (`ClaimLog.erased`)."""

    def differences(self, policy: str) -> list[str]:
        return sorted(e for e, a in self.answers[policy].items() if a != self.stored.get(e, "-"))

    def table(self) -> pa.Table:
        entities = sorted(self.stored)
        cols: dict[str, list[Any]] = {"entity": entities, "stored": [self.stored[e] for e in entities]}
        for policy, answers in self.answers.items():
            cols[policy] = [answers.get(e, "-") for e in entities]
        return pa.table(cols)


def what_if(path: str | Path, policies: list[str], *, keep: str | Path | None = None) -> WhatIf:
    """Replay the claim log at `path` under each policy. With `keep`, each policy's replay
    vault stays in `keep/<policy>` (a store like any other: open it to explain a decision)."""
    log = read_claim_log(path)
    answers, rejected = {}, {}
    for name in policies:
        policy = whatif_policy(name, log.policy)
        if policy is None:
            answers[name], rejected[name] = lww_answers(log), 0
        else:
            directory = None if keep is None else Path(keep) / name
            answers[name], rejected[name] = replay_answers(log, policy, directory=directory)
    return WhatIf(stored_answers(log), answers, rejected, log.claims.num_rows, log.dim, log.embedder,
                  log.missing_vectors, log.erased)


def whatif_report(result: WhatIf, source: str, *, limit: int = 50) -> str:
    lines = ["# What if the store had used another policy?", "",
             f"Replayed {result.claims:,} claims from `{source}` on {len(result.stored):,} entities, "
             f"with their stored {result.dim}-dimensional embeddings ({result.embedder or 'embedder not recorded'})"
             + (f"; {result.missing_vectors:,} claims had none and got hashing vectors." if result.missing_vectors
                else ".")
             + (f" {result.erased:,} erased claims were left out (an erasure left no text, value or vector "
                "to replay; their entities are compared on the claims that remain)." if result.erased else ""), "",
             "| policy | entities ending differently | refused writes |", "|---|---|---|"]
    lines += [f"| {p} | {len(result.differences(p)):,} | {result.rejected[p]:,} |" for p in result.answers]
    for policy in result.answers:
        diff = result.differences(policy)
        if not diff:
            continue
        lines += ["", f"## {policy}: {len(diff):,} entities end differently", "",
                  "| entity | stored | under " + policy + " |", "|---|---|---|"]
        lines += [f"| {e} | {result.stored[e]} | {result.answers[policy][e]} |" for e in diff[:limit]]
        if len(diff) > limit:
            lines.append(f"| … {len(diff) - limit:,} more (see from_store.parquet) | | |")
    return "\n".join(lines) + "\n"
