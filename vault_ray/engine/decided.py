"""What a person decided: the claims that won a dispute a person resolved (`decided_by`
is not a rule's or a strategy's name). An agent's write does not overturn such a claim
by policy: a contradiction of it opens a dispute that waits for a person (docs/policies.md,
"A person's decision sticks"). The same value from an agent is support, not a conflict.

The partition reads its resolved disputes from the log once, on the first contradiction
that would overturn a claim (most partitions never need it), then notes each resolution
it commits."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from ..models import Claim, Dispute, DisputeStatus
from ..reasoners.rules import agrees, normalized_value
from ..strategies import Action, Verdict
from .txn import Txn

MACHINE = ("rule:", "strategy:")
"""The prefixes of `decided_by` for resolutions no person made."""


def by_person(d: Dispute) -> bool:
    r = d.resolution
    return (d.status == DisputeStatus.RESOLVED and r is not None and r.winner is not None
            and not r.decided_by.startswith(MACHINE))


class Decided:
    """entity -> {claim id: (decided_by, dispute id)} of the claims a person chose."""

    def __init__(self, read: Callable[[], Iterable[Dispute]]) -> None:
        self._read = read
        self._by_entity: dict[str, dict[str, tuple[str, str]]] | None = None
        self._resolved: dict[str, list[Dispute]] = {}

    def disputes_on(self, entity: str) -> list[Dispute]:
        """The disputes on `entity` a person resolved for a winner (committed)."""
        self.on(entity)
        return self._resolved.get(entity, [])

    def on(self, entity: str) -> dict[str, tuple[str, str]]:
        if self._by_entity is None:
            self._by_entity = {}
            self.note(self._read())
        return self._by_entity.get(entity, {})

    def note(self, disputes: Iterable[Dispute]) -> None:
        """Resolutions just committed (before the first read, the log holds them by then)."""
        if self._by_entity is None:
            return
        for d in disputes:
            if by_person(d):
                assert d.resolution is not None and d.resolution.winner is not None
                self._by_entity.setdefault(d.entity, {})[d.resolution.winner] = (d.resolution.decided_by, d.id)
                self._resolved.setdefault(d.entity, []).append(d)


def person_decided(txn: Txn, entity: str) -> dict[str, tuple[str, str]]:
    """The claims a person chose on `entity`, with those resolved in the txn not yet committed."""
    found = dict(txn.decided_on(entity))
    for d in txn.disputes.values():
        if d.entity == entity and by_person(d):
            found[d.resolution.winner] = (d.resolution.decided_by, d.id)  # type: ignore[union-attr]
    return found


def rejected(txn: Txn, entity: str) -> list[str]:
    """The values a person rejected on `entity`: in every dispute a person resolved there for a
    winner, the values of its members (challenger, incumbents, supporters) that do not say the
    winner's value (`rules.agrees`). Decisions count in the order they were made: a later decision
    choosing a value rejected before takes it back; a later decision that does not mention a
    rejected value leaves it rejected (choosing PST over CST does not bring back the EST a person
    turned down before)."""
    found = {d.id: d for d in txn.decided_disputes(entity)}
    found.update({d.id: d for d in txn.disputes.values() if d.entity == entity and by_person(d)})
    if not found:
        return []
    decisions = sorted(found.values(), key=lambda d: (d.resolution.at, d.id))  # type: ignore[union-attr]
    ids = list(dict.fromkeys(i for d in decisions for i in (d.challenger, *d.incumbents, *d.supporters)))
    missing = [i for i in ids if not txn.known(i)]
    stored = txn.stored(missing) if missing else {}
    claims = {i: txn.claim(i) if txn.known(i) else stored[i][0] for i in ids if txn.known(i) or i in stored}
    card, out = txn.cardinality.get(entity, "one"), []
    for d in decisions:
        winner = claims.get(d.resolution.winner)  # type: ignore[union-attr,arg-type]
        if winner is None:
            continue
        chosen = normalized_value(winner)
        out = [v for v in out if not agrees(entity, v, chosen, card)]
        out.extend(v for i in (d.challenger, *d.incumbents, *d.supporters) if i in claims
                   and not agrees(entity, v := normalized_value(claims[i]), chosen, card))
    return list(dict.fromkeys(out))


def says_rejected(txn: Txn, claim: Claim) -> bool:
    """Whether `claim` says a value a person rejected on its entity (`rejected`, in other words too)."""
    card, value = txn.cardinality.get(claim.entity, "one"), normalized_value(claim)
    return any(agrees(claim.entity, value, r, card) for r in rejected(txn, claim.entity))


def guard(verdict: Verdict, conflicting: Sequence[Claim], txn: Txn, incoming: Claim | None = None) -> Verdict:
    """A verdict that would supersede a claim a person chose, or that opens a dispute against one
    (a tie under authority or consensus, a near-simultaneous write under recency, an ambiguous
    judge), becomes a dispute that waits for a person (`needs_user`), whatever the strategy: no
    rule settles it, and a retraction of the chosen claim does not install the challenger
    (retract.py, waiting.py). A verdict for the chosen claim (LOSE) stands. An incoming claim a
    person chose already (a re-keyed copy, `_chosen_waits`) that would lose or tie waits likewise."""
    if not conflicting or verdict.action not in (Action.WIN, Action.DISPUTE, Action.LOSE):
        return verdict
    decided = person_decided(txn, conflicting[0].entity)
    if incoming is not None and incoming.id in decided and verdict.action != Action.WIN:
        return _chosen_waits(verdict, incoming, decided[incoming.id])
    if verdict.action == Action.LOSE:
        return verdict
    chosen = next((c for c in conflicting if c.id in decided), None)
    if chosen is None:
        if incoming is None or not says_rejected(txn, incoming):
            return verdict
        reason = (f"{incoming.value or incoming.text!r} is a value a person rejected on {incoming.entity}: "
                  f"only a person installs it ({verdict.strategy}: {verdict.reason})")
        return replace(verdict, action=Action.DISPUTE, reason=reason, needs_user=True, winner=None)
    who, dispute_id = decided[chosen.id]
    said = ("an agent's write does not overturn a person's decision: a person decides" if verdict.action == Action.WIN
            else "a challenge to a person's decision waits for a person")
    reason = (f"{chosen.value or chosen.text!r} was chosen by {who} (dispute {dispute_id}); {said} "
              f"({verdict.strategy}: {verdict.reason})")
    return replace(verdict, action=Action.DISPUTE, reason=reason, needs_user=True, winner=None)


def _chosen_waits(verdict: Verdict, incoming: Claim, by: tuple[str, str]) -> Verdict:
    """An incoming claim a person chose already (the copy of a chosen claim `normalize` re-keys, whose
    decision was carried onto its new entity first) that its strategy would set aside or dispute: a
    dispute that waits for a person, not an agent's value installed by policy over the choice."""
    who, dispute_id = by
    reason = (f"{incoming.value or incoming.text!r} was chosen by {who} (dispute {dispute_id}); an agent's value "
              f"does not set a person's decision aside: a person decides ({verdict.strategy}: {verdict.reason})")
    return replace(verdict, action=Action.DISPUTE, reason=reason, needs_user=True, winner=None)


