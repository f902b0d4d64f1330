"""vault-ray's MCP server: the shared memory as tools, resources and a prompt for LLM agents.

`build_server(memory)` registers everything on an `MCPServer` (the official SDK).
`memory` is called once per tool call and returns the `Memory` of the caller:
always the same one over stdio, the bearer token's principal over HTTP (`http.py`).

Each tool answers twice: text for the model (`text.py`; a dispute is never
hidden) and structured content for the application (the library's models in
their JSON form, `vault_ray.wire`, with an output schema). A `VaultError` comes
back as a tool error carrying its class and message; nothing else about a
failure leaves the server.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
import typing
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, ParamSpec, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError, create_model

from ..engine.explain import Explanation
from ..errors import InvalidInput, NotFound, VaultError, shown
from ..models import AddResult, Claim, Dispute, EntityView, Fact, Outcome, Retraction
from ..wire import HIDDEN_FIELDS, encode
from .arguments import invalid_arguments, strict
from .memory import Memory
from .text import (
    MAX_SUMMARY_HITS,
    OpenDispute,
    Recall,
    add_result_text,
    disputes_text,
    forgotten_text,
    history_text,
    recall_text,
    resolved_text,
    retracted_text,
    summary_text,
    view_text,
)

P = ParamSpec("P")
R = TypeVar("R")
MemorySource = Callable[[], Memory]

INSTRUCTIONS = """vault-ray is a memory shared by several agents, each writing under its own name.
- When the user tells you something about themselves, call `remember` with their words.
- Before answering from what you know about the user, call `recall` (or `get_entity` for a known key).
- A result marked CONTESTED means agents disagree: never pick one value silently. Tell the user the competing
  values and who said them, or ask which is right. Only a person (a token allowed to resolve disputes) settles
  one, with `resolve_dispute`; only a person takes a claim back (`retract`, or `forget` for a whole entity).
- `history` and `explain` say who said what, when, and why memory holds what it holds."""

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
RECALL_CHARS = 1000
"""The longest `recall` query: what `/v1/search` takes (it travels in the URL), on every transport alike."""
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
SETTLE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)

Text = Annotated[str, Field(description="What the user said, in their words (one turn).")]
EntityKey = Annotated[str, Field(description="A dotted key of lowercase ASCII letters, digits and '_', "
                                              "e.g. 'user.timezone' or 'user.diet'.")]
Session = Annotated[str | None, Field(description="Optional conversation or session id, kept as provenance: one "
                                                "line, no control character.")]


def output_model(cls: type) -> type[BaseModel]:
    """The output schema of a tool answering a frozen dataclass of the library, as a pydantic
    model with the same fields (the SDK would read a slots dataclass's member descriptors
    as field defaults). Nested dataclasses are pydantic's to read."""
    hints = typing.get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name in HIDDEN_FIELDS:
            continue
        if f.default is not dataclasses.MISSING:
            fields[f.name] = (hints[f.name], f.default)
        elif f.default_factory is not dataclasses.MISSING:
            fields[f.name] = (hints[f.name], Field(default_factory=f.default_factory))
        else:
            fields[f.name] = (hints[f.name], ...)
    return create_model(cls.__name__, __doc__=cls.__doc__, **fields)


AddResultOut = output_model(AddResult)
RecallOut = output_model(Recall)
EntityViewOut = output_model(EntityView)
ExplanationOut = output_model(Explanation)
DisputeOut = output_model(Dispute)
RetractionOut = output_model(Retraction)
HistoryOut = create_model("History", result=(list[Claim], ...), suggestions=(list[str], Field(
    default_factory=list, description="For a key no claim was ever made on: the stored keys most like it.")))
ClaimId = Annotated[str, Field(description="A claim id from another tool's answer.")]
Note = Annotated[str, Field(description="Why, in a few words (kept with the decision).")]


def tool_error(exc: VaultError, tool: str | None = None) -> ToolError:
    """The error's class and message; bad input also says that nothing was changed. `tool`: the
    SDK's prefix, for a refusal raised outside the tool (the SDK adds it to those raised inside)."""
    unchanged = " Nothing was changed." if isinstance(exc, InvalidInput) else ""
    prefix = f"Error executing tool {tool}: " if tool else ""
    return ToolError(f"{prefix}{type(exc).__name__}: {str(exc).rstrip('.')}.{unchanged}")


