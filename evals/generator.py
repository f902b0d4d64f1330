"""Seeded, vectorized generator of multi-agent memory scenarios with ground truth.

A scenario is one user. Each of its entities has a true value that changes over
time (piecewise constant). Agents report values with a per-domain reliability;
deliveries can be late and out of order; some entities get a near-simultaneous
contradicting pair written from two sessions; some reports are repeated; some
labels drift (registry alias, unregistered paraphrase, another entity's key).
The schema of the Parquet files is `SCENARIO_SCHEMA`, documented in docs/evals.md.

Everything is computed on flat numpy arrays (no Python loop over scenarios or
writes); times are integer milliseconds until the output converts them to epoch
seconds. The same (seed, n, chunk_size) always gives the same files.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .catalog import CATALOG, DOMAINS, DRIFT_KINDS
from .config import GeneratorConfig

MAX_CHANGES = 6
_BIG = np.int64(1) << 40  # ms; composite (entity, time) keys stay exact in int64

# -- the catalog as flat lookup tables ----------------------------------------------------
C = len(CATALOG)
KEYS = [s.key for s in CATALOG]
CAT_DOMAIN = np.array([DOMAINS.index(s.domain) for s in CATALOG])
CAT_STAKES = np.array([s.high_stakes for s in CATALOG])
NVALS = np.array([len(s.values) for s in CATALOG])
VAL_OFF = np.concatenate([[0], np.cumsum(NVALS)])
VALUES = pa.array([v for s in CATALOG for v in s.values])
NTPL = np.array([len(s.templates) for s in CATALOG])
TPL_OFF = np.concatenate([[0], np.cumsum(NTPL)])
PREFIX = pa.array([p for s in CATALOG for p, _ in s.templates])
SUFFIX = pa.array([x for s in CATALOG for _, x in s.templates])
LABELS = KEYS + [a for s in CATALOG for a in s.aliases] + [n for s in CATALOG for n in s.novel]


def _label_table(attr: str) -> tuple[np.ndarray, np.ndarray]:
    width = max(len(getattr(s, attr)) for s in CATALOG)
    table = np.full((C, max(width, 1)), -1)
    for c, spec in enumerate(CATALOG):
        for j, label in enumerate(getattr(spec, attr)):
            table[c, j] = LABELS.index(label)
    return table, np.array([len(getattr(s, attr)) for s in CATALOG])


ALIAS_TABLE, N_ALIAS = _label_table("aliases")
NOVEL_TABLE, N_NOVEL = _label_table("novel")
DRIFT_NAMES = pa.array(["", *DRIFT_KINDS])

_WRITE = pa.struct([
    ("write_id", pa.string()), ("agent", pa.string()), ("session", pa.string()),
    ("label", pa.string()), ("entity", pa.string()), ("drift", pa.string()),
    ("text", pa.string()), ("value", pa.string()),
    ("observed_at", pa.float64()), ("delivered_at", pa.float64()),
    ("correct", pa.bool_()), ("late", pa.bool_()), ("simultaneous", pa.bool_()), ("repeat", pa.bool_()),
    ("conflict", pa.bool_()), ("genuine", pa.bool_()), ("must_escalate", pa.bool_()),
])
_ENTITY = pa.struct([("entity", pa.string()), ("domain", pa.string()), ("high_stakes", pa.bool_())])
_TRUTH = pa.struct([("entity", pa.string()), ("valid_from", pa.float64()), ("value", pa.string())])
_QUERY = pa.struct([("entity", pa.string()), ("at", pa.float64()), ("value", pa.string())])
_RELIABILITY = pa.struct([("entity", pa.string()), ("agent", pa.string()), ("reliability", pa.float64())])
SCENARIO_SCHEMA = pa.schema([
    ("scenario_id", pa.int64()),
    ("gap", pa.float64()),
    ("entities", pa.list_(_ENTITY)),
    ("reliability", pa.list_(_RELIABILITY)),
    ("truth", pa.list_(_TRUTH)),
    ("writes", pa.list_(_WRITE)),
    ("queries", pa.list_(_QUERY)),
])
CONFIG_KEY = b"vault_ray.evals.generator"


class _World:
    """The arrays of one chunk that later steps look things up in."""

    def __init__(self, rng: np.random.Generator, n: int, cfg: GeneratorConfig) -> None:
        self.rng, self.n, self.cfg = rng, n, cfg
        self.agents = list(cfg.agents)
        mix = np.array([cfg.agent_mix.get(a, 0.0) for a in self.agents], dtype=float)
        self.mix = mix / mix.sum()
        self.reporting = np.flatnonzero(self.mix > 0)
        nominal = np.array([[cfg.reliability(a, d) for d in DOMAINS] for a in self.agents])
        jitter = rng.uniform(-cfg.reliability_jitter, cfg.reliability_jitter, size=(n, len(self.agents)))
        self.rel = np.clip(nominal[None] + jitter[:, :, None], 0.05, 0.99)  # scenario x agent x domain
        k = rng.integers(cfg.entities_min, cfg.entities_max + 1, size=n)
        perm = np.argsort(rng.random((n, C)), axis=1)
        rows, cols = np.nonzero(np.arange(C)[None, :] < k[:, None])
        self.ent_s, self.ent_cat = rows, perm[rows, cols]
        self.ent_dom = CAT_DOMAIN[self.ent_cat]
        rel = self.rel[:, self.reporting, :]
        spread = rel.max(axis=1) - rel.min(axis=1)
        self.gap = np.bincount(self.ent_s, weights=spread[self.ent_s, self.ent_dom], minlength=n) / k
        self.horizon = int(cfg.horizon_s * 1000)
        self._truth()

    def _truth(self) -> None:
        rng, cfg = self.rng, self.cfg
        n_ent = len(self.ent_s)
        seg_n = 1 + np.minimum(rng.poisson(cfg.change_rate, n_ent), MAX_CHANGES)
        self.seg_e = np.repeat(np.arange(n_ent), seg_n)
        starts = np.concatenate([[0], np.cumsum(seg_n)[:-1]])
        self.seg_first = np.zeros(len(self.seg_e), dtype=bool)
        self.seg_first[starts] = True
        change_end = max(2, int(self.horizon * cfg.change_window))
        start = np.where(self.seg_first, 0, rng.integers(1, change_end, size=len(self.seg_e)))
        self.seg_start = start[np.lexsort((start, self.seg_e))]
        nv = NVALS[self.ent_cat][self.seg_e]
        inc = np.where(self.seg_first, rng.integers(0, nv), rng.integers(1, nv))
        cs = np.cumsum(inc)
        self.seg_val = (cs - np.repeat(cs[starts] - inc[starts], seg_n)) % nv
        self.seg_key = self.seg_e * _BIG + self.seg_start

    def segment(self, ent: np.ndarray, t: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.seg_key, ent * _BIG + t, side="right") - 1

    def choose_agents(self, size: int) -> np.ndarray:
        return self.rng.choice(len(self.agents), size=size, p=self.mix)

    def report(self, ent: np.ndarray, agent: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Values reported by `agent` about `ent` at `t`: true with the agent's reliability."""
        rng = self.rng
        right = rng.random(len(ent)) < self.rel[self.ent_s[ent], agent, self.ent_dom[ent]]
        return np.where(right, self.true_value(ent, t), self.wrong_value(ent, t))

    def true_value(self, ent: np.ndarray, t: np.ndarray) -> np.ndarray:
        return self.seg_val[self.segment(ent, t)]

    def wrong_value(self, ent: np.ndarray, t: np.ndarray) -> np.ndarray:
        """The previous true value (an agent that missed a change) or any other value."""
        seg = self.segment(ent, t)
        true = self.seg_val[seg]
        stale = ~self.seg_first[seg] & (self.rng.random(len(ent)) < self.cfg.stale_error_share)
        other = self.other_value(ent, true)
        return np.where(stale, self.seg_val[np.maximum(seg - 1, 0)], other)

    def other_value(self, ent: np.ndarray, value: np.ndarray) -> np.ndarray:
        nv = NVALS[self.ent_cat[ent]]
        return (value + self.rng.integers(1, nv)) % nv


