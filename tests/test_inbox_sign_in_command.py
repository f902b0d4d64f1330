"""Making a token that opens the inbox (qa4 finding 3: the page showed `vault-ray token add NAME
--role resolver` with no token file, which `token add` refuses). The sign-in page is seen by anyone
who reaches the service, so it shows the command with FILE for the token file, never this machine's
path to it; `vault-ray serve` prints the whole command (the token file filled in) where it starts,
and run as printed (a name in place of NAME), it makes a token that opens the inbox."""

from __future__ import annotations

import html
import re
import shlex

import pytest
from typer.testing import CliRunner

from vault_ray.cli import app
from vault_ray.cli.serve import _announce

fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from vault_ray.actors.serve.app import create_app  # noqa: E402
from vault_ray.actors.serve.service import local_service  # noqa: E402
from vault_ray.tokens import TokenStore  # noqa: E402


@pytest.mark.parametrize("folder", ["plain", "with space's"])
def test_the_command_serve_prints_makes_a_token_that_signs_in(make_vault, tmp_path, folder, capsys):
    vault = make_vault()
    (tmp_path / folder).mkdir()
    tokens = TokenStore(tmp_path / folder / "tokens.json")
    _announce("http://127.0.0.1:8000", str(tmp_path / folder), tokens.path, None, "vault")
    (printed,) = re.findall(r"inbox: http://127\.0\.0\.1:8000/inbox \(sign in with a resolver token: (.*)\)$",
                            capsys.readouterr().out, re.M)
    with TestClient(create_app(local_service(vault, tokens))) as client:
        page = client.get("/inbox")
        assert page.status_code == 200
        (shown,) = re.findall(r"<code>(vault-ray token add [^<]*)</code>", page.text)
        assert html.unescape(shown) == "vault-ray token add NAME --role resolver --tokens FILE"
        assert str(tmp_path) not in html.unescape(page.text) and "STORE/tokens.json" in page.text
        command = shlex.split(printed)  # the page's command, FILE filled in where the service started
        assert command == [*shlex.split(html.unescape(shown))[:-1], str(tokens.path)]
        ran = CliRunner().invoke(app, [*command[1:3], "dana", *command[4:]])
        assert ran.exit_code == 0, ran.output
        token = next(w for w in ran.output.split() if w.startswith("vr_"))
        signed = client.post("/inbox/sign-in", data={"token": token}, follow_redirects=False)
        assert signed.status_code == 303
        # a refused sign-in shows the same command again, and no path either
        refused = client.post("/inbox/sign-in", data={"token": "vr_nope"}, follow_redirects=False)
        assert refused.status_code == 401 and shown in refused.text and str(tmp_path) not in html.unescape(refused.text)
