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
    Unextracted,
    VaultEvent,
)
from vault_ray.engine.explain import Step
from vault_ray.wire import HIDDEN_FIELDS

schemas = pytest.importorskip("vault_ray.actors.serve.schemas")

PAIRS = [
    (schemas.DecisionOut, Decision), (schemas.AddResultOut, AddResult), (schemas.ClaimOut, Claim),
    (schemas.HitOut, Hit), (schemas.ResolutionOut, Resolution), (schemas.DisputeOut, Dispute),
    (schemas.CandidateOut, Candidate), (schemas.EntityViewOut, EntityView), (schemas.StepOut, Step),
    (schemas.ExplanationOut, Explanation), (schemas.PolicyOut, Policy), (schemas.RulesOut, AutoResolveRules),
    (schemas.RateLimitOut, RateLimit), (schemas.RegistryEntryOut, RegistryEntry),
    (schemas.PolicyBody, Policy), (schemas.RulesIn, AutoResolveRules), (schemas.RateLimitBody, RateLimit),
    (schemas.FactIn, Fact), (schemas.UnextractedOut, Unextracted),
    (schemas.VaultEventOut, VaultEvent), (schemas.EventPageOut, EventPage),
]


@pytest.mark.parametrize(("model", "cls"), PAIRS, ids=[m.__name__ for m, _ in PAIRS])
def test_models_mirror_the_dataclasses(model, cls):
    assert set(model.model_fields) == {f.name for f in fields(cls)} - HIDDEN_FIELDS


def test_policy_body_defaults_are_the_policy_defaults():
    assert Policy.from_dict(schemas.PolicyBody().model_dump(exclude={"version"})) == Policy()
