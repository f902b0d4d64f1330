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
  dispute closes for the incumbents still standing, or for none (decided_by
  `rule:challenger_retracted`, as a withdrawn challenge closes with
  `rule:challenger_withdrawn`);
- a retracted supporter or incumbent leaves the dispute; when no incumbent is left, the
  active claims that contradict the challenger stand in its place, and with none the
  challenger wins (`rule:incumbent_retracted`; the closed dispute, row and record alike,
  still names the retracted incumbent); a dispute that waits for a person (high stakes, or
  `needs_user`: one that challenges a value a person chose) stays open instead, and later agent
  values are held in it until a person decides (waiting.py); a retracted challenger of such a
  dispute hands the challenge to the first value held in it. When another dispute about the same
  item already waits so, its values join that one instead and it closes for no value
  (`rule:joined`, asked.py): one question for the person, not two.

A dispute a rule closes is decided by the rule (decided_by and the event's agent); the
person is `retracted_by` in the detail. One that goes on open gets a `dispute_changed`
event (not `dispute_challenged`: nobody challenged). Several claims retracted at once
(`forget`) are all retracted before the disputes go on without them.

Retracting a retracted claim changes nothing and answers the first retraction
(`Retraction.already`, with the disputes it left). A superseded claim can be retracted too (the consensus tally
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
from ..texts import check_not_reserved, check_string, shown
from . import asked, decided, disputes, outlived, sides
from .disputes import waits_for_person
from .suggest import refuse_unknown
from .txn import Txn

if TYPE_CHECKING:
    from .partition import Partition
    from .partitions import PartitionSet

CHALLENGER_RETRACTED = "rule:challenger_retracted"
INCUMBENT_RETRACTED = "rule:incumbent_retracted"
DISPUTE_CHANGED = "dispute_changed"
"""The event of a dispute that goes on without a retracted member (not a challenge: docs/inbox.md)."""


def retract_claims(host: PartitionSet, entity: str, claim_ids: Sequence[str], *, decided_by: str, note: str,
                   policy: Policy, cardinality: str, now: datetime) -> list[Retraction]:
    """Retract `claim_ids` (all claims of `entity`) in one transaction of the entity's partition.
    Every id is looked up before anything changes: an unknown one is ClaimNotFound, nothing retracted.
    The claims are all retracted first, then each open dispute they were in goes on without all of
    them at once: `forget` ends as retracting them one at a time would, never naming a claim it
    retracts as a dispute's winner."""
    part = host.owner(entity)
    if part is None:
        raise ClaimNotFound(claim_ids[0] if claim_ids else "")
    with part.lock:
        txn = part.begin(now)
        found = {cid: _lookup(txn, part, cid, entity) for cid in dict.fromkeys(claim_ids)}
        txn.cardinality[entity] = cardinality
        done = retract_in(txn, part, entity, found, decided_by=decided_by, note=note, policy=policy,
                          cardinality=cardinality)
        part.commit(txn)
        return done


def retract_in(txn: Txn, part: Partition, entity: str, found: dict[str, Claim], *, decided_by: str, note: str,
               policy: Policy, cardinality: str) -> list[Retraction]:
    """Retract the claims `found` (of `entity`, by id, looked up already) in `txn`, uncommitted: all
    of them first, then each open dispute they were in goes on without them at once. One
    Retraction per claim, in the order of `found` (`already` for one retracted before)."""
    going = [cid for cid, c in found.items() if c.status != Status.RETRACTED]
    open_now = txn.open_disputes_on(entity)
    member = {cid: tuple(d.id for d in open_now if cid in (d.challenger, *d.incumbents, *d.supporters))
              for cid in going}
    for cid in going:
        _retract_one(txn, found[cid], decided_by, note, member[cid])
    gone = set(going)
    asked.flag(txn, entity, policy, decided_by)  # (a store written before every such dispute was flagged)
    for d in open_now:
        d = txn.disputes.get(d.id, d)  # noqa: PLW2901 - as an earlier one of this loop left it
        left = [i for i in (d.challenger, *d.incumbents, *d.supporters) if i in gone]
        stale = _replaced_by(txn, part, d, gone)  # incumbents whose place a retracted claim took
        if (left or stale) and d.status == DisputeStatus.OPEN:
            _leave(txn, d, left + [g for g in stale.values() if g not in left], decided_by, policy, cardinality,
                   stale=tuple(stale))
    asked.flag(txn, entity, policy, decided_by)  # one that waits for a person now asks about the others' item
    for d in txn.open_disputes_on(entity) if going else ():  # a vote its tally counted, no member of it
        if (now := sides.restated(txn, d, d, policy)) is not d:
            txn.put_dispute(now, DISPUTE_CHANGED, agent=decided_by, claim_id=going[0], challenges=d.challenges,
                            reason=f"its sides changed: {', '.join(going)} retracted by {decided_by}",
                            retracted=going, retracted_by=decided_by)
    return [Retraction(txn.claim(cid), decided_by, note, txn.now, member[cid]) if cid in member
            else _earlier(part, found[cid]) for cid in found]


def _lookup(txn: Txn, part: Partition, cid: str, entity: str) -> Claim:
    claim = txn.claim(cid) if txn.known(cid) else part.find_claim(cid)
    if claim is None or claim.entity != entity:
        raise ClaimNotFound(cid)
    return claim


def _retract_one(txn: Txn, claim: Claim, decided_by: str, note: str, member: tuple[str, ...]) -> None:
    if not txn.known(claim.id):
        txn.revive(claim.id)  # a superseded claim: into the transaction, so that its status can change
    # the disputes it leaves are on the event: a repeated retraction answers with them (`_earlier`)
    txn.set_status(claim.id, Status.RETRACTED, claim.superseded_by, agent=decided_by, decided_by=decided_by,
                   note=note, reason="retracted by a person", previous_status=str(claim.status),
                   disputes=list(member))


def _earlier(part: Partition, claim: Claim) -> Retraction:
    """The retraction a retracted claim had: who, when, why and the disputes it left (from its event)."""
    events = [e for e in part.log.events(claim_id=claim.id)
              if e.kind in ("status_changed", "claim_added") and e.status == Status.RETRACTED]
    last = events[-1] if events else None
    detail = last.detail if last is not None else {}
    at = from_epoch(last.ts) if last is not None else claim.recorded_at
    left = detail.get("disputes")
    if left is None:  # recorded before retraction events named them: the dispute events that did
        left = [e.dispute_id for e in part.log.events(entity=claim.entity)
                if e.dispute_id and claim.id in (e.detail.get("retracted") or ())]
    return Retraction(claim, str(detail.get("decided_by") or (last.agent if last else "") or ""),
                      str(detail.get("note") or ""), at, tuple(dict.fromkeys(left)), already=True)


def _replaced_by(txn: Txn, part: Partition, d: Dispute, gone: set[str]) -> dict[str, str]:
    """`d`'s superseded incumbents whose place (`superseded_by`, followed) a claim of `gone` took,
    each with that claim: the dispute goes on without them as without the claim in their place."""
    out = {}
    for cid in d.incumbents:
        hops: str | None = cid
        for _ in range(32):
            claim = txn.claim(hops) if txn.known(hops) else part.find_claim(hops)
            hops = claim.superseded_by if claim is not None and claim.status == Status.SUPERSEDED else None
            if hops is None or hops in gone:
                break
        if hops is not None and hops != cid and hops in gone:
            out[cid] = hops
    return out


def _leave(txn: Txn, d: Dispute, gone: list[str], decided_by: str, policy: Policy, cardinality: str,
           stale: tuple[str, ...] = ()) -> None:
    """Dispute `d` goes on without the claims `gone` (see the module docstring), and without the
    superseded incumbents `stale` whose place one of them took. Who decides a resolution this
    causes is the rule (`decided_by`, the event's agent); the person who retracted is
    `retracted_by` in the event's detail and named in the resolution's note. A dispute that goes on
    states its reason about the sides as they stand now (sides.py)."""
    first = d
    if not d.needs_user and (decided.against_person(txn, d)  # opened before such disputes were flagged
                             or asked.asking(txn, d.entity, asked.values_of(txn, d), policy, but=d.id)):
        d = replace(d, needs_user=True)  # (or a person has been asked about its item in another dispute)
    out = set(gone) | set(stale)
    named = ", ".join(gone)
    why = f"claim{'s' if len(gone) > 1 else ''} {named} retracted by {decided_by}"
    changed = {"retracted": list(gone), "retracted_by": decided_by}
    backers = [i for i in (d.challenger, *d.supporters) if i not in out and txn.known(i) and txn.claim(i).status.live]
    incumbents = tuple(i for i in d.incumbents if i not in out)
    standing = tuple(i for i in incumbents if txn.known(i) and txn.claim(i).status == Status.ACTIVE)
    held = disputes.promote_held(txn, replace(d, incumbents=incumbents)) if waits_for_person(d, policy) else None
    if not backers and held is not None:  # values held for a person's decision: the first holds the challenge
        txn.put_dispute(sides.restated(txn, first, held, policy), DISPUTE_CHANGED, agent=decided_by, claim_id=gone[0],
                        challenges=d.challenges,
                        reason=why, **changed)
        return
    if not backers:  # nothing challenges any more: closed for what still stands of the incumbents (or none)
        winner = standing[0] if standing else None
        closed = replace(d, status=DisputeStatus.RESOLVED,
                         resolution=Resolution(winner, CHALLENGER_RETRACTED, why, txn.now))
        txn.put_dispute(closed, "dispute_resolved", agent=CHALLENGER_RETRACTED, claim_id=winner,
                        decided_by=CHALLENGER_RETRACTED, note=why, winner=winner, keep_both=False, **changed)
        return
    if backers[0] != d.challenger:  # still backed: the first remaining backer holds the challenge
        d = replace(d, challenger=backers[0], challenger_agent=txn.claim(backers[0]).agent)
    d = replace(d, supporters=tuple(backers[1:]))
    if incumbents != d.incumbents and not standing:  # in the incumbents' place: what still contradicts it
        value = normalized_value(txn.claim(d.challenger))
        standing = tuple(c.id for c in txn.live_on(d.entity)
                         if c.status == Status.ACTIVE and contradicts(normalized_value(c), value, cardinality))
    if decided.says_rejected(txn, txn.claim(d.challenger)):  # a value a person rejected: a person installs it or not
        d = replace(d, needs_user=True)
    if incumbents == d.incumbents or standing or waits_for_person(d, policy):
        # only backers left, something still contradicts the challenger, or a person decides
        kept = d.incumbents if incumbents == d.incumbents else standing or tuple(  # (no superseded one whose
            i for i in incumbents if txn.known(i) and txn.claim(i).status.live)  # successor is parked elsewhere)
        if not kept and waits_for_person(d, policy) and asked.fold(txn, d, policy, decided_by, why, changed):
            return  # another dispute about its item waits with no standing value: one question, not two
        if kept != d.incumbents:  # its reason no longer describes a claim that is gone (QA8 F4)
            d = replace(d, reason=outlived.since(d, f"{why}; it stands against " + (", ".join(
                f"{c.value or c.text!r} ({c.agent})" for c in (txn.claim(i) for i in kept if txn.known(i))) or "none")))
        txn.put_dispute(sides.restated(txn, first, replace(d, incumbents=kept), policy), DISPUTE_CHANGED,
                        agent=decided_by, claim_id=gone[0],
                        challenges=d.challenges, reason=why, **changed)
        return
    # the closed dispute (its row and its event's record alike) still names the retracted incumbents
    disputes.resolve(txn, d, d.challenger, INCUMBENT_RETRACTED, f"{why}; no other claim contradicts the challenger",
                     keep_both=False, **changed)


class RetractStore(Protocol):
    """What `retract` and `forget` need of a backend (every backend has it)."""

    def claim(self, claim_id: str) -> Claim: ...
    def history(self, entity: str) -> list[Claim]: ...
    def retract(self, entity: str, claim_ids: Sequence[str], *, decided_by: str, note: str,
                now: datetime) -> list[Retraction]: ...
    def erase(self, entity: str, *, decided_by: str, note: str, now: datetime) -> list[Retraction]: ...
    def refuse_while_restoring(self, action: str = ...) -> None: ...


def check_retraction(decided_by: object, note: object) -> tuple[str, str]:
    """Who retracts (a name, never blank) and why: strings the log can keep, or InvalidInput."""
    if not isinstance(decided_by, str) or not any(ch.isprintable() and not ch.isspace() for ch in decided_by):
        raise InvalidInput(f"decided_by must name who retracts the claim, got {shown(decided_by)}")
    who = check_not_reserved(check_string(decided_by, "decided_by", limit=128), "decided_by")  # type: ignore[arg-type]
    return who, check_string(note, "note", limit=MAX_NOTE, empty=True)  # type: ignore[return-value]


def retract(store: RetractStore, claim_id: object, decided_by: object, note: object) -> Retraction:
    """`Vault.retract`: checks every argument, finds the claim's entity, retracts it at its owner."""
    by, why = check_retraction(decided_by, note)
    store.refuse_while_restoring()  # before a claim of a partition not restored yet is called unknown
    claim = store.claim(check_string(claim_id, "claim_id", limit=128))  # type: ignore[arg-type]
    return store.retract(claim.entity, [claim.id], decided_by=by, note=why, now=utcnow())[0]


def forget(store: RetractStore, entity: str, decided_by: object, note: object, asked: str | None = None) -> list[Retraction]:
    """`Vault.forget`: retract every live (active or disputed) claim of `entity` in one transaction. `asked`:
    the label the caller named (`entity` is the key it reads): one no claim was ever made on, but like stored
    keys, is EntityNotFound naming them (a typo?)."""
    by, why = check_retraction(decided_by, note)
    store.refuse_while_restoring()  # not [] for an entity of a partition not restored yet
    claims = store.history(entity)
    if not claims:
        refuse_unknown(store, asked or entity, entity, "forget")
    live = [c.id for c in claims if c.status.live]
    return store.retract(entity, live, decided_by=by, note=why, now=utcnow()) if live else []


def erase(store: RetractStore, entity: str, decided_by: object, note: object, asked: str | None = None) -> list[Retraction]:
    """`Vault.erase`: checks every argument (and `asked`, as `forget`), then erases at the entity's owner
    (engine/erase.py)."""
    by, why = check_retraction(decided_by, note)
    store.refuse_while_restoring()
    refuse_unknown(store, asked or entity, entity, "erase")
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
        with one side closes by a rule, unless it waits for a person); what it had superseded stays
        superseded. Retracting it again answers the first retraction (`already=True`, with the disputes
        it left); an unknown id is ClaimNotFound."""
        return retract(self._backend, claim_id, decided_by, note)

    def forget(self, entity: str, *, decided_by: str, note: str = "") -> list[Retraction]:
        """Retract every live (active or disputed) claim of `entity` at once; [] when it has none. A key no claim
        was ever made on is EntityNotFound when stored keys are like it (a typo? it names them), else []."""
        return forget(self._backend, self._key(entity), decided_by, note, asked=entity)

    def erase(self, entity: str, *, decided_by: str, note: str = "") -> list[Retraction]:
        """Forget `entity` for good (a privacy request): every claim of it, whatever its status, is retracted
        and its content removed from the store: text, value, source message, meta and embedding, and the
        receipts, event details and disputes that could quote them (docs/design.md, "Erasure"). What stays is
        the provenance skeleton (ids, entity, agents, sessions, times, status `retracted`, supersedes links)
        with who erased it, when and why (`note`: keep content out of it). One Retraction per claim, its claim
        the skeleton (`text` "[erased]", `value` None); [] when the entity has no claims (EntityNotFound, nothing
        changed, when stored keys are like it: a typo? it names them). Erasing again changes nothing (and finishes
        an erasure a crash cut short)."""
        return erase(self._backend, self._key(entity), decided_by, note, asked=entity)
