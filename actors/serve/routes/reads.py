"""Reads, for any token: search, an entity's view and history, a claim and why it
has its status, disputes; and what the caller may look up about itself and the
store's rules (whoami, policy, registry)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Response

from vault_ray.errors import InvalidInput
from vault_ray.http_calls import SUGGESTIONS
from vault_ray.models import Found
from vault_ray.wire import encode

from ..auth import Agent, Svc
from ..params import AGENT_PATTERN, text_rule
from ..schemas import (
    MAX_K,
    MAX_QUERY,
    ClaimIdPath,
    ClaimOut,
    DisputeIdPath,
    DisputeOut,
    EntityFilter,
    EntityPath,
    EntityViewOut,
    ExplanationOut,
    HitOut,
    PolicyOut,
    RegistryEntryOut,
    Time,
    WhoAmIOut,
)
from . import READ, known_query_only

router = APIRouter(prefix="/v1", tags=["reads"], dependencies=[Depends(known_query_only)])

SUGGESTING: dict[int | str, dict[str, Any]] = {**READ, 200: {"headers": {SUGGESTIONS: {
    "description": "For a key no claim was ever made on: the stored keys most like it, best first, comma-separated",
    "schema": {"type": "string"}}}}}
AgentFilter = Annotated[str | None, Query(description="Only this agent's claims", json_schema_extra={
    "pattern": AGENT_PATTERN, "minLength": 1, "maxLength": 128})]
AsOf = Annotated[Time | None, Query(description="Answer as the store stood then (ISO 8601 or epoch seconds)")]


@router.get("/search", response_model=list[HitOut], responses=SUGGESTING)
async def search(who: Agent, svc: Svc, response: Response, q: Annotated[str, Query(
                     min_length=1, max_length=MAX_QUERY, json_schema_extra=text_rule(blank=False))],
                 k: Annotated[int, Query(ge=1, le=MAX_K)] = 5, entity: EntityFilter = None, agent: AgentFilter = None,
                 as_of: AsOf = None, mine: bool = False) -> Any:
    """Semantic search over active claims; hits on a disputed entity are `contested`, with the alternatives. No hit
    for an `entity` no claim was ever made on (a typo?): the `Vault-Suggestions` header names the closest stored keys."""
    if mine and agent is not None and agent != who.name:
        raise InvalidInput("mine=true searches the caller's own claims: give mine or agent, not both")
    hits = await svc.run(svc.vault.search, q, k=k, agent=who.name if mine else agent, entity=entity, as_of=as_of)
    return suggesting(response, hits)


@router.get("/entities/{entity}", response_model=EntityViewOut, responses=READ)
async def get_entity(entity: EntityPath, who: Agent, svc: Svc, as_of: AsOf = None) -> Any:
    """The current view of an entity: while a dispute is open, every competing value. A key no claim was
    ever made on (a typo?) answers an empty view whose `suggestions` name the closest stored keys."""
    return encode(await svc.run(svc.vault.get, entity, as_of=as_of))


@router.get("/entities/{entity}/history", response_model=list[ClaimOut], responses=SUGGESTING)
async def history(entity: EntityPath, who: Agent, svc: Svc, response: Response) -> Any:
    """Every claim ever made on the entity, with status and provenance. None, for a key no claim was ever made on
    (a typo?): the `Vault-Suggestions` header names the closest stored keys."""
    return suggesting(response, await svc.run(svc.vault.history, entity))


def suggesting(response: Response, found: Found[Any]) -> Any:
    """`found` as the body, its "did you mean" keys (if any) in the `Vault-Suggestions` header."""
    if found.suggestions:
        response.headers[SUGGESTIONS] = ", ".join(found.suggestions)
    return encode(found)


@router.get("/claims/{claim_id}", response_model=ClaimOut, responses=READ)
async def claim(claim_id: ClaimIdPath, who: Agent, svc: Svc) -> Any:
    return encode(await svc.run(svc.vault.claim, claim_id))


@router.get("/claims/{claim_id}/explain", response_model=ExplanationOut, responses=READ)
async def explain(claim_id: ClaimIdPath, who: Agent, svc: Svc) -> Any:
    """The chain of decisions behind the claim's status."""
    return encode(await svc.run(svc.vault.explain, claim_id))


@router.get("/disputes", response_model=list[DisputeOut], responses=READ)
async def disputes(who: Agent, svc: Svc, status: Literal["open", "resolved", "all"] = "open") -> Any:
    return encode(await svc.run(svc.vault.disputes, None if status == "all" else status))


@router.get("/disputes/{dispute_id}", response_model=DisputeOut, responses=READ)
async def dispute(dispute_id: DisputeIdPath, who: Agent, svc: Svc) -> Any:
    return encode(await svc.run(svc.vault.dispute, dispute_id))


@router.get("/whoami", response_model=WhoAmIOut, responses=READ)
async def whoami(who: Agent) -> Any:
    """The token's principal (the agent its writes carry) and role."""
    return {"principal": who.name, "role": who.role}


@router.get("/policy", response_model=PolicyOut, responses=READ)
async def policy(who: Agent, svc: Svc) -> Any:
    return encode(await svc.run(lambda: svc.vault.policy))


@router.get("/registry", response_model=list[RegistryEntryOut], responses=READ)
async def registry(who: Agent, svc: Svc) -> Any:
    return encode(list((await svc.run(lambda: svc.vault.registry)).entries.values()))
