"""A write reads the clock before it embeds its text, outside the partition's lock: one that
embeds slowly commits after a later one. Its changes are recorded after that one's, so an
entity's history, its events and every `as_of` view are states the store was in."""

from __future__ import annotations

import threading
from datetime import timedelta

from vault_ray import Fact, HashingEmbedder


class GatedEmbedder(HashingEmbedder):
    """A hashing embedder that holds texts containing "slow" until `gate` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.gate, self.waiting = threading.Event(), threading.Event()

    def embed(self, texts):  # type: ignore[no-untyped-def]
        if any("slow" in t for t in texts):
            self.waiting.set()
            assert self.gate.wait(30)
        return super().embed(texts)


def test_a_write_that_embedded_slowly_records_after_the_one_that_overtook_it(make_vault):
    embedder = GatedEmbedder()
    vault = make_vault(embedder=embedder)
    vault.set_strategy("user.diet", "authority")
    vault.set_authority("coach", "user.diet", 0.9)
    vault.agent("coach").add_facts(Fact("user.diet", "The user is vegan", "vegan"))
    slow = threading.Thread(target=lambda: vault.agent("chat").add_facts(
        Fact("user.diet", "The user is keto (slow)", "keto")))
    slow.start()
    assert embedder.waiting.wait(30)  # the slow write read the clock and is embedding
    vault.agent("travel").add_facts(Fact("user.diet", "The user is vegetarian", "vegetarian"))
    embedder.gate.set()
    slow.join(30)
    events = vault.events(since="start", limit=100).events
    times = [e.ts for e in events]
    assert times == sorted(times), [(e.kind, e.ts) for e in events]
    claims = {c.value: c for c in vault.history("user.diet")}
    assert claims["keto"].recorded_at > claims["vegetarian"].recorded_at
    just_before = vault.get("user.diet", as_of=claims["keto"].recorded_at - timedelta(microseconds=1))
    seen = {c.claim.value for c in just_before.candidates} | {c.value for c in just_before.active}
    assert "vegetarian" in seen and "keto" not in seen  # the state between the two writes, as it was


def test_a_future_observed_at_orders_at_its_recording_time(vault):
    """QA round 91: a claim said to be observed 20 h ahead (accepted: clock skew) no longer
    outranks every write until then; recency orders it by min(observed_at, recorded_at),
    and the claim keeps the time its agent sent."""
    from vault_ray.models import utcnow

    ahead = utcnow() + timedelta(hours=20)
    (a,) = vault.agent("a").add_facts([Fact("user.city", "lives in Rome", value="Rome", observed_at=ahead)]).decisions
    (b,) = vault.agent("b").add_facts([Fact("user.city", "lives in Oslo", value="Oslo")]).decisions
    assert b.outcome == "active" and b.superseded == (a.claim_id,)
    assert vault.claim(a.claim_id).observed_at == ahead
    assert [c.value for c in vault.get("user.city").active] == ["Oslo"]
