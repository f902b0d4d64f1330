"""Retraction: a person takes a claim back ("this is not true"; `Vault.retract`, `Vault.forget`).

A retracted claim gets the status `retracted`: it leaves the live state and the vector
index, so `get`, `search` and `as_of` reads after the retraction no longer see it, while
the claims table keeps it (history, explain, export) and a `status_changed` event records
who retracted it, when and why (`decided_by`, `note`). Nothing else is lost or brought back:
a claim the retracted one had superseded stays superseded (retraction says the claim is not
true, not that the one before it is true again: write that again if it is), and no later
rule revives a retracted claim (the consensus tally and `restore_backers` count live and
outvoted claims only).

Open disputes the claim was in go on without it:

- a retracted challenger is replaced by its first remaining supporter; with none, the
  dispute closes for the incumbents (decided_by `rule:challenger_retracted`, as a
  withdrawn challenge closes with `rule:challenger_withdrawn`);
- a retracted supporter or incumbent leaves the dispute; when no incumbent is left, the
  active claims that contradict the challenger stand in its place, and with none the
  challenger wins (`rule:incumbent_retracted`); on a high-stakes entity the dispute stays
  open for the user instead.

Retracting a retracted claim changes nothing and answers the first retraction
(`Retraction.already`). A superseded claim can be retracted too (the consensus tally
counts claims it outvoted: a retracted one no longer counts); it keeps its `superseded_by`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ClaimNotFound, InvalidInput
from ..models import MAX_NOTE, Claim, Dispute, DisputeStatus, Resolution, Retraction, Status, from_epoch, utcnow
from ..policy import Policy
from ..reasoners.rules import contradicts, normalized_value
from ..texts import check_string, shown
from . import disputes
from .txn import Txn

if TYPE_CHECKING:
    from .partition import Partition
    from .partitions import PartitionSet

CHALLENGER_RETRACTED = "rule:challenger_retracted"
INCUMBENT_RETRACTED = "rule:incumbent_retracted"


def retract_claims(host: PartitionSet, entity: str, claim_ids: Sequence[str], *, decided_by: str, note: str,
                   policy: Policy, cardinality: str, now: datetime) -> list[Retraction]:
    """Retract `claim_ids` (all claims of `entity`) in one transaction of the entity's partition.
    Every id is looked up before anything changes: an unknown one is ClaimNotFound, nothing retracted."""
    part = host.owner(entity)
    if part is None:
        raise ClaimNotFound(claim_ids[0] if claim_ids else "")
    with part.lock:
        txn = part.begin(now)
        found = {cid: _lookup(txn, part, cid, entity) for cid in dict.fromkeys(claim_ids)}
        txn.cardinality[entity] = cardinality
        # parked claims first: a forgotten entity's disputes close for incumbents retracted next
        order = sorted(found, key=lambda cid: found[cid].status != Status.DISPUTED)
        done = {cid: _retract_one(txn, part, found[cid], decided_by, note, policy, cardinality) for cid in order}
        part.commit(txn)
    return [done[cid] for cid in found]


def _lookup(txn: Txn, part: Partition, cid: str, entity: str) -> Claim:
    claim = txn.claim(cid) if txn.known(cid) else part.find_claim(cid)
    if claim is None or claim.entity != entity:
        raise ClaimNotFound(cid)
    return claim


def _retract_one(txn: Txn, part: Partition, claim: Claim, decided_by: str, note: str, policy: Policy,
                 cardinality: str) -> Retraction:
    if claim.status == Status.RETRACTED:
        return _earlier(part, claim)
    if not txn.known(claim.id):
        txn.revive(claim.id)  # a superseded claim: into the transaction, so that its status can change
    member = [d for d in txn.open_disputes_on(claim.entity)
              if claim.id in (d.challenger, *d.incumbents, *d.supporters)]
    txn.set_status(claim.id, Status.RETRACTED, claim.superseded_by, agent=decided_by, decided_by=decided_by,
                   note=note, reason="retracted by a person",
                   previous_status=str(claim.status))
    for d in member:
        _leave(txn, d, claim.id, decided_by, policy, cardinality)
    return Retraction(txn.claim(claim.id), decided_by, note, txn.now, tuple(d.id for d in member))


def _earlier(part: Partition, claim: Claim) -> Retraction:
    """The retraction a retracted claim had: who, when, why (from its event)."""
    events = [e for e in part.log.events(claim_id=claim.id)
              if e.kind == "status_changed" and e.status == Status.RETRACTED]
    last = events[-1] if events else None
    detail = last.detail if last is not None else {}
    at = from_epoch(last.ts) if last is not None else claim.recorded_at
    return Retraction(claim, str(detail.get("decided_by") or (last.agent if last else "") or ""),
                      str(detail.get("note") or ""), at, already=True)


def _leave(txn: Txn, d: Dispute, cid: str, decided_by: str, policy: Policy, cardinality: str) -> None:
    """Dispute `d` goes on without claim `cid` (see the module docstring)."""
    live = [i for i in (d.challenger, *d.supporters) if i != cid and txn.known(i) and txn.claim(i).status.live]
    incumbents = tuple(i for i in d.incumbents if i != cid)
    why = f"claim {cid} was retracted by {decided_by}"
    if cid == d.challenger or cid in d.supporters:
        if live:  # still backed: the first remaining backer holds the challenge
            kept = replace(d, challenger=live[0], supporters=tuple(live[1:]), challenger_agent=txn.claim(live[0]).agent)
            txn.put_dispute(kept, "dispute_challenged", agent=decided_by, claim_id=cid, challenges=kept.challenges,
                            retracted=[cid], reason=why)
            return
        standing = next((i for i in incumbents if txn.known(i) and txn.claim(i).status == Status.ACTIVE), None)
        closed = replace(d, status=DisputeStatus.RESOLVED,
                         resolution=Resolution(standing, CHALLENGER_RETRACTED, why, txn.now))
        txn.put_dispute(closed, "dispute_resolved", agent=decided_by, claim_id=standing, decided_by=CHALLENGER_RETRACTED,
                        note=why, winner=standing, keep_both=False, retracted=[cid])
        return
    standing = tuple(i for i in incumbents if txn.known(i) and txn.claim(i).status == Status.ACTIVE)
    if not standing and txn.known(d.challenger):  # in the incumbents' place: what still contradicts the challenger
        value = normalized_value(txn.claim(d.challenger))
        standing = tuple(c.id for c in txn.live_on(d.entity)
                         if c.status == Status.ACTIVE and contradicts(normalized_value(c), value, cardinality))
    if standing or policy.is_high_stakes(d.entity) or not txn.known(d.challenger):
        txn.put_dispute(replace(d, incumbents=standing or incumbents), "dispute_challenged", agent=decided_by,
                        claim_id=cid, challenges=d.challenges, retracted=[cid], reason=why)
        return
    closed = disputes.resolve(txn, replace(d, incumbents=()), d.challenger, INCUMBENT_RETRACTED,
                              f"{why}; no other claim contradicts the challenger", keep_both=False, retracted=[cid])
    txn.disputes[d.id] = txn.dispute_rows[d.id] = replace(closed, incumbents=d.incumbents)  # the record names it still


class RetractStore(Protocol):
    """What `retract` and `forget` need of a backend (every backend has it)."""

    def claim(self, claim_id: str) -> Claim: ...
    def history(self, entity: str) -> list[Claim]: ...
    def retract(self, entity: str, claim_ids: Sequence[str], *, decided_by: str, note: str,
                now: datetime) -> list[Retraction]: ...
    def erase(self, entity: str, *, decided_by: str, note: str, now: datetime) -> list[Retraction]: ...


def check_retraction(decided_by: object, note: object) -> tuple[str, str]:
    """Who retracts (a name, never blank) and why: strings the log can keep, or InvalidInput."""
    if not isinstance(decided_by, str) or not any(ch.isprintable() and not ch.isspace() for ch in decided_by):
        raise InvalidInput(f"decided_by must name who retracts the claim, got {shown(decided_by)}")
    return check_string(decided_by, "decided_by", limit=128), check_string(note, "note", limit=MAX_NOTE, empty=True)  # type: ignore[return-value]


def retract(store: RetractStore, claim_id: object, decided_by: object, note: object) -> Retraction:
    """`Vault.retract`: checks every argument, finds the claim's entity, retracts it at its owner."""
    by, why = check_retraction(decided_by, note)
    claim = store.claim(check_string(claim_id, "claim_id", limit=128))  # type: ignore[arg-type]
    return store.retract(claim.entity, [claim.id], decided_by=by, note=why, now=utcnow())[0]


