"""The synthetic world's vocabulary: which entities a user has, how agents phrase
them, and which wrong labels they drift to.

Canonical keys are the builtin registry's (`user.timezone`, ...), so a store opened
with the builtin registry resolves the alias labels by itself. Every entity here
has `one` cardinality: a contradiction is any different value.
"""

from __future__ import annotations

from dataclasses import dataclass

DOMAINS = ("schedule", "profile", "preferences", "payment")


@dataclass(frozen=True)
class EntitySpec:
    key: str
    domain: str
    values: tuple[str, ...]
    templates: tuple[tuple[str, str], ...]
    """(prefix, suffix) pairs: text = prefix + value + suffix."""
    aliases: tuple[str, ...] = ()
    """Labels the builtin registry maps to `key` (resolved without vectors)."""
    novel: tuple[str, ...] = ()
    """Unregistered paraphrase labels: only the similarity search can align them."""
    high_stakes: bool = False


CATALOG: tuple[EntitySpec, ...] = (
    EntitySpec(
        "user.timezone", "schedule",
        ("utc", "cet", "est", "pst", "jst", "ist", "bst", "aest"),
        (("my time zone is ", ""), ("the user is in the ", " time zone")),
        aliases=("user.time_zone", "user.tz"), novel=("user.zone", "user.timezone_name"),
    ),
    EntitySpec(
        "user.schedule.gym", "schedule",
        ("monday 7am", "tuesday 6pm", "wednesday noon", "thursday 8pm", "friday 6am", "saturday 10am"),
        (("the user goes to the gym on ", ""), ("gym session every ", "")),
        novel=("user.gym", "user.workout_time"),
    ),
    EntitySpec(
        "user.location", "profile",
        ("paris", "berlin", "london", "new york", "tokyo", "sydney", "toronto", "madrid"),
        (("the user lives in ", ""), ("my home city is ", "")),
        aliases=("user.city", "user.home"), novel=("user.residence", "user.home_town"),
    ),
    EntitySpec(
        "user.diet", "preferences",
        ("vegetarian", "vegan", "pescatarian", "omnivore", "keto"),
        (("the user is ", ""), ("my diet is ", "")),
        aliases=("user.dietary",), novel=("user.diet_type", "user.eating"),
    ),
    EntitySpec(
        "user.payment.method", "payment",
        ("visa card", "paypal", "invoice", "mastercard", "bank transfer"),
        (("the user pays with ", ""), ("my payment method is ", "")),
        aliases=("user.payment_method",), novel=("user.pay_with", "user.billing_method"),
        high_stakes=True,
    ),
)

BY_KEY = {spec.key: spec for spec in CATALOG}
DRIFT_KINDS = ("alias", "novel", "mislabel")
"""`alias`: a registry synonym; `novel`: an unregistered paraphrase; `mislabel`:
another entity's key (the front cannot tell, by design: that key is registered)."""


def domain_patterns(domain: str) -> tuple[str, ...]:
    """The canonical entity keys of a domain (exact patterns for a Policy)."""
    return tuple(spec.key for spec in CATALOG if spec.domain == domain)
