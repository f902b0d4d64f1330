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

from .deployment import NAMESPACE_KEY

INGRESS = "VaultIngress"
GONE = ("DELETING", "NOT_STARTED")


def vault_apps() -> dict[str, str | None]:
    """{app name: namespace served (None: not known)} of the vault-ray apps in this cluster's Ray
    Serve, nothing when Serve does not run there (no Serve controller: it is not started)."""
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
