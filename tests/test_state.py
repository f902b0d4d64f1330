"""A partition's live state in memory: Arrow columns loaded at open, claims changed
since kept as values, folded back into columns by compaction without changing any
answer."""

from __future__ import annotations

import vault_ray.engine.state as state
from vault_ray import Fact, HashingEmbedder, Policy, Vault


def answers(vault: Vault) -> tuple:
    return ({c.id: (str(c.status), c.superseded_by, c.text) for c in vault.claims()},
            {e: vault.get(e) for e in (f"user.k{i}" for i in range(7))},
            [(h.claim.id, round(h.score, 4), h.contested) for h in vault.search("the value is v3", k=10)],
            vault.disputes())


def write(vault: Vault, start: int, end: int) -> None:
    for i in range(start, end):
        vault.agent(f"a{i % 3}").add_facts([Fact(f"user.k{i % 7}", f"the value is v{i}", f"v{i}")])


def test_compaction_keeps_every_answer(tmp_path, monkeypatch):
    monkeypatch.setattr(state, "COMPACT_AT", 10**9)  # only when this test says so
    policy = Policy(strategies={"user.k1": "authority"})  # some disputes stay open, with vectors in memory
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=2, policy=policy) as vault:
        write(vault, 0, 30)
        before = answers(vault)
        assert any(part.state._changed for part in vault._backend.host.opened())
        for part in vault._backend.host.opened():
            with part.lock:
                part.state.compact()
            assert not part.state._changed
        assert answers(vault) == before
        assert all(vault.check().values())
        write(vault, 30, 45)  # and writes carry on over the new columns
        assert all(vault.check().values())
        after = answers(vault)
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        assert answers(vault) == after
