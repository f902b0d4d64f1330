"""Request bodies of the HTTP API: what `/openapi.json` documents a client may send.

Requests are strict (an unknown field is a 422, so no body can name an agent); their
values are checked by the core, which answers with the error tree's own types. The
schema says what those checks take (`params.py`: text without control characters,
names and ids not blank, entity keys and patterns, positive numbers), documented with
`json_schema_extra` rather than checked twice: a request that fits the schema is refused
only for what no schema can say (a claim id another fact holds, a time beyond the
clock, a dispute that is not there).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SkipValidation,
    StrictBool,
    StrictFloat,
    StrictInt,
    model_validator,
)
from typing_extensions import TypeAliasType

from vault_ray.models import MAX_NOTE, MAX_SESSION, Kind
from vault_ray.nesting import MAX_META_DEPTH
from vault_ray.policy import CARDINALITIES, MAX_SAME_EVENT_WINDOW_S, ON_AMBIGUOUS, STRATEGIES, Policy
from vault_ray.policy_file import REMOVED
from vault_ray.registry import MAX_ALIASES, MAX_DESCRIPTION, MAX_EXAMPLE, MAX_EXAMPLES

from .params import _ENTITY, AGENT_PATTERN, ID_PATTERN, LINE_PATTERN, PATTERN, Time, text_rule

_DEFAULT = Policy()

# Request fields take JSON as typed: a number may be an integer, never `true`; a flag is a boolean.
Number = StrictFloat
Integer = Annotated[StrictInt, BeforeValidator(lambda v: int(v) if type(v) is float and v.is_integer() else v)]
"""An integer; one sent as 3.0 (JSON has one number type) reads as 3."""
Flag = StrictBool

SESSION = {**text_rule(MAX_SESSION, blank=False), "pattern": LINE_PATTERN}
NOTE = text_rule(MAX_NOTE)
POSITIVE = {"exclusiveMinimum": 0}
UNIT = {"minimum": 0, "maximum": 1}


NON_NEGATIVE = {"minimum": 0}
AT_LEAST_1 = {"minimum": 1}
WINDOW = {"exclusiveMinimum": 0, "maximum": MAX_SAME_EVENT_WINDOW_S}
PATTERNS = {"items": {"type": "string", **PATTERN}}
AGENT = {"pattern": AGENT_PATTERN, "minLength": 1, "maxLength": 128}
WEIGHTS = {"type": "object", "propertyNames": PATTERN, "additionalProperties": {"type": "number", **UNIT}}
AUTHORITY = {"propertyNames": AGENT, "additionalProperties": WEIGHTS}
"""Agent -> key pattern -> weight in [0, 1]; in a patch, null removes an agent or a pattern."""
AUTHORITY_PATCH = {"propertyNames": AGENT, "additionalProperties": {"anyOf": [{**WEIGHTS, "additionalProperties": {
    "anyOf": [WEIGHTS["additionalProperties"], {"type": "null"}]}}, {"type": "null"}]}}


def one_of(choices: tuple[str, ...], *more: None) -> dict[str, Any]:
    """One of these words (`more`: None too, in a patch)."""
    return {"enum": [*choices, *more]}


def table(choices: tuple[str, ...], *more: None) -> dict[str, Any]:
    """A table of key patterns to one of these words (None too, in a patch: removes the key)."""
    return {"propertyNames": PATTERN, "additionalProperties": one_of(choices, *more)}


META_TEXT = {"pattern": r"^[^\x7f-\x9f]*$"}
"""A string in `meta` (a key or a value): JSON escapes C0 control characters, so only DEL and
C1 ones are refused there (`nesting.check_meta`)."""
MetaText = Annotated[str, Field(json_schema_extra=META_TEXT)]
MetaObject = Annotated[dict[str, "MetaValue"], Field(json_schema_extra={"propertyNames": META_TEXT})]
MetaValue = TypeAliasType("MetaValue", "MetaText | StrictInt | StrictFloat | StrictBool | None | list[MetaValue] | "
                          "MetaObject")  # type: ignore[misc]
"""Any JSON value in `meta`, its strings as META_TEXT (the schema's `MetaValue`)."""
META = {"propertyNames": META_TEXT, "x-maxDepth": MAX_META_DEPTH}
"""`meta`'s keys as META_TEXT; `x-maxDepth`: levels of objects and arrays (JSON Schema has no keyword for it)."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MessageIn(Strict):
    role: str = Field(min_length=1, description="'user', 'assistant', ...: facts come from the latest user turn",
                      json_schema_extra=text_rule(blank=False))
    content: str = Field(json_schema_extra=text_rule())


class MessagesIn(Strict):
    """A user turn to extract facts from: `messages` (one of role 'user' at least: facts come
    from the latest, which must say something), or `text` as one user message."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"oneOf": [
        {"required": ["messages"], "properties": {"text": {"type": "null"}, "messages": {
            "type": "array", "contains": {"type": "object", "properties": {"role": {"const": "user"}}}}}},
        {"required": ["text"], "properties": {"messages": {"type": "null"}, "text": {"type": "string"}}}]})

    messages: list[MessageIn] | None = None
    text: str | None = Field(None, json_schema_extra=text_rule(blank=False))
    session: str | None = Field(None, max_length=MAX_SESSION, json_schema_extra=SESSION)
    observed_at: Time | None = Field(None, description="When it was said (default: now); ISO 8601 or epoch seconds")

    @model_validator(mode="after")
    def _one_of(self) -> MessagesIn:  # a request validation error: the problem carries `errors` (loc ["body"])
        if (self.messages is None) == (self.text is None):
            raise ValueError("give either messages or text")
        return self