def _writes(w: _World) -> dict[str, np.ndarray]:
    """Base reports, near-simultaneous pairs and repeats, before delivery and drift."""
    rng, cfg = w.rng, w.cfg
    n_ent = len(w.ent_s)
    rep_e = np.repeat(np.arange(n_ent), cfg.reports_min + rng.poisson(cfg.report_rate, n_ent))
    rep_a = w.choose_agents(len(rep_e))
    rep_t = rng.integers(0, w.horizon, size=len(rep_e))
    base = _part(rep_e, rep_a, rep_t, w.report(rep_e, rep_a, rep_t), session=0)

    pair_e = np.flatnonzero(rng.random(n_ent) < cfg.p_simultaneous)
    gap_ms = max(1, int(cfg.simultaneous_gap_s * 1000))
    t_a = rng.integers(0, max(1, w.horizon - gap_ms), size=len(pair_e))
    t_b = t_a + rng.integers(0, gap_ms, size=len(pair_e))
    a_a = w.choose_agents(len(pair_e))
    same = rng.random(len(pair_e)) < cfg.simultaneous_same_agent
    a_b = _other_agent(w, a_a, same)
    v_a, v_b = w.report(pair_e, a_a, t_a), w.report(pair_e, a_b, t_b)
    clash = v_a == v_b  # the pair must contradict: the second one then errs
    v_b = np.where(clash, w.other_value(pair_e, v_a), v_b)
    pair_a = _part(pair_e, a_a, t_a, v_a, session=0, simultaneous=True)
    pair_b = _part(pair_e, a_b, t_b, v_b, session=1, simultaneous=True)

    again = np.flatnonzero(rng.random(len(rep_e)) < cfg.p_repeat)
    lo, hi = (int(x * 1000) for x in cfg.repeat_delay_s)
    t_r = rep_t[again] + rng.integers(lo, max(lo + 1, hi), size=len(again))
    keep = t_r < w.horizon
    again, t_r = again[keep], t_r[keep]
    repeats = _part(rep_e[again], rep_a[again], t_r, base["value"][again], session=0, repeat=True)
    out = {k: np.concatenate([p[k] for p in (base, pair_a, pair_b, repeats)]) for k in base}
    out["correct"] = out["value"] == w.true_value(out["ent"], out["t"])
    return out


