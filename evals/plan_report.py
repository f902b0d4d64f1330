"""A merge plan on disk: `plan.parquet` (what `--apply` reads) and `plan.md` (what a
person reviews). docs/jobs.md lists the columns.

One row per label pair: `action` "merge" (from_label re-keyed onto to_label) or
"keep" (considered and left apart: the ambiguous band, the guards). `approved`
starts true for merges and false for the rest; a reviewer may flip it (pandas,
DuckDB, pyarrow) before applying: `--apply` runs the approved rows only (an approved
"keep" row merges its pair: plan_checks.py). `store` names the store the plan was made
for (JSON: its path and a few of its claim ids; also in the schema metadata), so a plan
is not applied to another store.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from vault_ray import InvalidInput

from .merge_plan import MergePlan, PairDecision

CONFLICT = pa.struct([("claim", pa.string()), ("agent", pa.string()), ("value", pa.string()),
                      ("against_claim", pa.string()), ("against_label", pa.string()), ("against_agent", pa.string()),
                      ("against_value", pa.string()), ("same_agent", pa.bool_())])
DISPUTE = pa.struct([("dispute", pa.string()), ("status", pa.string()), ("needs_user", pa.bool_()),
                     ("decided_by", pa.string()), ("claim", pa.string()), ("effect", pa.string())])
PLAN_SCHEMA = pa.schema([
    ("plan", pa.string()), ("action", pa.string()), ("approved", pa.bool_()), ("from_label", pa.string()),
    ("to_label", pa.string()), ("score", pa.float64()), ("statement", pa.float64()), ("label", pa.float64()),
    ("values", pa.float64()), ("described", pa.float64()), ("decided_by", pa.string()), ("evidence", pa.string()),
    ("claims", pa.int64()), ("claims_total", pa.int64()), ("agents", pa.list_(pa.string())),
    ("cardinality", pa.string()), ("strategy", pa.string()), ("conflicts", pa.list_(CONFLICT)), ("store", pa.string()),
    ("disputes", pa.list_(DISPUTE)),
])
STORE_KEY = b"vault_ray.store"
"""Schema metadata key of the store identity (the `store` column holds it too: pandas and
DuckDB keep columns, not Parquet metadata, when a reviewer rewrites the plan)."""
PLAN_KEY = b"vault_ray.plan"
"""Schema metadata key of the plan id: a plan with no row (nothing to merge, nothing kept apart) still
names itself, and `--apply` of it says which plan found nothing."""
PLAN_FILE, REPORT_FILE, KEPT_FILE = "plan.parquet", "plan.md", "kept.csv"
KEPT_COLUMNS = ["from_label", "to_label", "score", "decided_by", "evidence"]
KEPT_IN_FULL = 100
"""plan.md lists this many kept-apart pairs one by one; more (a store of numbered labels,
`room 1` .. `room 300`, keeps tens of thousands apart) are summarised: counts by reason
and each reason's KEPT_PER_REASON highest-scoring pairs, the full list in kept.csv."""
KEPT_PER_REASON = 10


def _score(scores: dict[str, float], key: str) -> float | None:
    value = scores.get(key)
    return None if value is None or math.isnan(value) else float(value)


def plan_table(plan: MergePlan) -> pa.Table:
    rows: list[dict[str, Any]] = []
    store = json.dumps(plan.identity, sort_keys=True) if plan.identity else None
    for m in plan.merges:
        rows.append({"plan": plan.plan_id, "action": "merge", "approved": True, "from_label": m.source,
                     "to_label": m.target, "score": _score(m.scores, "combined"), "decided_by": m.decided_by,
                     **{k: _score(m.scores, k) for k in ("statement", "label", "values", "described")},
                     "evidence": m.evidence, "claims": m.claims, "claims_total": m.claims_total, "agents": m.agents,
                     "cardinality": m.cardinality, "strategy": m.strategy, "conflicts": m.conflicts, "store": store,
                     "disputes": m.disputes})
    for d in plan.kept:
        rows.append({"plan": plan.plan_id, "action": "keep", "approved": False, "from_label": d.a, "to_label": d.b,
                     "score": _score(d.scores, "combined"), "decided_by": d.decided_by, "evidence": d.evidence,
                     **{k: _score(d.scores, k) for k in ("statement", "label", "values", "described")},
                     "claims": 0, "claims_total": 0, "agents": [], "cardinality": None, "strategy": None, "conflicts": [],
                     "store": store, "disputes": []})
    table = pa.Table.from_pylist(rows, schema=PLAN_SCHEMA)
    return table.replace_schema_metadata({PLAN_KEY: plan.plan_id, **({STORE_KEY: store} if store else {})})


