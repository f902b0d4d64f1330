"""A naive datetime is read as UTC, wherever a time is taken (observed_at, as_of,
apply_rules(now=)); the docs say so where those are described, not only for as_of."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime
from pathlib import Path

from vault_ray import Fact, HashingEmbedder, Vault, models
from vault_ray.vault import AgentMemory

ROOT = Path(__file__).resolve().parents[1]


def test_a_naive_observed_at_is_read_as_utc(tmp_path):
    naive = datetime(2024, 5, 1, 12, 0)
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        (d,) = vault.agent("a").add_facts([Fact("user.diet", "vegan", observed_at=naive)]).decisions
        assert vault.claim(d.claim_id).observed_at == naive.replace(tzinfo=UTC)
        (e,) = vault.agent("a").add("I'm in PST", observed_at=naive).decisions
        assert vault.claim(e.claim_id).observed_at == naive.replace(tzinfo=UTC)
        assert vault.apply_rules(now=naive) == []


def test_the_docs_say_a_naive_datetime_is_utc():
    """Only `as_of` said so: `Fact(observed_at=datetime.now())` (local time) was silently taken as UTC."""
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "a naive datetime is read as UTC" in readme
    assert "`now` (a datetime, naive = UTC, or epoch seconds)" in " ".join((ROOT / "docs" / "policies.md").read_text().split())
    fact = inspect.getsource(models).split("class Fact")[1].split("class Claim")[0]
    assert "a naive datetime is read as UTC" in " ".join(fact.split())
    assert "naive = UTC" in Vault.apply_rules.__doc__ and "naive = UTC" in AgentMemory.add.__doc__
