"""The HTTP API's models mirror the library's frozen dataclasses field by field, so
what the server sends is what `vault_ray.wire` rebuilds on the client."""

from __future__ import annotations

from dataclasses import fields

import pytest

from vault_ray import (
    AddResult,
    AutoResolveRules,
    Candidate,
    Claim,
    Decision,
    Dispute,
    EntityView,
    EventPage,
    Explanation,
    Fact,
    Hit,
    Policy,
    RateLimit,
    RegistryEntry,
    Resolution,
    Retraction,
    Unextracted,
    VaultEvent,
)
from vault_ray.engine.explain import Step
from vault_ray.wire import HIDDEN_FIELDS

schemas = pytest.importorskip("vault_ray.actors.serve.schemas")
retraction = pytest.importorskip("vault_ray.actors.serve.retraction")

PAIRS = [
    (schemas.DecisionOut, Decision), (schemas.AddResultOut, AddResult), (schemas.ClaimOut, Claim),
    (schemas.HitOut, Hit), (schemas.ResolutionOut, Resolution), (schemas.DisputeOut, Dispute),
    (schemas.CandidateOut, Candidate), (schemas.EntityViewOut, EntityView), (schemas.StepOut, Step),
    (schemas.ExplanationOut, Explanation), (schemas.PolicyOut, Policy), (schemas.RulesOut, AutoResolveRules),
    (schemas.RateLimitOut, RateLimit), (schemas.RegistryEntryOut, RegistryEntry),
    (schemas.PolicyBody, Policy), (schemas.RulesIn, AutoResolveRules), (schemas.RateLimitBody, RateLimit),
    (schemas.FactIn, Fact), (schemas.UnextractedOut, Unextracted),
    (schemas.VaultEventOut, VaultEvent), (schemas.EventPageOut, EventPage), (retraction.RetractionOut, Retraction),
]


@pytest.mark.parametrize(("model", "cls"), PAIRS, ids=[m.__name__ for m, _ in PAIRS])
def test_models_mirror_the_dataclasses(model, cls):
    answered = {"removed"} if model is schemas.PolicyBody else set()  # an answer's, sent back: read-only, ignored
    assert set(model.model_fields) - answered == {f.name for f in fields(cls)} - HIDDEN_FIELDS


def test_policy_body_defaults_are_the_policy_defaults():
    assert Policy.from_dict(schemas.PolicyBody().model_dump(exclude={"version", "removed"})) == Policy()


@pytest.mark.parametrize("sent", [30_000_000_000, "30000000000", " 30000000000 ", 30_000_000_000.0])
def test_epoch_seconds_are_seconds_however_sent(sent):
    """A number above 2e10 sent as a string (every query value) was read as milliseconds:
    `as_of=30000000000` meant 1970-12-14, not 2920-08-30."""
    from pydantic import TypeAdapter

    from vault_ray.actors.serve.schemas import FactIn, Time
    from vault_ray.models import as_utc

    assert as_utc(TypeAdapter(Time).validate_python(sent)).year == 2920
    assert FactIn(entity="user.x", text="x", observed_at=sent).observed_at == 30_000_000_000.0