def write_plan(plan: MergePlan, out: str | Path) -> tuple[Path, Path]:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    table = plan_table(plan)
    pq.write_table(table, out / PLAN_FILE)
    kept = table.filter(pc.equal(table["action"], "keep")).select(KEPT_COLUMNS)
    pa_csv.write_csv(kept, out / KEPT_FILE)  # every kept pair, as plan.parquet orders them (highest score first)
    (out / REPORT_FILE).write_text(report(plan))
    return out / PLAN_FILE, out / REPORT_FILE


def read_plan(path: str | Path) -> pa.Table:
    """A plan file (or the directory holding plan.parquet), checked for the plan's columns."""
    path = Path(path)
    if path.is_dir():
        path = path / PLAN_FILE
    if not path.is_file():
        raise InvalidInput(f"no merge plan at {str(path)!r} (normalize writes {PLAN_FILE})")
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InvalidInput(f"{str(path)!r} is not a Parquet merge plan: {exc}") from None
    missing = [n for n in ("plan", "action", "approved", "from_label", "to_label") if n not in table.column_names]
    if missing:
        raise InvalidInput(f"{str(path)!r} is not a merge plan: no column(s) {missing}")
    return table


def approved_merges(table: pa.Table, action: str = "merge") -> list[dict[str, Any]]:
    """The rows to apply: `action` ('merge', or 'keep': pairs a reviewer accepted), approved."""
    chosen = table.filter(pc.and_(pc.equal(table["action"], action), pc.fill_null(table["approved"], False)))
    return chosen.select([c for c in PLAN_SCHEMA.names if c in chosen.column_names]).to_pylist()


def plan_id_of(table: pa.Table) -> str | None:
    """The plan's id: its rows' `plan`, else the schema metadata's (a plan with no row); None when neither
    holds one (a plan rewritten by a tool that emptied the column and dropped the metadata)."""
    found = [v for v in table.column("plan").to_pylist() if isinstance(v, str) and v.strip()]
    if found:
        return str(found[0])
    meta = (table.schema.metadata or {}).get(PLAN_KEY)
    return meta.decode() if meta else None


def plan_identity(table: pa.Table) -> dict[str, Any] | None:
    """The identity of the store the plan was made for (None: a plan written before plans
    carried one, or rewritten by a tool that dropped both the column and the metadata)."""
    found = [v for v in table.column("store").to_pylist() if v] if "store" in table.column_names else []
    text = found[0] if found else (table.schema.metadata or {}).get(STORE_KEY)
    if not text:
        return None
    try:
        identity = json.loads(text)
    except ValueError:
        raise InvalidInput(f"the plan's store identity does not read as JSON: {text!r:.80}") from None
    if not isinstance(identity, dict):
        raise InvalidInput(f"the plan's store identity is not a JSON object: {text!r:.80}")
    return identity


