"""The one interface the MCP tools work against, and its adapter over a `Vault`.

`Memory` is what the tools need of a memory, seen by one principal (the agent its
writes carry). Two things satisfy it:

- `AsyncVaultClient(url, token)`, as it is: the HTTP service's client already has
  these methods, and the token names the principal (`vault-ray mcp --url --token`);
- `VaultMemory(vault, principal)`: an embedded or cluster-mode `Vault` seen by one
  principal (`vault-ray mcp --store PATH --agent NAME`, and the `/mcp` endpoint of
  the Serve app, once per request, with the principal of the bearer token).

Settling a dispute and taking claims back (`retract`, `forget`) need a role that
allows it (`may_resolve`): the HTTP service checks it for the client, `VaultMemory`
for a vault.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

from anyio import to_thread

from ..engine.explain import Explanation
from ..errors import Forbidden, VaultError
from ..models import AddResult, Claim, Dispute, EntityView, Fact, Hit, Retraction, WriteRequest
from ..tokens import ROLES, Principal
from ..vault import Vault

T = TypeVar("T")
Write = Callable[[WriteRequest], Awaitable["AddResult | VaultError"]]
"""How a write is sent: alone (the default), or batched with the HTTP service's writes."""


class Memory(Protocol):
    """The store as one principal sees it; every method may raise a `VaultError`."""

    async def add(self, messages: str, *, session: str | None = None) -> AddResult: ...
    async def add_facts(self, facts: Sequence[Fact], *, session: str | None = None) -> AddResult: ...
    async def search(self, query: str, *, k: int = 5) -> list[Hit]: ...
    async def get(self, entity: str) -> EntityView: ...
    async def history(self, entity: str) -> list[Claim]: ...
    async def claim(self, claim_id: str) -> Claim: ...
    async def explain(self, claim_id: str) -> Explanation: ...
    async def disputes(self, status: str | None = "open") -> list[Dispute]: ...
    async def dispute(self, dispute_id: str) -> Dispute: ...
    async def resolve_dispute(self, dispute_id: str, winner: str | None = None, *, note: str = "",
                              keep_both: bool = False) -> Dispute: ...
    async def retract(self, claim_id: str, *, note: str = "") -> Retraction: ...
    async def forget(self, entity: str, *, note: str = "") -> list[Retraction]: ...


def resolve_role() -> str:
    """The weakest role that may settle disputes: "resolver" once `vault_ray.tokens.ROLES`
    has it (between agent and admin), else "admin"."""
    return "resolver" if "resolver" in ROLES else "admin"


def may_resolve(principal: Principal) -> bool:
    return principal.allows(resolve_role())


class VaultMemory:
    """A `Vault` seen by `principal`: writes carry its name, and settling a dispute or taking
    claims back needs a role that allows it (the principal's name is who decided). Blocking
    vault calls run in a worker thread. `write` sends a write request (default:
    `Vault.write_batch` of that one request)."""

    def __init__(self, vault: Vault, principal: Principal, *, write: Write | None = None) -> None:
        self.vault, self.principal = vault, principal
        self._send = write or self._write_alone

    async def add(self, messages: str, *, session: str | None = None) -> AddResult:
        return await self._write(WriteRequest(self.principal.name, messages=messages, session=session))

    async def add_facts(self, facts: Sequence[Fact], *, session: str | None = None) -> AddResult:
        return await self._write(WriteRequest(self.principal.name, facts=list(facts), session=session))

    async def search(self, query: str, *, k: int = 5) -> list[Hit]:
        return await _run(self.vault.search, query, k=k)

    async def get(self, entity: str) -> EntityView:
        return await _run(self.vault.get, entity)

    async def history(self, entity: str) -> list[Claim]:
        return await _run(self.vault.history, entity)

    async def claim(self, claim_id: str) -> Claim:
        return await _run(self.vault.claim, claim_id)

    async def explain(self, claim_id: str) -> Explanation:
        return await _run(self.vault.explain, claim_id)

    async def disputes(self, status: str | None = "open") -> list[Dispute]:
        return await _run(self.vault.disputes, status)

    async def dispute(self, dispute_id: str) -> Dispute:
        return await _run(self.vault.dispute, dispute_id)

    async def resolve_dispute(self, dispute_id: str, winner: str | None = None, *, note: str = "",
                              keep_both: bool = False) -> Dispute:
        self._may_decide()
        return await _run(self.vault.resolve_dispute, dispute_id, winner, decided_by=self.principal.name, note=note,
                          keep_both=keep_both)

    async def retract(self, claim_id: str, *, note: str = "") -> Retraction:
        self._may_decide()
        return await _run(self.vault.retract, claim_id, decided_by=self.principal.name, note=note)

    async def forget(self, entity: str, *, note: str = "") -> list[Retraction]:
        self._may_decide()
        return await _run(self.vault.forget, entity, decided_by=self.principal.name, note=note)

    def _may_decide(self) -> None:
        if not may_resolve(self.principal):
            raise Forbidden(self.principal.name, self.principal.role, resolve_role())

    async def _write(self, request: WriteRequest) -> AddResult:
        result = await self._send(request)
        if isinstance(result, VaultError):
            raise result
        return result

    async def _write_alone(self, request: WriteRequest) -> AddResult | VaultError:
        (result,) = await _run(self.vault.write_batch, [request])
        return result


async def _run(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    return await to_thread.run_sync(functools.partial(fn, *args, **kwargs))
