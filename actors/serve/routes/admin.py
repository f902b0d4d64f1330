"""Routes that decide: settle disputes and retract claims (a resolver or admin token;
`decided_by` is the token's principal); change the policy and the entity registry, run the auto-resolve
rules (an admin token)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path

from vault_ray.engine.policy_edits import patched, with_high_stakes, without_high_stakes
from vault_ray.models import MAX_ENTITY_LEN
from vault_ray.policy import AutoResolveRules, Policy
from vault_ray.policy_file import removed_settings
from vault_ray.registry import RegistryEntry
from vault_ray.wire import encode

from ..auth import Admin, Resolver, Svc
from ..bodies import ANSWER_ONLY
from ..retraction import EraseIn, ForgetIn, RetractIn, RetractionOut
from ..schemas import (
    AuthorityIn,
    CardinalityIn,
    ClaimIdPath,
    DisputeIdPath,
    DisputeOut,
    EntityPath,
    HighStakesIn,
    HighStakesPatternIn,
    PolicyBody,
    PolicyChangeOut,
    PolicyPatch,
    RegistryEntryIn,
    RegistryEntryOut,
    ResolveIn,
    RulesIn,
    StrategyIn,
)
from . import ADMIN, known_query_only

PatternPath = Annotated[str, Path(description="A high-stakes pattern: an entity key, optionally ending in '.*', or '*'",
                                  json_schema_extra={"pattern": r"^(\*|[a-z0-9_]+(\.[a-z0-9_]+)*(\.\*)?)$",
                                                     "maxLength": MAX_ENTITY_LEN + 2})]
RegistryKey = Annotated[str, Path(description="An entity key, or a pattern ending in '.*'", json_schema_extra={
    "pattern": r"^[a-z0-9_]+(\.[a-z0-9_]+)*(\.\*)?$", "maxLength": MAX_ENTITY_LEN + 2})]
router = APIRouter(prefix="/v1", tags=["admin"], dependencies=[Depends(known_query_only)])


@router.post("/disputes/{dispute_id}/resolve", response_model=DisputeOut, responses=ADMIN)
async def resolve_dispute(dispute_id: DisputeIdPath, body: ResolveIn, who: Resolver, svc: Svc) -> Any:
    """Settle a dispute: the winner becomes active and the others superseded (or keep both on a 'many' entity)."""
    done = await svc.run(svc.vault.resolve_dispute, dispute_id, body.winner, decided_by=who.name, note=body.note,
                         keep_both=body.keep_both)
    return encode(done)


@router.post("/claims/{claim_id}/retract", response_model=RetractionOut, responses=ADMIN)
async def retract_claim(claim_id: ClaimIdPath, who: Resolver, svc: Svc, body: RetractIn | None = None) -> Any:
    """Take a claim back ("this is not true"): no read sees it after this; history, explain and the
    event stream (`claim_retracted`) keep it with who retracted it, when and why. An open dispute it
    was in goes on without it. Retracting it again answers the first retraction (`already`: true)."""
    return encode(await svc.run(svc.vault.retract, claim_id, decided_by=who.name, note=_note(body)))


def _note(body: RetractIn | ForgetIn | EraseIn | None) -> str:
    """The note of a body that may be left out (`curl -X POST .../retract`: a retraction needs no note)."""
    return body.note if body is not None else ""


# forget, erase: [] for an entity with no live claim; 404 EntityNotFound for a typo of a stored key (docs/http.md)
@router.post("/entities/{entity}/forget", response_model=list[RetractionOut], responses=ADMIN)
async def forget_entity(entity: EntityPath, who: Resolver, svc: Svc, body: ForgetIn | None = None) -> Any:
    """Take back every live (active or disputed) claim of an entity at once, in one transaction: one
    retraction per claim, as `retract` answers them. An entity with no live claim (never written,
    already forgotten) answers `[]` and changes nothing, so a retry is harmless. An alias reads its key."""
    return encode(await svc.run(svc.vault.forget, entity, decided_by=who.name, note=_note(body)))


@router.post("/entities/{entity}/erase", response_model=list[RetractionOut], responses=ADMIN)
async def erase_entity(entity: EntityPath, who: Admin, svc: Svc, body: EraseIn | None = None) -> Any:
    """Erase an entity (an admin token): every claim of it is retracted and its content (text, value,
    source message, embedding; quoted reasons and notes) removed from the claim log and the files
    derived from it, for a request to delete personal data. What stays is the skeleton: ids, the
    entity key, agents, times, status `retracted`, and who erased it, when and why. One retraction
    per claim (`already`: retracted before); an entity with no claim answers `[]`. Streams and
    webhooks get `claim_erased` per claim. See docs/design.md, "Erasure", for the limits."""
    return encode(await svc.run(svc.vault.erase, entity, decided_by=who.name, note=_note(body)))


@router.put("/policy", response_model=PolicyChangeOut, responses=ADMIN)
async def set_policy(body: PolicyBody, who: Admin, svc: Svc) -> Any:
    """Replace the whole policy. With `version` (the policy's as read), only while the policy
    is at it (409 PolicyConflict otherwise): a read, change and write back overwrites no
    change made meanwhile. `removed`: the settings the policy had that this body leaves out (in a
    body, the `removed` of an answer sent back is ignored: read-only)."""
    if_version = body.version if "version" in body.model_fields_set else None
    given = Policy.from_dict({**body.model_dump(exclude=ANSWER_ONLY), "version": 0})
    return await _changed(svc, lambda current: replace(given, version=current.version + 1), if_version)


@router.patch("/policy", response_model=PolicyChangeOut, responses=ADMIN)
async def patch_policy(body: PolicyPatch, who: Admin, svc: Svc) -> Any:
    """Change the fields the body names and keep the rest (a JSON merge patch, RFC 7396;
    `application/json` or `application/merge-patch+json`). A list (`high_stakes`) is replaced
    whole: `removed` names the settings the change dropped (POST /v1/policy/high-stakes adds one).
    A null for a registered alias (`{"strategies": {"user.city": null}}`) is a 422 naming its key,
    as a rule on it is: the rule to remove is the key's, and the alias holds none."""
    changes = body.model_dump(exclude_unset=True, exclude=ANSWER_ONLY)
    version = changes.pop("version", None)
    return await _changed(svc, lambda current: patched(current, changes, svc.vault.registry), version)


@router.post("/policy/authority", response_model=PolicyChangeOut, responses=ADMIN)
async def set_authority(body: AuthorityIn, who: Admin, svc: Svc) -> Any:
    """Set an agent's authority weight on an entity pattern."""
    return await _changed(svc, lambda current: current.with_authority(body.agent, body.pattern, body.weight))


@router.post("/policy/strategy", response_model=PolicyChangeOut, responses=ADMIN)
async def set_strategy(body: StrategyIn, who: Admin, svc: Svc) -> Any:
    """Set the conflict strategy of an entity pattern."""
    return await _changed(svc, lambda current: current.with_strategy(body.pattern, body.strategy))


@router.post("/policy/cardinality", response_model=PolicyChangeOut, responses=ADMIN)
async def set_cardinality(body: CardinalityIn, who: Admin, svc: Svc) -> Any:
    return await _changed(svc, lambda current: current.with_cardinality(body.pattern, body.cardinality))


@router.put("/policy/high-stakes", response_model=PolicyChangeOut, responses=ADMIN)
async def set_high_stakes(body: HighStakesIn, who: Admin, svc: Svc) -> Any:
    """The entity patterns that never auto-resolve (their disputes need the user), replaced whole:
    `removed` names the patterns dropped (the defaults too). POST adds one pattern, DELETE removes one."""
    return await _changed(svc, lambda current: current.updated(high_stakes=tuple(body.patterns)))


@router.post("/policy/high-stakes", response_model=PolicyChangeOut, responses=ADMIN)
async def add_high_stakes(body: HighStakesPatternIn, who: Admin, svc: Svc) -> Any:
    """Add one high-stakes pattern, keeping the others (unchanged if it is one already)."""
    return await _changed(svc, lambda current: with_high_stakes(current, body.pattern))


@router.delete("/policy/high-stakes/{pattern}", response_model=PolicyChangeOut, responses=ADMIN)
async def remove_high_stakes(pattern: PatternPath, who: Admin, svc: Svc) -> Any:
    """Remove one high-stakes pattern, keeping the others; 422 InvalidPolicy, nothing changed, when
    the policy has no such pattern (naming the key when the pattern is an alias)."""
    return await _changed(svc, lambda current: without_high_stakes(current, pattern, svc.vault.registry))


@router.put("/policy/rules", response_model=PolicyChangeOut, responses=ADMIN)
async def set_rules(body: RulesIn, who: Admin, svc: Svc) -> Any:
    """The auto-resolve rules (reasserted_by, stale_after_s; null turns one off)."""
    rules = AutoResolveRules(body.reasserted_by, body.stale_after_s)
    return await _changed(svc, lambda current: current.updated(rules=rules))


@router.put("/registry/{key}", response_model=RegistryEntryOut, responses=ADMIN)
async def register(key: RegistryKey, body: RegistryEntryIn, who: Admin, svc: Svc) -> Any:
    """Add or replace an entity registry entry."""
    entry = RegistryEntry(key, body.description, body.cardinality, tuple(body.aliases), tuple(body.examples))
    await svc.run(svc.vault.register, entry)
    return encode(entry)


@router.post("/rules/apply", response_model=list[DisputeOut], responses=ADMIN)
async def apply_rules(who: Admin, svc: Svc) -> Any:
    """Run the time-based auto-resolve rule now; answers the disputes it closed."""
    return encode(await svc.run(svc.vault.apply_rules))


async def _changed(svc: Svc, change: Callable[[Policy], Policy], version: int | None = None) -> Any:
    """The policy `change` stored, with the settings it removed (`removed`)."""
    old, new = await svc.run(svc.vault.edit_policy, change, version=version)
    return {**encode(new), "removed": removed_settings(old, new)}
