"""A client given a URL that is not the service's base URL (the `/mcp` URL of docs/mcp.md's HTTP
config, `/v1`, a path under it) is told so, on the app on a real server on 127.0.0.1: the route's
404 names the URL it asked and what to give instead, rather than a bare "Not Found"; nothing is
written; `vault-ray mcp --url` and `vault-ray events --url` say the same on stderr. A 404 of the API
itself (an unknown claim) keeps its own class and message."""

from __future__ import annotations

import asyncio

import pytest
from typer.testing import CliRunner

from vault_ray import AsyncVaultClient, ClaimNotFound, NotFound, VaultClient
from vault_ray.cli import app

HINT = "without /v1 or /mcp"


@pytest.mark.parametrize("suffix", ["/mcp", "/v1", "/mcp/", "/inbox/static"])
def test_a_url_that_is_not_the_base_is_named_and_nothing_is_written(served_app, suffix):
    token = served_app.token("scheduler")
    with VaultClient(served_app.url + suffix, token, retries=0) as memory:
        with pytest.raises(NotFound, match=HINT) as refused:
            memory.add("I am in PST")
        with pytest.raises(NotFound, match=HINT):
            memory.get("user.timezone")
    assert type(refused.value) is NotFound
    assert f"POST {served_app.url}{suffix.rstrip('/')}/v1/messages answered 404" in str(refused.value)
    assert served_app.vault.claims() == []


def test_the_async_client_says_the_same(served_app):
    async def run():
        async with AsyncVaultClient(served_app.url + "/mcp", served_app.token("chat"), retries=0) as memory:
            await memory.whoami()

    with pytest.raises(NotFound, match=f"GET {served_app.url}/mcp/v1/whoami answered 404.*{HINT}"):
        asyncio.run(run())


def test_a_not_found_of_the_api_keeps_its_class_and_message(served_app):
    with VaultClient(served_app.url, served_app.token("chat"), retries=0) as memory, \
            pytest.raises(ClaimNotFound, match="no claim with id 'nope'") as missing:
        memory.claim("nope")
    assert HINT not in str(missing.value)


@pytest.mark.parametrize("command", [["mcp"], ["events"]])
def test_the_cli_names_the_wrong_url_on_stderr(served_app, command):
    done = CliRunner().invoke(app, [*command, "--url", served_app.url + "/mcp", "--token", served_app.token("chat")],
                              env={"COLUMNS": "400"})
    assert done.exit_code == 3
    said = " ".join(done.output.split())
    assert f"GET {served_app.url}/mcp/v1/" in said and HINT in said and "error:" in said
