"""`AgentMemory`: one agent's handle on a vault (`Vault.agent(name)`): what it writes carries its name."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from .errors import InvalidInput
from .models import AddResult, Fact, Found, Hit, WriteRequest
from .reasoners.base import Message


class VaultLike(Protocol):
    """What an agent's handle needs of `vault_ray.Vault` (which imports this module)."""

    def _write_one(self, req: WriteRequest) -> AddResult: ...
    def search(self, query: str, *, k: int = ..., agent: str | None = ..., entity: str | None = ...,
               as_of: datetime | float | None = ...) -> Found[Hit]: ...


class AgentMemory:
    """One agent's handle on a vault: everything it writes carries its name."""

    def __init__(self, vault: VaultLike, name: str) -> None:
        self.vault: Any = vault  # the Vault it writes to
        self.name = name

    def add(self, messages: Sequence[Message] | str, *, session: str | None = None,
            observed_at: datetime | float | None = None, resolve: bool = True) -> AddResult:
        """Extract facts from the latest user turn and write them (`observed_at`: their time; naive = UTC).

        `AddResult.unextracted` lists each part of the turn that reads as a statement
        about the user but gave no fact, with the reason; with `Policy.unextracted_notes`
        each is also kept as a free-text note on `user.notes` (its `note_id`)."""
        return self.vault._write_one(WriteRequest(self.name, messages=messages, session=session,
                                                  observed_at=observed_at, resolve=resolve))

    def add_facts(self, facts: Sequence[Fact] | Fact, *, session: str | None = None, vectors: object | None = None,
                  resolve: bool = True) -> AddResult:
        """Write facts directly (no extraction). `vectors` may carry precomputed embeddings."""
        return self.vault._write_one(WriteRequest(self.name, facts=facts, session=session, vectors=vectors,
                                                  resolve=resolve))

    def search(self, query: str, *, k: int = 5, mine: bool = False, entity: str | None = None,
               as_of: datetime | float | None = None) -> Found[Hit]:
        """`Vault.search`; `mine=True`: only this agent's claims (its parked ones too)."""
        if not isinstance(mine, bool):  # "no" is truthy: it would narrow the search
            raise InvalidInput(f"mine must be True or False, got {mine!r}")
        return self.vault.search(query, k=k, agent=self.name if mine else None, entity=entity, as_of=as_of)

    def __repr__(self) -> str:
        return f"AgentMemory({self.name!r}, {self.vault!r})"
