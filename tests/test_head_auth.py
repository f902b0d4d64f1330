"""Joining a Ray head whose token authentication this process's RAY_AUTH_MODE contradicts is one
clear ClusterError before anything starts; with RAY_AUTH_MODE unset a head on this machine is
joined as it runs (no token sent to a head without token authentication, where Ray's driver would
refuse the head's workers and the job die with OwnerDiedError).

The heads here are gRPC servers answering Ray's GCS `GetClusterId` call as a Ray 2.60 head does:
with token authentication, a call without the `authorization: Bearer TOKEN` metadata is refused
as UNAUTHENTICATED ("InvalidAuthToken: Authentication token is missing or incorrect", as checked
against `ray start --head` with RAY_AUTH_MODE=token); without it, the call is answered."""

from __future__ import annotations

import socket
from concurrent import futures

import pytest

pytest.importorskip("ray")
grpc = pytest.importorskip("grpc")

from ray.core.generated import gcs_service_pb2, gcs_service_pb2_grpc  # noqa: E402

from vault_ray import ClusterError, HashingEmbedder, Vault  # noqa: E402
from vault_ray.backends import connect, head_auth  # noqa: E402

TOKEN = "ab" * 32


class Gcs(gcs_service_pb2_grpc.NodeInfoGcsServiceServicer):
    def __init__(self, token: str | None) -> None:
        self.token = token

    def GetClusterId(self, request, context):  # noqa: N802  (the gRPC method's name)
        if self.token and dict(context.invocation_metadata()).get("authorization") != f"Bearer {self.token}":
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "InvalidAuthToken: Authentication token is missing or "
                          "incorrect")
        return gcs_service_pb2.GetClusterIdReply(cluster_id=b"\x01" * 28)


def serve_gcs(token: str | None):
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    gcs_service_pb2_grpc.add_NodeInfoGcsServiceServicer_to_server(Gcs(token), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, f"127.0.0.1:{port}"


@pytest.fixture
def open_head():
    """A head on 127.0.0.1 without token authentication."""
    server, address = serve_gcs(None)
    yield address
    server.stop(None)


@pytest.fixture
def token_head():
    """A head on 127.0.0.1 with token authentication."""
    server, address = serve_gcs(TOKEN)
    yield address
    server.stop(None)


@pytest.fixture(autouse=True)
def no_ray_address(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    yield
    monkeypatch.undo()  # the environment as it was, and Ray's token read from it again: a token
    from ray._raylet import AuthenticationTokenLoader  # left cached from a test's environment would

    AuthenticationTokenLoader.instance().reset_cache()  # be the one a later ray.init() uses


def closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def test_the_head_is_asked_whether_it_uses_token_authentication(open_head, token_head):
    assert head_auth.asks_for_token(open_head) is False
    assert head_auth.asks_for_token(token_head) is True
    assert head_auth.asks_for_token(closed_port(), timeout=2) is None  # nothing concluded


def test_connect_with_ray_auth_mode_token_to_a_head_without_it_is_one_clear_error(open_head, monkeypatch):
    import ray

    if ray.is_initialized():
        pytest.skip("this process joined Ray already: Vault.connect does not look at the address")
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    with pytest.raises(ClusterError) as raised:
        Vault.connect(open_head, embedder=HashingEmbedder())
    said = str(raised.value)
    assert f"the Ray cluster at {open_head} runs without token authentication, but RAY_AUTH_MODE=token" in said
    assert "OwnerDiedError" in said and "nothing was changed" in said
    assert "Unset RAY_AUTH_MODE" in said and "`vault-ray up`" in said
    assert "\n" not in said and not ray.is_initialized()


def test_ray_auth_mode_disabled_to_a_head_with_token_authentication_is_one_clear_error(token_head, monkeypatch):
    monkeypatch.setenv("RAY_AUTH_MODE", "Disabled")  # as Ray reads it: any case
    with pytest.raises(ClusterError, match="uses token authentication, but RAY_AUTH_MODE=disabled here") as raised:
        connect.prepare_address(token_head)
    assert "RAY_AUTH_TOKEN" in str(raised.value)


def test_a_mismatch_is_said_for_any_address_form(open_head, monkeypatch):
    """RAY_ADDRESS with "auto", "localhost:PORT": the same head, the same error."""
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    port = open_head.rsplit(":", 1)[1]
    for address, env in ((f"localhost:{port}", None), ("auto", open_head)):
        if env:
            monkeypatch.setenv("RAY_ADDRESS", env)
        with pytest.raises(ClusterError, match="runs without token authentication"):
            connect.prepare_address(address)


def test_no_token_is_sent_to_a_head_on_this_machine_without_token_authentication(open_head, monkeypatch):
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    assert connect.prepare_address(open_head) == open_head
    assert head_auth.auth_mode() is None  # this machine's token not switched on for the join


def test_auto_joins_a_head_without_token_authentication_by_its_address(open_head, monkeypatch, tmp_path):
    """For "auto" Ray sends this machine's token by itself: the head's own address is joined instead."""
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    from ray._private import services

    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))  # where `ray start` records the last head for "auto"
    (tmp_path / "ray").mkdir()
    (tmp_path / "ray" / "ray_current_cluster").write_text(open_head)
    # with one GCS process on the machine (another user's Ray) Ray's "auto" would take that one instead
    monkeypatch.setattr(services, "find_gcs_addresses", lambda: [])
    assert connect.prepare_address("auto") == open_head
    assert head_auth.auth_mode() is None


