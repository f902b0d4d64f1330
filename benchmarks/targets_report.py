"""The markdown section of a bench_targets.py run: issue 16's targets table with each
row's figure measured in the run, its raw part measured in the same run, the issue's
"before" figure, and whether the target is met. Formats only; measures nothing."""

from __future__ import annotations

import datetime as dt
from typing import Any

# The "today" column (quiet 2-core machine unless it says otherwise).
BEFORE = {
    "single": "23.6 ms at 100k",
    "text": "raw + 12-18 ms at 10k",
    "bulk": "11,400/s off; 1,800/s on",
    "ingest": "0.66x (under load)",
    "ratio": "1.3-5.8x (under load)",
    "search": "16.2 ms plus encode; p99 1.7 s under load",
    "hnsw": "-",
    "reopen": "1.9 s; 9.8 s under load",
    "cluster": "115/s from 4 client threads (quiet); 29-39/s under load",
    "rss": "~440 MB",
}


def ms(x: float) -> str:
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}"


def yes(ok: bool) -> str:
    return "yes" if ok else "**no**"


def rows(s: Any, m: dict[str, Any]) -> list[list[str]]:
    low, top = s.levels
    raw, w, mod, re = m["raw"], m["writes"], m["model"], m["reopen"]
    flat_key = next(k for k in raw if k.startswith("FAISS flat search"))
    commit, fsync = raw["DuckDB transaction of three 1-row inserts"] * 1e3, raw["fsync'd 2 KB append"] * 1e3
    out = []
    for kind in ("flat", "hnsw"):
        lo, hi = w[f"single {kind} {low} True"], w[f"single {kind} {top} True"]
        out.append([f"single `add_facts`, precomputed vector, resolve on, p50 ({kind})", "<= 3 ms at 100k, <= 2 ms at 1k",
                    f"{ms(hi['p50'])} ms at {top:,} (p99 {ms(hi['p99'])}, CPU {ms(hi['cpu'])}); {ms(lo['p50'])} ms at "
                    f"{low:,}", f"fsync'd append {ms(fsync)} ms; DuckDB commit {ms(commit)} ms",
                    BEFORE["single"], yes(hi["p50"] <= 3 and lo["p50"] <= 2)])
    for kind in ("flat", "hnsw"):
        off = w[f"single {kind} {top} False"]
        out.append([f"(same, resolve off, {kind})", "-", f"{ms(off['p50'])} ms at {top:,} (p99 {ms(off['p99'])}, "
                    f"CPU {ms(off['cpu'])})", f"fsync'd append {ms(fsync)} ms", "7.6 ms at 100k", "-"])
    for kind in ("flat", "hnsw"):
        txt = mod[f"text {kind}"]
        out.append([f"single text write (LocalEmbedder), p50 ({kind})", "<= raw encode + 3 ms at 100k",
                    f"{ms(txt['p50'])} ms at {top:,} = raw + {ms(txt['over'])} ms (paired)",
                    f"raw encode {ms(txt['raw'])} ms (paired)", BEFORE["text"], yes(txt["over"] <= 3)])
    for kind in ("flat", "hnsw"):  # a run recorded before this row existed has no such figure
        upd = mod.get(f"text update {kind}")
        if upd is not None:
            out.append([f"(same, to an entity the store has: no new label, no resolution; {kind})",
                        "<= raw encode + 3 ms at 100k", f"{ms(upd['p50'])} ms at {top:,} = raw + {ms(upd['over'])} ms "
                        "(paired)", f"raw encode {ms(upd['raw'])} ms (paired)", "-", yes(upd["over"] <= 3)])
    for kind in ("flat", "hnsw"):
        off, on = w[f"bulk {kind} False"], w[f"bulk {kind} True"]
        out.append([f"bulk `add_facts`, {s.bulk:,} facts per call, at {top:,} ({kind})",
                    ">= 20,000/s resolve off; >= 10,000/s on", f"{off:,.0f}/s off; {on:,.0f}/s on",
                    "DuckDB 1,000-row inserts ~139k rows/s (issue)", BEFORE["bulk"], yes(off >= 20_000 and on >= 10_000)])
    ing = m["ingest"]
    out.append(["bulk text ingest at batch 256", ">= 0.85x raw `model.encode`",
                f"{ing['on'] / ing['raw']:.3f}x resolve on; {ing['off'] / ing['raw']:.3f}x off"  # 0.85x could be 0.848
                + (f" (a new store's first call, 8 facts, before: {ing['first on']:.2f} s on, {ing['first off']:.2f} s off)"
                   if "first on" in ing else ""),
                f"raw encode {ing['raw']:,.0f} sentences/s", BEFORE["ingest"], yes(ing["on"] / ing["raw"] >= 0.85)])
    for kind in ("flat", "hnsw"):
        ratios = {r: w[f"single {kind} {top} {r}"]["p50"] / w[f"single {kind} {low} {r}"]["p50"] for r in (False, True)}
        out.append([f"per-claim cost at {top:,} vs {low:,} claims (single-write p50, {kind})", "<= 1.3x",
                    f"{ratios[False]:.2f}x resolve off; {ratios[True]:.2f}x on", "-", BEFORE["ratio"],
                    yes(max(ratios.values()) <= 1.3)])
    fl, fll = mod["search flat"], mod["search flat loaded"]
    out.append([f"search k=5, exact, {top:,} claims, p50", "<= raw encode + 10 ms; p99 <= 3x p50, also under load",
                f"{ms(fl['p50'])} ms = raw + {ms(fl['over'])} (paired); p99 {ms(fl['p99'])}; under load p50 "
                f"{ms(fll['p50'])}, p99 {ms(fll['p99'])}",
                f"raw encode {ms(fl['raw'])} ms (paired), p99 {ms(fl['raw p99'])}; under load p50 {ms(fll['raw'])}, "
                f"p99 {ms(fll['raw p99'])}; {flat_key} {ms(raw[flat_key] * 1e3)} ms",
                BEFORE["search"], yes(fl["over"] <= 10 and fl["p99"] <= 3 * fl["p50"] and fll["p99"] <= 3 * fll["p50"])])
    hn, hnl, rec = mod["search hnsw"], mod["search hnsw loaded"], m["recall"]
    out.append([f"search k=5, HNSW, {top:,} claims, p50", "<= raw encode + 2 ms; recall@5 >= 0.95 vs exact",
                f"{ms(hn['p50'])} ms = raw + {ms(hn['over'])} (paired); p99 {ms(hn['p99'])}; under load p50 "
                f"{ms(hnl['p50'])}, p99 {ms(hnl['p99'])}; recall@5 {rec['ties counted']:.3f} ({rec['by id']:.3f} by id)",
                f"raw encode {ms(hn['raw'])} ms (paired)", BEFORE["hnsw"],
                yes(hn["over"] <= 2 and rec["ties counted"] >= 0.95)])
    for kind in ("flat", "hnsw"):
        r, rl = re[kind], re[f"{kind} loaded"]
        out.append([f"reopen a {top:,}-claim store ({kind})", "<= 1 s, also under load",
                    f"{r['seconds']:.2f} s; under load {rl['seconds']:.2f} s", "-", BEFORE["reopen"],
                    yes(r["seconds"] <= 1 and rl["seconds"] <= 1)])
    cl = m["cluster"]
    if cl is not None:
        out.append(["cluster mode, 8 client processes, single-fact calls, 2 shards", ">= 500 claims/s in total",
                    f"{cl['claims/s']:,.0f}/s (p50 {ms(cl['p50'])} ms, p99 {ms(cl['p99'])} ms; "
                    f"{cl['calls per commit']:.1f} calls per commit)",
                    f"CPU per claim: clients {ms(cl['client CPU ms/claim'])} ms, shards "
                    f"{ms(cl['shard CPU ms/claim'])} ms; bare Ray calls to 2 echo actors from the same 8 processes: "
                    f"{cl['echo calls/s']:,.0f}/s (p50 {ms(cl['echo p50'])} ms; CPU per call: clients "
                    f"{ms(cl['echo client CPU ms/call'])} ms, actors {ms(cl['echo actor CPU ms/call'])} ms)",
                    BEFORE["cluster"], yes(cl["claims/s"] >= 500)])
    for kind in ("flat", "hnsw"):
        r = re[kind]
        vectors = r["active"] * 384 * 4 / 2**20
        held = max(r["rss_mb"], r.get("rss_searched_mb", 0.0))  # a flat store's low-precision copies are made at its first search
        out.append([f"RSS added by opening {top:,} claims, beyond the vectors ({kind})", "<= 250 MB",
                    f"{held - vectors:.0f} MB ({held:.0f} MB added, vectors {vectors:.0f} MB; "
                    f"{r['rss_mb']:.0f} MB before the first search)", "-",
                    BEFORE["rss"], yes(held - vectors <= 250)])
    return out


