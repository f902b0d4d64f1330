"""vault-ray as an MCP server: the shared memory as tools for LLM agents (docs/mcp.md).

- `memory`: `Memory`, the one interface the tools work against, satisfied by
  `AsyncVaultClient` as it is and by `VaultMemory` (a `Vault` seen by one principal);
- `text`: the answers as text for a model (a dispute is never hidden);
- `server`: `build_server(memory)`, the tools, resources and prompt on the SDK's `MCPServer`;
- `http`: the server behind the HTTP service's bearer tokens (the Serve app mounts it at /mcp).

`vault-ray mcp` (vault_ray/cli/mcp.py) runs it over stdio.
"""

from .memory import Memory, VaultMemory, may_resolve, resolve_role
from .server import build_server

__all__ = ["Memory", "VaultMemory", "build_server", "may_resolve", "resolve_role"]
