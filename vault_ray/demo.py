"""`vault-ray demo`: the two seed scenarios, offline, on a temporary store."""

from __future__ import annotations

import tempfile

from rich.console import Console
from rich.panel import Panel

from .embedders import HashingEmbedder, LocalEmbedder
from .models import Decision, Fact
from .render import claims_table, decision_table, disputes_table, hits_table, view_table
from .vault import Vault


def run_demo(console: Console, *, hashing: bool = False) -> None:
    embedder = HashingEmbedder() if hashing else LocalEmbedder()
    with tempfile.TemporaryDirectory(prefix="vault-ray-demo-") as root, Vault.open(root, embedder=embedder) as vault:
        console.print(Panel.fit(
            f"vault-ray demo  ·  store {root}  ·  embedder {embedder.name}  ·  reasoner: rules (offline)",
            style="bold",
        ))
        authority_dispute(vault, console)
        recency_supersede(vault, console)
        console.print(Panel.fit(
            "Neither write was silently lost: the low-authority EST claim is parked as a dispute, "
            "and the superseded Italian-food claim stays in history with who replaced it.",
            style="green",
        ))


def authority_dispute(vault: Vault, console: Console) -> list[tuple[str, str, Decision]]:
    console.rule("[bold]Scenario 1 — authority dispute with label drift")
    vault.set_strategy("user.timezone", "authority")
    vault.set_authority("agent-a", "user.timezone", 0.9)
    vault.set_authority("agent-b", "user.timezone", 0.2)
    console.print("policy: user.timezone decided by [bold]authority[/bold]; agent-a (scheduling) 0.9, agent-b (chat) 0.2")
    rows = []
    said = "I'm in PST"
    rows += [("agent-a", said, d) for d in vault.agent("agent-a").add(said, session="scheduler")]
    said = "I'm in EST"
    drifted = Fact("user.wrong_label", "The user is in EST", value="EST")
    console.print("agent-b's extractor (an LLM in production) drifts and labels its fact [italic]user.wrong_label[/italic]")
    rows += [("agent-b", said, d) for d in vault.agent("agent-b").add_facts([drifted], session="chat")]
    console.print(decision_table(rows))
    console.print(disputes_table(vault.disputes(), vault))
    query = "what timezone is the user in?"
    console.print(hits_table(query, vault.search(query, k=3)))
    console.print(view_table(vault.get("user.timezone")))
    return rows


def recency_supersede(vault: Vault, console: Console) -> list[tuple[str, str, Decision]]:
    console.rule("[bold]Scenario 2 — recency supersede on an unconfigured entity")
    rows = []
    for agent, said in (("agent-a", "I love Italian food"), ("agent-b", "I hate Italian food, I only eat Japanese")):
        rows += [(agent, said, d) for d in vault.agent(agent).add(said)]
    console.print(decision_table(rows))
    console.print(claims_table(vault.history("user.food_preferences"), "history('user.food_preferences')"))
    console.print(f"open disputes on food: {sum(d.entity == 'user.food_preferences' for d in vault.disputes())}")
    return rows
