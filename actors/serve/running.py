"""Which vault-ray HTTP services run in the Ray cluster this process is connected to, and the
namespace of the store each serves: `vault-ray down` must not stop the actors (or the head)
under a running service, whose every call would then fail.

An app is vault-ray's when it runs the `VaultIngress` deployment, whatever its name (`vault-ray
serve` names it "vault-ray"; a Serve config or `serve.run` names it as it likes). The namespace
is in the deployment's user_config (`deployment.served_as`); an app deployed without it (an
older vault-ray) gives None: it may serve any namespace.
"""

from __future__ import annotations

from typing import Any

APP_NAME = "vault-ray"
"""The app's name under `vault-ray serve` (the deployment's default)."""
NAMESPACE_KEY = "vault_ray_namespace"
"""The key of the deployment's user_config that names the namespace served. Both live here, not in
`deployment` (which imports Ray Serve, FastAPI and the app: seconds), so that `vault-ray down` and a
refused `vault-ray serve --address` read them without that import."""
INGRESS = "VaultIngress"
GONE = ("DELETING", "NOT_STARTED")
SERVE_CONTROLLER = ("SERVE_CONTROLLER_ACTOR", "serve")
"""Ray Serve's controller actor: its name and namespace (ray/serve/_private/constants.py's
SERVE_CONTROLLER_NAME and SERVE_NAMESPACE, which Serve's own client looks it up by)."""


def serve_runs() -> bool:
    """Whether Ray Serve runs in the cluster this process is connected to: its controller actor
    is there. Asked of Ray by name, so that a cluster without Serve (the usual case for `vault-ray
    down`) is known as such without importing `ray.serve` (about 2 s)."""
    import ray  # noqa: PLC0415

    try:
        ray.get_actor(SERVE_CONTROLLER[0], namespace=SERVE_CONTROLLER[1])
    except ValueError:  # no actor of that name: Serve is not started
        return False
    return True


def vault_apps() -> dict[str, str | None]:
    """{app name: namespace served (None: not known)} of the vault-ray apps in this cluster's Ray
    Serve, nothing when Serve does not run there (no Serve controller: it is not started)."""
    if not serve_runs():
        return {}
    from ray.serve.context import _get_global_client  # noqa: PLC0415  (Serve's own client: its details)

    client = _get_global_client(raise_if_no_controller_running=False)
    if client is None:
        return {}
    details: dict[str, Any] = client.get_serve_details()
    found: dict[str, str | None] = {}
    for name, app in (details.get("applications") or {}).items():
        status = app.get("status", "")
        if str(getattr(status, "value", status)).upper() in GONE:
            continue
        for deployment in (app.get("deployments") or {}).values():
            if deployment.get("name") != INGRESS:
                continue
            config = (deployment.get("deployment_config") or {}).get("user_config") or {}
            namespace = config.get(NAMESPACE_KEY) if isinstance(config, dict) else None
            found[name] = namespace if isinstance(namespace, str) else None
    return found