def report(s: Any, m: dict[str, Any], info: dict[str, str], command: str, started: dt.datetime, elapsed: float,
           loads: tuple[tuple[float, ...], tuple[float, ...]]) -> str:
    header = ["measure", "target", "measured (this run)", "raw part (this run)", "before (issue 16)", "met"]
    table = "\n".join(["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|",
                       *("| " + " | ".join(r) + " |" for r in rows(s, m))])
    raw = "\n".join(f"| {k} | {v * 1e3:.3f} ms |" if "/s" not in k else f"| {k} | {v:,.0f} |" for k, v in m["raw"].items())
    steps = "\n".join(f"| {k} | {v:.1f} |" for k, v in m["steps"].items())
    machine = "\n".join(f"- {k}: {v}" for k, v in info.items())
    load_at = ", ".join(f"{k} {v:.2f}" for k, v in m["loads"].items())
    quick = " (a smoke run: the top level is 10,000 claims, not 100,000)" if s.levels[1] < 100_000 else ""
    return f"""<!-- bench:{s.mode} -->
## Targets of issue 16: {s.mode.split('-')[1]} run{quick}

- command: `{command}`
- date: {started.strftime("%Y-%m-%d %H:%M UTC")}; wall time {elapsed:.0f} s
- load average (1/5/15 min) at start {" / ".join(f"{x:.2f}" for x in loads[0])}, at end \
{" / ".join(f"{x:.2f}" for x in loads[1])}; 1-minute load as each part began: {load_at}
{machine}

{table}

Raw parts, measured in the same run (p50 of repeated calls; one OpenMP thread for FAISS):

| part | |
|---|---:|
{raw}

Building the stores (seconds):

| step | s |
|---|---:|
{steps}

"Under load" rows ran while 2 processes spun on the machine's 2 cores. recall@5 counts a
hit whose score reaches the exact 5th score (hashing vectors of template sentences often
tie exactly; "by id" is the strict figure). The RSS rows subtract 384 float32 per active
claim; they are measured in a fresh process around `Vault.open`.
<!-- /bench:{s.mode} -->
"""
