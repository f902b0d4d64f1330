"""The dispute lifecycle inside a partition's transaction: repeated challenges,
settling them, resolution by a person or a rule, withdrawn incumbents, stale
disputes. Functions over a `Txn`; the partition calls them while deciding."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from .. import strategies
from ..errors import DisputeError, InvalidInput
from ..models import MAX_NOTE, Claim, Decision, Dispute, DisputeStatus, Op, Outcome, Resolution, Status
from ..policy import Policy
from ..reasoners.rules import agrees, at_odds, contradicts, normalized_value, polarity_object
from ..roles import same_role
from ..strategies import Action
from ..texts import check_not_reserved, check_string
from . import sides, tally
from .decided import person_decided, says_rejected
from .txn import Txn


def supersede(txn: Txn, claims: Sequence[Claim], by: Claim, **detail: Any) -> None:
    for c in claims:
        txn.set_status(c.id, Status.SUPERSEDED, by.id, agent=by.agent, **detail)


def repeated_challenge(txn: Txn, incoming: Claim, conflicting: list[Claim],
                       targets: Sequence[Claim] = ()) -> Dispute | None:
    """The open dispute `incoming` repeats: its challenger's value, in its words or others that agree
    ("mom:beth" / "mother:beth", `rules.agrees`), against the same incumbents, or against its agent's
    own incumbent it replaces while another's claim still says that value (`_repointed`)."""
    value, card = normalized_value(incoming), txn.cardinality.get(incoming.entity, "one")
    incumbents = {c.id for c in conflicting} | {t.id for t in targets if any(
        agrees(incoming.entity, normalized_value(c), normalized_value(t), card) for c in conflicting)}
    for d in txn.open_disputes_on(incoming.entity):
        if set(d.incumbents) & incumbents and agrees(d.entity, normalized_value(txn.claim(d.challenger)), value, card):
            return d
    return None


def count_challenge(txn: Txn, incoming: Claim, d: Dispute, op: Op, targets: list[Claim], policy: Policy,
                    base: dict[str, Any]) -> Decision:
    """A repeated challenge: count it (and its agent as a supporter), then see if it settles."""
    agents = {d.challenger_agent} | {txn.claim(s).agent for s in d.supporters}
    supporters = d.supporters
    claim_id = d.challenger
    if incoming.agent not in agents:
        txn.add(replace(incoming, status=Status.DISPUTED), op=str(op), dispute=d.id,
                reason="supports an open dispute's challenger")
        supporters = (*supporters, incoming.id)
        agents.add(incoming.agent)
        claim_id = incoming.id
    supersede(txn, targets, txn.claim(claim_id), reason=f"{op}: retracted by its agent")
    # a dispute on a high-stakes entity waits for the user however it was opened
    updated = replace(d, challenges=d.challenges + 1, supporters=supporters, incumbents=_repointed(txn, d, targets),
                      needs_user=d.needs_user or policy.is_high_stakes(d.entity))
    updated = sides.restated(txn, d, updated, policy)  # a new supporter, or an incumbent's place taken
    txn.put_dispute(updated, "dispute_challenged", agent=incoming.agent, claim_id=incoming.id,
                    challenges=updated.challenges, agents=sorted(agents))
    settled = settle_repeat(txn, incoming, updated, len(agents), policy)
    if settled is not None:
        decided_by, note, extra = settled
        beaten = [txn.claim(i) for i in d.incumbents if txn.known(i) and txn.claim(i).status == Status.ACTIVE]
        standing = [c.id for c in txn.live_on(d.entity) if c.status == Status.ACTIVE]
        resolve(txn, updated, d.challenger, decided_by, note, keep_both=False, **extra)
        if extra.get("strategy") == "consensus":
            tally.flipped(txn, txn.claim(d.challenger), beaten, note)
        # what this write replaced: its agent's own claims, and the values the settlement superseded
        gone = tuple(t.id for t in targets) + superseded_among(txn, standing)
        return Decision(op=op, outcome=Outcome.ACTIVE, claim_id=claim_id, dispute_id=d.id, superseded=gone,
                        strategy=extra.get("strategy"), reason=f"dispute settled by {decided_by}: {note}", **base)
    return Decision(op=op, outcome=Outcome.DISPUTED, claim_id=claim_id, dispute_id=d.id,
                    superseded=tuple(t.id for t in targets),
                    reason=f"repeats an open challenge ({updated.challenges} so far)", **base)


