"""Cluster mode's one boundary with Ray's answers: `_get` is `ray.get` with Ray's errors
translated (an error of ours raised in an actor comes out as itself, a call to ask again as
`_Retry`, anything else as ClusterError). `ClusterBulk._answer` is the client's way through it."""

from __future__ import annotations

from typing import Any

import ray
from ray.exceptions import ActorDiedError, GetTimeoutError, RayActorError, RayError, RayTaskError

from ..errors import ClusterError, VaultError
from .routing import NotOwner


class _Retry(Exception):
    """A call to retry after a pause: the shard refused a partition or is restarting."""

    def __init__(self, why: str, *, reroute: bool, dead: bool = False) -> None:
        super().__init__(why)
        self.reroute = reroute
        self.dead = dead


def _get(ref: Any, timeout: float | None = None) -> Any:
    """ray.get with Ray's errors translated: the one boundary of cluster mode."""
    try:
        return ray.get(ref, timeout=timeout)
    except RayTaskError as exc:
        cause = exc.cause
        if isinstance(cause, NotOwner):
            raise _Retry(str(cause), reroute=True) from None
        if isinstance(cause, VaultError):
            raise cause from None
        raise ClusterError(f"a cluster actor failed: {cause!r}") from exc
    except ActorDiedError as exc:
        # for a shard: maybe retired by a rebalance; the fresh routes will not name it
        raise _Retry(f"actor died: {exc}", reroute=True, dead=True) from None
    except RayActorError as exc:  # restarting (ActorUnavailableError) or lost mid-call
        raise _Retry(f"actor unavailable: {exc}", reroute=False) from None
    except GetTimeoutError as exc:
        raise ClusterError(f"no answer from the cluster within {timeout}s") from exc
    except RayError as exc:
        raise ClusterError(f"cluster call failed: {exc}") from exc