def forget(store: RetractStore, entity: str, decided_by: object, note: object) -> list[Retraction]:
    """`Vault.forget`: retract every live (active or disputed) claim of `entity` in one transaction."""
    by, why = check_retraction(decided_by, note)
    live = [c.id for c in store.history(entity) if c.status.live]
    return store.retract(entity, live, decided_by=by, note=why, now=utcnow()) if live else []


def erase(store: RetractStore, entity: str, decided_by: object, note: object) -> list[Retraction]:
    """`Vault.erase`: checks every argument, then erases at the entity's owner (engine/erase.py)."""
    by, why = check_retraction(decided_by, note)
    return store.erase(entity, decided_by=by, note=why, now=utcnow())


class Retractions:
    """`Vault.retract`, `Vault.forget` and `Vault.erase` (mixed into `Vault`)."""

    _backend: Any

    def _key(self, entity: str) -> str:
        ...  # Vault's: the entity key an alias or aligned label reads

    def retract(self, claim_id: str, *, decided_by: str, note: str = "") -> Retraction:
        """Take a claim back ("this is not true"). No read after this sees it (`get`, `search`, `get_many`,
        `as_of` later than now); `history`, `explain` and `events` keep it, status `retracted`, with who
        (`decided_by`), when and why (`note`). An open dispute it was in goes on without it (a dispute left
        with one side closes by a rule); what it had superseded stays superseded. Retracting it again
        answers the first retraction (`already=True`); an unknown id is ClaimNotFound."""
        return retract(self._backend, claim_id, decided_by, note)

    def forget(self, entity: str, *, decided_by: str, note: str = "") -> list[Retraction]:
        """Retract every live (active or disputed) claim of `entity` at once; [] when it has none."""
        return forget(self._backend, self._key(entity), decided_by, note)

    def erase(self, entity: str, *, decided_by: str, note: str = "") -> list[Retraction]:
        """Forget `entity` for good (a privacy request): every claim of it, whatever its status, is retracted
        and its content removed from the store: text, value, source message, meta and embedding, and the
        receipts, event details and disputes that could quote them (docs/design.md, "Erasure"). What stays is
        the provenance skeleton (ids, entity, agents, sessions, times, status `retracted`, supersedes links)
        with who erased it, when and why (`note`: keep content out of it). One Retraction per claim, its claim
        the skeleton (`text` "[erased]", `value` None); [] when the entity has no claims. Erasing again
        changes nothing (and finishes an erasure a crash cut short)."""
        return erase(self._backend, self._key(entity), decided_by, note)
