"""The offline judge with three or more sides (QA3 F2, F3): a writer's confidence only decides
among sides none of which another side clearly outweighs, and a vaguer value ("Maria") never
joins two values at odds ("Maria Gonzalez", "Maria Lopez") into one side."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from vault_ray import Claim, JudgeCase, Kind, RuleReasoner, Status

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def claim(cid, agent, value, confidence=1.0, entity="user.employer"):
    return Claim(cid, entity, f"{entity} is {value}", value, Kind.SEMANTIC, agent, None, T0, T0, Status.ACTIVE,
                 confidence=confidence)


def judge(incoming, incumbents, weights, cardinality="one"):
    return RuleReasoner().judge(JudgeCase(incoming, tuple(incumbents), weights, cardinality))


HEAVY_LIGHT = {"new": 0.5, "heavy": 0.65, "light": 0.35}


@pytest.mark.parametrize("order", ["heavy first", "light first"])
def test_a_confident_light_side_does_not_beat_a_side_that_clearly_outweighs_it(order):
    incumbents = [claim("h", "heavy", "Apple", 0.5), claim("l", "light", "Meta", 0.95)]
    judged = judge(claim("n", "new", "Google", 0.5), incumbents if order == "heavy first" else incumbents[::-1],
                   HEAVY_LIGHT)
    assert judged.winner is None and "no clear authority or confidence gap" in judged.rationale


def test_confidence_still_decides_among_the_sides_no_side_outweighs():
    incumbents = [claim("h", "heavy", "Apple", 0.5), claim("l", "light", "Meta", 0.95)]
    sure = judge(claim("n", "new", "Google", 0.9), incumbents, HEAVY_LIGHT)  # 0.9 against the heavy side's 0.5
    assert sure.winner == "n" and "new is clearly more confident (+0.40)" in sure.rationale
    heavy_sure = [claim("h", "heavy", "Apple", 0.8), claim("l", "light", "Meta", 0.95)]
    assert judge(claim("n", "new", "Google", 0.5), heavy_sure, HEAVY_LIGHT).winner == "h"
    close = {"new": 0.5, "heavy": 0.5, "light": 0.4}  # no side clearly outweighs the light one: its confidence counts
    judged = judge(claim("n", "new", "Google", 0.5), incumbents, close)
    assert judged.winner == "l" and "about as authoritative" in judged.rationale


NAME = "user.name"
WEIGHTS = {"new": 0.1, "vague": 0.1, "full": 0.9}


@pytest.mark.parametrize("bridge_first", [True, False])
def test_a_vaguer_value_does_not_join_two_people_into_one_side(bridge_first):
    bridge, other = claim("v", "vague", "Maria", entity=NAME), claim("f", "full", "Maria Gonzalez", entity=NAME)
    incumbents = [bridge, other] if bridge_first else [other, bridge]
    judged = judge(claim("n", "new", "Maria Lopez", entity=NAME), incumbents, WEIGHTS)
    assert judged.winner == "f" and "full has clearly more authority (+0.80)" in judged.rationale
    assert "agree" not in judged.rationale
    without = judge(claim("n", "new", "Maria Lopez", entity=NAME), [other], WEIGHTS)
    assert without.winner == "f"


def test_the_vaguer_value_is_on_the_incoming_side_too():
    """Weights the other way round: the incoming "Maria Lopez" is the heavy one, the bridge
    does not hand it to "Maria Gonzalez"."""
    incumbents = [claim("v", "vague", "Maria", entity=NAME), claim("f", "full", "Maria Gonzalez", entity=NAME)]
    judged = judge(claim("n", "new", "Maria Lopez", entity=NAME), incumbents, {"new": 0.9, "vague": 0.1, "full": 0.1})
    assert judged.winner == "n" and "new has clearly more authority" in judged.rationale


def test_a_third_value_faces_both_people_not_one_merged_side():
    incumbents = [claim("v", "vague", "Maria", entity=NAME), claim("l", "lopez", "Maria Lopez", entity=NAME),
                  claim("f", "full", "Maria Gonzalez", entity=NAME)]
    weights = {"new": 0.5, "vague": 0.1, "lopez": 0.1, "full": 0.9}
    judged = judge(claim("n", "new", "Ana", entity=NAME), incumbents, weights)
    assert judged.winner == "f" and "0.90 for the side of full, vague against 0.50" in judged.rationale


def test_on_a_many_entity_a_role_said_vaguely_does_not_join_two_holders():
    family = "user.family"
    incumbents = [claim("v", "vague", "mom:Ann", entity=family), claim("f", "full", "mother:Ann Smith", entity=family)]
    judged = judge(claim("n", "new", "mother:Ann Lee", entity=family), incumbents, WEIGHTS, "many")
    assert judged.winner == "f" and "full has clearly more authority" in judged.rationale


def test_claims_that_all_agree_still_have_no_side_to_choose():
    incumbents = [claim("v", "vague", "Maria", entity=NAME), claim("f", "full", "Maria Gonzalez", entity=NAME)]
    judged = judge(claim("n", "new", "maria gonzalez", entity=NAME), incumbents, WEIGHTS)
    assert judged.winner is None and "the claims agree" in judged.rationale
