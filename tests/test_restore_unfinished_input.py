"""A write to a store whose restore is unfinished hears of its own mistake first: a bad entity
name, an empty text or value, a confidence out of range, a turn with no user message, ... is the
error it gets (InvalidEntity, InvalidFact, InvalidInput: a 422 over HTTP), and only a well-formed
write is refused for the restore (RestoreUnfinished); either way nothing changes and nothing is
extracted or embedded (engine/request_checks.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
import test_restore_unfinished as unfinished
from bulk_data import reads
from test_restore_unfinished import refused_for_the_restore

from vault_ray import Fact, InvalidEntity, InvalidFact, InvalidInput, RestoreUnfinished, Vault, WriteRequest

exported, half = unfinished.exported, unfinished.half  # the store whose restore stopped after 2 of 4 partitions
PORTO = Fact("user.city", "The user lives in Porto", "porto")
LATER = datetime.now(UTC) + timedelta(days=30)

MISTAKES = {  # what the writer did wrong, and the error that says so
    "entity name": (lambda a: a.add_facts([Fact("User City!", "The user lives in Porto", "porto")]), InvalidEntity),
    "empty entity": (lambda a: a.add_facts([Fact("", "The user lives in Porto")]), InvalidEntity),
    "empty text": (lambda a: a.add_facts([Fact("user.city", "  ", "porto")]), InvalidFact),
    "empty value": (lambda a: a.add_facts([Fact("user.city", "The user lives in Porto", " ")]), InvalidFact),
    "confidence": (lambda a: a.add_facts([Fact("user.city", "The user lives in Porto", confidence=1.5)]), InvalidFact),
    "confidence as text": (lambda a: a.add_facts([Fact("user.pet", "A cat", "cat", confidence="high")]), InvalidFact),
    "kind": (lambda a: a.add_facts([Fact("user.pet", "The user has a cat", "cat", kind="rumour")]), InvalidFact),
    "future": (lambda a: a.add_facts([PORTO, Fact("user.pet", "A cat", "cat", observed_at=LATER)]), InvalidFact),
    "second fact": (lambda a: a.add_facts([PORTO, Fact("user.diet", "", "vegan")]), InvalidFact),
    "same claim id": (lambda a: a.add_facts([Fact("user.a", "A is 1", claim_id="c1"), Fact("user.b", "B is 2", claim_id="c1")]),
                      InvalidFact),
    "no facts": (lambda a: a.add_facts([]), InvalidFact),
    "not a fact": (lambda a: a.add_facts([{"entity": "user.city", "text": "Porto"}]), InvalidFact),
    "vectors": (lambda a: a.add_facts([PORTO], vectors=np.zeros((2, 3), dtype=np.float32)), InvalidInput),
    "empty turn": (lambda a: a.add("   "), InvalidFact),
    "no user message": (lambda a: a.add([{"role": "assistant", "content": "Where do you live?"}]), InvalidFact),
    "turn time": (lambda a: a.add("I live in Porto", observed_at="yesterday"), InvalidFact),
    "session": (lambda a: a.add_facts([PORTO], session=""), InvalidInput),
}


def test_the_writers_own_mistake_comes_before_the_restores_refusal(half):
    # cluster mode: tests/integration/test_restore_resume_cluster.py (the same checks run in `Vault`)
    store, export = half
    embedder = unfinished.CountingEmbedder()
    with pytest.warns(unfinished.UnfinishedRestoreWarning):
        vault = Vault.open(store, embedder=embedder)
    with vault:
        before = reads(vault, explain=False)
        embedder.texts.clear()
        ops = vault.agent("ops")
        for name, (write, error) in MISTAKES.items():
            with pytest.raises(error) as raised:
                write(ops)
            assert not isinstance(raised.value, RestoreUnfinished), name
        for good in (lambda: ops.add_facts([PORTO]), lambda: ops.add("I live in Porto"),
                     lambda: ops.add_facts([PORTO], vectors=embedder.embed([PORTO.text]))):
            with pytest.raises(RestoreUnfinished) as refused:  # well-formed: refused for the restore
                good()
            refused_for_the_restore(refused.value, export)
        embedder.texts.clear()
        batch = vault.write_batch([WriteRequest("ops", facts=[Fact("user.x", "")]), WriteRequest("crm", facts=[PORTO]),
                                   WriteRequest("crm", messages="")])
        assert [type(r) for r in batch] == [InvalidFact, RestoreUnfinished, InvalidFact]
        assert embedder.texts == [] and reads(vault, explain=False) == before  # nothing embedded, nothing changed


def test_over_http_a_bad_body_is_a_422_and_a_good_one_the_409(half):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from vault_ray.actors.serve.app import create_app
    from vault_ray.actors.serve.service import local_service
    from vault_ray.tokens import TokenStore

    store, export = half
    tokens = TokenStore(store.parent / "tokens.json")
    agent = {"Authorization": f"Bearer {tokens.add('ops')[0]}"}
    with pytest.warns(unfinished.UnfinishedRestoreWarning):
        vault = Vault.open(store, embedder=unfinished.CountingEmbedder())
    with vault, TestClient(create_app(local_service(vault, tokens))) as client:
        bad = [("/v1/facts", {"facts": [{"entity": "User City!", "text": "The user lives in Porto"}]}, "InvalidEntity"),
               ("/v1/facts", {"facts": [{"entity": "user.city", "text": " "}]}, None),
               ("/v1/facts", {"facts": [{"entity": "user.city", "text": "Porto", "confidence": 7}]}, None),
               ("/v1/facts", {"facts": [{"entity": "user.city", "text": "Porto", "value": " "}]}, "InvalidFact"),
               ("/v1/facts", {"facts": []}, None),
               ("/v1/messages", {"text": "  "}, None),
               ("/v1/messages", {"messages": [{"role": "assistant", "content": "Hi"}]}, "InvalidFact")]
        for path, body, kind in bad:
            answer = client.post(path, headers=agent, json=body)
            assert answer.status_code == 422, (body, answer.text)
            assert kind is None or answer.json()["type"].endswith(f":{kind}"), answer.text
        good = client.post("/v1/facts", headers=agent, json={"facts": [{"entity": "user.city", "text": "Porto"}]})
        assert good.status_code == 409 and good.json()["type"].endswith(":RestoreUnfinished"), good.text
        assert vault.embedder.texts == []