def _repointed(txn: Txn, d: Dispute, targets: Sequence[Claim]) -> tuple[str, ...]:
    """`d`'s incumbents once the write supersedes `targets`: one among them gives its place to
    other agents' active claims of its value (with none it stays: `successors` maps it)."""
    card, out = txn.cardinality.get(d.entity, "one"), list(d.incumbents)
    for t in (t for t in targets if t.id in d.incumbents):
        same = [c.id for c in txn.live_on(d.entity) if c.status == Status.ACTIVE and c.agent != t.agent
                and agrees(d.entity, normalized_value(c), normalized_value(t), card)]
        if same:  # (those the dispute names already stay where they are)
            at = out.index(t.id)
            out[at:at + 1] = [i for i in same if i not in out]
    return tuple(out)


def settle_repeat(txn: Txn, incoming: Claim, d: Dispute, n_agents: int,
                  policy: Policy) -> tuple[str, str, dict[str, Any]] | None:
    """Whether a repeated challenge settles its dispute for the challenger: by the `reasserted_by`
    rule, or because the entity's strategy now lets it win (the judge rules once per dispute).
    Disputes that wait for a person (high stakes, `needs_user`) never settle here."""
    if waits_for_person(d, policy):
        return None
    incumbents = [txn.claim(c) for c in d.incumbents if txn.known(c)]
    incumbents = [c for c in incumbents if c.status == Status.ACTIVE]
    if incumbents and set(person_decided(txn, d.entity)) & {c.id for c in incumbents}:
        return None  # a value a person chose: only a person overturns it (decided.py)
    if says_rejected(txn, txn.claim(d.challenger)):
        return None  # a value a person rejected there: only a person installs it (decided.py)
    n = policy.rules.reasserted_by
    if n is not None and n_agents >= n:
        return f"rule:reasserted_by_{n}", f"challenger value asserted by {n_agents} distinct agents", {}
    if not incumbents:
        return None
    pool = tally.assertions(txn, d.entity) if policy.strategy_for(d.entity) == "consensus" else txn.live_on(d.entity)
    verdict = strategies.decide(incoming, incumbents, policy, pool=pool, cardinality=txn.cardinality.get(d.entity, "one"))
    if verdict.action != Action.WIN:
        return None
    return f"strategy:{verdict.strategy}", verdict.reason, {"strategy": verdict.strategy, "weights": verdict.weights}


def with_settlement(decision: Decision, settled: list[Dispute]) -> Decision:
    """The decision of a write whose support settled disputes for their incumbents
    (`outlived.settle_for_incumbents`): it names the last of them and says so, as a repeated
    challenge that settles a dispute does ("dispute settled by strategy:consensus: ...")."""
    if not settled or settled[-1].resolution is None:
        return decision
    r = settled[-1].resolution
    return replace(decision, dispute_id=settled[-1].id, strategy="consensus",
                   reason=f"dispute settled by {r.decided_by}: {r.note}")


def superseded_among(txn: Txn, ids: Sequence[str]) -> tuple[str, ...]:
    """Those of `ids` (claims live before a step of the write) the step superseded."""
    return tuple(i for i in ids if txn.claim(i).status == Status.SUPERSEDED)


WITHDRAWN = "rule:challenger_withdrawn"
INCUMBENTS_WITHDRAWN = "rule:incumbents_withdrawn"


