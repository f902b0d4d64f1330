"""A change of an entity's cardinality from `many` to `one` (a policy change, or a registry
entry) is refused while the entity holds active values that are at odds as one value
(`dog:Rex` and `cat:Tom` on `user.pets`): kept, it would leave two current values on a
`one` entity that nothing flags (DESIGN.md §7, invariant 1), and the next write would
supersede both by recency without asking anyone. The error names every such entity and
its values; retracting the values that no longer hold (or keeping the entity `many`)
lets the change through. Values that agree as one value (the same canonical value,
`Maria` / `Maria Gonzalez`) and events never block it. Both modes check it here, before
the change is stored (engine/control.py, `Vault.register`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import InvalidPolicy
from ..models import Claim, Kind, Status
from ..policy import Policy
from ..reasoners.rules import at_odds, normalized_value
from ..registry import EntityRegistry

MAX_LISTED = 10
"""Most entities an error names (it says how many more)."""


def cardinality_of(policy: Policy, registry: EntityRegistry, entity: str) -> str:
    return policy.cardinality_for(entity, registry.cardinality(entity))


def changed_keys(old: Policy, new: Policy, old_registry: EntityRegistry,
                 new_registry: EntityRegistry) -> set[str] | None:
    """The entity keys the change may make `one` (empty: none), or None when a pattern
    (`user.*`, `*`, a registry `prefix.*` entry) or the default cardinality may: any
    entity may be touched then."""
    if old.default_cardinality != new.default_cardinality and new.default_cardinality == "one":
        return None
    keys = {p for p in set(old.cardinality) | set(new.cardinality) if old.cardinality.get(p) != new.cardinality.get(p)
            and new.cardinality.get(p) != "many"}  # set to 'one', or removed (the default may be 'one')
    entries = set(old_registry.entries) | set(new_registry.entries)
    keys |= {k for k in entries if old_registry.cardinality(k) != new_registry.cardinality(k)
             and new_registry.cardinality(k) != "many"}
    return None if any("*" in k for k in keys) else keys


def live_entities(backend: Any) -> set[str]:
    """Every entity holding an active claim (a scan of the store: only a change of a pattern
    or of the default cardinality needs it)."""
    return {c.entity for c in backend.all_claims() if c.status == Status.ACTIVE}


def at_odds_values(entity: str, active: Iterable[Claim]) -> list[str]:
    """The values of the active facts of `entity` of which two are at odds as one value
    (empty when they all agree: corroboration), oldest first."""
    facts = sorted((c for c in active if c.kind != Kind.EPISODIC and c.status == Status.ACTIVE),
                   key=lambda c: (c.observed_at, c.recorded_at, c.id))
    values = list(dict.fromkeys(normalized_value(c) for c in facts))
    odd = {v for v in values for w in values if v != w and at_odds(entity, v, w, "one")}
    shown = {normalized_value(c): c.value or c.text for c in facts}
    return [shown[v] for v in values if v in odd]


def check_narrowing(backend: Any, old: tuple[Policy, EntityRegistry], new: tuple[Policy, EntityRegistry]) -> None:
    """InvalidPolicy, nothing changed, when the change from `old` to `new` (policy and
    registry) makes an entity `one` that holds active values at odds as one value."""
    (old_policy, old_registry), (new_policy, new_registry) = old, new
    keys = changed_keys(old_policy, new_policy, old_registry, new_registry)
    if keys is not None and not keys:
        return
    candidates = live_entities(backend) if keys is None else keys
    narrowed = sorted(e for e in candidates if cardinality_of(old_policy, old_registry, e) == "many"
                      and cardinality_of(new_policy, new_registry, e) == "one")
    if not narrowed:
        return
    views = backend.views(set(narrowed))
    found = {e: odd for e in narrowed if e in views and (odd := at_odds_values(e, views[e].active))}
    if found:
        raise InvalidPolicy(refusal(found), value=sorted(found), field="cardinality")


class ThroughVault:
    """A vault's public reads as `check_narrowing`'s backend (`vault-ray policy apply --dry-run`)."""

    def __init__(self, vault: Any) -> None:
        self.vault = vault

    def views(self, entities: Iterable[str]) -> Any:
        return self.vault.get_many(sorted(entities))

    def all_claims(self) -> list[Claim]:
        return self.vault.claims()  # type: ignore[no-any-return]


def refusal(found: dict[str, list[str]]) -> str:
    listed = "; ".join(f"{e} holds {', '.join(repr(v) for v in vals)}" for e, vals in list(found.items())[:MAX_LISTED])
    more = f" (and {len(found) - MAX_LISTED} more entities)" if len(found) > MAX_LISTED else ""
    one = len(found) == 1
    return (f"cardinality 'one' would leave several current values at odds on "
            f"{'an entity that is' if one else f'{len(found)} entities that are'} 'many' now: {listed}{more}. "
            "Nothing was changed. Retract the claims of the values that no longer hold (vault.retract(claim_id), "
            "`vault-ray retract`, POST /v1/claims/{id}/retract) and change it again, or keep "
            f"{'it' if one else 'them'} 'many'")
