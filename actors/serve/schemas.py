"""Request and response models of the HTTP API: what `/openapi.json` documents.

Requests are strict (an unknown field is a 422, so no body can name an agent); their
values are checked by the core, which answers with the error tree's own types. The
response models mirror the frozen dataclasses of `vault_ray.models` field by field
(a test holds them together); routes fill them from `vault_ray.wire.encode`, the
codec the client reads them back with.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, model_validator

from vault_ray.models import DisputeStatus, Kind, Op, Outcome, Status
from vault_ray.policy import Policy

from .params import ClaimIdPath, EntityFilter, EntityPath, Time  # noqa: F401  (the routes' parameter types)

MAX_K = 100
"""The most hits one search returns over HTTP."""
MAX_QUERY = 1000
"""The longest search query, in characters (it travels in the URL)."""
_DEFAULT = Policy()

# Request fields take JSON as typed: a number may be an integer, never `true`; a flag is a boolean.
Number = StrictFloat
Integer = StrictInt
Flag = StrictBool


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- requests ---------------------------------------------------------------------------------------
class MessageIn(Strict):
    role: str = Field(min_length=1, description="'user', 'assistant', ...: facts come from the latest user turn")
    content: str


class MessagesIn(Strict):
    """A user turn to extract facts from: `messages`, or `text` as one user message."""

    messages: list[MessageIn] | None = None
    text: str | None = None
    session: str | None = Field(None, max_length=256)
    observed_at: Time | None = Field(None, description="When it was said (default: now); ISO 8601 or epoch seconds")

    @model_validator(mode="after")
    def _one_of(self) -> MessagesIn:  # a request validation error: the problem carries `errors` (loc ["body"])
        if (self.messages is None) == (self.text is None):
            raise ValueError("give either messages or text")
        return self


class FactIn(Strict):
    entity: str = Field(description="Dotted lowercase key, e.g. user.timezone")
    text: str
    value: str | None = None
    kind: Kind = Field(Kind.SEMANTIC, description="semantic (a fact that holds now) or procedural: conflict detection "
                       "applies; episodic (an event that happened): never contradicts or supersedes, events accumulate")
    observed_at: Time | None = None
    claim_id: str | None = Field(None, description="Client-chosen id: a retry with the same id applies once")
    confidence: Number = 1.0
    meta: dict[str, Any] | None = None
    source: str | None = Field(None, description="What was said, as said, if the fact was taken from a text")


class FactsIn(Strict):
    facts: list[FactIn]
    session: str | None = Field(None, max_length=256)
    resolve: Flag = Field(True, description="Align new entity labels with existing ones (false: a fixed taxonomy)")


class ResolveIn(Strict):
    winner: str | None = Field(None, description="The claim id that wins; or keep_both on a 'many' entity")
    note: str = ""
    keep_both: Flag = False


class AuthorityIn(Strict):
    agent: str
    pattern: str = Field(description="An entity key, optionally ending in '.*', or '*'")
    weight: Number


class StrategyIn(Strict):
    pattern: str
    strategy: Literal["recency", "authority", "consensus", "judge"]


class CardinalityIn(Strict):
    pattern: str
    cardinality: Literal["one", "many"]


class HighStakesIn(Strict):
    patterns: list[str]


class RulesIn(Strict):
    reasserted_by: Integer | None = None
    stale_after_s: Number | None = None


class RateLimitBody(Strict):
    rate: Number
    burst: Integer


class RateLimitPatch(Strict):
    rate: Number | None = None
    burst: Integer | None = None


class PolicyBody(Strict):
    """A whole policy (`Policy.to_dict()`); what is left out keeps `Policy()`'s default.
    `version`: the version this policy was read at; when given, the store takes it only while
    its policy is still at that version (409 otherwise). The store sets the new version."""

    default_strategy: str = _DEFAULT.default_strategy
    strategies: dict[str, str] = {}
    authority: dict[str, dict[str, Number]] = {}
    cardinality: dict[str, str] = {}
    on_ambiguous: dict[str, str] = {}
    default_on_ambiguous: str = _DEFAULT.default_on_ambiguous
    high_stakes: list[str] = list(_DEFAULT.high_stakes)
    default_weight: Number = _DEFAULT.default_weight
    default_cardinality: str = _DEFAULT.default_cardinality
    near_simultaneous_s: Number = _DEFAULT.near_simultaneous_s
    consensus_margin: Number = _DEFAULT.consensus_margin
    align_threshold: Number = _DEFAULT.align_threshold
    ask_threshold: Number = _DEFAULT.ask_threshold
    half_life_days: Number = _DEFAULT.half_life_days
    same_event_window_s: Number = _DEFAULT.same_event_window_s
    max_text: Integer = _DEFAULT.max_text
    max_open_disputes: Integer = _DEFAULT.max_open_disputes
    rules: RulesIn = RulesIn()
    rate_limit: RateLimitBody | None = None
    unextracted_notes: Flag = _DEFAULT.unextracted_notes
    version: Integer | None = None


class PolicyPatch(Strict):
    """A JSON merge patch of the policy (RFC 7396): the fields given replace the policy's,
    the others keep their value. In the tables (`strategies`, `cardinality`, `on_ambiguous`,
    `authority` and each agent's table), `rules` and `rate_limit`, the keys given are set and
    a key given as null is removed (a rule removed is off; `rate_limit` null is no limit); any
    other field given as null takes `Policy()`'s default. `version`: apply only while the
    policy is at this version (409 PolicyConflict otherwise); without it, a change that
    another change overtook is applied again to the newer policy."""

    default_strategy: str | None = None
    strategies: dict[str, str | None] | None = None
    authority: dict[str, dict[str, Number | None] | None] | None = None
    cardinality: dict[str, str | None] | None = None
    on_ambiguous: dict[str, str | None] | None = None
    default_on_ambiguous: str | None = None
    high_stakes: list[str] | None = None
    default_weight: Number | None = None
    default_cardinality: str | None = None
    near_simultaneous_s: Number | None = None
    consensus_margin: Number | None = None
    align_threshold: Number | None = None
    ask_threshold: Number | None = None
    half_life_days: Number | None = None
    same_event_window_s: Number | None = None
    max_text: Integer | None = None
    max_open_disputes: Integer | None = None
    rules: RulesIn | None = None
    rate_limit: RateLimitPatch | None = None
    unextracted_notes: Flag | None = None
    version: Integer | None = Field(None, description="The policy's version this change was made against")


class RegistryEntryIn(Strict):
    description: str = ""
    cardinality: Literal["one", "many"] = "one"
    aliases: list[str] = []
    examples: list[str] = Field([], description="Example phrasings that help extraction find the entry")


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


class ReadyOut(BaseModel):
    status: Literal["ready"]
    mode: str
    store: str
    partitions: int
    namespace: str | None = None


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
