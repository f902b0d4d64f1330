"""Helpers of the erasure tests (tests/test_erase.py, tests/integration/test_erase_cluster.py): a
store with a secret in every place content goes, and a byte search of every file (`grep -r`)."""

from __future__ import annotations

from pathlib import Path

from vault_ray import Fact, Vault

SECRET = "zqxdiabetes"
OTHER = "zqxasthma"
MESSAGE = f"I have {SECRET} and I live in Lyonville"


def files_holding(root: Path, needle: bytes) -> list[str]:
    """Every file under `root` whose bytes contain `needle` (what `grep -r` would find)."""
    return sorted(str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes())


def seed(vault: Vault) -> dict:
    vault.set_strategy("user.health", "authority")
    vault.set_authority("doc", "user.health", 0.9)
    vault.set_authority("bot", "user.health", 0.2)
    doc, bot = vault.agent("doc"), vault.agent("bot")
    (first,) = doc.add_facts([Fact("user.health", f"The user has {SECRET}", value=SECRET, source=MESSAGE,
                                   meta={"note": f"said {SECRET}"}),
                              ], resolve=False).decisions
    (city,) = doc.add_facts([Fact("user.city", "The user lives in Lyonville", value="lyonville", source=MESSAGE)],
                            resolve=False).decisions
    (challenge,) = bot.add_facts([Fact("user.health", f"The user has {OTHER}", value=OTHER)], resolve=False).decisions
    assert challenge.dispute_id is not None
    vault.resolve_dispute(challenge.dispute_id, first.claim_id, decided_by="nurse", note=f"{SECRET}, not {OTHER}")
    (again,) = bot.add_facts([Fact("user.health", f"The user has {OTHER} again", value=OTHER + "2")],
                             resolve=False).decisions
    assert again.dispute_id is not None and vault.disputes(status="open")
    (diet,) = doc.add_facts([Fact("user.diet", "The user is vegan", value="vegan")], resolve=False).decisions
    return {"first": first, "city": city, "challenge": challenge, "again": again, "diet": diet}