def withdraw_challenge(txn: Txn, item: Any, policy: Policy) -> tuple[str, ...]:
    """An agent that says something else on a 'one' entity while a claim of its own is parked
    in a dispute there (its challenge, or its support of another's) takes that claim back, as
    its later claim replaces its own active one: the parked claim is superseded by `item`'s.
    On a 'many' entity only a claim about the same item is taken back (`takes_back`: another
    name for a single-valued role, another count, a denial of it), never one about another item.
    A dispute that loses its last backer closes for the incumbents (decided_by WITHDRAWN);
    one that other agents still back stays open for them (a supporter takes the
    challenger's place). A denial withdraws only the value it denies ("not:New York" is no
    other value than Boston), and an older `item` (a late arrival) withdraws nothing.
    A dispute that waits for a person with no standing incumbent is left to `waiting.hold`:
    the new value joins it (a person decides), it does not close it. Returns the withdrawn ids."""
    if not any(c.agent == item.agent and c.status == Status.DISPUTED for c in txn.live_on(item.entity)):
        return ()  # nothing of its own parked here (most writes: no dispute to look through)
    value, out = normalized_value(item), []
    for d in txn.open_disputes_on(item.entity):
        if held_open(txn, d, policy):
            continue
        backers = [txn.claim(i) for i in (d.challenger, *d.supporters) if txn.known(i)]
        mine = [c for c in backers if c.agent == item.agent and c.status == Status.DISPUTED
                and item.observed_at >= c.observed_at and takes_back(value, normalized_value(c), item.cardinality)]
        if not mine:
            continue
        for c in mine:
            txn.set_status(c.id, Status.SUPERSEDED, item.id, agent=item.agent, dispute=d.id,
                           reason="withdrawn by its agent: it said something else since")
        out += [c.id for c in mine]
        left = [c.id for c in backers if c not in mine]
        if left:  # still backed: the first remaining backer holds the challenge
            kept = replace(d, challenger=left[0], supporters=tuple(left[1:]), challenger_agent=txn.claim(left[0]).agent)
            kept = sides.restated(txn, d, kept, policy)  # its reason names who stands on the side now
            txn.put_dispute(kept, "dispute_changed", agent=item.agent, claim_id=item.id, challenges=kept.challenges,
                            withdrawn=[c.id for c in mine], reason="its agent withdrew the challenge")
            continue
        standing = next((i for i in d.incumbents if txn.known(i) and txn.claim(i).status == Status.ACTIVE), None)
        note = f"its agent withdrew the challenge (claim {item.id} says something else)"
        txn.put_dispute(replace(d, status=DisputeStatus.RESOLVED, resolution=Resolution(standing, WITHDRAWN, note, txn.now)),
                        "dispute_resolved", agent=item.agent, claim_id=standing, decided_by=WITHDRAWN, note=note,
                        winner=standing, keep_both=False)
    return tuple(out)


def withdrawn_by(txn: Txn, withdrawn: tuple[str, ...], decision: Decision, item: Any) -> Decision:
    """`decision` naming the withdrawn claims in `superseded`, each superseded by the claim that
    stands for the write: its own, or the one it repeats (the same agent repeating its own open
    challenge is counted, not stored: a claim superseded by the write's id would point at none)."""
    for cid in withdrawn:
        if decision.claim_id != item.id:
            txn.set_status(cid, Status.SUPERSEDED, decision.claim_id, agent=item.agent,
                           reason="withdrawn by its agent: it said something else since")
        else:  # withdrawn before the write was stored: the stored write names them too
            txn.link(item.id, cid)
    return replace(decision, superseded=(*withdrawn, *decision.superseded))


