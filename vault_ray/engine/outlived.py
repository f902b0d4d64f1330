"""Open disputes whose incumbents a newer claim replaced (docs/policies.md, "The incumbent's place").

A dispute names the claims its challenger contradicted. When a newer claim takes an incumbent's
place while the dispute is open (a newer observation under recency, a majority, the judge's pick,
the incumbent's own agent updating it), reads and `resolve_dispute` read that claim in its place
(`views.as_live`, `disputes.pick_winner`). The strategy that left the dispute open judged the old
pair, not this one, so the write that takes the place asks it again (`reconsider`):

- it decides clearly against the parked challenger (recency: the challenger was observed before the
  claim now standing, outside the near-simultaneous window; consensus: a clear margin; the judge: a
  clear pick): the dispute is settled for the standing claim (`decided_by="strategy:<name>"`, a
  `dispute_resolved` event naming the write in `detail.settling`), the challenger and its supporters
  superseded by it (history and explain keep them);
- it would still dispute: the dispute stays open, its `reason` the strategy's reason about the new
  pair (a `dispute_changed` event, detail `replaced`);
- it would let the challenger win: nothing changes (a repeat or a person settles that).

When what stands in the incumbents' place says the challenger's value (`rules.agrees`: the same, or
in other words; per item on a `many` entity) and no active claim is at odds with it, the sides agree:
nothing is left to decide and the dispute closes for the challenger (`_agree`: `rule:sides_agree`),
also when it waits for a person (the value is current already: closing it changes nothing under the
person, and a dispute left open would park a value against itself).

When what stands in the incumbents' place says nothing against the challenger ("not:vegan" beside a
parked "vegetarian"), the challenger is decided as a fresh write of its value would be: against the
active claims that contradict it (the strategy, as above), and with none it stands (`_stands`:
`rule:incumbents_withdrawn`, a note saying why), unless a person decides it.

Otherwise a dispute that waits for a person (high stakes, `needs_user`) is never settled this way; its reason
says which claim now stands in the incumbent's place. Authority never rules against a challenger (it
parks a lighter one), so an authority dispute stays open as DESIGN.md §2 step 6 keeps it. Under
consensus, backing the claim in the incumbent's place counts as backing the incumbent
(`settle_for_incumbents`).
"""

from __future__ import annotations

from dataclasses import replace

from .. import strategies
from ..errors import VaultError
from ..models import Claim, Decision, Dispute, Status
from ..policy import Policy
from ..reasoners.base import JudgeCase, Reasoner
from ..reasoners.rules import agrees, at_odds, contradicts, normalized_value
from ..strategies import Action, Verdict
from . import asked, disputes, sides, tally
from .decided import says_rejected
from .sides import SINCE, Lookup, chain, places
from .txn import Txn

SIDES_AGREE = "rule:sides_agree"


def reconsider(txn: Txn, decision: Decision, policy: Policy, reasoner: Reasoner, lookup: Lookup) -> Decision:
    """After a write that superseded claims: the open disputes on its entity whose incumbents'
    places it changed are asked again (module docstring). Returns `decision`, naming the disputes it
    settled (the last in `dispute_id` unless it names one, the claims superseded in `superseded`)."""
    gone, open_ = set(decision.superseded), txn.open_disputes_on(decision.entity)
    if not open_:
        return decision  # (most writes)
    settled: list[Dispute] = []
    before = [c.id for c in txn.live_on(decision.entity)]
    for d in open_:
        if not txn.known(d.challenger) or txn.claim(d.challenger).status != Status.DISPUTED:
            continue
        if any(txn.known(i) and txn.claim(i).status == Status.ACTIVE for i in d.incumbents):
            continue  # an incumbent stands itself: its strategy decided this pair already
        hops = {c.id for i in d.incumbents for c in chain(txn, i, lookup)[1:]} | set(d.incumbents)
        standing = places(txn, d, lookup)
        if not standing or not hops & gone:
            continue  # the write did not change who stands in the incumbents' place
        if (agreed := _agree(txn, d, policy, standing, lookup, decision.claim_id)) is not None:
            settled.append(agreed)
            continue
        if disputes.waits_for_person(d, policy):
            _note_place(txn, d, standing, lookup, decision.claim_id)
            continue
        head = sides.head(txn, d, policy)
        if head is None:
            continue
        card, places_now = txn.cardinality.get(d.entity, "one"), standing
        standing = [c for c in standing if contradicts(normalized_value(head), normalized_value(c), card)]
        fresh = not standing  # what stands now says nothing against the challenger ("not:vegan" beside
        if fresh:  # "vegetarian"): it is decided as a fresh write of its value would be, against what does
            standing = _against(txn, d, head, card)
            if not standing:
                if (closed := _stands(txn, d, head, places_now, policy, lookup, decision.claim_id)) is not None:
                    settled.append(closed)
                continue
        verdict = _ask(txn, d, head, standing, policy, reasoner)
        if verdict.action == Action.LOSE and verdict.winner is not None and not says_rejected(txn, txn.claim(verdict.winner)):
            settled.append(disputes.resolve(txn, d, verdict.winner, f"strategy:{verdict.strategy}", verdict.reason,
                                            keep_both=False, strategy=verdict.strategy, weights=verdict.weights,
                                            settling=[decision.claim_id]))
        elif verdict.action == Action.DISPUTE and (verdict.reason != d.reason or fresh):
            changed = replace(d, reason=verdict.reason, **({"incumbents": tuple(c.id for c in standing)} if fresh else {}))
            txn.put_dispute(changed, "dispute_changed", agent=None, claim_id=standing[0].id,
                            challenges=d.challenges, replaced=list(d.incumbents), reason=verdict.reason)
    if not settled:
        return decision
    superseded = (*decision.superseded, *(i for i in disputes.superseded_among(txn, before) if i not in gone))
    last, res = settled[-1], settled[-1].resolution
    assert res is not None
    return replace(decision, superseded=superseded, dispute_id=decision.dispute_id or last.id,
                   reason=f"{decision.reason}; settles open dispute {last.id} ({res.decided_by}: {res.note})")