class FactIn(Strict):
    entity: str = Field(description="Dotted lowercase key, e.g. user.timezone", json_schema_extra=_ENTITY)
    text: str = Field(json_schema_extra=text_rule(blank=False))
    value: str | None = Field(None, json_schema_extra=text_rule(blank=False))
    kind: Kind = Field(Kind.SEMANTIC, description="semantic (a fact that holds now) or procedural: conflict detection "
                       "applies; episodic (an event that happened): never contradicts or supersedes, events accumulate")
    observed_at: Time | None = Field(None, description="When it was observed (default: now); at most a day ahead")
    claim_id: str | None = Field(None, description="Client-chosen id: a retry with the same id applies once",
                                 json_schema_extra={"pattern": ID_PATTERN, "maxLength": 128})
    confidence: Number = Field(1.0, json_schema_extra=UNIT)
    meta: SkipValidation[MetaObject] | None = Field(
        None, description=f"Any JSON object: no DEL or C1 control character in its keys and strings, nested at most "
        f"{MAX_META_DEPTH} levels of objects and arrays (the object itself is level 1; `x-maxDepth`), at most 10 x "
        "the policy's max_text characters as JSON", json_schema_extra=META)  # checked once, by the core (check_meta)
    source: str | None = Field(None, description="What was said, as said, if the fact was taken from a text",
                               json_schema_extra=text_rule())


class FactsIn(Strict):
    facts: list[FactIn] = Field(json_schema_extra={"minItems": 1})
    session: str | None = Field(None, max_length=MAX_SESSION, json_schema_extra=SESSION)
    resolve: Flag = Field(True, description="Align new entity labels with existing ones (false: a fixed taxonomy)")


class ResolveIn(Strict):
    """Name the `winner`, or keep every value (`keep_both`, on a 'many' entity): one of the two, not both
    (`oneOf`; the core refuses both with a 422, `check_resolution`)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"oneOf": [
        {"required": ["winner"], "properties": {"winner": {"type": "string"}}},
        {"required": ["keep_both"], "properties": {"keep_both": {"const": True}}}]})

    winner: str | None = Field(None, description="The claim id that wins; or keep_both on a 'many' entity (not both)",
                               json_schema_extra=text_rule(128, blank=False))
    note: str = Field("", json_schema_extra=NOTE)
    keep_both: Flag = False


class AuthorityIn(Strict):
    agent: str = Field(json_schema_extra=AGENT)
    pattern: str = Field(description="An entity key, optionally ending in '.*', or '*'", json_schema_extra=PATTERN)
    weight: Number = Field(json_schema_extra=UNIT)


class StrategyIn(Strict):
    pattern: str = Field(json_schema_extra=PATTERN)
    strategy: Literal["recency", "authority", "consensus", "judge"]


class CardinalityIn(Strict):
    pattern: str = Field(json_schema_extra=PATTERN)
    cardinality: Literal["one", "many"]


class HighStakesIn(Strict):
    patterns: list[str] = Field(json_schema_extra=PATTERNS)


class HighStakesPatternIn(Strict):
    pattern: str = Field(json_schema_extra=PATTERN)


class RulesIn(Strict):
    reasserted_by: Integer | None = Field(None, json_schema_extra={"minimum": 2})
    stale_after_s: Number | None = Field(None, json_schema_extra=POSITIVE)


class RateLimitBody(Strict):
    rate: Number = Field(json_schema_extra=POSITIVE)
    burst: Integer = Field(json_schema_extra={"minimum": 1})


class RateLimitPatch(Strict):
    rate: Number | None = Field(None, json_schema_extra=POSITIVE)
    burst: Integer | None = Field(None, json_schema_extra={"minimum": 1})


ANSWERED = (f"Read-only, ignored: `{REMOVED}` of a policy change's answer (the settings it removed), so that an "
            "answer can be sent back as it came; naming a setting here removes nothing")
ANSWER_ONLY = {REMOVED}
"""What a policy body may hold that is no setting: left out before the body is read as a policy."""


class PolicyBody(Strict):
    """A whole policy (`Policy.to_dict()`); what is left out keeps `Policy()`'s default.
    `version`: the version this policy was read at; when given, the store takes it only while
    its policy is still at that version (409 otherwise). The store sets the new version. `removed`,
    which a change's answer carries, is read-only and ignored: an answer can be edited and sent back."""

    default_strategy: str = Field(_DEFAULT.default_strategy, json_schema_extra=one_of(STRATEGIES))
    strategies: dict[str, str] = Field({}, json_schema_extra=table(STRATEGIES))
    authority: dict[str, dict[str, Number]] = Field({}, json_schema_extra=AUTHORITY)
    cardinality: dict[str, str] = Field({}, json_schema_extra=table(CARDINALITIES))
    on_ambiguous: dict[str, str] = Field({}, json_schema_extra=table(ON_AMBIGUOUS))
    default_on_ambiguous: str = Field(_DEFAULT.default_on_ambiguous, json_schema_extra=one_of(ON_AMBIGUOUS))
    high_stakes: list[str] = Field(list(_DEFAULT.high_stakes), json_schema_extra=PATTERNS)
    default_weight: Number = Field(_DEFAULT.default_weight, json_schema_extra=UNIT)
    default_cardinality: str = Field(_DEFAULT.default_cardinality, json_schema_extra=one_of(CARDINALITIES))
    near_simultaneous_s: Number = Field(_DEFAULT.near_simultaneous_s, json_schema_extra=NON_NEGATIVE)
    consensus_margin: Number = Field(_DEFAULT.consensus_margin, json_schema_extra=NON_NEGATIVE)
    align_threshold: Number = Field(_DEFAULT.align_threshold, json_schema_extra=UNIT)
    ask_threshold: Number = Field(_DEFAULT.ask_threshold, json_schema_extra=UNIT)
    half_life_days: Number = Field(_DEFAULT.half_life_days, json_schema_extra=POSITIVE)
    same_event_window_s: Number = Field(_DEFAULT.same_event_window_s, json_schema_extra=WINDOW)
    max_text: Integer = Field(_DEFAULT.max_text, json_schema_extra=AT_LEAST_1)
    max_open_disputes: Integer = Field(_DEFAULT.max_open_disputes, json_schema_extra=AT_LEAST_1)
    rules: RulesIn = RulesIn()
    rate_limit: RateLimitBody | None = None
    unextracted_notes: Flag = _DEFAULT.unextracted_notes
    version: Integer | None = None
    removed: list[str] | None = Field(None, description=ANSWERED)


