"""What `apply_plan` checks against the store before it changes anything (docs/jobs.md,
"Applying a plan"):

- **The store.** A plan records the store it was made for (`store_identity`): where
  it is and a few of its claim ids (claims are never deleted, so they stay while the
  store lives, on a copy, a moved store or a restore of its export too). A store that
  holds at least half of those claims is the plan's store (one holding only some of
  them, a partial import, applies with a warning); a plan whose claims the store does
  not hold was made for another store and is refused; a plan of
  an empty store names its path instead. A plan without an identity (written before
  plans carried one) is applied with a warning.
- **The columns.** Each column the plan schema names (`PLAN_SCHEMA`) that the plan has
  holds its type's kind: text for the labels, `action`, `plan`; true/false for `approved`
  (a reviewer's tool may have written "yes"/"no", or 0/1); numbers for the scores and
  counts. A plan that does not is refused naming the column and the type expected.
- **Accepted pairs.** A "keep" row a reviewer approved merges its pair: into the
  registry key, else into a label the plan merges others into, else into the label
  with more live claims; a label the plan merges away brings its whole cluster. A
  pair whose clusters (each label as the plan's merges map it) the store holds with
  different cardinalities (one value, a set), or whose two are registry keys, is
  refused naming the row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from vault_ray import InvalidInput
from vault_ray.models import validate_entity
from vault_ray.storage.layout import partition_of

from .job_store import JobStore
from .plan_report import PLAN_SCHEMA, plan_identity

WITNESSES = 8
"""Claim ids a plan records to recognise its store."""


def check_columns(table: pa.Table, path: str | Path) -> pa.Table:
    """The plan with its text columns as plain strings and an all-empty `approved` as booleans;
    InvalidInput naming the first column whose values are not of the type the plan schema gives it."""
    for name in table.column_names:
        if name not in PLAN_SCHEMA.names:
            continue  # a reviewer's own column (a note): not read
        wanted, found = PLAN_SCHEMA.field(name).type, table.schema.field(name).type
        if pa.types.is_dictionary(found):  # a categorical column (pandas, DuckDB enums)
            found = found.value_type
        if _same_kind(wanted, found):
            if wanted != found and (pa.types.is_string(wanted) or pa.types.is_null(found)):
                table = table.set_column(table.column_names.index(name), name, table.column(name).cast(wanted))
            continue
        raise InvalidInput(f"{str(path)!r} is not a merge plan: its column {name!r} holds {_kind(found)} "
                           f"values, not {_kind(wanted)}"
                           + (" (set each row's `approved` to true or false)" if name == "approved" else ""))
    return table


def _same_kind(wanted: pa.DataType, found: pa.DataType) -> bool:
    if pa.types.is_null(found):  # every row empty
        return True
    if pa.types.is_string(wanted):
        return pa.types.is_string(found) or pa.types.is_large_string(found) or pa.types.is_string_view(found)
    if pa.types.is_boolean(wanted):
        return pa.types.is_boolean(found)
    if pa.types.is_floating(wanted) or pa.types.is_integer(wanted):
        return pa.types.is_floating(found) or pa.types.is_integer(found)
    if pa.types.is_list(wanted):
        return pa.types.is_list(found) or pa.types.is_large_list(found)
    return True


def _kind(t: pa.DataType) -> str:
    if pa.types.is_boolean(t):
        return "true/false (boolean)"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "text (string)"
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        return f"number ({t})"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return "list"
    return str(t)


def store_identity(job: JobStore, claims: pa.Table) -> dict[str, Any]:
    """The store as a plan records it: mode, where, and its first claim ids (by id)."""
    picked = claims.select(["entity", "id"]).take(pc.sort_indices(claims, [("id", "ascending")])[:WITNESSES])
    return {"mode": job.info.mode, "store": _where(job), "namespace": job.info.namespace,
            "claims": [[row["entity"], row["id"]] for row in picked.to_pylist()]}


def _where(job: JobStore) -> str:
    return str(Path(job.info.store).resolve()) if job.info.mode == "embedded" else job.info.store


def check_store(job: JobStore, table: pa.Table, *, any_store: bool = False) -> str | None:
    """Refuse a plan made for another store (unless `any_store`); a warning for a plan
    that does not say which store it was made for."""
    identity = plan_identity(table)
    if identity is None:
        return ("the plan does not say which store it was made for (written before plans recorded it, or "
                "rewritten without its `store` column): applied without checking")
    claims = [(str(e), str(i)) for e, i in identity.get("claims") or []]
    if claims:
        by_partition: dict[int, list[str]] = {}
        for entity, claim_id in claims:
            by_partition.setdefault(partition_of(entity, job.info.partitions), []).append(claim_id)
        wanted = {i for _, i in claims}
        held = len(wanted & job.backend.present_claims(by_partition))
        ours = held >= witnesses_needed(len(wanted))
    else:  # the store had no claims: its path says which it was
        held, ours = 0, identity.get("store") == _where(job)
    if ours and claims and held < len(wanted):
        return (f"this store holds {held} of the {len(wanted)} claims the plan recorded to recognise its store "
                "(a partial import or restore?): taken as the plan's store")
    if ours or any_store:
        return None
    raise InvalidInput(f"the plan was made for the store {identity.get('store')!r}, not {_where(job)!r}"
                       + (f" (this store holds {held} of the {len(wanted)} claims it recorded)" if claims else "")
                       + ": make a plan for this store with `vault-ray normalize`, or pass --any-store to apply it anyway")


def witnesses_needed(recorded: int) -> int:
    """How many of a plan's witness claims the store must hold to be its store: half of them,
    rounded up (at least one). Claim ids are random, so one match is already no accident;
    half of them still tells a store that reuses a few client-chosen ids from another one,
    and a witness the store lacks (a partial import) counts as unknown, not as a mismatch."""
    return max(1, (recorded + 1) // 2)


def accept_keeps(job: JobStore, keeps: list[dict[str, Any]], merges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The merges to run: `merges` plus the approved keep rows as merges (see the module
    docstring); a label a keep row merges away takes the labels merged into it along."""
    registry, policy = job.vault.registry, job.vault.policy
    rows = [dict(r) for r in merges]
    for keep in keeps:
        a, b = validate_entity(keep["from_label"]), validate_entity(keep["to_label"])
        row = f"the approved keep row {a!r} / {b!r}"
        into = {r["from_label"]: r["to_label"] for r in rows}
        a, b = into.get(a, a), into.get(b, b)  # a label merged elsewhere joins as its cluster
        if a == b:
            continue
        # the labels that actually meet: each side's cluster target (its claims end up there)
        kinds = {x: policy.cardinality_for(x, registry.cardinality(x)) for x in (a, b)}
        if kinds[a] != kinds[b]:
            raise InvalidInput(f"{row}: {a} holds '{kinds[a]}' value(s) and {b} '{kinds[b]}': merging would mix one "
                               "value with a set. Set approved=false on it (or give both labels one cardinality first)")
        keys = [x for x in (a, b) if x in registry.entries]
        if len(keys) == 2:
            raise InvalidInput(f"{row}: {a} and {b} are both registry keys (two things to the registry): set "
                               "approved=false on it, or remove one entry first")
        guarded = [x for x in (a, b) if policy.is_high_stakes(x)]  # a merge never lowers protection
        target = keys[0] if keys else guarded[0] if len(guarded) == 1 else _bigger(job, a, b, {r["to_label"] for r in rows})
        source = b if target == a else a
        for r in rows:  # the labels merged into source go to target with it
            if r["to_label"] == source:
                r["to_label"] = target
        rows.append({**keep, "action": "merge", "from_label": source, "to_label": target,
                     "evidence": f"kept apart by normalize ({keep.get('decided_by')}), accepted by a reviewer: "
                                 f"{keep.get('evidence')}"})
    return rows


def _bigger(job: JobStore, a: str, b: str, targets: set[str]) -> str:
    """A label others merge into, else the one with more live claims (b on a tie: the plan's `to_label`)."""
    if (a in targets) != (b in targets):
        return a if a in targets else b
    return a if len(job.backend.live_claims(a)) > len(job.backend.live_claims(b)) else b
