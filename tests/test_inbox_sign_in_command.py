"""The inbox sign-in page shows a command that works as written (qa4 finding 3: it showed
`vault-ray token add NAME --role resolver` with no token file, which `token add` refuses):
the page names the service's own token file; run as shown (a name in place of NAME), it makes
a token that opens the inbox."""

from __future__ import annotations

import html
import re
import shlex

import pytest
from typer.testing import CliRunner

from vault_ray.cli import app

fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from vault_ray.actors.serve.app import create_app  # noqa: E402
from vault_ray.actors.serve.service import local_service  # noqa: E402
from vault_ray.tokens import TokenStore  # noqa: E402


@pytest.mark.parametrize("folder", ["plain", "with space's"])
def test_the_command_on_the_sign_in_page_makes_a_token_that_signs_in(make_vault, tmp_path, folder):
    vault = make_vault()
    (tmp_path / folder).mkdir()
    tokens = TokenStore(tmp_path / folder / "tokens.json")
    with TestClient(create_app(local_service(vault, tokens))) as client:
        page = client.get("/inbox")
        assert page.status_code == 200
        (shown,) = re.findall(r"<code>(vault-ray token add [^<]*)</code>", page.text)
        command = shlex.split(html.unescape(shown))
        assert command[:3] == ["vault-ray", "token", "add"] and str(tokens.path) in command
        ran = CliRunner().invoke(app, [*command[1:3], "dana", *command[4:]])
        assert ran.exit_code == 0, ran.output
        token = next(w for w in ran.output.split() if w.startswith("vr_"))
        signed = client.post("/inbox/sign-in", data={"token": token}, follow_redirects=False)
        assert signed.status_code == 303
        # a refused sign-in shows the same command again
        refused = client.post("/inbox/sign-in", data={"token": "vr_nope"}, follow_redirects=False)
        assert refused.status_code == 401 and shown in refused.text
