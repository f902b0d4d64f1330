"""`search(..., agent=X | entity=E, as_of=t)` answers what the same filtered search answered at t
(QA2 F8): an agent's claims parked in the disputes open then are found too, as a search now
finds them, and `as_of=now` answers as now."""

from __future__ import annotations

import time

from vault_ray import Fact, Policy
from vault_ray.models import utcnow

AGENTS = ("a", "b", "c", "d")
QUERY = "what timezone is the user in"


def say(vault, agent, entity, value):
    return vault.agent(agent).add_facts([Fact(entity, f"{entity} is {value}", value=value)]).decisions[0]


def filtered(vault, at=None):
    """Every filtered search a user would try: per agent, `mine`, per entity."""
    def key(hits):
        return sorted((h.claim.id, h.claim.value, h.contested, tuple(sorted(a.id for a in h.alternatives))) for h in hits)
    out = {f"agent={x}": key(vault.search(QUERY, k=20, agent=x, as_of=at)) for x in AGENTS}
    out |= {f"mine {x}": key(vault.agent(x).search(QUERY, k=20, mine=True, as_of=at)) for x in AGENTS}
    out |= {f"entity={e}": key(vault.search(QUERY, k=20, entity=e, as_of=at)) for e in ("user.timezone", "user.family")}
    return out


def moment():
    time.sleep(0.002)
    at = utcnow()
    time.sleep(0.002)
    return at


def replayed(vault, steps):
    """Run `steps`, then check every filtered search at each step's time against what it answered then."""
    seen = []
    for step in steps:
        step()
        seen.append((moment(), filtered(vault)))
    for i, (at, answered) in enumerate(seen):
        assert filtered(vault, at) == answered, f"after step {i}"
    return seen


def test_an_agents_parked_claim_is_found_as_of_now(make_vault):
    vault = make_vault(policy=Policy(default_strategy="authority", authority={"a": {"*": 0.9}}))
    say(vault, "a", "user.timezone", "PST")
    parked = say(vault, "b", "user.timezone", "EST")
    assert parked.outcome == "disputed"
    hits = vault.search(QUERY, agent="b", as_of=utcnow())
    assert [(h.claim.value, h.contested, [x.value for x in h.alternatives]) for h in hits] == [("EST", True, ["PST"])]
    assert [h.claim.id for h in vault.agent("b").search(QUERY, mine=True, as_of=utcnow())] == [parked.claim_id]


def test_filtered_searches_of_the_past_answer_what_they_answered_then(make_vault):
    vault = make_vault(policy=Policy(default_strategy="authority", authority={"a": {"*": 0.9}, "d": {"*": 0.95}}))
    vault.set_cardinality("user.family", "many")
    made = {}
    steps = [
        lambda: made.setdefault("a", say(vault, "a", "user.timezone", "PST")),
        lambda: made.setdefault("b", say(vault, "b", "user.timezone", "EST")),  # parked: a dispute
        lambda: say(vault, "c", "user.timezone", "Eastern time"),  # supports b's challenge
        lambda: say(vault, "a", "user.family", "wife:Ann"),
        lambda: say(vault, "b", "user.family", "wife:Bea"),  # a dispute on one item of a many entity
        lambda: say(vault, "b", "user.family", "child:Tom"),  # another item, not in dispute
        lambda: vault.resolve_dispute(made["b"].dispute_id, made["a"].claim_id, decided_by="user"),  # for the incumbent, PST
        lambda: say(vault, "d", "user.timezone", "CST"),  # outweighs: CST replaces PST
    ]
    seen = replayed(vault, steps)
    assert any(v for k, v in seen[1][1].items() if k == "agent=b")  # the past did show b's parked claim
    assert [h[1] for h in seen[2][1]["agent=c"]] == ["Eastern time"]
    assert vault.search(QUERY, agent="b", as_of=seen[0][0]) == []  # before b wrote


def test_a_dispute_waiting_for_a_person_is_found_with_the_filters_too(make_vault):
    vault = make_vault(policy=Policy(default_strategy="authority", authority={"a": {"*": 0.9}}))
    made = {}
    replayed(vault, [
        lambda: made.setdefault("a", say(vault, "a", "user.timezone", "PST")),
        lambda: say(vault, "b", "user.timezone", "EST"),
        lambda: vault.retract(made["a"].claim_id, decided_by="user"),  # the dispute waits with no incumbent
        lambda: say(vault, "c", "user.timezone", "CST"),
    ])
