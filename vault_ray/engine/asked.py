"""While a person has been asked: no rule changes the value under them.

A dispute that waits for a person (`needs_user`: it challenges a value a person chose, or says
one a person rejected; or any dispute on a high-stakes entity) asks a person about an item of its
entity: on a `one` entity the entity's value, on a `many` entity the item its values are about
(`rules.same_item`: `wife:anna` / `husband:tom`, `2 cats` / `3 cats`). Until a person decides,
nothing but a person changes what the entity says about that item (docs/policies.md, "While a
person has been asked"):

- a write about the item that its strategy would let win (recency, authority, a consensus count,
  the judge) or would dispute opens a dispute that waits for a person too (`wait`); a write its
  strategy lets lose is stored superseded as before (it changes nothing);
- every other open dispute about the item waits for a person from then on (`flag`, a
  `dispute_changed` event), so that no rule settles it: not `rule:incumbent_retracted` when a
  person retracts what stands, not a consensus count, `reasserted_by`, `rule:stale` or
  `rule:incumbents_withdrawn` (disputes.py and retract.py skip disputes that wait for a person);
- when a retraction leaves such disputes waiting with no standing value, they ask one question: the
  later one's values are held in the first and it closes for no value (`fold`, `rule:joined`).

An agent revising its own claim (pass 1) is not a rule and goes on as before; so does a write about
another item of a `many` entity, and a write that agrees with what stands (support).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..models import Claim, Dispute, DisputeStatus, Kind, Resolution, Status
from ..policy import Policy
from ..reasoners.rules import agrees, normalized_value, same_item
from ..strategies import Action, Verdict
from .disputes import held_open, waits_for_person
from .txn import Txn, WriteItem

CHANGED = "dispute_changed"
JOINED = "rule:joined"
"""Who closes a dispute whose values went to wait in another one about the same item (`fold`)."""


def values_of(txn: Txn, d: Dispute) -> list[str]:
    """The values of `d`'s members that the partition still holds (challenger, incumbents, supporters)."""
    return [normalized_value(txn.claim(i)) for i in (d.challenger, *d.incumbents, *d.supporters) if txn.known(i)]


def _about(txn: Txn, d: Dispute, values: Sequence[str]) -> bool:
    """Whether `d` is about the item of any of `values`: any, on a `one` entity (one item)."""
    if txn.cardinality.get(d.entity, "one") != "many":
        return True
    return any(same_item(v, m) for m in values_of(txn, d) for v in values)


def asking(txn: Txn, entity: str, values: Sequence[str], policy: Policy, but: str | None = None) -> Dispute | None:
    """The first open dispute on `entity` (other than `but`) that waits for a person about the item
    of any of `values`; None when a person has been asked about none of them."""
    return next((d for d in txn.open_disputes_on(entity)
                 if d.id != but and waits_for_person(d, policy) and _about(txn, d, values)), None)


def wait(verdict: Verdict, incoming: Claim, conflicting: Sequence[Claim], txn: Txn, policy: Policy) -> Verdict:
    """`verdict` for `incoming` (against the active claims `conflicting`), unless a person has been
    asked about its item: then a verdict that would supersede what stands, or open a dispute no
    person is asked for, becomes a dispute that waits for a person too. A losing verdict stands."""
    if verdict.action not in (Action.WIN, Action.DISPUTE) or verdict.needs_user or not conflicting:
        return verdict
    asked = asking(txn, incoming.entity, [normalized_value(c) for c in (incoming, *conflicting)], policy)
    if asked is None:
        return verdict
    reason = (f"a person has been asked about {incoming.entity} (dispute {asked.id}): no rule changes its value "
              f"meanwhile, this challenge waits for a person too ({verdict.strategy}: {verdict.reason})")
    return replace(verdict, action=Action.DISPUTE, reason=reason, needs_user=True, winner=None)


def flag(txn: Txn, entity: str, policy: Policy | None, agent: str | None) -> None:
    """Every open dispute on `entity` about an item a dispute that waits for a person asks about
    waits for a person too (`needs_user`, a `dispute_changed` event naming that dispute). `agent`:
    who made the change that calls for it (the event's agent). Without `policy` (a person's
    resolution), the disputes flagged `needs_user` are those that wait (on a high-stakes entity,
    every dispute is)."""
    open_ = txn.open_disputes_on(entity)
    asked = [d for d in open_ if d.needs_user or (policy is not None and waits_for_person(d, policy))]
    if not asked or len(asked) == len(open_):
        return  # (most writes: no open dispute, or none waits for a person)
    changed = True
    while changed:  # one flagged may ask about another item of the entity in turn
        changed = False
        for d in open_:
            if any(a.id == d.id for a in asked):
                continue
            by = next((a for a in asked if _about(txn, a, values_of(txn, d))), None)
            if by is None:
                continue
            d = replace(d, needs_user=True)  # noqa: PLW2901 - the dispute as flagged
            txn.put_dispute(d, CHANGED, agent=agent, claim_id=d.challenger, challenges=d.challenges,
                            reason=f"a person has been asked about this item in {by.id}: a person decides")
            asked.append(d)
            changed = True


def flag_for(txn: Txn, item: WriteItem, policy: Policy) -> None:
    """`flag` around one write of the partition (`Partition.decide`), with the entity's cardinality
    as the write gives it; an event (episodic) is in no dispute and flags nothing."""
    if item.kind != Kind.EPISODIC:
        txn.cardinality[item.entity] = item.cardinality
        flag(txn, item.entity, policy, item.agent)


def fold(txn: Txn, d: Dispute, policy: Policy, by: str, why: str, detail: dict[str, Any]) -> bool:
    """`d` waits for a person with no standing value and holds none (a retraction took its last
    incumbent). When another open dispute about its item already waits so, a person is asked one
    question, not two: `d`'s values join that dispute (backing its pending value when they say it,
    `rules.agrees`, else held there as the other side, `disputed`) and `d` closes with no winner
    (`JOINED`, its note naming the dispute its values wait in). False when there is none."""
    card = txn.cardinality.get(d.entity, "one")
    mine = [i for i in (d.challenger, *d.supporters) if txn.known(i) and txn.claim(i).status == Status.DISPUTED]
    values = [normalized_value(txn.claim(i)) for i in mine]
    into = next((o for o in txn.open_disputes_on(d.entity) if o.id != d.id and txn.known(o.challenger)
                 and held_open(txn, o, policy) and _about(txn, o, values)), None) if mine else None
    if into is None:
        return False
    pending = normalized_value(txn.claim(into.challenger))
    same = tuple(i for i, v in zip(mine, values, strict=True) if agrees(d.entity, v, pending, card))
    joined = replace(into, supporters=(*into.supporters, *same), challenges=into.challenges + d.challenges,
                     incumbents=(*into.incumbents, *(i for i in mine if i not in same)))
    txn.put_dispute(joined, CHANGED, agent=by, claim_id=mine[0], challenges=joined.challenges, joined=mine,
                    reason=f"{why}; the values of {d.id} wait for a person here")
    note = f"{why}; its values wait for a person in {into.id}"
    closed = replace(d, status=DisputeStatus.RESOLVED, resolution=Resolution(None, JOINED, note, txn.now))
    txn.put_dispute(closed, "dispute_resolved", agent=JOINED, claim_id=None, decided_by=JOINED, note=note,
                    winner=None, keep_both=False, **detail)
    return True