class PolicyPatch(Strict):
    """A JSON merge patch of the policy (RFC 7396): the fields given replace the policy's,
    the others keep their value. In the tables (`strategies`, `cardinality`, `on_ambiguous`,
    `authority` and each agent's table), `rules` and `rate_limit`, the keys given are set and
    a key given as null is removed (a rule removed is off; `rate_limit` null is no limit); any
    other field given as null takes `Policy()`'s default. `version`: apply only while the
    policy is at this version (409 PolicyConflict otherwise); without it, a change that
    another change overtook is applied again to the newer policy."""

    default_strategy: str | None = Field(None, json_schema_extra=one_of(STRATEGIES, None))
    strategies: dict[str, str | None] | None = Field(None, json_schema_extra=table(STRATEGIES, None))
    authority: dict[str, dict[str, Number | None] | None] | None = Field(None, json_schema_extra=AUTHORITY_PATCH)
    cardinality: dict[str, str | None] | None = Field(None, json_schema_extra=table(CARDINALITIES, None))
    on_ambiguous: dict[str, str | None] | None = Field(None, json_schema_extra=table(ON_AMBIGUOUS, None))
    default_on_ambiguous: str | None = Field(None, json_schema_extra=one_of(ON_AMBIGUOUS, None))
    high_stakes: list[str] | None = Field(None, json_schema_extra=PATTERNS)
    default_weight: Number | None = Field(None, json_schema_extra=UNIT)
    default_cardinality: str | None = Field(None, json_schema_extra=one_of(CARDINALITIES, None))
    near_simultaneous_s: Number | None = Field(None, json_schema_extra=NON_NEGATIVE)
    consensus_margin: Number | None = Field(None, json_schema_extra=NON_NEGATIVE)
    align_threshold: Number | None = Field(None, json_schema_extra=UNIT)
    ask_threshold: Number | None = Field(None, json_schema_extra=UNIT)
    half_life_days: Number | None = Field(None, json_schema_extra=POSITIVE)
    same_event_window_s: Number | None = Field(None, json_schema_extra=WINDOW)
    max_text: Integer | None = Field(None, json_schema_extra=AT_LEAST_1)
    max_open_disputes: Integer | None = Field(None, json_schema_extra=AT_LEAST_1)
    rules: RulesIn | None = None
    rate_limit: RateLimitPatch | None = None
    unextracted_notes: Flag | None = None
    version: Integer | None = Field(None, description="The policy's version this change was made against")
    removed: list[str] | None = Field(None, description=ANSWERED)


class RegistryEntryIn(Strict):
    description: str = Field("", json_schema_extra=text_rule(MAX_DESCRIPTION))
    cardinality: Literal["one", "many"] = "one"
    aliases: list[str] = Field([], json_schema_extra={"items": {"type": "string", **_ENTITY}, "maxItems": MAX_ALIASES})
    examples: list[str] = Field([], description="Example phrasings that help extraction find the entry",
                                json_schema_extra={"items": {"type": "string", **text_rule(MAX_EXAMPLE, blank=False)},
                                                   "maxItems": MAX_EXAMPLES})