def takes_back(new: str, parked: str, cardinality: str) -> bool:
    """Whether a new value of an agent replaces its parked one. 'one': another value, or a denial
    of it. 'many': the same item only (`rules.classify`): a value it contradicts ("wife:anna" /
    "wife:maria", "3 children" / "2 children", "not:cat" / "cat") or the same single-valued role
    said otherwise ("wife:anna lee" / "wife:anna"); another item ("dog:max") is more."""
    if new == parked:
        return False
    if cardinality == "many":
        (pn, on), (pp, op) = polarity_object(new), polarity_object(parked)
        return contradicts(new, parked, "many") or (pn == pp == "likes" and same_role(on, op))
    return not new.startswith("not:") or contradicts(new, parked, "one")


def check_resolution(dispute_id: object, winner: object, decided_by: object, note: object, keep_both: bool) -> None:
    """The arguments of `resolve_dispute`, before anything is read: strings the log can keep,
    and either a winner or every value kept (`keep_both`), not both; `decided_by` must name who decided."""
    check_string(dispute_id, "dispute_id", limit=128)
    check_string(winner, "winner", limit=128, optional=True)
    if not isinstance(decided_by, str) or not any(ch.isprintable() and not ch.isspace() for ch in decided_by):
        raise InvalidInput(f"decided_by must name who decided, got {decided_by!r}")
    check_not_reserved(check_string(decided_by, "decided_by", limit=128), "decided_by")  # type: ignore[arg-type]
    check_string(note, "note", limit=MAX_NOTE, empty=True)
    if not isinstance(keep_both, bool):
        raise InvalidInput(f"keep_both must be True or False, got {keep_both!r}")
    if winner is None and not keep_both:
        raise InvalidInput("name a winner claim id, or keep every value (keep_both=True; --keep-both in the CLI)")
    if winner is not None and keep_both:  # two instructions that contradict each other, whatever the cardinality
        raise InvalidInput(f"give a winner or keep_both, not both: winner {winner!r} makes its value the only active "
                           "one and supersedes the others, keep_both (a 'many' entity) keeps every value active")


def resolve(txn: Txn, d: Dispute, winner: str | None, decided_by: str, note: str, *, keep_both: bool,
            **extra: Any) -> Dispute:
    """Close `d`: every value stays (`keep_both`), or `winner`'s value becomes the only active one
    (`tally.restore_backers`) and whatever contradicts it is superseded."""
    # a retracted member (an incumbent a closed dispute still names) keeps its status: nothing revives it
    members = [txn.claim(c) for c in (d.challenger, *d.incumbents, *d.supporters)
               if txn.known(c) and txn.claim(c).status != Status.RETRACTED]
    detail = {"decided_by": decided_by, "note": note, "winner": winner, "keep_both": keep_both, **extra}
    status_detail = {**detail, "dispute": d.id}
    if keep_both:
        for c in members:
            if c.status != Status.ACTIVE:
                txn.set_status(c.id, Status.ACTIVE, None, agent=decided_by, **status_detail)
    else:
        assert winner is not None
        win_value = normalized_value(txn.claim(winner))
        member_ids = {m.id for m in members}
        # Active claims outside the dispute lose only if they contradict the winner: on a
        # 'many' entity other values (likes:chess beside likes:jazz) stay. Unknown
        # cardinality (the stale rule, which keeps an incumbent) touches members only.
        card = txn.cardinality.get(d.entity)
        rivals = {c.id: c for c in txn.live_on(d.entity)
                  if c.status == Status.ACTIVE and card is not None and contradicts(normalized_value(c), win_value, card)}
        rivals.update({c.id: c for c in members})
        # the winner's value in other words stands with it ("mom:ann" beside "mother:ann"), unless it
        # would contradict what stands ("mother:ann lee" once "mother:ann smith" does)
        standing = [win_value, *(normalized_value(c) for c in txn.live_on(d.entity)
                                 if c.status == Status.ACTIVE and c.id not in rivals)]
        for c in sorted(rivals.values(), key=lambda c: c.id != winner):
            value = normalized_value(c)
            if agrees(d.entity, value, win_value, card or "one") and not any(
                    at_odds(d.entity, value, v, card or "one") for v in standing):
                standing.append(value)
                if c.status != Status.ACTIVE:
                    txn.set_status(c.id, Status.ACTIVE, None, agent=decided_by, **status_detail)
            elif c.id in member_ids or c.status == Status.ACTIVE:
                txn.set_status(c.id, Status.SUPERSEDED, winner, agent=decided_by, **status_detail)
        tally.restore_backers(txn, d.entity, win_value, agent=decided_by, **status_detail)
    resolved = replace(d, status=DisputeStatus.RESOLVED, resolution=Resolution(winner, decided_by, note, txn.now, keep_both))
    txn.put_dispute(resolved, "dispute_resolved", agent=decided_by, claim_id=winner, **detail)
    return resolved


