"""Writes on an entity whose dispute waits for a person with no standing incumbent.

A dispute that only a person settles (high stakes, or `needs_user`: opened against a value
a person chose) stays open when its incumbents are retracted (retract.py): the retraction
said "not that value", not "the challenger's". Until a person decides, the entity has no
current value, only the pending one. A later agent write must not take that place by
default, nor close the dispute by a rule:

- the challenger's value again, in its words or others that say the same (`rules.agrees`:
  "spouse:tom" for "husband:tom", "maria gonzalez" for "maria"), is support, counted as a
  repeated challenge (`count_challenge`; no rule settles a dispute that waits for a person);
- another value that contradicts it is held in the dispute: stored `disputed`, named among
  its incumbents (the other side), published as `dispute_changed` (detail `joined`). A person
  resolves for one of the values; `get` lists every held value as a candidate.

An agent that says something else takes back what it holds there itself (its parked claims
observed no later than the new one, as `disputes.withdraw_challenge` does elsewhere); when the
challenge loses its last backer that way, the first held value takes it (`promote_held`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..models import Claim, Decision, Dispute, Op, Outcome, Status
from ..policy import Policy
from ..reasoners.rules import agrees, contradicts, normalized_value
from . import disputes, outlived
from .txn import Txn

HELD = "held for a person's decision: a dispute on this entity waits for one, with no standing value"


def hold(txn: Txn, incoming: Claim, op: Op, targets: list[Claim], policy: Policy,
         base: dict[str, Any]) -> Decision | None:
    """The decision for `incoming` (no active claim of another agent contradicts it) when an open
    dispute on its entity waits for a person with no standing incumbent and `incoming`'s value
    says the pending one (`agrees`: in other words too) or contradicts it; None otherwise (the
    write goes on as usual)."""
    card = txn.cardinality.get(incoming.entity, "one")
    value = normalized_value(incoming)
    for d in txn.open_disputes_on(incoming.entity):
        if not txn.known(d.challenger) or not disputes.held_open(txn, d, policy):
            continue
        pending = normalized_value(txn.claim(d.challenger))
        same = agrees(incoming.entity, value, pending, card)
        if not same and not contradicts(value, pending, card):
            continue
        mine = _own_parked(txn, d, incoming, card)
        if same and not mine:
            return disputes.count_challenge(txn, incoming, d, op, targets, policy, base)
        return _join(txn, incoming, d, op, targets, mine, base)
    return None


def _own_parked(txn: Txn, d: Dispute, incoming: Claim, card: str) -> list[str]:
    """The claims `incoming`'s agent holds in `d` (parked, `disputed`) that its new value takes back
    (on a 'many' entity, those about the same item only: `disputes.takes_back`)."""
    value = normalized_value(incoming)
    return [i for i in (d.challenger, *d.supporters, *d.incumbents) if txn.known(i)
            and (c := txn.claim(i)).agent == incoming.agent and c.status == Status.DISPUTED
            and c.observed_at <= incoming.observed_at and normalized_value(c) != value
            and (card == "one" or disputes.takes_back(value, normalized_value(c), card))]


def _join(txn: Txn, incoming: Claim, d: Dispute, op: Op, targets: list[Claim], mine: list[str],
          base: dict[str, Any]) -> Decision:
    """`incoming` joins `d` as a held value (or as support of the pending one, after its agent
    took back what it held there), `disputed`; its agent's parked claims `mine` are withdrawn."""
    txn.add(replace(incoming, status=Status.DISPUTED, supersedes=tuple(t.id for t in targets)), op=str(op),
            dispute=d.id, reason=HELD)
    disputes.supersede(txn, targets, incoming, reason=f"{op}: retracted by its agent")
    for cid in mine:
        txn.set_status(cid, Status.SUPERSEDED, incoming.id, agent=incoming.agent, dispute=d.id,
                       reason="withdrawn by its agent: it said something else since")
    out = set(mine)
    backers = [i for i in (d.challenger, *d.supporters) if i not in out]
    incumbents = [i for i in d.incumbents if i not in out]
    card = txn.cardinality.get(incoming.entity, "one")
    if agrees(incoming.entity, normalized_value(incoming), normalized_value(txn.claim(d.challenger)), card):
        backers.append(incoming.id)
    else:
        incumbents.append(incoming.id)
    d = replace(d, challenges=d.challenges + 1)  # a value joined: one more challenge, as a repeat counts
    changed: Dispute | None = replace(d, incumbents=tuple(incumbents), supporters=tuple(backers[1:]))
    if backers:
        changed = replace(changed, challenger=backers[0], challenger_agent=txn.claim(backers[0]).agent)
    else:  # its agent took back the challenge: the first held value holds it
        changed = disputes.promote_held(txn, replace(d, incumbents=tuple(incumbents)))
    assert changed is not None  # `incoming` itself is held
    detail = {"withdrawn": mine} if mine else {}
    txn.put_dispute(changed, "dispute_changed", agent=incoming.agent, claim_id=incoming.id,
                    challenges=changed.challenges, joined=[incoming.id], reason=HELD, **detail)
    return Decision(op=op, outcome=Outcome.DISPUTED, claim_id=incoming.id, dispute_id=d.id,
                    superseded=(*(t.id for t in targets), *mine), reason=HELD, **base)