def report(plan: MergePlan) -> str:
    th = plan.thresholds
    lines = [
        f"# Entity normalization plan `{plan.plan_id}`", "",
        f"Store: `{plan.store}`. Similarity vectors: `{plan.similarity_embedder}`. Merge from a combined score of "
        f"{th.accept}; the reasoner decides from {th.ask}. Nothing changes until "
        "`vault-ray normalize --apply plan.parquet` (approved rows only; approving a kept pair merges it).", "",
        "## Merges", "",
    ]
    if not plan.merges:
        lines += ["None: no two labels look like one thing.", ""]
    else:
        lines += ["| from | to | score | decided by | claims to re-key | conflicts | disputes, decisions |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| `{m.source}` | `{m.target}` | {_fmt(_score(m.scores, 'combined'))} | {m.decided_by} | {m.claims} | "
                  f"{len(m.conflicts)} | {_disputes(m.disputes)} |" for m in plan.merges]
        lines.append("")
        for m in plan.merges:
            lines += [f"### `{m.source}` -> `{m.target}`", "", f"- evidence: {m.evidence}",
                      f"- {m.claims} live claim(s) of {m.claims_total} by {', '.join(m.agents) or 'nobody'}; "
                      f"`{m.target}` is '{m.cardinality}', decided by `{m.strategy}`"]
            for c in m.conflicts:
                who = "the same agent (pass 1: the newer of the two stands)" if c["same_agent"] else f"{c['against_agent']}"
                lines.append(f"- conflict: {c['agent']} says {c['value']!r} ({c['claim']}); `{c['against_label']}` "
                             f"has {c['against_value']!r} ({c['against_claim']}) from {who}")
            for d in m.disputes:
                waits = ", waits for a person" if d["needs_user"] and d["status"] == "open" else ""
                by = f" by {d['decided_by']}" if d["decided_by"] else ""
                lines.append(f"- dispute {d['dispute']} ({d['status']}{by}{waits}): {d['effect']}")
            lines.append("")
    lines += ["## Considered and kept apart", ""]
    if not plan.kept:
        lines.append("None.")
    elif len(plan.kept) <= KEPT_IN_FULL:
        lines += _kept_rows(plan.kept)
    else:
        lines += _kept_summary(plan.kept)
    return "\n".join(lines) + "\n"


def _kept_rows(kept: list[PairDecision]) -> list[str]:
    return ["| labels | score | why |", "|---|---|---|",
            *(f"| `{d.a}` / `{d.b}` | {_fmt(_score(d.scores, 'combined'))} | {d.evidence} |" for d in kept)]


def _kept_summary(kept: list[PairDecision]) -> list[str]:
    """Many kept pairs: how many per reason, and each reason's highest-scoring ones (the pairs
    closest to a merge: what a reviewer may want to accept); the whole list is in kept.csv."""
    by_reason: dict[str, list[PairDecision]] = {}
    for d in kept:  # highest score first, as the plan orders them
        by_reason.setdefault(d.decided_by, []).append(d)
    reasons = sorted(by_reason.items(), key=lambda item: (-len(item[1]), item[0]))
    lines = [f"{len(kept):,} pairs, too many to list here: every one is a `keep` row of `{PLAN_FILE}` (where "
             f"approving it merges the pair) and a line of `{KEPT_FILE}` beside this file ({', '.join(KEPT_COLUMNS)}; "
             "highest score first; to read or grep: editing it changes nothing).", "",
             "| why kept apart | pairs | highest score |", "|---|---|---|"]
    lines += [f"| {reason} | {len(found):,} | {_fmt(_score(found[0].scores, 'combined'))} |" for reason, found in reasons]
    for reason, found in reasons:
        shown = found[:KEPT_PER_REASON]
        more = f", the {len(shown)} highest-scoring shown" if len(found) > len(shown) else ""
        lines += ["", f"### {reason} ({len(found):,} pair(s){more})", "", *_kept_rows(shown)]
    return lines


def _disputes(found: list[dict[str, Any]]) -> str:
    """The plan.md cell: how many the merge holds, carries, re-decides ('-' for none)."""
    counts: dict[str, int] = {}
    for d in found:
        word = d["effect"].split(":", 1)[0]
        counts[word] = counts.get(word, 0) + 1
    return ", ".join(f"{n} {word}" for word, n in counts.items()) or "-"


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