def _agree(txn: Txn, d: Dispute, policy: Policy, standing: list[Claim], lookup: Lookup, by: str) -> Dispute | None:
    """What now stands in `d`'s incumbents' place says what its challenger says (`rules.agrees`: the
    same value, in its words or others; per item on a `many` entity) and no active claim contradicts
    it: the sides agree and nothing is left to decide, so `d` closes for its challenger, which stands
    with that claim (`rule:sides_agree`; `by` settles it). So too when `d` waits for a person: the
    value is already current, closing it changes nothing under the person. None otherwise."""
    head = sides.head(txn, d, policy)
    if head is None:
        return None
    card, value = txn.cardinality.get(d.entity, "one"), normalized_value(head)
    if not all(agrees(d.entity, normalized_value(c), value, card) for c in standing) or any(
            c.status == Status.ACTIVE and at_odds(d.entity, value, normalized_value(c), card) for c in txn.live_on(d.entity)):
        return None
    was, place = _replaced(txn, d, lookup, standing)
    note = (f"the sides agree: {place} took the place of {was} and says what the challenger says "
            f"({head.value or head.text!r}): nothing is left to decide")
    return disputes.resolve(txn, d, d.challenger, SIDES_AGREE, note, keep_both=False, settling=[by])


def _against(txn: Txn, d: Dispute, head: Claim, card: str) -> list[Claim]:
    """The active claims on `d`'s entity that contradict its challenger side (`head`), as a fresh
    write of its value would meet them (never one of its own backers)."""
    backers, value = {d.challenger, *d.supporters}, normalized_value(head)
    return [c for c in txn.live_on(d.entity) if c.status == Status.ACTIVE and c.id not in backers
            and contradicts(value, normalized_value(c), card)]


def _stands(txn: Txn, d: Dispute, head: Claim, now: list[Claim], policy: Policy, lookup: Lookup,
            by: str) -> Dispute | None:
    """No incumbent of `d` stands, what stands in their place says nothing against its challenger and
    no active claim contradicts it: a fresh write of its value would simply apply, so it stands
    (`rule:incumbents_withdrawn`, the note saying why; `by` settles it). Not while a person has been
    asked about its item elsewhere (asked.py), nor for a value a person rejected (decided.py)."""
    if asked.asking(txn, d.entity, asked.values_of(txn, d), policy, but=d.id) is not None or says_rejected(txn, head):
        return None
    was, place = _replaced(txn, d, lookup, now)
    note = (f"no incumbent stands any more ({was} gave way to {place}) and no active claim contradicts "
            f"{head.value or head.text!r}: decided as a fresh write of it would be, it stands")
    return disputes.resolve(txn, d, d.challenger, disputes.INCUMBENTS_WITHDRAWN, note, keep_both=False, settling=[by])


