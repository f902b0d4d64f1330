"""Whether a Ray head asks for a token, asked before joining it, and this process's side made to match.

A driver that joins with token authentication (RAY_AUTH_MODE=token, or this machine's token that
`_use_local_token` sends to a head on 127.0.0.1) refuses every call the cluster's workers make to it
when the head runs without: the first actor or task result dies with Ray's `OwnerDiedError` (or
the job hangs). The reverse, no token for a head that asks for one, is refused by the head. So
before `ray.init` the head's GCS is asked one call *without* a token (`GetClusterId`, nothing sent
but the call): answered, the head runs without token authentication; refused as UNAUTHENTICATED,
it uses it. A head on this machine is then joined as it runs (the token sent only when it asks
for one) when RAY_AUTH_MODE is unset; a RAY_AUTH_MODE that contradicts the head is one
ClusterError that says so, before anything starts. A head that asks for a token is asked again
with the token this process would send: none, or one it refuses, is a ClusterError too (Ray
would retry for about 20 s and then blame the address)."""

from __future__ import annotations

import contextlib
import os

from ..errors import ClusterError

AUTH_MODE_ENV = "RAY_AUTH_MODE"
PROBE_TIMEOUT_S = 5.0


def asks_for_token(address: str, timeout: float = PROBE_TIMEOUT_S, *, token: str | None = None) -> bool | None:
    """True: the Ray head (GCS) at `address` (HOST:PORT) refuses a call that carries no token
    (token authentication), or `token` when given (not the cluster's); False: it answers it;
    None: not known (no gRPC or another Ray here, TLS, no answer in `timeout`): then nothing is
    concluded. ConnectionError: a gRPC server answers that knows no Ray head's service (UNIMPLEMENTED:
    another program's port, or a proxy), where `ray.init` would retry for about 20 s."""
    try:
        import grpc  # noqa: PLC0415
        from ray.core.generated import gcs_service_pb2, gcs_service_pb2_grpc  # noqa: PLC0415
    except ImportError:
        return None
    # a bare channel: none of Ray's interceptors, so no token; no HTTP proxy for a Ray port
    channel = grpc.insecure_channel(address, options=[("grpc.enable_http_proxy", 0)])
    try:
        stub = gcs_service_pb2_grpc.NodeInfoGcsServiceStub(channel)
        metadata = [("authorization", f"Bearer {token}")] if token else None
        stub.GetClusterId(gcs_service_pb2.GetClusterIdRequest(), timeout=timeout, metadata=metadata)
        return False
    except grpc.RpcError as exc:
        if exc.code() == grpc.StatusCode.UNIMPLEMENTED:
            raise ConnectionError(f"something listens at {address}, but no Ray cluster: it answers gRPC, but "
                                  "has no Ray head's services") from None
        return True if exc.code() == grpc.StatusCode.UNAUTHENTICATED else None
    except Exception:  # noqa: BLE001  (only the check is lost: Ray joins as it would without it)
        return None
    finally:
        with contextlib.suppress(Exception):
            channel.close()


def auth_mode() -> str | None:
    """RAY_AUTH_MODE as this process has it ("token", "disabled", ...), None when unset."""
    said = os.environ.get(AUTH_MODE_ENV)
    return said.strip().lower() if said is not None else None


def match_head(address: str, *, local: bool, asks: bool | None) -> bool:
    """Make this process join the head at `address` as it runs, or raise ClusterError when
    RAY_AUTH_MODE contradicts it. `asks`: `asks_for_token(address)`. `local`: a head on this
    machine (127.0.0.1, or found by "auto"), whose token this machine holds. True: this
    process joins without a token although Ray would send this machine's for "auto" (the
    caller passes the address itself to `ray.init`, for which Ray sends none)."""
    mode = auth_mode()
    if asks is False and mode == "token":
        raise ClusterError(
            f"the Ray cluster at {address} runs without token authentication, but RAY_AUTH_MODE=token here: its "
            "workers could not reach this process (the job would die with Ray's OwnerDiedError); nothing was "
            f"changed. Unset {AUTH_MODE_ENV} (or set {AUTH_MODE_ENV}=disabled) to join it, or restart that head with "
            "token authentication (`vault-ray up` starts one with it)")
    if asks is True and mode == "disabled":
        raise ClusterError(
            f"the Ray cluster at {address} uses token authentication, but RAY_AUTH_MODE=disabled here: it would "
            f"refuse this process; nothing was changed. Unset {AUTH_MODE_ENV} (a head on this machine is sent this "
            f"machine's token, ~/.ray/auth_token), or set {AUTH_MODE_ENV}=token with the cluster's token "
            "(RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH)")
    if asks is False:
        return local and mode is None
    if asks is True and mode in (None, "token"):  # another mode (Ray's others): Ray's to say
        check_token(address, own_token() if mode == "token" or local else None)
    if local and mode is None:  # it asks for a token, or may: this machine's
        use_local_token()
    return False


TOKEN_SOURCES = "RAY_AUTH_TOKEN, else the file RAY_AUTH_TOKEN_PATH names, else ~/.ray/auth_token"
GET_TOKEN = "`ray get-auth-token` on the head's machine prints it"


def check_token(address: str, token: str | None) -> None:
    """The head at `address` asks for a token: ClusterError unless this process sends one
    (`token`: the one it would send, "" when it has none; None: it sends none) that the head
    takes. Ray itself would retry for about 20 s and then say the address may be wrong."""
    if token is None:
        raise ClusterError(
            f"the Ray cluster at {address} uses token authentication, and this process sends no token to it (Ray "
            f"sends one to an address not on this machine only with {AUTH_MODE_ENV}=token); nothing was changed. "
            f"Set {AUTH_MODE_ENV}=token and give this process the cluster's token ({TOKEN_SOURCES}; {GET_TOKEN})")
    if not token:
        raise ClusterError(
            f"the Ray cluster at {address} uses token authentication, and this process has no token "
            f"({TOKEN_SOURCES}); nothing was changed. Give it the cluster's token ({GET_TOKEN})")
    if asks_for_token(address, token=token) is True:
        raise ClusterError(
            f"the Ray cluster at {address} refuses this process's token: it is not the cluster's ({TOKEN_SOURCES}); "
            f"nothing was changed. Give it the cluster's token ({GET_TOKEN})")


def own_token() -> str:
    """The token Ray would send from this process ("" when none): RAY_AUTH_TOKEN, else the file
    RAY_AUTH_TOKEN_PATH names, else ~/.ray/auth_token, read now."""
    try:
        from ray._raylet import AuthenticationTokenLoader  # noqa: PLC0415
    except ImportError:
        return ""
    loader = AuthenticationTokenLoader.instance()
    loader.reset_cache()  # read as the environment is now
    return str(loader.get_raw_token(ignore_auth_mode=True) or "")


def use_local_token() -> None:
    """Send this machine's Ray token (~/.ray/auth_token) to a head on this machine.

    Ray does that by itself only for address "auto"; for an explicit address it
    never does (the token must not leak to a remote server), so a head that
    `vault-ray up` started on 127.0.0.1 would refuse us. RAY_AUTH_MODE, when set,
    decides as always."""
    try:
        from ray._private.authentication.authentication_token_setup import (  # noqa: PLC0415
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:  # a Ray without token authentication
        return
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)