def _part(ent, agent, t, value, *, session: int, simultaneous: bool = False, repeat: bool = False):  # type: ignore[no-untyped-def]
    n = len(ent)
    return {
        "ent": ent, "agent": agent, "t": t, "value": value, "session": np.full(n, session),
        "simultaneous": np.full(n, simultaneous), "repeat": np.full(n, repeat),
    }


def _other_agent(w: _World, first: np.ndarray, same: np.ndarray) -> np.ndarray:
    second = w.choose_agents(len(first))
    for _ in range(8):
        redo = (second == first) & ~same
        if not redo.any():
            break
        second[redo] = w.choose_agents(int(redo.sum()))
    redo = (second == first) & ~same
    fallback = np.array([next(int(r) for r in w.reporting if r != a) for a in range(len(w.agents))])
    second[redo] = fallback[first[redo]]
    return np.where(same, first, second)


def _deliver_and_drift(w: _World, wr: dict[str, np.ndarray]) -> None:
    rng, cfg = w.rng, w.cfg
    m = len(wr["ent"])
    lag = rng.integers(0, int(cfg.normal_lag_s * 1000) + 1, size=m)
    late = rng.random(m) < cfg.p_late
    lo, hi = (int(x * 1000) for x in cfg.late_lag_s)
    lag = np.where(late, rng.integers(lo, max(lo + 1, hi), size=m), lag)
    wr["late"], wr["delivered"] = late, wr["t"] + lag

    cat = w.ent_cat[wr["ent"]]
    kinds = np.array([cfg.drift_mix.get(k, 0.0) for k in DRIFT_KINDS])
    kind = np.zeros(m, dtype=np.int64)
    drifted = np.flatnonzero(rng.random(m) < cfg.p_drift)
    if kinds.sum() > 0 and len(drifted):
        kind[drifted] = 1 + rng.choice(len(DRIFT_KINDS), size=len(drifted), p=kinds / kinds.sum())
    kind[(kind == 1) & (N_ALIAS[cat] == 0)] = 2  # no registry alias: drift to a paraphrase
    label = cat.copy()
    pick = rng.random(m)
    alias_j = (pick * np.maximum(N_ALIAS[cat], 1)).astype(np.int64)
    novel_j = (pick * np.maximum(N_NOVEL[cat], 1)).astype(np.int64)
    label = np.where(kind == 1, ALIAS_TABLE[cat, alias_j], label)
    label = np.where(kind == 2, NOVEL_TABLE[cat, novel_j], label)
    label = np.where(kind == 3, (cat + rng.integers(1, C, size=m)) % C, label)
    wr["kind"], wr["label"] = kind, label
    wr["template"] = TPL_OFF[cat] + (rng.random(m) * NTPL[cat]).astype(np.int64)


