"""Conflict policy: strategies, authority, cardinality, high stakes, thresholds.

A `Policy` is an immutable value. Patterns are entity keys, optionally ending in
`.*` (that key *and* its subtree: `user.budget.*` matches `user.budget` and
`user.budget.trip`) or the lone `*` (everything); for weights, strategies,
cardinality, `on_ambiguous` and high stakes alike (and for registry `prefix.*`
entries) the most specific matching pattern wins: an exact key beats any
wildcard, a longer wildcard beats a shorter one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .errors import InvalidInput, InvalidPolicy, PolicyConflict
from .frozen import ReadOnlyDict, thawed
from .models import ENTITY_RE
from .texts import check_agent, shown, storable

STRATEGIES = ("recency", "authority", "consensus", "judge")
CARDINALITIES = ("one", "many")
ON_AMBIGUOUS = ("dispute", "judge")
DEFAULT_HIGH_STAKES = (
    "user.payment.*", "user.payment_method.*", "payment_method.*",
    "user.consent.*", "user.legal_consent.*", "legal_consent.*",
    "user.budget.*", "user.budget_authority.*", "budget_authority.*",
)
"""Payment, consent and budget: every key the rule extractor writes for them
(`user.payment.method`, `user.consent.<topic>`, `user.budget`, `user.budget.<topic>`),
their registry aliases, and the seed's category names (`budget_authority`,
`legal_consent`, `payment_method`, bare or under `user.`)."""


MAX_SAME_EVENT_WINDOW_S = 366 * 86400.0
"""The widest `Policy.same_event_window_s` (366 days, in seconds): records of one event a
year apart are two events whatever the setting."""


def clamp_saved_window(data: dict[str, Any]) -> dict[str, Any]:
    """A saved policy's members with a `same_event_window_s` above the cap (saved before it was
    checked) lowered to `MAX_SAME_EVENT_WINDOW_S`, so that the store opens and works; the
    caller warns. Anything else is left to `Policy.from_dict` to check."""
    window = data.get("same_event_window_s")
    if isinstance(window, int | float) and not isinstance(window, bool) and window > MAX_SAME_EVENT_WINDOW_S:
        return {**data, "same_event_window_s": MAX_SAME_EVENT_WINDOW_S}
    return data


def validate_pattern(pattern: object) -> str:
    if not isinstance(pattern, str) or not pattern:
        raise InvalidPolicy(f"pattern must be a non-empty string, got {pattern!r}", value=pattern)
    if pattern == "*":
        return pattern
    base = pattern[:-2] if pattern.endswith(".*") else pattern
    if not ENTITY_RE.match(base) or len(base) > 128:
        raise InvalidPolicy(
            f"invalid pattern {pattern!r}: an entity key, optionally ending in '.*'", value=pattern
        )
    return pattern


def specificity(pattern: str, entity: str) -> int | None:
    """How specifically `pattern` matches `entity` (higher wins), or None."""
    if pattern == entity:
        return 10_000
    if pattern == "*":
        return 0
    if pattern.endswith(".*") and (entity == pattern[:-2] or entity.startswith(pattern[:-1])):
        return len(pattern)
    return None


def best_match(table: dict[str, Any], entity: str) -> Any | None:
    best, best_score = None, -1
    for pattern, value in table.items():
        score = specificity(pattern, entity)
        if score is not None and score > best_score:
            best, best_score = value, score
    return best


@dataclass(frozen=True)
class AutoResolveRules:
    """Rules that settle disputes without a person; never applied to high-stakes ones.

    - `reasserted_by`: the challenger's value wins once at least this many distinct
      agents asserted it (challenger plus supporters). None turns the rule off.
    - `stale_after_s`: an open dispute older than this whose challenger was not
      re-asserted is closed keeping the incumbent. None turns the rule off.
    """

    reasserted_by: int | None = None
    stale_after_s: float | None = None

    def __post_init__(self) -> None:  # checked when built, not first when a policy takes it
        if self.reasserted_by is not None:
            _whole("rules.reasserted_by", self.reasserted_by, 2)
        if self.stale_after_s is not None:
            _positive("rules.stale_after_s", self.stale_after_s)


@dataclass(frozen=True)
class RateLimit:
    """Token bucket per agent: `rate` writes per second, bursts up to `burst`."""

    rate: float
    burst: int

    def __post_init__(self) -> None:  # checked when built, not first when a policy takes it
        _positive("rate_limit.rate", self.rate)
        _whole("rate_limit.burst", self.burst, 1)


@dataclass(frozen=True)
class Policy:
    default_strategy: str = "recency"
    strategies: dict[str, str] = field(default_factory=dict)
    authority: dict[str, dict[str, float]] = field(default_factory=dict)
    """agent -> pattern -> weight in [0, 1]."""
    cardinality: dict[str, str] = field(default_factory=dict)
    on_ambiguous: dict[str, str] = field(default_factory=dict)
    default_on_ambiguous: str = "dispute"
    high_stakes: tuple[str, ...] = DEFAULT_HIGH_STAKES
    default_weight: float = 0.5
    default_cardinality: str = "one"
    near_simultaneous_s: float = 0.0
    consensus_margin: float = 0.5
    align_threshold: float = 0.85
    ask_threshold: float = 0.70
    half_life_days: float = 30.0
    same_event_window_s: float = 3600.0
    """How far apart (seconds) two records of an event in the same words, with the same value,
    may be observed and still be one event (the same agent's: a `NOOP`; search shows one hit).
    Wide enough for a retry or a re-extraction of the same message, narrower than any
    recurrence worth logging again (docs/policies.md, "The same event")."""
    max_text: int = 2000
    max_open_disputes: int = 3
    rules: AutoResolveRules = field(default_factory=AutoResolveRules)
    rate_limit: RateLimit | None = None
    unextracted_notes: bool = False
    """Keep each statement about the user that extraction could not read as a free-text
    note on `user.notes` (searchable, with provenance, never in conflict). Off by
    default: `AddResult.unextracted` reports them either way (docs/policies.md)."""
    version: int = 0

    def __post_init__(self) -> None:
        self._check()
        # what reads the same is the same value: an agent's empty authority table is no table (its
        # weights are the default either way), a high-stakes pattern named twice is one
        # and its tables are read-only (frozen.py): set_strategy, patch_policy, ... change a store's policy, checked and saved
        if not isinstance(self.authority, ReadOnlyDict) or any(not table for table in self.authority.values()):
            object.__setattr__(self, "authority", ReadOnlyDict({a: ReadOnlyDict(t) for a, t in self.authority.items() if t}))
        for name in ("strategies", "cardinality", "on_ambiguous"):
            if not isinstance(table := getattr(self, name), ReadOnlyDict):
                object.__setattr__(self, name, ReadOnlyDict(table))
        if not isinstance(self.high_stakes, tuple) or len(set(self.high_stakes)) < len(self.high_stakes):
            object.__setattr__(self, "high_stakes", tuple(dict.fromkeys(self.high_stakes)))

    # -- lookups -----------------------------------------------------------
    def strategy_for(self, entity: str) -> str:
        return best_match(self.strategies, entity) or self.default_strategy

    def cardinality_for(self, entity: str, registry_default: str | None = None) -> str:
        found = best_match(self.cardinality, entity)
        return found or registry_default or self.default_cardinality

    def on_ambiguous_for(self, entity: str) -> str:
        return best_match(self.on_ambiguous, entity) or self.default_on_ambiguous

    def weight(self, agent: str, entity: str) -> float:
        table = self.authority.get(agent)
        if not table:
            return self.default_weight
        found = best_match(table, entity)
        return self.default_weight if found is None else float(found)

    def tables(self) -> tuple[Any, ...]:
        """Every table that names keys or patterns (strategies, cardinality, on_ambiguous,
        each agent's authority, high_stakes)."""
        return (self.strategies, self.cardinality, self.on_ambiguous, *self.authority.values(), self.high_stakes)

    def names(self, entity: str) -> bool:
        """Whether a table names this key itself (`entity` or `entity.*`), not only a wider
        pattern: entity resolution never moves such a key onto another entity."""
        return any(entity in t or f"{entity}.*" in t for t in self.tables())

    def is_high_stakes(self, entity: str) -> bool:
        return any(specificity(p, entity) is not None for p in self.high_stakes)

    # -- updates (return a new Policy) --------------------------------------
    def with_authority(self, agent: str, pattern: str, weight: float) -> Policy:
        if not isinstance(agent, str) or not agent:
            raise InvalidPolicy("agent must be a non-empty string", value=agent)
        check_authority_agent(agent)
        validate_pattern(pattern)
        _check_weight(weight)
        table = {a: dict(t) for a, t in self.authority.items()}
        table.setdefault(agent, {})[pattern] = float(weight)
        return replace(self, authority=table, version=self.version + 1)

    def with_strategy(self, pattern: str, strategy: str) -> Policy:
        validate_pattern(pattern)
        return replace(self, strategies={**self.strategies, pattern: strategy}, version=self.version + 1)

    def with_cardinality(self, pattern: str, cardinality: str) -> Policy:
        validate_pattern(pattern)
        return replace(self, cardinality={**self.cardinality, pattern: cardinality}, version=self.version + 1)

    def with_on_ambiguous(self, pattern: str, action: str) -> Policy:
        validate_pattern(pattern)
        return replace(self, on_ambiguous={**self.on_ambiguous, pattern: action}, version=self.version + 1)

    def updated(self, **changes: Any) -> Policy:
        return replace(self, **changes, version=self.version + 1)

    def patched(self, patch: Any) -> Policy:
        """This policy with a JSON merge patch (RFC 7396) applied to `to_dict()`: each field
        given replaces this one's; in the tables (`strategies`, `cardinality`,
        `on_ambiguous`, `authority` and its agents' tables) and in `rules` and `rate_limit`
        the keys given are set and a key given as None is removed (a rule removed is off,
        as `AutoResolveRules` None; `rate_limit` None is no limit). `version` may not be
        patched. Unknown fields, and a result `Policy` refuses, raise InvalidPolicy."""
        if not isinstance(patch, dict):
            raise InvalidPolicy(f"a policy patch is a JSON object, got {type(patch).__name__}", value=patch)
        known = {f for f in self.to_dict() if f != "version"}
        unknown = sorted(set(map(str, patch)) - known)
        if unknown:
            raise InvalidPolicy(f"unknown policy field(s) {unknown}; known: {sorted(known)}", value=unknown)
        merged = _merge(self.to_dict(), patch)
        merged["version"] = self.version + 1
        for name in ("strategies", "cardinality", "on_ambiguous", "authority", "rules"):
            merged[name] = {} if merged.get(name) is None else merged[name]
            if not isinstance(merged[name], dict):
                raise InvalidPolicy(f"{name} must be a JSON object, got {merged[name]!r}", value=merged[name])
        for agent, table in merged["authority"].items():
            if not isinstance(table, dict):
                raise InvalidPolicy(f"authority of {agent!r} must be a JSON object of pattern: weight, got {table!r}",
                                    value=table)
        limit = merged.get("rate_limit")
        if limit is not None and (not isinstance(limit, dict) or set(limit) != {"rate", "burst"}):
            raise InvalidPolicy(f"rate_limit must be null or {{rate, burst}}, got {limit!r}", value=limit)
        if "high_stakes" in merged and not isinstance(merged["high_stakes"], list | tuple):
            raise InvalidPolicy(f"high_stakes must be a list of patterns, got {merged['high_stakes']!r}")
        try:
            return Policy.from_dict(merged)
        except InvalidPolicy:
            raise
        except (TypeError, ValueError, AttributeError) as exc:  # a member of the wrong shape
            raise InvalidPolicy(f"not a policy: {exc}") from None

    # -- persistence ---------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = thawed(asdict(self))  # the caller's to edit
        data["high_stakes"] = list(self.high_stakes)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Policy:
        data = dict(data)
        data["high_stakes"] = tuple(data.get("high_stakes", DEFAULT_HIGH_STAKES))
        data["rules"] = AutoResolveRules(**(data.get("rules") or {}))
        if data.get("rate_limit"):
            data["rate_limit"] = RateLimit(**data["rate_limit"])
        return cls(**data)

    # -- validation --------------------------------------------------------
    def _check(self) -> None:
        for name in ("strategies", "cardinality", "on_ambiguous", "authority"):
            if not isinstance(getattr(self, name), Mapping):
                raise InvalidPolicy(f"{name} must be a mapping of key patterns, got {type(getattr(self, name)).__name__}",
                                    value=getattr(self, name))
        if not isinstance(self.high_stakes, str | list | tuple | set | frozenset):
            raise InvalidPolicy(f"high_stakes must be a list of key patterns, got {type(self.high_stakes).__name__}",
                                value=self.high_stakes)
        _choice("default_strategy", self.default_strategy, STRATEGIES)
        _choice("default_cardinality", self.default_cardinality, CARDINALITIES)
        _choice("default_on_ambiguous", self.default_on_ambiguous, ON_AMBIGUOUS)
        for pattern, strategy in self.strategies.items():
            validate_pattern(pattern)
            _choice(f"strategy for {pattern!r}", strategy, STRATEGIES)
        for pattern, card in self.cardinality.items():
            validate_pattern(pattern)
            _choice(f"cardinality for {pattern!r}", card, CARDINALITIES)
        for pattern, action in self.on_ambiguous.items():
            validate_pattern(pattern)
            _choice(f"on_ambiguous for {pattern!r}", action, ON_AMBIGUOUS)
        for agent, table in self.authority.items():
            if not isinstance(table, Mapping):
                raise InvalidPolicy(f"authority of {agent!r} must be a mapping of key patterns to weights", value=table)
            if not isinstance(agent, str) or agent != agent.strip() or not agent or len(agent) > 128 or not storable(agent):
                raise InvalidPolicy("authority agents must be agent names: non-empty strings of at most 128 "
                                    "characters, without surrounding spaces or lone surrogates", value=agent)
            for pattern, weight in table.items():
                validate_pattern(pattern)
                _check_weight(weight)
        if isinstance(self.high_stakes, str):
            raise InvalidPolicy(f"high_stakes is a list of patterns, got one string: write ({self.high_stakes!r},)",
                                value=self.high_stakes)
        for pattern in self.high_stakes:
            validate_pattern(pattern)
        _check_weight(self.default_weight, "default_weight")
        _positive("near_simultaneous_s", self.near_simultaneous_s, allow_zero=True)
        _positive("consensus_margin", self.consensus_margin, allow_zero=True)
        _positive("half_life_days", self.half_life_days)
        _positive("same_event_window_s", self.same_event_window_s)
        if self.same_event_window_s > MAX_SAME_EVENT_WINDOW_S:
            raise InvalidPolicy(f"same_event_window_s must be at most {MAX_SAME_EVENT_WINDOW_S:.0f} seconds (366 days), "
                                f"got {self.same_event_window_s!r}", value=self.same_event_window_s,
                                field="same_event_window_s")
        _positive("ask_threshold", self.ask_threshold, allow_zero=True)
        _positive("align_threshold", self.align_threshold, allow_zero=True)
        ask, align = self.ask_threshold, self.align_threshold
        if not 0 <= ask <= align <= 1:  # the offending one: one out of [0, 1], else ask (above align)
            name, bad = ("align_threshold", align) if not 0 <= align <= 1 else ("ask_threshold", ask)
            raise InvalidPolicy(f"need 0 <= ask_threshold <= align_threshold <= 1, got ask_threshold {ask!r} and "
                                f"align_threshold {align!r}", value=bad, field=name)
        _whole("max_text", self.max_text, 1)
        _whole("max_open_disputes", self.max_open_disputes, 1)
        if not isinstance(self.unextracted_notes, bool):
            raise InvalidPolicy(f"unextracted_notes must be true or false, got {self.unextracted_notes!r}",
                                value=self.unextracted_notes)
        if not isinstance(self.rules, AutoResolveRules):
            raise InvalidPolicy(f"rules must be AutoResolveRules, got {self.rules!r}", value=self.rules)
        if self.rate_limit is not None and not isinstance(self.rate_limit, RateLimit):
            raise InvalidPolicy(f"rate_limit must be a RateLimit or None, got {self.rate_limit!r}", value=self.rate_limit)
        self.rules.__post_init__()  # again: one unpickled or copied was not built by __init__
        if self.rate_limit is not None:
            self.rate_limit.__post_init__()


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise InvalidPolicy(f"{name} must be one of {list(allowed)}, got {value!r}", value=value)


def check_authority_agent(agent: str) -> None:
    """InvalidPolicy unless `agent` is a name an agent may write under (`texts.check_agent`: no
    reserved `rule:`/`strategy:` prefix, ...). Checked where an authority entry is added, not when a
    stored policy is read (one written before the prefixes were reserved still opens)."""
    try:
        check_agent(agent)
    except InvalidInput as exc:
        raise InvalidPolicy(f"authority: {exc}", value=agent) from None


def _check_weight(weight: object, name: str = "authority weight") -> None:
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not math.isfinite(weight) or not 0 <= weight <= 1:
        raise InvalidPolicy(f"{name} must be a number in [0, 1], got {_given(weight)}", value=weight)


def _given(value: object) -> str:
    """A wrong setting as a message shows it, naming its type where that is the mistake: a
    number in a string (from a config file or an environment variable) reads "the string '0.9'"."""
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return f"the string {shown(value)}"
        return f"the string {shown(value)} (give the number itself, not a string)"
    if isinstance(value, bool):
        return f"the boolean {value!r}"
    if value is None or isinstance(value, int | float):
        return repr(value)
    return f"{shown(value)} (a {type(value).__name__})"


def _positive(name: str, value: object, *, allow_zero: bool = False) -> None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < 0 or (value == 0 and not allow_zero):  # type: ignore[operator]
        raise InvalidPolicy(f"{name} must be a {'non-negative' if allow_zero else 'positive'} number, "
                            f"got {_given(value)}", value=value, field=name)


def _whole(name: str, value: object, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise InvalidPolicy(f"{name} must be an integer of at least {least}, got {_given(value)}", value=value,
                            field=name)


def check_version(current: Policy, expected: int | None) -> None:
    """PolicyConflict unless `expected` is None or `current`'s version."""
    if expected is not None and expected != current.version:
        raise PolicyConflict(expected, current.version)


def _merge(target: Any, patch: Any) -> Any:
    """RFC 7396: a patch object merges into an object member by member (None removes
    one); any other patch value replaces the target."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = _merge(out.get(key), value)
    return out
