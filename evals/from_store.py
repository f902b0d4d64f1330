"""What if a real store had used another policy? Replay its claim log and compare.

The claim log is read from a `Vault.export(dir)` directory (`*/claims.parquet`,
`*/disputes.parquet`) or straight from a store's DuckDB files (read-only: only
when no process holds the store). Every claim is re-written, in the order the
store recorded it and in the batches it was recorded in (same recording time,
agent and session), into a fresh vault under each policy, on the entity it was
stored on (entity resolution is not re-run) with `resolve=False`. The final view of
each entity is compared with the stored one.

Not replayed: manual `resolve_dispute` decisions and time-based rules, which are
not claims. The `store` policy (the store's own, from its control.json) shows how
much of the stored state they account for.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import groupby
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from vault_ray import DisputeCapExceeded, EntityRegistry, Fact, HashingEmbedder, Policy, RuleReasoner, Vault
from vault_ray.errors import StoreError

WHATIF_POLICIES = ("lww", "store", "recency", "authority", "consensus", "judge")
CLAIM_COLUMNS = ["id", "rid", "entity", "text", "value", "kind", "agent", "session", "observed_at", "recorded_at",
                 "status", "confidence", "meta"]


@dataclass(frozen=True)
class ClaimLog:
    claims: pa.Table
    """CLAIM_COLUMNS plus `partition`, in recording order."""
    open_disputes: pa.Table
    """entity of every open dispute."""
    policy: Policy
    registry: EntityRegistry


def read_claim_log(path: str | Path) -> ClaimLog:
    """Read an export directory, a store directory or one partition's .duckdb file."""
    root = Path(path)
    if root.is_file() and root.suffix == ".duckdb":
        files, kind = [root], "duckdb"
    elif (root / "vault.json").exists():
        files, kind = sorted((root / "partitions").glob("p*.duckdb")), "duckdb"
    else:
        files, kind = sorted(p.parent for p in root.rglob("claims.parquet")), "parquet"
    if not files:
        raise StoreError(f"{str(root)!r} holds no claim log: give a store directory, a .duckdb file "
                         "or a directory written by Vault.export(dir)")
    claims, disputes = [], []
    for number, source in enumerate(files):
        c, d = _read_duckdb(source) if kind == "duckdb" else _read_parquet(source)
        claims.append(c.append_column("partition", pa.array([number] * c.num_rows, pa.int64())))
        disputes.append(d)
    table = pa.concat_tables(claims).sort_by([("recorded_at", "ascending"), ("partition", "ascending"),
                                              ("rid", "ascending")])
    policy, registry = _control(root if root.is_dir() else root.parent.parent)
    return ClaimLog(table, pa.concat_tables(disputes), policy, registry)


def _read_duckdb(path: Path) -> tuple[pa.Table, pa.Table]:
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise StoreError(f"cannot read {str(path)!r} ({exc}); if a process holds the store, export it with "
                         "Vault.export(dir) and pass that directory") from exc
    try:
        claims = con.sql(f"SELECT {', '.join(CLAIM_COLUMNS)} FROM claims").to_arrow_table()
        disputes = con.sql("SELECT entity FROM disputes WHERE status = 'open'").to_arrow_table()
    finally:
        con.close()
    return claims, disputes


def _read_parquet(directory: Path) -> tuple[pa.Table, pa.Table]:
    claims = pq.read_table(directory / "claims.parquet", columns=CLAIM_COLUMNS)
    disputes_file = directory / "disputes.parquet"
    if disputes_file.exists():
        d = pq.read_table(disputes_file, columns=["entity", "status"])
        disputes = d.filter(pc.equal(d["status"], "open")).select(["entity"])
    else:
        disputes = pa.table({"entity": pa.array([], pa.string())})
    return claims, disputes


def _control(root: Path) -> tuple[Policy, EntityRegistry]:
    control = root / "control.json"
    if not control.exists():
        return Policy(), EntityRegistry.builtin()
    data = json.loads(control.read_text())
    return Policy.from_dict(data["policy"]), EntityRegistry.from_list(data["registry"])


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
    text = " | ".join(sorted(active)) if active else "-"
    if not contested:
        return text
    others = sorted(set(challengers) - active)
    return f"{text} (contested: {' | '.join(others)})" if others else f"{text} (contested)"


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
    last: dict[str, str] = {}
    for row in log.claims.select(["entity", "value", "text"]).to_pylist():
        last[row["entity"]] = row["value"] or row["text"]
    return {e: describe({v}) for e, v in last.items()}


def replay_answers(log: ClaimLog, policy: Policy) -> tuple[dict[str, str], int]:
    """Final answers per entity under `policy`, and how many writes it refused."""
    rows = log.claims.to_pylist()
    rejected = 0
    with tempfile.TemporaryDirectory(prefix="vault-whatif-") as tmp, Vault.open(
        tmp, partitions=1, embedder=HashingEmbedder(), reasoner=RuleReasoner(), policy=policy, registry=log.registry,
    ) as vault:
        for (_, agent, session), batch in groupby(rows, key=lambda r: (r["recorded_at"], r["agent"], r["session"])):
            facts = [_fact(r) for r in batch]
            try:
                vault.agent(agent).add_facts(facts, session=session, resolve=False)
            except DisputeCapExceeded:
                for fact in facts:
                    try:
                        vault.agent(agent).add_facts([fact], session=session, resolve=False)
                    except DisputeCapExceeded:
                        rejected += 1
        entities = sorted({r["entity"] for r in rows})
        views = vault.backend.views(entities)
        answers = {e: describe({c.value or c.text for c in views[e].active}, views[e].contested,
                               {c.claim.value or c.claim.text for c in views[e].candidates}) for e in entities}
    return answers, rejected


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

    def differences(self, policy: str) -> list[str]:
        return sorted(e for e, a in self.answers[policy].items() if a != self.stored.get(e, "-"))

    def table(self) -> pa.Table:
        entities = sorted(self.stored)
        cols: dict[str, list[Any]] = {"entity": entities, "stored": [self.stored[e] for e in entities]}
        for policy, answers in self.answers.items():
            cols[policy] = [answers.get(e, "-") for e in entities]
        return pa.table(cols)


def what_if(path: str | Path, policies: list[str]) -> WhatIf:
    log = read_claim_log(path)
    answers, rejected = {}, {}
    for name in policies:
        policy = whatif_policy(name, log.policy)
        if policy is None:
            answers[name], rejected[name] = lww_answers(log), 0
        else:
            answers[name], rejected[name] = replay_answers(log, policy)
    return WhatIf(stored_answers(log), answers, rejected, log.claims.num_rows)


def whatif_report(result: WhatIf, source: str, *, limit: int = 50) -> str:
    lines = ["# What if the store had used another policy?", "",
             f"Replayed {result.claims:,} claims from `{source}` on {len(result.stored):,} entities.", "",
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