def settle_withdrawn(txn: Txn, entity: str, cardinality: str, policy: Policy) -> None:
    """A dispute whose incumbents were all withdrawn, while the entity's current value
    now agrees with the challenger, has nothing left to decide: the challenger wins
    (decided_by "rule:incumbents_withdrawn"). Disputes that wait for a person (high stakes,
    `needs_user`) still wait: only a person, a retraction or an erasure closes them."""
    if policy.is_high_stakes(entity):
        return
    active = [c for c in txn.live_on(entity) if c.status == Status.ACTIVE]
    for d in txn.open_disputes_on(entity):
        if d.needs_user or any(txn.claim(i).status == Status.ACTIVE for i in d.incumbents if txn.known(i)):
            continue
        value = normalized_value(txn.claim(d.challenger))
        if any(agrees(entity, normalized_value(c), value, cardinality) for c in active) and not any(
            contradicts(normalized_value(c), value, cardinality) for c in active
        ):
            resolve(txn, d, d.challenger, INCUMBENTS_WITHDRAWN,
                    "every incumbent was withdrawn and the current value agrees with the challenger", keep_both=False)


def waits_for_person(d: Dispute, policy: Policy) -> bool:
    """A dispute only a person's resolution settles: on a high-stakes entity, or opened against a
    value a person chose (`needs_user`, decided.py). No rule or strategy closes it for a value; a
    retraction does not pick its other side (retract.py)."""
    return d.needs_user or policy.is_high_stakes(d.entity)


def held_open(txn: Txn, d: Dispute, policy: Policy) -> bool:
    """`d` waits for a person with no incumbent: a person retracted them, and the only ones it names
    are values agents wrote since, held in it `disputed` (waiting.py)."""
    return waits_for_person(d, policy) and all(
        txn.known(i) and txn.claim(i).status == Status.DISPUTED for i in d.incumbents)


def promote_held(txn: Txn, d: Dispute) -> Dispute | None:
    """`d` once no backer of its challenge is left, while it still holds other values (`disputed`
    incumbents, waiting.py): the first of them holds the challenge, those saying the same value back
    it, the others stay on the other side. None when it holds no value: nothing is left to decide."""
    held = [i for i in d.incumbents if txn.known(i) and txn.claim(i).status == Status.DISPUTED]
    if not held:
        return None
    first, card = txn.claim(held[0]), txn.cardinality.get(d.entity, "one")
    same = [i for i in held if agrees(d.entity, normalized_value(txn.claim(i)), normalized_value(first), card)]
    return replace(d, challenger=first.id, challenger_agent=first.agent, supporters=tuple(same[1:]),
                   incumbents=tuple(i for i in d.incumbents if i not in same))


def successors(txn: Txn, lookup: Callable[[str], Claim | None], ids: Sequence[str]) -> set[str]:
    """The live claims that took the place of the superseded ones among `ids` (following
    `superseded_by`); `lookup` reads a claim that left the live state."""
    out = set()
    for cid in ids:
        hops: str | None = cid
        for _ in range(32):  # a chain of replacements, each superseding the one before
            if hops is None or txn.known(hops):
                break
            gone = lookup(hops)
            hops = gone.superseded_by if gone is not None else None
        if hops is not None and hops not in ids and txn.known(hops) and txn.claim(hops).status == Status.ACTIVE:
            out.add(hops)
    return out


