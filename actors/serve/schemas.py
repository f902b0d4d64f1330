"""Response models of the HTTP API: what `/openapi.json` documents (the request bodies
are in `bodies.py`, re-exported here). The response models mirror the frozen dataclasses of `vault_ray.models` field by field
(a test holds them together); routes fill them from `vault_ray.wire.encode`, the
codec the client reads them back with.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from vault_ray.models import DisputeStatus, Kind, Op, Outcome, Status

from .bodies import (  # noqa: F401  (the request bodies: bodies.py)
    AuthorityIn,
    CardinalityIn,
    FactIn,
    FactsIn,
    HighStakesIn,
    HighStakesPatternIn,
    MessageIn,
    MessagesIn,
    PolicyBody,
    PolicyPatch,
    RateLimitBody,
    RateLimitPatch,
    RegistryEntryIn,
    ResolveIn,
    RulesIn,
    StrategyIn,
    Strict,
)
from .params import ClaimIdPath, DisputeIdPath, EntityFilter, EntityPath, Time  # noqa: F401  (the routes' parameter types)

MAX_K = 100
"""The most hits one search returns over HTTP."""
MAX_QUERY = 1000
"""The longest search query, in characters (it travels in the URL)."""

# -- responses -------------------------------------------------------------------------------------
class DecisionOut(BaseModel):
    entity: str
    op: Op
    outcome: Outcome
    claim_id: str
    aligned_from: str | None = None
    superseded: list[str] = []
    dispute_id: str | None = None
    strategy: str | None = None
    reason: str = ""
    value: str | None = Field(default=None, description="the value of the claim `claim_id` names "
                              "(the stored one for a NOOP); null when it has none")


class UnextractedOut(BaseModel):
    text: str
    reason: str
    note_id: str | None = None


class AddResultOut(BaseModel):
    decisions: list[DecisionOut]
    unextracted: list[UnextractedOut] = []


class ClaimOut(BaseModel):
    id: str
    entity: str
    text: str
    value: str | None
    kind: Kind
    agent: str
    session: str | None
    observed_at: datetime
    recorded_at: datetime
    status: Status
    supersedes: list[str] = []
    superseded_by: str | None = None
    confidence: float = 1.0
    meta: dict[str, Any] = {}
    aligned_from: str | None = None
    source: str | None = None


class HitOut(BaseModel):
    claim: ClaimOut
    score: float
    contested: bool = False
    alternatives: list[ClaimOut] = []
    agreeing: list[ClaimOut] = Field(default=[], description="other agents' active claims of the same value")


class ResolutionOut(BaseModel):
    winner: str | None
    decided_by: str
    note: str
    at: datetime
    keep_both: bool = False


class DisputeOut(BaseModel):
    id: str
    entity: str
    challenger: str
    incumbents: list[str]
    reason: str
    status: DisputeStatus
    needs_user: bool
    challenges: int
    opened_at: datetime
    resolution: ResolutionOut | None = None
    challenger_agent: str = ""
    supporters: list[str] = []


class CandidateOut(BaseModel):
    claim: ClaimOut
    weight: float
    dispute_id: str | None


class EntityViewOut(BaseModel):
    entity: str
    active: list[ClaimOut]
    contested: bool
    candidates: list[CandidateOut]
    disputes: list[DisputeOut]
    events: list[ClaimOut] = Field(default=[], description="the events (episodic) among active, oldest first: no value")
    suggestions: list[str] = Field(default=[], description="a key never written: the stored keys most like it (did you mean)")
    values: list[str] = Field(default=[], description="the current value(s), each once (one value said by several "
                              "claims, in any words that canonicalize alike, shows once): who says it is in active/candidates")


class StepOut(BaseModel):
    at: datetime
    kind: str
    claim_id: str | None
    agent: str | None
    status: str | None = None
    superseded_by: str | None = None
    dispute_id: str | None = None
    pass_no: int | None = None
    op: str | None = None
    strategy: str | None = None
    weights: dict[str, float] = {}
    reason: str = ""
    rationale: str = ""
    decided_by: str | None = None
    note: str = ""
    cause: StepOut | None = None


class ExplanationOut(BaseModel):
    claim: ClaimOut
    steps: list[StepOut]
    disputes: list[DisputeOut]


class RulesOut(BaseModel):
    reasserted_by: int | None = None
    stale_after_s: float | None = None


class RateLimitOut(BaseModel):
    rate: float
    burst: int


class PolicyOut(BaseModel):
    default_strategy: str
    strategies: dict[str, str]
    authority: dict[str, dict[str, float]]
    cardinality: dict[str, str]
    on_ambiguous: dict[str, str]
    default_on_ambiguous: str
    high_stakes: list[str]
    default_weight: float
    default_cardinality: str
    near_simultaneous_s: float
    consensus_margin: float
    align_threshold: float
    ask_threshold: float
    half_life_days: float
    same_event_window_s: float
    max_text: int
    max_open_disputes: int
    rules: RulesOut
    rate_limit: RateLimitOut | None
    unextracted_notes: bool
    version: int


class PolicyChangeOut(PolicyOut):
    """The policy a change stored, and what it removed."""

    removed: list[str] = Field(default=[], description=(
        "the settings the policy had that this change removed, as `vault-ray policy apply` names them: a table entry "
        "('strategies[user.diet]', 'authority[chat][*]') or a list item ('high_stakes: user.payment.*'; a list "
        "given is replaced whole)"))


class RegistryEntryOut(BaseModel):
    key: str
    description: str
    cardinality: str
    aliases: list[str]
    examples: list[str] = []


class WhoAmIOut(BaseModel):
    principal: str
    role: str


class HealthOut(BaseModel):
    status: Literal["ok"]


class UnfinishedRestoreOut(BaseModel):
    """A store whose restore was cut short: it answers reads (partial), refuses changes (409)."""

    export: str | None = Field(description="The export being restored")
    started_at: str | None = Field(description="When the restore started")
    detail: str = Field(description="What the store does until the same import finishes the restore, and how to")


class ReadyOut(BaseModel):
    status: Literal["ready"]
    mode: str
    store: str
    partitions: int
    namespace: str | None = None
    restore_unfinished: UnfinishedRestoreOut | None = Field(
        None, description="Set (ready, degraded) while the store holds an unfinished restore: reads answer from the "
                          "partitions restored so far, every change is refused (RestoreUnfinished, 409)")


class Problem(BaseModel):
    """RFC 9457 problem details; the error's own fields follow as extension members."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="tag:vault-ray,2026:problem:<ErrorClass> (see docs/http.md), or about:blank")
    title: str
    status: int
    detail: str | None = None
    instance: str | None = None


class VaultEventOut(BaseModel):
    """One change of the store (docs/inbox.md, "The event schema")."""

    id: str = Field(description="<partition>-<seq>: unique in the store, stable across restarts")
    cursor: str = Field(description="Resume right after this event (the SSE id)")
    kind: Literal["claim_added", "claim_superseded", "claim_activated", "claim_retracted", "claim_erased",
                  "dispute_opened", "dispute_challenged", "dispute_changed", "dispute_resolved", "consensus_flipped"]
    ts: datetime
    entity: str
    claim_id: str | None = None
    dispute_id: str | None = None
    agent: str | None = None
    status: str | None = None
    superseded_by: str | None = None
    needs_user: bool | None = None
    decided_by: str | None = None
    how: Literal["winner", "keep_both", "rule", "strategy"] | None = None
    winner: str | None = None
    note: str | None = None
    reason: str | None = None
    detail: dict[str, Any] = {}


class EventPageOut(BaseModel):
    events: list[VaultEventOut]
    cursor: str = Field(description="Resume after everything this page scanned")
    more: bool = Field(description="More events may follow at once")