def _ask(txn: Txn, d: Dispute, head: Claim, standing: list[Claim], policy: Policy, reasoner: Reasoner) -> Verdict:
    """The entity's strategy on the dispute's challenger side (`head`, its newest backer: the side's
    latest word) against the claims standing for its incumbents that contradict it; the judge is
    asked when the strategy asks."""
    card = txn.cardinality.get(d.entity, "one")
    strategy = policy.strategy_for(d.entity)
    pool = tally.assertions(txn, d.entity) if strategy == "consensus" else txn.live_on(d.entity)
    verdict = strategies.decide(head, standing, policy, pool=pool, cardinality=card)
    if verdict.action == Action.ASK_JUDGE:
        case = JudgeCase(head, tuple(standing), verdict.weights, card)
        try:
            verdict = strategies.from_judgement(head, standing, strategies.judged(reasoner, case), verdict)
        except VaultError:  # a judge that fails now leaves the dispute as it was: the write goes on
            return replace(verdict, action=Action.WIN)
    return verdict


def since(d: Dispute, change: str) -> str:
    """`d`'s reason with what changed since it was given (replacing what an earlier change said)."""
    return f"{d.reason.split(SINCE)[0]}{SINCE}{change}"


def _note_place(txn: Txn, d: Dispute, standing: list[Claim], lookup: Lookup, by: str) -> None:
    """`d` waits for a person: its reason says which claim now stands in its incumbents' place."""
    old = [c for i in d.incumbents for c in chain(txn, i, lookup)[:1]]
    now = ", ".join(f"{c.value or c.text!r} ({c.agent})" for c in standing)
    was = ", ".join(f"{c.value or c.text!r} ({c.agent})" for c in old if c.id not in {s.id for s in standing})
    if not was:
        return
    reason = since(d, f"{now} took the place of {was}")
    if reason != d.reason:
        txn.put_dispute(replace(d, reason=reason), "dispute_changed", agent=None, claim_id=by,
                        challenges=d.challenges, replaced=list(d.incumbents), reason=reason)


def settle_for_incumbents(txn: Txn, entity: str, policy: Policy,
                          by: str | None = None) -> tuple[list[Dispute], tuple[str, ...]]:
    """Under consensus, a claim that backs an open dispute's incumbents (or the claims standing in
    their place, `places`) may give them the clear majority: the dispute is settled for them, as a
    supporter settles it for the challenger (`disputes.settle_repeat`). Returns the disputes it
    settled and the claims their settlement superseded. `by`: the claim whose write settles them
    (`settling` on the `dispute_resolved` event)."""
    settled: list[Dispute] = []
    if policy.strategy_for(entity) != "consensus" or policy.is_high_stakes(entity):
        return settled, ()
    before = [c.id for c in txn.live_on(entity)]
    for d in txn.open_disputes_on(entity):
        standing = places(txn, d)
        if not standing or not txn.known(d.challenger) or d.needs_user or says_rejected(txn, standing[0]):
            continue  # a person decides it
        pool = tally.assertions(txn, entity)
        verdict = strategies.consensus(standing[0], [txn.claim(d.challenger)], policy, pool, {},
                                       txn.cardinality.get(entity, "one"))
        if verdict.action == Action.WIN:
            settled.append(disputes.resolve(txn, d, standing[0].id, "strategy:consensus", verdict.reason,
                                            keep_both=False, strategy="consensus", weights=verdict.weights,
                                            **({"settling": [by]} if by else {})))
    return settled, disputes.superseded_among(txn, before) if settled else ()


def after_write(txn: Txn, decision: Decision, item_cardinality: str, policy: Policy, reasoner: Reasoner,
                lookup: Lookup) -> Decision:
    """What a write that superseded claims settles besides: disputes whose incumbents were all
    withdrawn (`disputes.settle_withdrawn`), then those whose incumbents' place it changed."""
    disputes.settle_withdrawn(txn, decision.entity, item_cardinality, policy)
    return reconsider(txn, decision, policy, reasoner, lookup)


def _replaced(txn: Txn, d: Dispute, lookup: Lookup, now: list[Claim]) -> tuple[str, str]:
    """What `d`'s incumbents said and what stands in their place (`now`), as a note names them:
    "'value' (agent), ..."."""
    old = [c for i in d.incumbents for c in chain(txn, i, lookup)[:1]]
    return (", ".join(f"{c.value or c.text!r} ({c.agent})" for c in old),
            ", ".join(f"{c.value or c.text!r} ({c.agent})" for c in now))
