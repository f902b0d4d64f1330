"""The HTTP service's tokens: only hashes on disk, roles, revocation seen by a running
server without a restart."""

from __future__ import annotations

import json
import stat
import threading

import pytest

from vault_ray import InvalidInput, NotFound, StoreError, UnknownAgent
from vault_ray.tokens import ROLES, Principal, TokenStore


@pytest.fixture
def tokens(tmp_path):
    return TokenStore.for_store(tmp_path / "store")


def test_a_token_names_its_agent_and_only_its_hash_is_kept(tokens):
    token, record = tokens.add("scheduler")
    who = tokens.authenticate(token)
    assert who == Principal("scheduler", "agent", record.id)
    text = tokens.path.read_text()
    assert token not in text and token.split("_", 2)[2] not in text  # vr_<id>_<secret>; the secret may hold "_"
    assert json.loads(text)["tokens"][0]["sha256"] == record.sha256
    assert stat.S_IMODE(tokens.path.stat().st_mode) == 0o600


@pytest.mark.parametrize("presented", [None, "", "vr_", "Bearer x", "vr_00000000_secret", "not-a-token"])
def test_missing_malformed_and_unknown_tokens_are_refused(tokens, presented):
    tokens.add("scheduler")
    with pytest.raises(UnknownAgent):
        tokens.authenticate(presented)


def test_a_token_with_a_known_id_and_a_wrong_secret_is_refused(tokens):
    token, _ = tokens.add("scheduler")
    with pytest.raises(UnknownAgent):
        tokens.authenticate(token[:-2] + ("AA" if not token.endswith("AA") else "BB"))


def test_a_running_server_sees_adds_and_revocations_without_a_restart(tokens):
    server = TokenStore(tokens.path)  # another instance, as in a replica
    with pytest.raises(UnknownAgent):
        server.authenticate("vr_00000000_x")
    token, record = tokens.add("chat")  # the CLI, later
    assert server.authenticate(token).name == "chat"
    (revoked,) = tokens.revoke(record.id)
    assert not revoked.active
    with pytest.raises(UnknownAgent) as err:
        server.authenticate(token)
    assert "revoked" in str(err.value) and err.value.token == record.id  # the id, never the secret


def test_revoke_by_agent_revokes_all_its_tokens(tokens):
    first, _ = tokens.add("chat")
    second, _ = tokens.add("chat")
    keep, _ = tokens.add("planner")
    assert len(tokens.revoke("chat")) == 2
    for token in (first, second):
        with pytest.raises(UnknownAgent):
            tokens.authenticate(token)
    assert tokens.authenticate(keep).name == "planner"
    with pytest.raises(NotFound):
        tokens.revoke("chat")  # nothing active left
    assert [r.agent for r in tokens.list()] == ["chat", "chat", "planner"]


def test_roles_are_ordered(tokens):
    admin, _ = tokens.add("ops", "admin")
    agent, _ = tokens.add("chat", "agent")
    assert tokens.authenticate(admin).allows("agent") and tokens.authenticate(admin).allows("admin")
    assert tokens.authenticate(agent).allows("agent") and not tokens.authenticate(agent).allows("admin")
    assert ROLES[0] == "agent" and ROLES[-1] == "admin"
    with pytest.raises(InvalidInput):
        tokens.add("x", "root")


@pytest.mark.parametrize("name", ["", "   ", " padded", "x" * 129, None, 7])
def test_agent_names_are_checked(tokens, name):
    with pytest.raises(InvalidInput):
        tokens.add(name)
    assert tokens.list() == []


def test_concurrent_adds_all_land(tokens):
    made: list[str] = []
    threads = [threading.Thread(target=lambda i=i: made.append(tokens.add(f"agent-{i}")[0])) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    server = TokenStore(tokens.path)
    assert sorted(server.authenticate(t).name for t in made) == sorted(f"agent-{i}" for i in range(12))


def test_an_unreadable_token_file_is_a_store_error(tokens):
    tokens.path.parent.mkdir(parents=True)
    tokens.path.write_text("{not json")
    with pytest.raises(StoreError):
        tokens.authenticate("vr_00000000_x")


def test_a_corrupt_token_file_answers_callers_without_its_path(tokens, caplog):
    """The server says the file is unreadable; where it lives and why goes to its log only."""
    tokens.add("chat")
    tokens.path.write_text("{not json")
    with pytest.raises(StoreError) as err:
        tokens.authenticate("vr_00000000_x")
    assert str(tokens.path) not in str(err.value) and "token file" in str(err.value)
    assert str(tokens.path) in caplog.text
    with pytest.raises(StoreError, match=str(tokens.path)):  # the operator's CLI still names it
        tokens.list()