def vault_errors(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """A `VaultError` as a tool error the model reads (class and message)."""

    @functools.wraps(fn)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except VaultError as exc:
            raise tool_error(exc) from exc

    return call


def answer(said: str, structured: Any) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=said)], structured_content=structured)


def unwrapped(doc: str) -> str:
    """A docstring as a model should read it: its paragraphs, each on one line, without the indent."""
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(doc).split("\n\n"))


class VaultServer(MCPServer):
    """The SDK's server, save that arguments which do not fit a tool's input schema are refused
    as the tree's `InvalidInput` on one line (`arguments.py`), like every other bad input."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        if self._tool_manager.get_tool(name) is None:  # a model that guessed a name: the names it may call
            names = ", ".join(sorted(t.name for t in self._tool_manager.list_tools()))
            raise ToolError(f"Unknown tool: {shown(name)}. The tools are: {names}.")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause, tool = exc.__cause__, self._tool_manager.get_tool(name)
            if not isinstance(cause, ValidationError) or tool is None:
                raise
            takes = list(tool.parameters.get("properties", {}))
            raise tool_error(invalid_arguments(cause, takes), name) from cause


def build_server(memory: MemorySource, *, name: str = "vault-ray", **options: Any) -> MCPServer:
    """An MCP server over the memory `memory()` returns for each call. `options` go to
    `MCPServer` (e.g. `token_verifier` and `auth` for HTTP)."""
    import vault_ray  # noqa: PLC0415  (the version, without a cycle at import time)

    options.setdefault("log_level", "WARNING")  # the SDK configures the root logger; ours is the host's
    server = VaultServer(name, title="vault-ray shared memory", version=vault_ray.__version__,
                       instructions=INSTRUCTIONS, **options)
    _writes(server, memory)
    _reads(server, memory)
    _disputes(server, memory)
    _resources(server, memory)
    _prompts(server, memory)
    for tool in server._tool_manager.list_tools():  # the SDK has no switch for it: its argument models, made strict
        strict(tool)
    described = [*server._tool_manager.list_tools(), *server._resource_manager.list_resources(),
                 *server._resource_manager.list_templates(), *server._prompt_manager.list_prompts()]
    for part in described:  # the SDK takes a docstring as it is: its indent and wrapping are no part of it
        part.description = unwrapped(part.description or "")
    return server


def _writes(server: MCPServer, memory: MemorySource) -> None:
    @server.tool(annotations=WRITE)
    @vault_errors
    async def remember(text: Text, session: Session = None) -> Annotated[CallToolResult, AddResultOut]:
        """Store what the user said about themselves (their time zone, diet, job, family, preferences, ...).
        Pass the user's turn as said; facts are extracted from it and written under your agent name. Call it
        whenever the user states something about themselves that may matter later.

        Returns what the store decided for each fact: stored, already known, or DISPUTED (another agent
        holds a contradicting value: both now show on reads until someone settles it; NEEDS THE USER when
        only the user can settle it), and the sentences that read as statements about the user but gave no
        fact (use remember_fact for those)."""
        mem = memory()
        result = await mem.add(text, session=session)
        return answer(add_result_text(result, await _claims(mem, result), await _waiting(mem, result)), encode(result))

    @server.tool(annotations=WRITE)
    @vault_errors
    async def remember_fact(entity: EntityKey, value: Annotated[str, Field(description="The value, e.g. 'PST'.")],
                            text: Annotated[str, Field(description="The fact as a sentence, e.g. 'The user is in PST'.")],
                            session: Session = None) -> Annotated[CallToolResult, AddResultOut]:
        """Store one fact under an explicit entity key, without extraction: when you know the key and the
        value (or `remember` could not read a sentence). Returns the store's decision: stored, already known,
        replaced your own older value, or DISPUTED when another agent holds a contradicting value (NEEDS THE
        USER when only the user can settle it)."""
        mem = memory()
        result = await mem.add_facts([Fact(entity, text, value)], session=session)
        return answer(add_result_text(result, await _claims(mem, result), await _waiting(mem, result)), encode(result))


async def _claims(mem: Memory, result: AddResult) -> dict[str, Claim]:
    """The claims behind the decisions (for their values); one missing is simply not shown."""
    async def one(claim_id: str) -> Claim | None:
        try:
            return await mem.claim(claim_id)
        except NotFound:
            return None

    ids = list(dict.fromkeys(d.claim_id for d in result.decisions))
    found = await asyncio.gather(*(one(i) for i in ids))
    return {i: c for i, c in zip(ids, found, strict=True) if c is not None}


async def _waiting(mem: Memory, result: AddResult) -> set[str]:
    """The disputes the write opened or joined that wait for a person (`needs_user`: high stakes, or
    against a value a person chose), so the answer can say so; no read when it opened none."""
    ids = sorted({d.dispute_id for d in result.decisions if d.outcome == Outcome.DISPUTED and d.dispute_id})
    return {d.id for d in await asyncio.gather(*(mem.dispute(i) for i in ids)) if d.needs_user}


def _reads(server: MCPServer, memory: MemorySource) -> None:
    @server.tool(annotations=READ)
    @vault_errors
    async def recall(query: Annotated[str, Field(description="What you want to know, in words, e.g. "
                                                             "'what time zone is the user in?'")],
                     k: Annotated[int, Field(ge=1, le=50, description="How many memories, best first.")] = 5,
                     ) -> Annotated[CallToolResult, RecallOut]:
        """Search the shared memory by meaning. Call it before answering anything that depends on what is
        known about the user. Returns the best matching current facts, each with its entity key, value, the
        agent that said it and when; an event (something that happened, not a current value) is marked
        "event:". A fact other agents contradict is marked CONTESTED with every competing value, its agent and
        authority weight: report the disagreement, do not pick a value. Says so explicitly when nothing
        matches."""
        if isinstance(query, str) and not query.strip():  # the library's words on every transport (not REST's `q`)
            raise InvalidInput("query must be a non-empty string")
        if isinstance(query, str) and len(query) > RECALL_CHARS:
            raise InvalidInput(f"query must be at most {RECALL_CHARS} characters (what /v1/search takes), got {len(query)}")
        found = await recall_of(memory(), query, k)
        return answer(recall_text(found), encode(found))

    @server.tool(annotations=READ)
    @vault_errors
    async def get_entity(entity: EntityKey) -> Annotated[CallToolResult, EntityViewOut]:
        """The current value of one entity key (e.g. 'user.timezone'). When agents disagree it is CONTESTED
        and lists every competing value with its agent, authority weight and time, one line per dispute; the
        entity's events (what happened, with when) follow apart, each marked "event:"; when nothing is stored
        it says so, and for a key never used it names the closest stored keys (did you mean)."""
        view = await memory().get(entity)
        return answer(view_text(view), encode(view))

    @server.tool(annotations=READ)
    @vault_errors
    async def history(entity: EntityKey) -> Annotated[CallToolResult, HistoryOut]:
        """Every claim ever made on an entity key, oldest first, with its agent, time, status (active,
        superseded, disputed) and what replaced it: the answer to "who said what, and when?". For a key never
        used it names the closest stored keys (did you mean)."""
        claims = await memory().history(entity)
        close = list(getattr(claims, "suggestions", ()))  # a typo? its "did you mean"
        return answer(history_text(entity, claims, close), {"result": encode(claims), "suggestions": close})

    @server.tool(annotations=READ)
    @vault_errors
    async def explain(claim_id: ClaimId) -> Annotated[CallToolResult, ExplanationOut]:
        """Why a claim has its status: each decision the store took about it (strategy, authority weights,
        reasons, the dispute it is in and who settled it)."""
        found = await memory().explain(claim_id)
        return answer(str(found), encode(found))


async def recall_of(mem: Memory, query: str, k: int) -> Recall:
    hits = await mem.search(query, k=k)
    contested = sorted({h.claim.entity for h in hits if h.contested})
    views = await asyncio.gather(*(mem.get(e) for e in contested))
    return Recall(query, tuple(hits), tuple(views))


async def open_disputes(mem: Memory) -> list[OpenDispute]:
    found = await mem.disputes("open")
    entities = sorted({d.entity for d in found})
    views = dict(zip(entities, await asyncio.gather(*(mem.get(e) for e in entities)), strict=True))
    return [OpenDispute(d, tuple(c for c in views[d.entity].candidates if c.dispute_id == d.id)) for d in found]


def _disputes(server: MCPServer, memory: MemorySource) -> None:
    @server.tool(annotations=READ)
    @vault_errors
    async def list_disputes() -> Annotated[CallToolResult, list[OpenDispute]]:
        """The open disputes: entities on which agents hold contradicting values, each with every competing
        value, its agent, authority weight and claim id. Says so explicitly when there are none."""
        cases = await open_disputes(memory())
        return answer(disputes_text(cases), {"result": encode(cases)})

    @server.tool(annotations=SETTLE)
    @vault_errors
    async def resolve_dispute(dispute_id: Annotated[str, Field(description="The dispute's id (list_disputes).")],
                              winner: Annotated[str | None, Field(description=(
                                  "The claim id of the value that is right (from list_disputes). Give it, or "
                                  "keep_both, not both."))] = None,
                              note: Note = "",
                              keep_both: Annotated[bool, Field(description=(
                                  "True when every competing value is right (an entity that holds several "
                                  "values, e.g. things the user likes): all stay current."))] = False,
                              ) -> Annotated[CallToolResult, DisputeOut]:
        """Settle a dispute: the winning claim becomes the value and the others are superseded, or with
        keep_both every value stays. A person decides: call it only on the user's explicit instruction. It
        needs the resolver or admin role; an agent gets a Forbidden error, and nothing changes."""
        done = await memory().resolve_dispute(dispute_id, winner, note=note, keep_both=keep_both)
        return answer(resolved_text(done), encode(done))

    @server.tool(annotations=SETTLE)
    @vault_errors
    async def retract(claim_id: ClaimId, note: Note = "") -> Annotated[CallToolResult, RetractionOut]:
        """Take one claim back because it is not true (e.g. the user says they never said it): no read shows it
        any more, history and explain keep it with who retracted it and why, and a dispute it was in goes on
        without it. A person decides: call it only on the user's explicit instruction. It needs the resolver or
        admin role; an agent gets a Forbidden error, and nothing changes. Retracting it again changes nothing."""
        done = await memory().retract(claim_id, note=note)
        return answer(retracted_text(done), encode(done))

    @server.tool(annotations=SETTLE)
    @vault_errors
    async def forget(entity: EntityKey, note: Note = "") -> Annotated[CallToolResult, list[Retraction]]:
        """Take back every current claim on one entity key at once (e.g. the user asks you to forget their
        diet): each is retracted as `retract` does, and the answer lists them; nothing to forget says so. A
        person decides: call it only on the user's explicit instruction. It needs the resolver or admin role;
        an agent gets a Forbidden error, and nothing changes."""
        done = await memory().forget(entity, note=note)
        return answer(forgotten_text(entity, done), {"result": encode(done)})


def resource_errors(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """A `VaultError` as the protocol error of a resource read (a missing one as not found)."""

    @functools.wraps(fn)
    async def read(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except NotFound as exc:
            raise ResourceNotFoundError(f"{type(exc).__name__}: {exc}") from exc
        except VaultError as exc:
            raise ResourceError(f"{type(exc).__name__}: {exc}") from exc

    return read


def _resources(server: MCPServer, memory: MemorySource) -> None:
    @server.resource("vault://entities/{entity}", name="entity", title="An entity's current value",
                     mime_type="text/plain")
    @resource_errors
    async def entity_view(entity: str) -> str:
        """The current value of an entity key (e.g. vault://entities/user.timezone); while agents disagree,
        every competing value with its agent and authority weight."""
        return view_text(await memory().get(entity))

    @server.resource("vault://disputes/open", name="open-disputes", title="Open disputes", mime_type="text/plain")
    @resource_errors
    async def disputes_open() -> str:
        """Every open dispute: the entity, each competing value, who said it and its weight."""
        return disputes_text(await open_disputes(memory()))


def _prompts(server: MCPServer, memory: MemorySource) -> None:
    @server.prompt(name="memory_summary", title="Summarize the user's memory")
    async def memory_summary(focus: Annotated[str, Field(description=(
            "What to summarize, e.g. 'travel plans'; empty for everything about the user"))] = "") -> str:
        """Summarize what the shared memory holds about the user, with its open disputes."""
        mem = memory()
        try:
            if len(focus) > RECALL_CHARS:  # recall's bound, on every transport alike
                raise InvalidInput(f"focus must be at most {RECALL_CHARS} characters, as recall's query, got {len(focus)}")
            found = await recall_of(mem, focus.strip() or "the user", MAX_SUMMARY_HITS)
            cases = await open_disputes(mem)
        except VaultError as exc:  # a protocol error with the message (anything else reads "Internal server error")
            code = INVALID_PARAMS if isinstance(exc, InvalidInput) else INTERNAL_ERROR
            raise MCPError(code, f"{type(exc).__name__}: {exc}") from exc
        return summary_text(found, cases, focus.strip())