def test_a_matching_mode_joins_as_given(open_head, token_head, monkeypatch):
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN", TOKEN)  # the cluster's
    assert connect.prepare_address(token_head) == token_head
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    assert connect.prepare_address(open_head) == open_head
    assert head_auth.auth_mode() == "disabled"


@pytest.fixture
def no_token_here(monkeypatch, tmp_path):
    """This process has no token: none in the environment, no ~/.ray/auth_token."""
    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("RAY_AUTH_TOKEN_PATH", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))


def test_a_token_the_head_refuses_is_one_clear_error(token_head, monkeypatch):
    """Ray would retry for about 20 s, then say the address may be wrong."""
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN", "cd" * 32)  # another machine's
    with pytest.raises(ClusterError, match=f"the Ray cluster at {token_head} refuses this process's token") as raised:
        connect.prepare_address(token_head)
    assert "RAY_AUTH_TOKEN_PATH" in str(raised.value) and "ray get-auth-token" in str(raised.value)
    monkeypatch.setenv("RAY_AUTH_TOKEN", TOKEN)  # the cluster's: joined
    assert connect.prepare_address(token_head) == token_head


def test_no_token_for_a_head_that_asks_for_one_is_one_clear_error(token_head, monkeypatch, no_token_here):
    for mode in ("token", None):  # set, or unset on the head's machine (whose token is sent, when there is one)
        if mode:
            monkeypatch.setenv("RAY_AUTH_MODE", mode)
        else:
            monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
        with pytest.raises(ClusterError, match="uses token authentication, and this process has no token"):
            connect.prepare_address(token_head)


def test_a_remote_head_is_never_sent_this_machines_token(monkeypatch):
    """Not on this machine: Ray sends no token unless RAY_AUTH_MODE=token; a head there that asks
    for one is told so (Ray would blame the address), without this machine's token switched on."""
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    with pytest.raises(ClusterError, match="sends no token to it") as raised:
        head_auth.match_head("10.1.2.3:6379", local=False, asks=True)
    assert "Set RAY_AUTH_MODE=token" in str(raised.value)
    assert head_auth.match_head("10.1.2.3:6379", local=False, asks=False) is False
    assert head_auth.match_head("10.1.2.3:6379", local=False, asks=None) is False  # not known: as Ray joins
    assert head_auth.auth_mode() is None
