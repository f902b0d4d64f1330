"""Parameters of the synthetic world and of an evaluation run.

Both are plain dataclasses that load from TOML or JSON (`load_config`) and dump to
JSON (stored in the scenarios' Parquet metadata, so a dataset names its recipe).
Times are seconds; reliabilities are the probability that an agent reports the
true value of an entity of that domain.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from .catalog import CATALOG, DOMAINS, DRIFT_KINDS

DAY = 86_400.0
EMBEDDERS = ("hashing", "local")


def _default_agents() -> dict[str, dict[str, float]]:
    # "*" is the agent's reliability on any domain it has no entry for.
    return {
        "scheduler": {"schedule": 0.95, "profile": 0.85, "preferences": 0.75, "payment": 0.8},
        "chat": {"*": 0.6},
        "billing": {"payment": 0.97, "*": 0.7},
    }


@dataclass(frozen=True)
class GeneratorConfig:
    seed: int = 0
    agents: dict[str, dict[str, float]] = field(default_factory=_default_agents)
    agent_mix: dict[str, float] = field(default_factory=lambda: {"scheduler": 0.45, "chat": 0.4, "billing": 0.15})
    """How often each agent is the one reporting."""
    reliability_jitter: float = 0.15
    """Each scenario moves each agent's reliability by U(-j, +j) (clipped to [0.05, 0.99]):
    scenarios then span a range of reliability gaps."""
    entities_min: int = 1
    entities_max: int = 3
    """Entities per scenario, uniform in [min, max], drawn without replacement from the catalog."""
    horizon_s: float = 30 * DAY
    change_rate: float = 0.5
    """Mean number of true-value changes per entity over the horizon (Poisson)."""
    change_window: float = 0.8
    """Changes happen in the first `change_window` of the horizon."""
    reports_min: int = 1
    report_rate: float = 1.5
    """Reports per entity: reports_min + Poisson(report_rate)."""
    stale_error_share: float = 0.5
    """A wrong report repeats the previous true value with this probability (else any other value)."""
    p_late: float = 0.1
    late_lag_s: tuple[float, float] = (3_600.0, 3 * DAY)
    normal_lag_s: float = 30.0
    """Delivery lag of an on-time report: U(0, normal_lag_s)."""
    p_simultaneous: float = 0.15
    """Per entity: add a near-simultaneous contradicting pair written from two sessions."""
    simultaneous_gap_s: float = 20.0
    simultaneous_same_agent: float = 0.25
    """Share of those pairs written by one agent in two sessions (else two agents)."""
    p_repeat: float = 0.15
    repeat_delay_s: tuple[float, float] = (600.0, DAY)
    p_drift: float = 0.15
    drift_mix: dict[str, float] = field(default_factory=lambda: {"alias": 0.5, "novel": 0.35, "mislabel": 0.15})
    query_rate: float = 1.0
    """Mid-timeline reads per entity (Poisson); the final read is always made."""
    epoch: float = 1_700_000_000.0
    """observed_at = epoch + t."""

    def __post_init__(self) -> None:
        _check(self)

    def reliability(self, agent: str, domain: str) -> float:
        table = self.agents[agent]
        return float(table.get(domain, table.get("*", 0.5)))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GeneratorConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown generator settings: {sorted(unknown)}")
        data = {k: tuple(v) if k.endswith("_s") and isinstance(v, list) else v for k, v in data.items()}
        return cls(**data)


@dataclass(frozen=True)
class EvalConfig:
    judge_accuracy: float = 0.9
    """Probability that the scripted judge names the claim that is true now (see docs/evals.md)."""
    near_simultaneous_s: float = 60.0
    consensus_margin: float = 0.5
    block_size: int = 1000
    """Largest number of scenarios replayed in one vault (one Ray Data batch); smaller
    when that leaves a CPU idle (job.block_size_for)."""
    partitions: int = 1
    """Partitions of each replay vault."""
    max_open_disputes: int = 3
    embedder: str = "hashing"
    """Where the replay's text vectors come from: `hashing` (HashingEmbedder, computed in
    the replay task) or `local` (the local sentence-transformers model, in a Ray Data
    `map_batches` actor pool ahead of the replay; see docs/evals.md)."""
    embed_actors: int = 1
    """Size of the `local` embedding actor pool (each actor loads the model once)."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.judge_accuracy <= 1.0:
            raise ValueError(f"judge_accuracy must be in [0, 1], got {self.judge_accuracy}")
        if self.block_size < 1 or self.partitions < 1:
            raise ValueError("block_size and partitions must be positive")
        if self.embedder not in EMBEDDERS:
            raise ValueError(f"embedder must be one of {', '.join(EMBEDDERS)}, got {self.embedder!r}")
        if self.embed_actors < 1:
            raise ValueError("embed_actors must be positive")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def load_config(path: str | Path) -> tuple[GeneratorConfig, EvalConfig]:
    """Read `[generator]` and `[eval]` tables from a .toml or .json file."""
    path = Path(path)
    text = path.read_text()
    data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    gen = GeneratorConfig.from_dict(data.get("generator", {}))
    ev = EvalConfig(**data.get("eval", {}))
    return gen, ev


def _check(cfg: GeneratorConfig) -> None:
    if not cfg.agents or set(cfg.agent_mix) - set(cfg.agents):
        raise ValueError("agent_mix must name agents of `agents`")
    if len([a for a, w in cfg.agent_mix.items() if w > 0]) < 2:
        raise ValueError("the world needs at least two reporting agents")
    for agent, table in cfg.agents.items():
        for domain, r in table.items():
            if domain != "*" and domain not in DOMAINS:
                raise ValueError(f"agent {agent!r}: unknown domain {domain!r} (known: {DOMAINS})")
            if not 0.0 <= r <= 1.0:
                raise ValueError(f"agent {agent!r}: reliability {r} outside [0, 1]")
    if set(cfg.drift_mix) - set(DRIFT_KINDS):
        raise ValueError(f"drift_mix keys must be among {DRIFT_KINDS}")
    if not 1 <= cfg.entities_min <= cfg.entities_max <= len(CATALOG):
        raise ValueError(f"need 1 <= entities_min <= entities_max <= {len(CATALOG)} (the catalog's size)")
    shares = ("p_late", "p_simultaneous", "simultaneous_same_agent", "p_repeat", "p_drift", "stale_error_share",
              "change_window")
    for name in shares:
        if not 0.0 <= getattr(cfg, name) <= 1.0:
            raise ValueError(f"{name} must be in [0, 1]")
    if cfg.horizon_s <= 0 or cfg.reports_min < 0:
        raise ValueError("horizon_s must be positive and reports_min non-negative")