def after_decision(txn: Txn, resolved: Dispute) -> None:
    """A person's decision (`resolve_dispute`, one winner). Another open dispute on the entity that
    stands against the chosen value (an incumbent says it) is now a challenge to a person's
    decision: it waits for a person (`needs_user`), as one opened after the decision does
    (decided.guard). On a 'one' entity, an open dispute that waited with no standing value now
    stands against that value: named as its incumbent, the dispute goes on for a person to decide.
    When it held nothing but the chosen value (its challenger says it, no other value held), the
    person's choice settles it too, as `decided_by` with a note naming the first dispute."""
    res = resolved.resolution
    if res is None or res.keep_both or res.winner is None:
        return
    _flag_against(txn, resolved, normalized_value(txn.claim(res.winner)))
    if txn.cardinality.get(resolved.entity, "one") != "one":
        return
    active = [c for c in txn.live_on(resolved.entity) if c.status == Status.ACTIVE]
    if not active:
        return
    chosen = normalized_value(active[0])
    for d in txn.open_disputes_on(resolved.entity):
        if d.id == resolved.id or not txn.known(d.challenger) or any(
                txn.known(i) and txn.claim(i).status == Status.ACTIVE for i in d.incumbents):
            continue
        held = [i for i in d.incumbents if txn.known(i) and txn.claim(i).status == Status.DISPUTED]
        if normalized_value(txn.claim(d.challenger)) == chosen and all(
                normalized_value(txn.claim(i)) == chosen for i in held):
            disputes.resolve(txn, d, d.challenger, res.decided_by, f"the value chosen in {resolved.id}",
                             keep_both=False)
            continue
        # the stored row keeps every id it named (explain lists it for them; `pick_winner` answers a
        # superseded one with the values that can win); reads show the claims that stand (`views.as_live`)
        kept = [i for i in d.incumbents if i in held or any(c.status == Status.SUPERSEDED for c in outlived.chain(txn, i)[:1])]
        why = (f"{active[0].value or active[0].text!r} was chosen by {res.decided_by} (dispute {resolved.id}): "
               "this challenge stands against a person's decision and waits for a person")
        changed = replace(d, incumbents=tuple(dict.fromkeys((*kept, *(c.id for c in active)))), needs_user=True,
                          reason=why)
        txn.put_dispute(changed, "dispute_changed", agent=res.decided_by, claim_id=active[0].id,
                        challenges=changed.challenges, joined=[c.id for c in active], reason=why)


def _flag_against(txn: Txn, resolved: Dispute, chosen: str) -> None:
    """The open disputes on `resolved`'s entity with an active incumbent saying the value a person
    just chose (`chosen`) wait for a person from now on (`needs_user`, a `dispute_changed` event)."""
    res = resolved.resolution
    assert res is not None
    for d in txn.open_disputes_on(resolved.entity):
        if d.id == resolved.id or d.needs_user:
            continue
        standing = [i for i in d.incumbents if txn.known(i) and (c := txn.claim(i)).status == Status.ACTIVE
                    and normalized_value(c) == chosen]
        if standing:
            changed = replace(d, needs_user=True)
            txn.put_dispute(changed, "dispute_changed", agent=res.decided_by, claim_id=standing[0],
                            challenges=changed.challenges,
                            reason=f"stands against the value a person chose in {resolved.id}: a person decides")