def expire(txn: Txn, open_disputes: Sequence[Dispute], policy: Policy, now: datetime,
           lookup: Callable[[str], Claim | None]) -> list[Dispute]:
    """The stale rule: close disputes older than `rules.stale_after_s` that were never
    re-asserted, keeping the incumbent (or the claim that replaced it)."""
    limit = policy.rules.stale_after_s
    if limit is None:
        return []
    done = []
    for d in open_disputes:
        age = (now - d.opened_at).total_seconds()
        if age < limit or d.challenges > 1 or d.supporters or waits_for_person(d, policy):
            continue
        keep = next((c for c in d.incumbents if c in txn.state.claims), None)
        keep = keep or next(iter(sorted(successors(txn, lookup, d.incumbents))), None)  # the incumbent's place, if taken
        if keep is None:
            continue
        done.append(resolve(txn, d, keep, "rule:stale", f"open {age:.0f}s without re-assertion", keep_both=False))
    return done


def pick_winner(txn: Txn, d: Dispute, winner: str, lookup: Callable[[str], Claim | None]) -> str:
    """The claim a resolution for `winner` makes the winner. A member of the dispute its agent
    has since replaced stands for its value: another live member saying the same, or (the
    only incumbent replaced) the claim in its place. A value no live claim holds any more
    is refused, naming the values that can win."""
    taken = successors(txn, lookup, d.incumbents)  # newer claims in an incumbent's place
    members = [d.challenger, *d.incumbents, *d.supporters]
    gone = None if txn.known(winner) else lookup(winner)
    if gone is not None and gone.status == Status.RETRACTED and gone.entity == d.entity:
        raise _retracted_winner(txn, d, gone, [*members, *sorted(taken)])
    if winner not in {*members, *taken}:
        raise DisputeError(f"claim {winner!r} is not part of dispute {d.id!r}", dispute_id=d.id, winner=winner)
    if txn.known(winner):
        return winner
    said = lookup(winner)
    standing = [txn.claim(i) for i in dict.fromkeys([*members, *sorted(taken)]) if txn.known(i)]
    if said is not None:
        same = [c for c in standing if normalized_value(c) == normalized_value(said)]
        if same:
            return same[0].id
    values = ", ".join(f"{c.value or c.text!r} ({c.agent}, {c.id})" for c in standing)
    raise DisputeError(f"claim {winner!r} of dispute {d.id!r} was since superseded, and no live claim says its "
                       f"value any more; choose one of: {values}", dispute_id=d.id)


def _retracted_winner(txn: Txn, d: Dispute, gone: Claim, ids: Sequence[str]) -> DisputeError:
    """A resolution naming a retracted claim: it cannot win; the live claim saying its value can."""
    standing = [txn.claim(i) for i in dict.fromkeys(ids) if txn.known(i) and txn.claim(i).status.live]
    same = [c for c in standing if normalized_value(c) == normalized_value(gone)]
    if same:
        hint = f"claim {same[0].id!r} ({same[0].agent}) says the same value {same[0].value or same[0].text!r} and can win"
    else:
        hint = "choose one of: " + (", ".join(f"{c.value or c.text!r} ({c.agent}, {c.id})" for c in standing) or "none")
    return DisputeError(f"claim {gone.id!r} was retracted by a person and cannot win dispute {d.id!r}; {hint}",
                        dispute_id=d.id, winner=gone.id)


def how_closed(d: Dispute) -> str:
    """` (by dana, 2026-01-01 10:00 UTC: claim c-2 won)`: who settled a closed dispute, for the person
    who tries again (a second click, or someone else first)."""
    r = d.resolution
    if r is None:
        return ""
    won = "every value kept" if r.keep_both else f"claim {r.winner} won" if r.winner else "no winner"
    return f" (by {r.decided_by}, {r.at.strftime('%Y-%m-%d %H:%M UTC')}: {won})"
