"""The evaluation report: report.md (comparison table with 95% intervals, how close to
the oracle, headline comparisons with their paired intervals, the recommendation) and
the PNG charts of charts.py."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from .charts import CHARTS, RECOMMENDATION_CHART, recommendation_chart, write_charts
from .policies import REFERENCES

if TYPE_CHECKING:
    from .recommend import Recommendation

__all__ = ["CHARTS", "COLUMNS", "RECOMMENDATION_CHART", "comparison_table", "findings", "fmt", "left_out",
           "write_charts", "write_report"]

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
    ("false_alignment_rate", "false alignments (new entities)", "%"),
    ("rejected_per_1k", "rejected / 1k writes", "n"),
)
ORACLE_HEADERS = (("final_vs_oracle", "final / oracle"), ("read_vs_oracle", "read / oracle"))
BASELINE = "lww"


def _nan(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def fmt(value: float | None, kind: str) -> str:
    if _nan(value):
        return "n/a"
    return f"{100 * value:.1f}%" if kind == "%" else f"{value:.1f}"  # type: ignore[operator]


def fmt_ci(value: float | None, low: float | None, high: float | None, kind: str) -> str:
    """`62.9% [61.8, 64.0]`: the estimate and its 95% interval (the estimate alone without one)."""
    text = fmt(value, kind)
    if _nan(value) or _nan(low) or _nan(high):
        return text
    scale, digits = (100, 1) if kind == "%" else (1, 1)
    return f"{text} [{scale * low:.{digits}f}, {scale * high:.{digits}f}]"  # type: ignore[operator]


def _cell(row: Mapping[str, Any], column: str, kind: str) -> str:
    return fmt_ci(row[column], row.get(f"{column}_low"), row.get(f"{column}_high"), kind)


def comparison_table(summary: pa.Table) -> str:
    rows = summary.to_pylist()
    head = ("| policy | scenarios | writes | " + " | ".join(h for _, h in ORACLE_HEADERS) + " | "
            + " | ".join(h for _, h, _ in COLUMNS) + " |")
    rule = "|" + "---|" * (3 + len(ORACLE_HEADERS) + len(COLUMNS))
    body = [
        f"| {r['policy']} | {r['scenarios']:,} | {r['writes']:,} | "
        + " | ".join(_cell(r, c, "%") for c, _ in ORACLE_HEADERS) + " | "
        + " | ".join(_cell(r, c, k) for c, _, k in COLUMNS) + " |"
        for r in rows
    ]
    return "\n".join([head, rule, *body])


def difference(comparisons: pa.Table | None, a: str, b: str, metric: str) -> tuple[float, float, float] | None:
    """(a - b, low, high) of `metric` from the paired comparisons, whichever way they were stored."""
    if comparisons is None:
        return None
    for r in comparisons.to_pylist():
        if r["metric"] != metric:
            continue
        if (r["policy"], r["versus"]) == (a, b):
            return r["difference"], r["low"], r["high"]
        if (r["policy"], r["versus"]) == (b, a):
            return -r["difference"], -r["high"], -r["low"]
    return None


def verdict(found: tuple[float, float, float] | None) -> str:
    """`+3.3 points [+2.1, +4.5]: outside the noise` (or within it)."""
    if found is None or any(_nan(x) for x in found):
        return ""
    d, lo, hi = (x + 0.0 for x in found)  # no "-0.0" when a difference was turned around
    noise = "outside the noise" if lo > 0 or hi < 0 else "within the noise"
    return f"{100 * d:+.1f} points [95% CI {100 * lo:+.1f}, {100 * hi:+.1f}]: {noise}"


def _baseline_on(row: Mapping[str, Any], base: Mapping[str, Any],
                 found: Mapping[str, tuple[float, float, float] | None]) -> Mapping[str, Any]:
    """The baseline's metrics on the scenarios `row`'s policy ran: `base` itself when it ran them
    all; for one that ran fewer (`learned`: the odd-numbered half), its value less the paired
    difference (both are ratios over those same scenarios), so the two numbers a line sets side
    by side differ by the difference it states."""
    if row["scenarios"] == base["scenarios"] or any(f is None or _nan(f[0]) for f in found.values()):
        return base
    return {**base, **{m: row[m] - f[0] for m, f in found.items() if f is not None}}


def findings(summary: pa.Table, comparisons: pa.Table | None = None) -> list[str]:
    """One line per headline comparison the numbers support; with `comparisons` (paired
    bootstrap, uncertainty.comparisons), each difference says whether it is outside the noise."""
    rows = {r["policy"]: r for r in summary.to_pylist()}
    out = []
    if BASELINE in rows:
        base = rows[BASELINE]
        for name, r in rows.items():
            if name == BASELINE:
                continue
            found = {m: difference(comparisons, name, BASELINE, m) for m in ("final_accuracy", "wrong_overwrite_rate")}
            acc, wrong = (verdict(found[m]) for m in ("final_accuracy", "wrong_overwrite_rate"))
            same = _baseline_on(r, base, found)
            fewer = "" if same is base else f" (last-write-wins on the same {r['scenarios']:,} scenarios)"
            out.append(
                f"- **{name}** vs last-write-wins{fewer}: final-state accuracy {fmt(r['final_accuracy'], '%')} vs "
                f"{fmt(same['final_accuracy'], '%')}{f' ({acc})' if acc else ''}, wrong overwrites "
                f"{fmt(r['wrong_overwrite_rate'], '%')} vs {fmt(same['wrong_overwrite_rate'], '%')} of writes"
                f"{f' ({wrong})' if wrong else ''}, {fmt(r['disputes_per_1k'], 'n')} disputes per 1,000 writes."
            )
    scored = sorted((r for r in rows.values() if not _nan(r["final_accuracy"]) and r["policy"] not in REFERENCES),
                    key=lambda r: r["final_accuracy"], reverse=True)
    if scored:
        best = scored[0]
        line = f"- Highest final-state accuracy: **{best['policy']}** ({fmt(best['final_accuracy'], '%')})"
        if len(scored) > 1:
            second = scored[1]["policy"]
            gap = verdict(difference(comparisons, best["policy"], second, "final_accuracy"))
            line += f"; ahead of {second} by {gap}" if gap else f"; then {second}"
        out.append(line + ".")
    if "learned" in rows and "authority" in rows:
        gap = verdict(difference(comparisons, "learned", "authority", "final_accuracy"))
        out.append(f"- Weights learned from half the scenarios (**learned**, {fmt(rows['learned']['final_accuracy'], '%')} "
                   f"on the other half) against the nominal weights (authority), on the same scenarios: "
                   f"{gap or 'no interval'}.")
    return out


def oracle_lines(summary: pa.Table, comparisons: pa.Table | None = None) -> list[str]:
    """How close to the best possible: the oracle's accuracy and every policy's share of it."""
    rows = {r["policy"]: r for r in summary.to_pylist()}
    oracle = rows.get("oracle")
    if oracle is None:
        return []
    shares = ", ".join(f"{p} {_cell(r, 'final_vs_oracle', '%')}" for p, r in rows.items() if p != "oracle")
    lines = [
        "The **reliability oracle** knows each agent's true reliability on each entity of every scenario, and "
        "after each write keeps the value most likely true given the reports delivered so far (Bayes-optimal, "
        "with the world's change rate as prior; docs/evals.md). It never sees the truth, so no policy that does "
        f"not either can expect to beat it: final-state accuracy {_cell(oracle, 'final_accuracy', '%')}, read "
        f"accuracy {_cell(oracle, 'read_accuracy', '%')}.",
        "",
        f"Final-state accuracy as a share of the oracle's, on the same scenarios: {shares}.",
    ]
    gaps = [(p, difference(comparisons, p, "oracle", "final_accuracy")) for p in rows if p != "oracle"]
    ahead = [p for p, g in gaps if g is not None and g[1] > 0]
    if ahead:
        lines += ["", f"Significantly above the oracle: {', '.join(ahead)} (a policy that sees the truth: "
                      "the scripted judge does)."]
    return ["## How close to the best possible", "", *lines, ""]


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


def recommendation_lines(rec: Recommendation, proposal_file: str = "proposal.json", *, limit: int = 60) -> list[str]:
    """The recommendation: the gain, the table per entity pattern and the learned weights."""
    from .recommend import CANDIDATES  # noqa: PLC0415

    halves = ("even scenario ids", "odd scenario ids") if rec.unit == "scenarios" else \
        ("one half of the entities", "the other half (split by a hash of the key)")
    lines = ["## Recommendation", "", f"Labels: {rec.source}.", "",
             f"Strategies and weights were chosen on {halves[0]} and are measured here on {halves[1]}, which chose "
             f"nothing; intervals resample {rec.unit}.", ""]
    for metric, name in (("final_accuracy", "final-state accuracy"), ("read_accuracy", "read accuracy")):
        g = rec.gain(metric)
        if g is not None:
            lines.append(f"- **{name}: {fmt(g.current, '%')} under the current policy, {fmt(g.proposed, '%')} under "
                         f"the proposal** ({verdict((g.difference, g.low, g.high)) or 'no interval'}; "
                         f"{g.units:,} {rec.unit}).")
    lines += ["", f"The proposal is written to `{proposal_file}`: review it, then "
              f"`vault-ray policy apply {proposal_file} --store PATH` (or `vault.set_policy(read_policy_file(...))`).",
              "", "| entity pattern | current | proposed | " + " | ".join(f"{c} (fit)" for c in CANDIDATES)
              + " | entities (fit) | held-out gain, final-state accuracy |", "|" + "---|" * (5 + len(CANDIDATES))]
    for c in rec.choices:
        g = rec.gain("final_accuracy", c.pattern)
        current, proposed = ("asks the user (high stakes)",) * 2 if c.high_stakes else (
            c.current, f"**{c.chosen}**" + (f" (kept: {c.kept})" if c.kept else ""))
        lines.append(f"| `{c.pattern}` | {current} | {proposed} | "
                     + " | ".join(fmt(c.accuracy.get(k), "%") for k in CANDIDATES)
                     + f" | {c.entities:,} | {verdict((g.difference, g.low, g.high)) if g else 'n/a'} |")
    lines += [f"| `*` (every other entity) | {rec.current.default_strategy} | **{rec.policy.default_strategy}** | "
              + " | ".join("" for _ in CANDIDATES) + " | | |", ""]
    weights = rec.weights.agreement.to_pylist()
    learned = rec.weights.weights
    if weights:
        lines += ["Authority weights learned from the fit half (agreement with the labels, smoothed "
                  "(agree + 1) / (reports + 2)):", "", "| agent | pattern | weight | reports | agreeing |",
                  "|---|---|---|---|---|"]
        lines += [f"| {w['agent']} | `{w['pattern']}` | {learned[w['agent']][w['pattern']]:.3f} | {w['reports']:,} | "
                  f"{w['agree']:,} |" for w in weights[:limit]]
        if len(weights) > limit:
            lines.append(f"| … {len(weights) - limit:,} more in `{proposal_file}` | | | | |")
        lines.append("")
    return lines + [f"- {n}" for n in rec.notes] + ([""] if rec.notes else [])


def left_out(asked: Sequence[str], ran: Sequence[str]) -> list[str]:
    """Why each policy asked for has no row: `learned` when no scenario is in the half it replays
    (its weights are fitted on the even-numbered scenarios and it replays the odd-numbered ones, so
    one scenario, or --input files of even-numbered ones only, leave it none)."""
    why = {"learned": "it replays the odd-numbered scenarios (its weights are fitted on the even-numbered ones) and "
                      "this run has none: give 2 or more scenarios"}
    return [f"{p}: left out, {why.get(p, 'no scenario was replayed under it')}" for p in asked if p not in ran]


def write_report(out_dir: str | Path, summary: pa.Table, by_gap: Mapping[str, Sequence[tuple[float, float, int]]],
                 *, meta: Mapping[str, Any], comparisons: pa.Table | None = None,
                 gap_intervals: Mapping[str, Sequence[tuple[float, float, float]]] | None = None,
                 recommendation: Recommendation | None = None) -> Path:
    """Write report.md and the charts into `out_dir`; returns the report's path.

    `meta` carries: scenarios, seconds, scenarios_per_s, command, seed, judge_accuracy,
    machine (free text), and optionally generator (a dict of settings)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    charts = write_charts(out, summary, by_gap, gap_intervals)
    if recommendation is not None:
        charts.append(recommendation_chart(out, recommendation.gains, recommendation.unit))
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
        "Each cell: the estimate and its 95% confidence interval (bootstrap over scenarios, "
        f"{meta.get('resamples', 1000):,} resamples). `final / oracle`, `read / oracle`: the accuracy as a share "
        "of the reliability oracle's on the same scenarios. `learned` runs on the odd-numbered half only.",
        "",
        comparison_table(summary),
        "",
        *[f"- {line}." for line in left_out(meta.get("policies") or [], summary.column("policy").to_pylist())],
        "",
        *findings(summary, comparisons),
        "",
        f"The judge is scripted with accuracy {meta.get('judge_accuracy', float('nan')):g}. "
        "Metric definitions: docs/evals.md. Percentages of writes, reads or entities as defined there; "
        "n/a where the denominator is zero (e.g. no escalations). A difference is *outside the noise* when "
        "the 95% interval of the paired difference (the same resampled scenarios for both policies) excludes 0.",
        "",
        *oracle_lines(summary, comparisons),
        *(recommendation_lines(recommendation) if recommendation is not None else []),
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
