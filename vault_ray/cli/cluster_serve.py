"""`vault-ray down` under a running HTTP service: refused (or, with --force, the service's app
removed first). Stopping the store's actors under a `vault-ray serve` fails every call it takes;
stopping the head it runs on stops it. Ray Serve's own record of the apps running in the cluster
says which (`actors/serve/running.py`), not a file a crashed service could leave behind.
Ray is imported inside the function."""

from __future__ import annotations

import socket

from ..errors import ClusterError
from .common import console


def check_not_served(address: str | None, namespace: str, *, keep_ray: bool, force: bool) -> None:
    """ClusterError when a vault-ray Serve app in the cluster at `address` serves `namespace`'s store
    (or any store, when `down` would also stop the head it runs on); with `force`, remove those apps."""
    from vault_ray.backends.connect import control_info, ensure_ray, find_control  # noqa: PLC0415

    ensure_ray(address, namespace)  # first: a wrong address is said before Serve's import (seconds)
    handle = find_control(namespace)
    if handle is None:  # no store there: `shutdown` says so
        return
    from vault_ray.actors.serve.running import vault_apps  # noqa: PLC0415
    apps = vault_apps()
    if not apps:
        return
    info = control_info(handle)
    head = (info.get("head") or {}) if info["error"] is None else {}
    using = sorted(name for name, served in apps.items() if served in (namespace, None))
    stops_head = bool(head.get("pid")) and not keep_ray and head.get("host") == socket.gethostname()
    on_head = sorted(name for name in apps if name not in using) if stops_head else []
    if not using and not on_head:
        return
    if force:
        _remove(using + on_head)
        return
    if using:
        names = ", ".join(map(repr, using))
        if head.get("by") == "serve":
            what = ("stop the service instead: Ctrl-C (or SIGTERM) where `vault-ray serve --store` runs; it stops "
                    "the store's actors and its own Ray with it, so nothing is left for `down`")
        else:
            what = ("stop the service first: Ctrl-C (or SIGTERM) where its `vault-ray serve --address` runs (it "
                    "leaves the store's actors running), then run `vault-ray down` again")
        raise ClusterError(f"a vault-ray HTTP service (Ray Serve app {names}) uses the actors of namespace "
                           f"{namespace!r}: stopping them under it would fail every call it takes. Nothing was "
                           f"stopped; {what} (or pass --force: its app is removed first, its clients get errors)")
    served = ", ".join(f"{name!r} (namespace {apps[name]!r})" for name in on_head)
    raise ClusterError(f"stopping the Ray head at {head.get('address')} would stop the vault-ray HTTP service(s) "
                       f"running on it: Ray Serve app {served}. Nothing was stopped; stop them first (Ctrl-C where "
                       "their `vault-ray serve` runs), or keep the head with --keep-ray (or pass --force: their "
                       "apps are removed first)")


def _remove(names: list[str]) -> None:
    from ray import serve  # noqa: PLC0415

    for name in names:
        serve.delete(name)
        console.print(f"--force: removed the HTTP service's Ray Serve app {name!r} (its `vault-ray serve`, if still "
                      "running, waits for Ctrl-C)", highlight=False)
