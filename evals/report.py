"""The evaluation report: a markdown comparison table and three PNG charts.

Charts are drawn with matplotlib's Agg backend (no display needed):
`accuracy_vs_gap.png` (final-state accuracy against the agents' reliability gap),
`wrong_overwrites.png` (wrong-overwrite rate per policy) and
`disputes_vs_accuracy.png` (disputes per 1,000 writes against final-state accuracy).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

COLUMNS: tuple[tuple[str, str, str], ...] = (
    # (summary column, header, format): "%" = a share shown in percent, "n" = a plain number
    ("final_accuracy", "final-state accuracy", "%"),
    ("final_strict_accuracy", "… and uncontested", "%"),
    ("final_contested_rate", "contested at end", "%"),
    ("read_accuracy", "read accuracy", "%"),
    ("stale_read_rate", "stale reads", "%"),
    ("wrong_overwrite_rate", "wrong overwrites", "%"),
    ("disputes_per_1k", "disputes / 1k writes", "n"),
    ("escalation_recall", "escalation recall", "%"),
    ("escalation_precision", "escalation precision", "%"),
    ("judge_calls_per_1k", "judge calls / 1k writes", "n"),
    ("resolution_accuracy", "entity resolution (drift)", "%"),
    ("rejected_per_1k", "rejected / 1k writes", "n"),
)
CHARTS = ("accuracy_vs_gap.png", "wrong_overwrites.png", "disputes_vs_accuracy.png")


def fmt(value: float | None, kind: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{100 * value:.1f}%" if kind == "%" else f"{value:.1f}"


def comparison_table(summary: pa.Table) -> str:
    rows = summary.to_pylist()
    head = "| policy | scenarios | writes | " + " | ".join(h for _, h, _ in COLUMNS) + " |"
    rule = "|" + "---|" * (3 + len(COLUMNS))
    body = [
        f"| {r['policy']} | {r['scenarios']:,} | {r['writes']:,} | "
        + " | ".join(fmt(r[c], k) for c, _, k in COLUMNS) + " |"
        for r in rows
    ]
    return "\n".join([head, rule, *body])


def findings(summary: pa.Table) -> list[str]:
    """One line per headline comparison the numbers support."""
    rows = {r["policy"]: r for r in summary.to_pylist()}
    out = []
    if "lww" in rows:
        base = rows["lww"]
        for name, r in rows.items():
            if name == "lww":
                continue
            out.append(
                f"- **{name}** vs last-write-wins: final-state accuracy {fmt(r['final_accuracy'], '%')} vs "
                f"{fmt(base['final_accuracy'], '%')}, wrong overwrites {fmt(r['wrong_overwrite_rate'], '%')} vs "
                f"{fmt(base['wrong_overwrite_rate'], '%')} of writes, {fmt(r['disputes_per_1k'], 'n')} disputes "
                "per 1,000 writes."
            )
    scored = [r for r in rows.values() if not math.isnan(r["final_accuracy"])]
    if scored:
        best = max(scored, key=lambda r: r["final_accuracy"])
        out.append(f"- Highest final-state accuracy: **{best['policy']}** ({fmt(best['final_accuracy'], '%')}).")
    return out


def write_charts(out_dir: Path, summary: pa.Table, by_gap: Mapping[str, Sequence[tuple[float, float, int]]]) -> list[Path]:
    import matplotlib  # noqa: PLC0415  (optional dependency, [evals] extra)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    rows = summary.to_pylist()
    names = [r["policy"] for r in rows]
    paths = [out_dir / name for name in CHARTS]

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for policy, points in by_gap.items():
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=policy)
    ax.set(xlabel="agents' reliability gap (max - min reliability on the entity's domain)",
           ylabel="final-state accuracy", title="Accuracy against the reliability gap", ylim=(0, 1))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, paths[0])

    fig, ax = plt.subplots(figsize=(7, 4.5))
    values = [100 * _num(r["wrong_overwrite_rate"]) for r in rows]
    bars = ax.bar(names, values, color="#c0504d")
    ax.bar_label(bars, fmt="%.2f%%", fontsize=8)
    ax.set(ylabel="wrong overwrites (% of writes)", title="A true active value replaced by a false one")
    _save(fig, paths[1])

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for r in rows:
        x, y = _num(r["disputes_per_1k"]), _num(r["final_accuracy"])
        ax.scatter([x], [y], s=60)
        ax.annotate(r["policy"], (x, y), textcoords="offset points", xytext=(5, 5), fontsize=9)
    ax.set(xlabel="disputes per 1,000 writes", ylabel="final-state accuracy", title="Disputes against accuracy")
    ax.grid(alpha=0.3)
    _save(fig, paths[2])
    return paths


def _num(value: float | None) -> float:
    return 0.0 if value is None or math.isnan(value) else float(value)


def _save(fig: Any, path: Path) -> None:
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def cost_lines(summary: pa.Table, meta: Mapping[str, Any]) -> list[str]:
    """The CPU the replays used: unlike wall time, it does not depend on what else runs."""
    rows = summary.to_pylist()
    total = sum(r.get("cpu_s") or 0.0 for r in rows)
    pairs = sum(r["scenarios"] for r in rows)
    if not total or not pairs:
        return []
    each = ", ".join("{} {:.1f} s".format(r["policy"], r["cpu_s"]) for r in rows)
    text = f"Replay CPU: {total:,.1f} s in all, {1000 * total / pairs:.1f} ms per scenario and policy ({each})."
    cpus = meta.get("cpus")
    if cpus:
        text += (f" Spread over {cpus} CPUs with nothing else running, the replays alone would take about "
                 f"{total / cpus:,.0f} s (the rest of the wall time is Ray start-up and scheduling, and "
                 "whatever else the machine was running).")
    return [text]


def settings_lines(evaluation: Mapping[str, Any], policies: Sequence[str]) -> list[str]:
    """How entity resolution got its text vectors and, when compared, what `mixed` was."""
    if not evaluation:
        return []
    if evaluation.get("embedder") == "local":
        vectors = (f"the local model (all-MiniLM-L6-v2, 384 dims) in a Ray Data actor pool of "
                   f"{evaluation.get('embed_actors', 1)}")
    else:
        vectors = "the hashing embedder (256 dims)"
    lines = [f"Text vectors for entity resolution: {vectors}."]
    if "mixed" in policies and evaluation.get("mixed"):
        table = ", ".join(f"`{p}` {s}" for p, s in evaluation["mixed"].items())
        lines.append(f"`mixed`: {table}; near-simultaneous writes under recency: "
                     f"{evaluation.get('mixed_on_ambiguous', 'judge')}.")
    return [*lines, ""]


def write_report(out_dir: str | Path, summary: pa.Table, by_gap: Mapping[str, Sequence[tuple[float, float, int]]],
                 *, meta: Mapping[str, Any]) -> Path:
    """Write report.md and the charts into `out_dir`; returns the report's path.

    `meta` carries: scenarios, seconds, scenarios_per_s, command, seed, judge_accuracy,
    machine (free text), and optionally generator (a dict of settings)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    charts = write_charts(out, summary, by_gap)
    lines = [
        "# vault-ray policy evaluation",
        "",
        f"{meta.get('scenarios', 0):,} synthetic scenarios (seed {meta.get('seed', 0)}), replayed under "
        f"{summary.num_rows} policies in {meta.get('seconds', 0.0):.1f} s: "
        f"**{meta.get('scenarios_per_s', float('nan')):.1f} scenarios/s** "
        f"(each scenario under every policy) on {meta.get('machine', 'this machine')}.",
        "",
        f"Command: `{meta.get('command', '')}`",
        "",
        *cost_lines(summary, meta),
        "",
        "## Comparison",
        "",
        comparison_table(summary),
        "",
        *findings(summary),
        "",
        f"The judge is scripted with accuracy {meta.get('judge_accuracy', float('nan')):g}. "
        "Metric definitions: docs/evals.md. Percentages of writes, reads or entities as defined there; "
        "n/a where the denominator is zero (e.g. no escalations).",
        "",
        *settings_lines(meta.get("eval") or {}, [r["policy"] for r in summary.to_pylist()]),
        "## Charts",
        "",
        *[f"![{p.stem}]({p.name})" for p in charts],
        "",
    ]
    if meta.get("generator"):
        lines += ["## Generator settings", "", "```json", json.dumps(meta["generator"], indent=2, sort_keys=True),
                  "```", ""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path

