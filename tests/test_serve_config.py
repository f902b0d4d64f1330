"""The Serve config and the KubeRay RayService in cluster/ are valid Serve configs
whose application args the app builder accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
schema = pytest.importorskip("ray.serve.schema")
deployment = pytest.importorskip("vault_ray.actors.serve.deployment")

CLUSTER = Path(__file__).resolve().parents[1] / "cluster"


def configs() -> dict[str, dict]:
    service = yaml.safe_load((CLUSTER / "kuberay-rayservice.yaml").read_text())
    assert service["kind"] == "RayService"
    return {"serve-config.yaml": yaml.safe_load((CLUSTER / "serve-config.yaml").read_text()),
            "kuberay-rayservice.yaml": yaml.safe_load(service["spec"]["serveConfigV2"])}


@pytest.mark.parametrize("name", ["serve-config.yaml", "kuberay-rayservice.yaml"])
def test_serve_configs_are_valid(name):
    config = schema.ServeDeploySchema.model_validate(configs()[name])
    (app,) = config.applications
    assert app.import_path == "vault_ray.actors.serve.deployment:app_builder"
    args = deployment.ServeArgs(**app.args)  # what app_builder checks first
    assert args.store and args.tokens and args.tokens.startswith(args.store)
    (ingress,) = app.deployments
    assert ingress.name == "VaultIngress" and ingress.max_ongoing_requests == 64
    assert ingress.graceful_shutdown_timeout_s == deployment.Scaling().graceful_shutdown_s  # same as `vault-ray serve`


def test_app_builder_refuses_unknown_args():
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        deployment.ServeArgs(namespace="vault", replicas=3)  # scaling belongs to the deployments section


def test_scaling_passes_serve_options_and_refuses_unknown_ones():
    from vault_ray.errors import InvalidInput

    options = deployment.Scaling(replicas=2, deployment_options={"health_check_period_s": 3}).options()
    assert options["num_replicas"] == 2 and options["health_check_period_s"] == 3
    assert options["graceful_shutdown_timeout_s"] == 5.0  # not Serve's 20 s: an open event stream is cut then
    with pytest.raises(InvalidInput, match="graceful_shutdown_s"):
        deployment.Scaling(deployment_options={"graceful_shutdown_s": 1}).options()  # ours, not Serve's name
    for bad in (-1, float("nan"), "5", True):
        with pytest.raises(InvalidInput, match="graceful_shutdown_s"):
            deployment.Scaling(graceful_shutdown_s=bad).options()
    with pytest.raises(InvalidInput, match="bogus"):  # refused before Serve (or Ray) is started
        deployment.start(deployment.ServeConfig(namespace="x", embedder="hashing"),
                         deployment.Scaling(deployment_options={"bogus": 1}))