def _conflicts(w: _World, wr: dict[str, np.ndarray]) -> None:
    """Ground truth per write, in delivery order per true entity: does it contradict
    the latest assertion of another agent (a repeat of the agent's own latest value
    raises nothing new), is that genuine (one side false at its own observation
    time), and must it escalate (genuine on a high-stakes entity)?"""
    order = np.lexsort((wr["t"], wr["delivered"], wr["ent"]))
    ent, agent = wr["ent"][order], wr["agent"][order]
    value, correct = wr["value"][order], wr["correct"][order]
    pos = np.arange(len(order))
    is_first = np.ones(len(order), dtype=bool)
    is_first[1:] = ent[1:] != ent[:-1]
    group_start = np.maximum.accumulate(np.where(is_first, pos, 0))
    conflict = np.zeros(len(order), dtype=bool)
    genuine = np.zeros(len(order), dtype=bool)
    repeat_own = np.zeros(len(order), dtype=bool)
    for a in w.reporting:
        latest = np.maximum.accumulate(np.where(agent == a, pos, -1))
        prev = np.concatenate([[-1], latest[:-1]])
        seen = prev >= group_start
        p = np.maximum(prev, 0)
        repeat_own |= seen & (agent == a) & (value[p] == value)
        clash = seen & (agent != a) & (value[p] != value)
        conflict |= clash
        genuine |= clash & (~correct | ~correct[p])
    conflict &= ~repeat_own
    genuine &= ~repeat_own
    for name, arr in (("conflict", conflict), ("genuine", genuine)):
        wr[name] = np.empty_like(arr)
        wr[name][order] = arr
    wr["must_escalate"] = wr["genuine"] & CAT_STAKES[w.ent_cat[wr["ent"]]]


def _chunk(rng: np.random.Generator, first_id: int, n: int, cfg: GeneratorConfig) -> pa.Table:
    w = _World(rng, n, cfg)
    wr = _writes(w)
    _deliver_and_drift(w, wr)
    _conflicts(w, wr)
    return _assemble(w, wr, first_id)


def _lists(owner: np.ndarray, n: int, struct: pa.StructArray) -> pa.ListArray:
    """Group rows (sorted by their scenario `owner`) into one list per scenario."""
    offsets = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=n))]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), struct)


def _struct(fields: dict[str, pa.Array], typ: pa.StructType) -> pa.StructArray:
    return pa.StructArray.from_arrays([fields[f.name] for f in typ], fields=list(typ))


