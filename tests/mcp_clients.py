"""The SDK's own MCP client, the way the tests reach vault-ray's MCP server: over stdio
(a `vault-ray mcp` subprocess), over streamable HTTP (a bearer token), or in memory."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

VAULT_RAY = str(Path(sys.executable).with_name("vault-ray"))


def stdio(*args: str) -> StdioServerParameters:
    """`vault-ray mcp ARGS` as a subprocess of this test, on the code under test (the SDK passes
    the subprocess a few safe variables only: PYTHONPATH, when set, goes along)."""
    code = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None
    return StdioServerParameters(command=VAULT_RAY, args=["mcp", *args], env=code)


@asynccontextmanager
async def over_http(url: str, token: str | None = None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60.0, read=300.0)) as http, \
            Client(streamable_http_client(url, http_client=http)) as client:
        yield client


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


async def call(client: Client, tool: str, **arguments: object) -> str:
    """A tool call that must succeed; its text."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    return text_of(result)


async def refused(client: Client, tool: str, **arguments: object) -> str:
    """A tool call that must come back as a tool error; its text."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, text_of(result)
    assert result.structured_content is None
    return text_of(result)
