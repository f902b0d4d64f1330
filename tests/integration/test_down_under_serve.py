"""`vault-ray down` under a running HTTP service: stopping the store's actors under it would fail
every call it takes, so `down` is refused (exit 4, one line saying to stop the service first) and
nothing is stopped; the store of another namespace, which no service uses, goes down as before;
`--force` removes the service's Serve app first, then stops the actors."""

from __future__ import annotations

from ray import serve
from ray.serve._private.constants import SERVE_CONTROLLER_NAME, SERVE_NAMESPACE
from typer.testing import CliRunner

from vault_ray import Fact
from vault_ray.actors.serve.running import SERVE_CONTROLLER, serve_runs
from vault_ray.backends.connect import find_control
from vault_ray.cli import app

from .served import served


def test_down_is_refused_under_a_running_service_and_force_removes_it(serve_port, cluster, gcs_address, tmp_path):
    other = cluster("other")  # another namespace's store on the same cluster: no service uses it
    other_namespace = other.info().namespace
    runner = CliRunner()
    with served(tmp_path, serve_port) as store:
        namespace = store.vault.info().namespace
        store.vault.agent("a").add_facts([Fact("user.city", "The user lives in Paris", value="Paris")])
        client = store.client("dashboard")
        assert client.get("user.city").values == ("Paris",)
        # `down` asks Ray for Serve's controller by the name Serve itself uses, without importing Serve
        assert SERVE_CONTROLLER == (SERVE_CONTROLLER_NAME, SERVE_NAMESPACE) and serve_runs()

        refused = runner.invoke(app, ["down", "--address", gcs_address, "--namespace", namespace])
        said = " ".join(refused.output.split())
        assert refused.exit_code == 4, said
        assert f"a vault-ray HTTP service (Ray Serve app '{store.app_name}') uses the actors of namespace " \
               f"'{namespace}'" in said
        assert "Nothing was stopped" in said and "Ctrl-C (or SIGTERM)" in said and "--force" in said
        assert client.get("user.city").values == ("Paris",)  # the service still answers: nothing was stopped
        assert find_control(namespace) is not None

        down = runner.invoke(app, ["down", "--address", gcs_address, "--namespace", other_namespace])
        assert down.exit_code == 0, down.output
        assert find_control(other_namespace) is None and find_control(namespace) is not None

        forced = runner.invoke(app, ["down", "--address", gcs_address, "--namespace", namespace, "--force"])
        assert forced.exit_code == 0, forced.output
        assert f"removed the HTTP service's Ray Serve app '{store.app_name}'" in " ".join(forced.output.split())
        assert store.app_name not in serve.status().applications
        assert find_control(namespace) is None
