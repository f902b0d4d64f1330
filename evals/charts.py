"""The report's PNG charts (matplotlib, Agg backend: no display needed), each with the
95% intervals of what it plots:

- `accuracy_vs_gap.png`: final-state accuracy against the agents' reliability gap (bands);
- `wrong_overwrites.png`: wrong-overwrite rate per policy (error bars);
- `disputes_vs_accuracy.png`: disputes per 1,000 writes against final-state accuracy;
- `oracle_fraction.png`: final-state and read accuracy as a share of the oracle's;
- `recommendation.png` (with --recommend): held-out accuracy per entity pattern, current
  policy against the proposal.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

CHARTS = ("accuracy_vs_gap.png", "wrong_overwrites.png", "disputes_vs_accuracy.png", "oracle_fraction.png")
RECOMMENDATION_CHART = "recommendation.png"


def _plt():  # type: ignore[no-untyped-def]
    import matplotlib  # noqa: PLC0415  (optional dependency, [evals] extra)

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    return plt


def _num(value: float | None) -> float:
    return 0.0 if value is None or math.isnan(value) else float(value)


def _err(value: float, low: float, high: float, scale: float = 1.0) -> tuple[float, float]:
    """Error-bar lengths below and above (0 where there is no interval)."""
    if any(x is None or math.isnan(x) for x in (value, low, high)):
        return 0.0, 0.0
    return max(0.0, scale * (value - low)), max(0.0, scale * (high - value))


def _bars(ax: Any, names: list[str], values: list[float], errors: list[tuple[float, float]], **kw: Any) -> Any:
    below, above = zip(*errors, strict=True) if errors else ((), ())
    return ax.bar(names, values, yerr=[list(below), list(above)], capsize=4, ecolor="#333333", **kw)


def write_charts(out_dir: Path, summary: pa.Table, by_gap: Mapping[str, Sequence[tuple[float, float, int]]],
                 gap_intervals: Mapping[str, Sequence[tuple[float, float, float]]] | None = None) -> list[Path]:
    plt = _plt()
    rows = summary.to_pylist()
    names = [r["policy"] for r in rows]
    paths = [out_dir / name for name in CHARTS]

    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for policy, points in by_gap.items():
        if not points:
            continue
        line = ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=policy)[0]
        band = [b for b in (gap_intervals or {}).get(policy, []) if not (math.isnan(b[1]) or math.isnan(b[2]))]
        if band:
            ax.fill_between([b[0] for b in band], [b[1] for b in band], [b[2] for b in band],
                            color=line.get_color(), alpha=0.12)
    ax.set(xlabel="agents' reliability gap (max - min reliability on the entity's domain)",
           ylabel="final-state accuracy", title="Accuracy against the reliability gap (bands: 95% intervals)",
           ylim=(0, 1))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    _save(fig, paths[0])

    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    values = [100 * _num(r["wrong_overwrite_rate"]) for r in rows]
    errors = [_err(r["wrong_overwrite_rate"], r["wrong_overwrite_rate_low"], r["wrong_overwrite_rate_high"], 100)
              for r in rows]
    bars = _bars(ax, names, values, errors, color="#c0504d")
    ax.bar_label(bars, fmt="%.2f%%", fontsize=8, padding=6)
    ax.set(ylabel="wrong overwrites (% of writes)", title="A true active value replaced by a false one (95% intervals)")
    ax.tick_params(axis="x", labelsize=8)
    _save(fig, paths[1])

    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for r in rows:
        x, y = _num(r["disputes_per_1k"]), _num(r["final_accuracy"])
        xe = _err(r["disputes_per_1k"], r["disputes_per_1k_low"], r["disputes_per_1k_high"])
        ye = _err(r["final_accuracy"], r["final_accuracy_low"], r["final_accuracy_high"])
        ax.errorbar([x], [y], xerr=[[xe[0]], [xe[1]]], yerr=[[ye[0]], [ye[1]]], fmt="o", capsize=3, markersize=7)
        ax.annotate(r["policy"], (x, y), textcoords="offset points", xytext=(6, 6), fontsize=9)
    ax.set(xlabel="disputes per 1,000 writes", ylabel="final-state accuracy",
           title="Disputes against accuracy (95% intervals)")
    ax.grid(alpha=0.3)
    _save(fig, paths[2])

    _oracle_chart(plt, rows, paths[3])
    return paths


def _oracle_chart(plt: Any, rows: list[dict[str, Any]], path: Path) -> None:
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    shown = [r for r in rows if not math.isnan(r["final_vs_oracle"])]
    xs = range(len(shown))
    for offset, column, label in ((-0.2, "final_vs_oracle", "final-state accuracy"),
                                  (0.2, "read_vs_oracle", "read accuracy")):
        values = [100 * _num(r[column]) for r in shown]
        errors = [_err(r[column], r[f"{column}_low"], r[f"{column}_high"], 100) for r in shown]
        below, above = (list(e) for e in zip(*errors, strict=True)) if errors else ([], [])
        ax.bar([x + offset for x in xs], values, width=0.4, yerr=[below, above], capsize=3, label=label)
    ax.axhline(100, color="#333333", linewidth=0.8, linestyle="--")
    ax.set_xticks(list(xs), [r["policy"] for r in shown], fontsize=8)
    ax.set(ylabel="% of the reliability oracle's accuracy", title="How close to the best possible (95% intervals)")
    ax.legend(fontsize=8)
    if not shown:
        ax.text(0.5, 0.5, "no oracle row in this run", ha="center", va="center", transform=ax.transAxes)
    _save(fig, path)


def recommendation_chart(out_dir: Path, gains: Sequence[Any], unit: str) -> Path:
    """Held-out final-state accuracy per pattern, current vs proposed, with the interval
    of the gain drawn on the proposal."""
    plt = _plt()
    shown = [g for g in gains if g.metric == "final_accuracy"]
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    xs = range(len(shown))
    ax.bar([x - 0.2 for x in xs], [100 * _num(g.current) for g in shown], width=0.4, label="current policy")
    errors = [_err(g.difference, g.low, g.high, 100) for g in shown]
    below, above = (list(e) for e in zip(*errors, strict=True)) if errors else ([], [])
    ax.bar([x + 0.2 for x in xs], [100 * _num(g.proposed) for g in shown], width=0.4, yerr=[below, above],
           capsize=4, label="proposal (bar: 95% interval of the gain)")
    ax.set_xticks(list(xs), ["all" if g.pattern == "*" else g.pattern for g in shown], fontsize=8)
    ax.set(ylabel="final-state accuracy (%)", ylim=(0, 105),
           title=f"Held-out {unit}: current policy against the proposal")
    ax.legend(fontsize=8)
    path = out_dir / RECOMMENDATION_CHART
    _save(fig, path)
    return path


def _save(fig: Any, path: Path) -> None:
    plt = _plt()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
