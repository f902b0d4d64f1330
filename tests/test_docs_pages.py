"""The service's API pages, /docs (Swagger UI) and /redoc, come whole from the service:
every script, style sheet and icon they load is served beside them, so they render where
there is no network (tests/integration/test_inbox_browser.py renders /docs in a browser)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("fastapi")  # the serve extra; `make test` installs it

from fastapi.testclient import TestClient  # noqa: E402

from vault_ray.actors.serve.app import create_app  # noqa: E402
from vault_ray.actors.serve.service import local_service  # noqa: E402
from vault_ray.tokens import TokenStore  # noqa: E402


@pytest.fixture
def client(make_vault, tmp_path):
    with TestClient(create_app(local_service(make_vault(), TokenStore(tmp_path / "tokens.json")))) as c:
        yield c


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_api_pages_load_nothing_from_another_host(client, page):
    html = client.get(page)
    assert html.status_code == 200 and "text/html" in html.headers["content-type"]
    assert not re.findall(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", html.text), "a page loads from another host"
    assets = re.findall(r"""(?:src|href)=["']?(/[^"' >]+)""", html.text) + re.findall(r"url: ['\"](/[^'\"]+)", html.text)
    scripts = [a for a in assets if a.endswith(".js")]
    assert scripts, html.text[:500]
    for asset in assets:
        got = client.get(asset)
        assert got.status_code == 200 and len(got.content) > 100, asset
    for script in scripts:
        assert "javascript" in client.get(script).headers["content-type"]
    assert client.get("/openapi.json").json()["paths"]["/v1/facts"]  # what the pages render


def test_the_page_assets_need_no_token_and_the_api_still_does(client):
    assert client.get("/docs-assets/swagger-ui.css").status_code == 200
    assert client.get("/v1/search", params={"q": "budget"}).status_code == 401