def against_person(txn: Txn, d: Dispute) -> bool:
    """Whether `d` stands against a claim a person chose (one of its incumbents, retracted or not): a
    dispute opened before `guard` flagged such disputes, or before the person decided, is one too."""
    return bool(set(d.incumbents) & set(person_decided(txn, d.entity)))


def revision_waits(txn: Txn, incoming: Claim, targets: Sequence[Claim], strategy: str) -> Verdict | None:
    """A write of a value a person rejected on the entity that nothing standing contradicts: a dispute
    that waits for a person. An agent revising its own claims (`targets`) to it: against them, its
    old claims standing meanwhile. With nothing standing at all (the chosen claim retracted, the
    entity forgotten, so it is empty): a dispute with no incumbent, the value held, not installed: a
    retraction said "not this value either", it did not lift the rejection (waiting.py then treats
    later writes as it does for any dispute that waits with no standing value). None for any other
    write (an agent may revise what it said; a value nobody rejected installs)."""
    if not says_rejected(txn, incoming):
        return None
    said = f"{incoming.value or incoming.text!r} is a value a person rejected on {incoming.entity}: "
    if targets:
        return Verdict(Action.DISPUTE, strategy, said + "its agent's revision waits for a person", needs_user=True)
    return Verdict(Action.DISPUTE, strategy, said + "nothing stands against it now, but only a person installs it",
                   needs_user=True)
