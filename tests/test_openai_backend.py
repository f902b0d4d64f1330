"""OpenAIReasoner and OpenAIEmbedder with the real `openai` client against a
small OpenAI-compatible server on 127.0.0.1 that answers from a script."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from openai_server import ScriptedOpenAI

from vault_ray import (
    Claim,
    Fact,
    InvalidEmbedding,
    JudgeCase,
    Kind,
    Op,
    OpenAIEmbedder,
    OpenAIReasoner,
    Policy,
    ReasonerError,
    Status,
    Vault,
    prompts,
)

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def server():
    fake = ScriptedOpenAI(dim=64).start()
    yield fake
    fake.stop()


@pytest.fixture
def reasoner(server):
    r = OpenAIReasoner("test-model", base_url=server.base_url, api_key="sk-test", max_retries=0, timeout=10)
    yield r
    r.close()


def claim(cid, agent, text, value=None, seconds=0, session=None, entity="user.diet"):
    t = T0 + timedelta(seconds=seconds)
    return Claim(cid, entity, text, value, Kind.SEMANTIC, agent, session, t, t, Status.ACTIVE)


def sent_prompt(server, i=-1) -> str:
    return server.chats()[i]["messages"][-1]["content"]


# -- the one call: JSON, validated, retried once ------------------------------------------------
def test_extract_sends_json_mode_model_and_key(server, reasoner):
    server.answers.append({"facts": [{"entity": "User.Diet ", "text": "The user is vegan", "value": "vegan",
                                      "kind": "semantic"}]})
    facts = reasoner.extract([{"role": "user", "content": "I'm vegan now"}, {"role": "assistant", "content": "Noted"}])
    assert facts == [Fact("user.diet", "The user is vegan", value="vegan", kind="semantic")]
    (body,) = server.chats()
    assert body["model"] == "test-model" and body["response_format"] == {"type": "json_object"}
    assert body["temperature"] == 0.0
    assert prompts.VERSION in body["messages"][0]["content"]
    assert "I'm vegan now" in sent_prompt(server) and "Noted" in sent_prompt(server)
    assert server.headers[-1]["authorization"] == "Bearer sk-test"
    assert reasoner.prompt_version == prompts.VERSION


def test_a_malformed_answer_is_retried_once_with_what_was_wrong(server, reasoner):
    server.answers += ["Sure! Here are the facts: vegan", {"facts": []}]
    assert reasoner.extract("I'm vegan") == []
    first, second = server.chats()
    assert len(second["messages"]) == len(first["messages"]) + 2
    assert second["messages"][-2] == {"role": "assistant", "content": "Sure! Here are the facts: vegan"}
    assert "not valid JSON" in second["messages"][-1]["content"]


@pytest.mark.parametrize(
    "bad",
    [
        "not json at all",
        "[1, 2]",
        {"facts": "vegan"},
        {"facts": [{"entity": "Bad Key!", "text": "x"}]},
        {"facts": [{"entity": "user.diet", "text": "   "}]},
        {"facts": [{"entity": "user.diet", "text": "x", "kind": "opinion"}]},
    ],
)
def test_a_malformed_answer_twice_is_a_reasoner_error(server, reasoner, bad):
    server.answers += [bad, bad]
    with pytest.raises(ReasonerError) as info:
        reasoner.extract("I'm vegan")
    assert "twice" in str(info.value)
    assert info.value.answer == (bad if isinstance(bad, str) else json.dumps(bad))
    assert len(server.chats()) == 2


def test_server_errors_become_reasoner_errors(server, reasoner):
    server.fail_with = 500
    with pytest.raises(ReasonerError, match="failed on extract"):
        reasoner.extract("I'm vegan")


# -- classification, contradiction, disambiguation ---------------------------------------------------
def test_classify_maps_labels_back_to_claim_ids(server, reasoner):
    own = [claim("id-old-1", "a", "The user goes to the gym at 7am"), claim("id-old-2", "a", "The user likes jazz")]
    server.answers.append({"op": "UPDATE", "targets": ["c1"], "reason": "adds the weekdays"})
    verdict = reasoner.classify(claim("id-new", "a", "The user goes to the gym at 7am on weekdays"), own, "one")
    assert verdict.op == Op.UPDATE and verdict.targets == ("id-old-1",) and verdict.reason == "adds the weekdays"
    prompt = sent_prompt(server)
    assert "id-old-1" not in prompt and '"c1"' in prompt and "on weekdays" in prompt


@pytest.mark.parametrize(
    "bad", [{"op": "MERGE", "targets": []}, {"op": "NOOP", "targets": []}, {"op": "ADD", "targets": ["c1"]},
            {"op": "REPLACE", "targets": ["c9"]}, {"op": "REPLACE", "targets": "c1"}],
)
def test_classify_rejects_invalid_answers(server, reasoner, bad):
    server.answers += [bad, {"op": "REPLACE", "targets": ["c1"], "reason": "contradicts"}]
    verdict = reasoner.classify(claim("n", "a", "new"), [claim("o", "a", "old")], "one")
    assert verdict.op == Op.REPLACE and verdict.targets == ("o",)
    assert len(server.chats()) == 2


def test_conflicts_compare_values_without_a_call_and_ask_about_free_text(server, reasoner):
    others = [claim("x", "b", "The user is vegan", "vegan"), claim("y", "c", "The user is vegetarian", "vegetarian")]
    assert reasoner.conflicts(claim("n", "a", "The user is vegan", "vegan"), others, "one") == ["y"]
    assert server.chats() == []
    server.answers.append({"contradicts": ["c2"]})
    free = [claim("x", "b", "The user eats no animal products"), claim("y", "c", "The user eats fish on Fridays")]
    assert reasoner.conflicts(claim("n", "a", "The user is vegan"), free, "one") == ["y"]
    assert len(server.chats()) == 1


def test_disambiguate_picks_a_candidate_or_keeps_the_label(server, reasoner):
    fact = Fact("user.tz", "The user is in PST", value="PST")
    server.answers += [{"entity": "user.timezone"}, {"entity": None}, {"entity": "user.made_up"},
                       {"entity": "user.made_up"}]
    assert reasoner.disambiguate(fact, ["user.timezone", "user.location"]) == "user.timezone"
    assert reasoner.disambiguate(fact, ["user.timezone"]) is None
    with pytest.raises(ReasonerError):
        reasoner.disambiguate(fact, ["user.timezone"])


# -- the judge ---------------------------------------------------------------------------------------------
def judge_case() -> JudgeCase:
    incoming = claim("id-mobile", "mobile", "The user is vegan", "vegan", 2, session="phone")
    incumbent = claim("id-web", "web", "The user is vegetarian", "vegetarian", 0, session="browser")
    return JudgeCase(incoming, (incumbent,), {"mobile": 0.4, "web": 0.7})


def test_judge_sees_provenance_and_names_a_winner(server, reasoner):
    server.answers.append({"winner": "new", "rationale": "the phone session is newer"})
    j = reasoner.judge(judge_case())
    assert j.winner == "id-mobile" and j.rationale == "the phone session is newer"
    prompt = sent_prompt(server)
    for shown in ('"agent": "mobile"', '"session": "browser"', '"weight": 0.7', "2026-01-01T12:00:02+00:00",
                  "The user is vegetarian"):
        assert shown in prompt
    assert "id-web" not in prompt and "id-mobile" not in prompt
    server.answers.append({"winner": "c1", "rationale": "explicit form entry"})
    assert reasoner.judge(judge_case()).winner == "id-web"


def test_judge_may_answer_ambiguous(server, reasoner):
    server.answers.append({"winner": None, "rationale": "two seconds apart, no way to tell"})
    assert reasoner.judge(judge_case()).winner is None


@pytest.mark.parametrize("bad", [{"winner": "c7", "rationale": "x"}, {"rationale": "x"}, {"winner": "new"},
                                 {"winner": "new", "rationale": ""}])
def test_judge_rejects_invalid_answers(server, reasoner, bad):
    server.answers += [bad, bad]
    with pytest.raises(ReasonerError):
        reasoner.judge(judge_case())


# -- the embedder ------------------------------------------------------------------------------------------
def test_embedder_returns_unit_rows_in_order_and_batches(server):
    emb = OpenAIEmbedder("emb-model", dim=64, base_url=server.base_url, api_key="sk-test", batch_size=2,
                         max_retries=0)
    texts = ["the user is vegan", "pizza", "the user is vegan", "jazz", "chess"]
    vecs = emb.embed(texts)
    assert vecs.shape == (5, 64) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vecs[0], vecs[2]) and not np.allclose(vecs[0], vecs[1])
    assert np.allclose(vecs, server.embedder.embed(texts), atol=1e-6)
    bodies = [b for p, b in server.requests if p.endswith("/embeddings")]
    assert [len(b["input"]) for b in bodies] == [2, 2, 1] and bodies[0]["model"] == "emb-model"
    assert emb.name == "openai:emb-model:64"


def test_embedder_checks_the_dimension(server):
    emb = OpenAIEmbedder("emb-model", dim=32, base_url=server.base_url, api_key="k", max_retries=0)
    with pytest.raises(InvalidEmbedding, match="store needs"):
        emb.embed(["x"])
    sized = OpenAIEmbedder("emb-model", dim=64, base_url=server.base_url, api_key="k", max_retries=0,
                           send_dimensions=True)
    sized.embed(["x"])
    assert server.requests[-1][1]["dimensions"] == 64


def test_embedder_server_error(server):
    server.fail_with = 503
    emb = OpenAIEmbedder("emb-model", dim=64, base_url=server.base_url, api_key="k", max_retries=0)
    with pytest.raises(ReasonerError):
        emb.embed(["x"])


# -- end to end: a vault on the OpenAI backend ---------------------------------------------------------------
def test_vault_on_openai_judge_decides_near_simultaneous_writes(server, tmp_path):
    emb = OpenAIEmbedder("emb", dim=64, base_url=server.base_url, api_key="k", max_retries=0)
    reasoner = OpenAIReasoner("chat", base_url=server.base_url, api_key="k", max_retries=0)
    policy = Policy(near_simultaneous_s=30, default_on_ambiguous="judge")
    with Vault.open(tmp_path / "store", embedder=emb, reasoner=reasoner, policy=policy) as vault:
        server.answers.append({"facts": [{"entity": "user.diet", "text": "The user is vegetarian",
                                          "value": "vegetarian", "kind": "semantic"}]})
        (web,) = vault.agent("web").add("I'm vegetarian", session="web", observed_at=T0).decisions
        server.answers += [
            {"facts": [{"entity": "user.diet", "text": "The user is vegan", "value": "vegan", "kind": "semantic"}]},
            {"winner": "new", "rationale": "the later, more specific statement"},
        ]
        (mobile,) = vault.agent("mobile").add("I'm vegan", session="mobile",
                                              observed_at=T0 + timedelta(seconds=2)).decisions
        assert mobile.outcome == "active" and mobile.superseded == (web.claim_id,)
        assert vault.get("user.diet").values == ("vegan",)
        judged = [b for b in server.chats() if "Decide which fact" in b["messages"][-1]["content"]]
        assert len(judged) == 1 and len(server.chats()) == 3  # two extractions, one judge call
        (step,) = vault.explain(mobile.claim_id).steps
        assert step.rationale == "the later, more specific statement"


def test_importing_vault_ray_does_not_import_openai():
    code = "import sys, vault_ray, vault_ray.openai_backend; print('openai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_no_key_anywhere_is_a_reasoner_error(monkeypatch):
    """The SDK's own OpenAIError ("Missing credentials") escaped the project's error tree."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_ADMIN_KEY", raising=False)
    with pytest.raises(ReasonerError, match="OpenAI client"):
        OpenAIReasoner()