def _assemble(w: _World, wr: dict[str, np.ndarray], first_id: int) -> pa.Table:
    n, epoch = w.n, w.cfg.epoch
    keys = pa.array(KEYS)

    def seconds(ms: np.ndarray) -> pa.Array:
        return pa.array(epoch + ms / 1000.0, pa.float64())

    def value_str(cat: np.ndarray, val: np.ndarray) -> pa.Array:
        return VALUES.take(pa.array(VAL_OFF[cat] + val))

    scen = w.ent_s[wr["ent"]]
    order = np.lexsort((wr["t"], wr["delivered"], scen))
    wr = {k: v[order] for k, v in wr.items()}
    scen = scen[order]
    cat = w.ent_cat[wr["ent"]]
    pos_in = np.arange(len(scen)) - np.searchsorted(scen, scen, side="left")
    sid = pc.cast(pa.array(scen + first_id), pa.string())
    values = value_str(cat, wr["value"])
    sessions = pa.array([f"{a}-{k}" for a in w.agents for k in (1, 2)])
    writes = _struct({
        "write_id": pc.binary_join_element_wise("s", sid, "w", pc.cast(pa.array(pos_in), pa.string()), ""),
        "agent": pa.array(w.agents).take(pa.array(wr["agent"])),
        "session": sessions.take(pa.array(wr["agent"] * 2 + wr["session"])),
        "label": pa.array(LABELS).take(pa.array(wr["label"])),
        "entity": keys.take(pa.array(cat)),
        "drift": DRIFT_NAMES.take(pa.array(wr["kind"])),
        "text": pc.binary_join_element_wise(PREFIX.take(pa.array(wr["template"])), values,
                                            SUFFIX.take(pa.array(wr["template"])), ""),
        "value": values,
        "observed_at": seconds(wr["t"]),
        "delivered_at": seconds(wr["delivered"]),
        **{k: pa.array(wr[k]) for k in ("correct", "late", "simultaneous", "repeat", "conflict", "genuine",
                                         "must_escalate")},
    }, _WRITE)

    ent_keys = keys.take(pa.array(w.ent_cat))
    entities = _struct({
        "entity": ent_keys,
        "domain": pa.array(DOMAINS).take(pa.array(w.ent_dom)),
        "high_stakes": pa.array(CAT_STAKES[w.ent_cat]),
    }, _ENTITY)
    rep = w.reporting
    rel_e = np.repeat(np.arange(len(w.ent_s)), len(rep))
    rel_a = np.tile(rep, len(w.ent_s))
    reliability = _struct({
        "entity": ent_keys.take(pa.array(rel_e)),
        "agent": pa.array(w.agents).take(pa.array(rel_a)),
        "reliability": pa.array(w.rel[w.ent_s[rel_e], rel_a, w.ent_dom[rel_e]]),
    }, _RELIABILITY)
    truth = _struct({
        "entity": ent_keys.take(pa.array(w.seg_e)),
        "valid_from": seconds(w.seg_start),
        "value": value_str(w.ent_cat[w.seg_e], w.seg_val),
    }, _TRUTH)

    q_e = np.repeat(np.arange(len(w.ent_s)), w.rng.poisson(w.cfg.query_rate, len(w.ent_s)))
    q_t = w.rng.integers(0, w.horizon, size=len(q_e))
    q_order = np.lexsort((q_t, w.ent_s[q_e]))
    q_e, q_t = q_e[q_order], q_t[q_order]
    queries = _struct({
        "entity": ent_keys.take(pa.array(q_e)),
        "at": seconds(q_t),
        "value": value_str(w.ent_cat[q_e], w.true_value(q_e, q_t)),
    }, _QUERY)

    columns = [
        pa.array(np.arange(first_id, first_id + n, dtype=np.int64)),
        pa.array(w.gap),
        _lists(w.ent_s, n, entities),
        _lists(w.ent_s[rel_e], n, reliability),
        _lists(w.ent_s[w.seg_e], n, truth),
        _lists(scen, n, writes),
        _lists(w.ent_s[q_e], n, queries),
    ]
    return pa.Table.from_arrays(columns, schema=SCENARIO_SCHEMA)


# -- public API ------------------------------------------------------------------------
def generate(n: int, cfg: GeneratorConfig | None = None, *, chunk_size: int = 10_000) -> Iterator[pa.Table]:
    """Yield tables of `chunk_size` scenarios (ids 0..n-1); chunk i uses the seed (cfg.seed, i)."""
    cfg = cfg or GeneratorConfig()
    if n < 1 or chunk_size < 1:
        raise ValueError("n and chunk_size must be positive")
    for i, first in enumerate(range(0, n, chunk_size)):
        rng = np.random.default_rng([cfg.seed, i])
        yield _chunk(rng, first, min(chunk_size, n - first), cfg)


def generate_table(n: int, cfg: GeneratorConfig | None = None, *, chunk_size: int = 10_000) -> pa.Table:
    return pa.concat_tables(generate(n, cfg, chunk_size=chunk_size)).replace_schema_metadata(_metadata(cfg))


def write_scenarios(n: int, out_dir: str | Path, cfg: GeneratorConfig | None = None, *,
                    chunk_size: int = 10_000) -> list[str]:
    """Write `part-00000.parquet`, ... under `out_dir` (one file per chunk); returns the paths."""
    cfg = cfg or GeneratorConfig()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, table in enumerate(generate(n, cfg, chunk_size=chunk_size)):
        path = out / f"part-{i:05d}.parquet"
        pq.write_table(table.replace_schema_metadata(_metadata(cfg)), path)
        paths.append(str(path))
    return paths


def read_config(path: str | Path) -> GeneratorConfig | None:
    """The generator settings stored in a scenarios Parquet file, if any."""
    meta = pq.read_schema(path).metadata or {}
    return GeneratorConfig.from_dict(json.loads(meta[CONFIG_KEY])) if CONFIG_KEY in meta else None


def _metadata(cfg: GeneratorConfig | None) -> dict[bytes, bytes]:
    return {CONFIG_KEY: json.dumps((cfg or GeneratorConfig()).to_dict()).encode()}
