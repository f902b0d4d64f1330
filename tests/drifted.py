"""A store whose labels drifted past write-time resolution (written with resolve=False,
as by agents whose extractors label things their own way), with look-alikes that
must stay apart. Shared by the normalization tests."""

from __future__ import annotations

from datetime import timedelta

from scenarios import T0

from vault_ray import Fact, Vault

# (agent, label, text, value, hours after T0)
DRIFTED = [
    ("agent-a", "user.location", "The user lives in Paris", "Paris", 0),
    ("agent-a", "user.location", "The user lives in Lyon", "Lyon", 5),
    ("agent-b", "user.residence", "The user's home is in Madrid", "Madrid", 1),
    ("agent-b", "user.residence", "The user resides in Berlin", "Berlin", 2),
    ("agent-c", "user.home_town", "The user's home town is Lyon", "Lyon", 3),
    ("agent-d", "user.workplace", "The user's workplace is Umbrella Corp", "Umbrella Corp", 1),
    ("agent-d", "user.workplace", "The user works at Initech", "Initech", 4),
    ("agent-e", "user.employer", "The user works for Globex", "Globex", 2),
    # look-alikes: "the user works ___" too, but times, not companies
    ("agent-f", "user.work_schedule", "The user works 9 to 5 on weekdays", "9 to 5 on weekdays", 1),
    ("agent-f", "user.work_schedule", "The user works from 8am to 4pm", "8am to 4pm", 3),
    # another family, and a look-alike of it
    ("agent-g", "user.favorite_color", "The user's favorite color is blue", "blue", 1),
    ("agent-h", "user.favourite_colour", "The user's favourite colour is red", "red", 2),
    ("agent-g", "user.favorite_food", "The user's favorite food is pizza", "pizza", 1),
    ("agent-i", "user.phone", "The user's phone number is 555-1234", "555-1234", 1),
    ("agent-j", "user.mobile", "The user's mobile number is 555-9876", "555-9876", 2),
    ("agent-a", "user.diet", "The user is vegan", "vegan", 1),
    ("agent-b", "user.timezone", "The user is in PST", "PST", 1),
]
EXPECTED_INTO = {"user.residence": "user.location", "user.home_town": "user.location", "user.workplace": "user.employer"}
"""Merges whose target is a registry key (so their direction is fixed)."""
EXPECTED_PAIRS = {frozenset(("user.favorite_color", "user.favourite_colour")), frozenset(("user.phone", "user.mobile"))}
NEVER_MERGED = {"user.work_schedule", "user.favorite_food", "user.diet", "user.timezone"}


def write_drifted(vault: Vault) -> None:
    """The drifted store; user.location is decided by authority (agent-a trusted most)."""
    vault.set_strategy("user.location", "authority")
    vault.set_authority("agent-a", "user.location", 0.9)
    for agent, label, text, value, hours in DRIFTED:
        vault.agent(agent).add_facts([Fact(label, text, value, observed_at=T0 + timedelta(hours=hours))], resolve=False)
