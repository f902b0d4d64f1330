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

from vault_ray.errors import InvalidPolicy
from vault_ray.policy import ON_AMBIGUOUS, STRATEGIES, validate_pattern

from .catalog import CATALOG, DOMAINS, DRIFT_KINDS

DAY = 86_400.0
EMBEDDERS = ("hashing", "local")
DEFAULT_STRATEGY = "*"
"""The `mixed` pattern that names the strategy of every entity no other pattern matches."""


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
        _numbers(cls, data, "generator")
        return cls(**data)


def _default_mixed() -> dict[str, str]:
    # Authority where one agent is known to be better (schedules, payments), recency where
    # values move (location), the judge where agents disagree on taste (diet).
    return {"user.timezone": "authority", "user.schedule.*": "authority", "user.payment.*": "authority",
            "user.location": "recency", "user.diet": "judge", DEFAULT_STRATEGY: "recency"}


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
    mixed: dict[str, str] = field(default_factory=_default_mixed)
    """The `mixed` policy's strategy per entity pattern (Policy patterns: a key, `key.*` or
    `*`); `*` is the strategy of every other entity (recency when omitted)."""
    mixed_on_ambiguous: str = "judge"
    """What the `mixed` policy does with near-simultaneous writes under recency: `judge`
    (ask the judge) or `dispute`."""
    bootstrap_resamples: int = 1000
    """Resamples of the scenarios behind every 95% confidence interval (uncertainty.py)."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.judge_accuracy <= 1.0:
            raise ValueError(f"judge_accuracy must be in [0, 1], got {self.judge_accuracy}")
        if self.block_size < 1 or self.partitions < 1:
            raise ValueError("block_size and partitions must be positive")
        if self.embedder not in EMBEDDERS:
            raise ValueError(f"embedder must be one of {', '.join(EMBEDDERS)}, got {self.embedder!r}")
        if self.embed_actors < 1:
            raise ValueError("embed_actors must be positive")
        if self.bootstrap_resamples < 100:
            raise ValueError(f"bootstrap_resamples must be at least 100, got {self.bootstrap_resamples}")
        check_mixed(self.mixed)
        if self.mixed_on_ambiguous not in ON_AMBIGUOUS:
            raise ValueError(f"mixed_on_ambiguous must be one of {', '.join(ON_AMBIGUOUS)}, "
                             f"got {self.mixed_on_ambiguous!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalConfig:
        """Build from a config file's `[eval]` table; unknown keys are an error (a typo
        would otherwise silently run the defaults)."""
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown eval settings: {sorted(unknown)}")
        if isinstance(data.get("mixed"), dict):
            data = {**data, "mixed": _flatten(data["mixed"])}
        _numbers(cls, data, "eval")
        return cls(**data)


def _numbers(cls: type, data: dict[str, Any], table: str) -> None:
    """A setting declared `int` or `float` given as anything else (a string seed) is named, not
    left for numpy or a comparison to fail on far from the file."""
    for f in fields(cls):
        if f.name in data and f.type in ("int", "float"):
            value = data[f.name]
            if isinstance(value, bool) or not isinstance(value, int if f.type == "int" else int | float):
                kind = "a whole number" if f.type == "int" else "a number"
                raise ValueError(f"[{table}] {f.name} must be {kind}, got {value!r}")


def check_mixed(mixed: object, where: str = "mixed") -> None:
    """Fail early, naming the entry, on a `mixed` table the Policy would refuse (or
    that would only fail inside a replay task on a Ray worker). `where`: the setting's name
    as the user wrote it (`--mixed` on the command line)."""
    if not isinstance(mixed, dict):
        raise ValueError(f"{where} must be a table of entity pattern -> strategy, got {mixed!r}")
    for pattern, strategy in mixed.items():
        if strategy not in STRATEGIES:
            raise ValueError(f"{where}: strategy for {pattern!r} must be one of {', '.join(STRATEGIES)}, "
                             f"got {strategy!r}")
        try:
            validate_pattern(pattern)
        except InvalidPolicy as exc:
            raise ValueError(f"{where}: {exc}") from exc


def parse_mixed(spec: str, where: str = "--mixed") -> dict[str, str]:
    """Parse a command-line `mixed` table: comma-separated `pattern=strategy` entries, e.g.
    "user.timezone=authority,user.diet=judge,*=recency"; errors name `where`."""
    table: dict[str, str] = {}
    for entry in spec.split(","):
        if not entry.strip():
            continue
        pattern, sep, strategy = (part.strip() for part in entry.partition("="))
        if not sep or not pattern or not strategy:
            raise ValueError(f"{where}: {entry.strip()!r} is not pattern=strategy "
                             "(e.g. 'user.timezone=authority,*=recency')")
        if pattern in table:
            raise ValueError(f"{where}: {pattern!r} is given twice")
        table[pattern] = strategy
    if not table:
        raise ValueError(f"{where}: no pattern=strategy entry (e.g. 'user.timezone=authority,*=recency')")
    check_mixed(table, where)
    return table


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """TOML reads an unquoted `user.timezone = "authority"` as nested tables: join the keys
    back into the dotted pattern it means."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}.{key}" if prefix else key
        for pattern, strategy in (_flatten(value, name) if isinstance(value, dict) else {name: value}).items():
            if pattern in flat:
                raise ValueError(f"mixed: {pattern!r} is given twice")
            flat[pattern] = strategy
    return flat


def load_config(path: str | Path) -> tuple[GeneratorConfig, EvalConfig]:
    """Read `[generator]` and `[eval]` tables from a .toml or .json file."""
    path = Path(path)
    try:
        text = path.read_text()
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"config {path}: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(data.get(t, {}), dict) for t in ("generator", "eval")):
        raise ValueError(f"config {path}: expected [generator] and [eval] tables")
    gen = GeneratorConfig.from_dict(data.get("generator", {}))
    ev = EvalConfig.from_dict(data.get("eval", {}))
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
