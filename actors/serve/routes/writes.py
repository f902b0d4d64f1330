"""Agent writes: a user turn to extract facts from, or structured facts. The writer
is the token's principal; requests that arrive together are decided together
(`Service.write`), each with its own decisions or its own error."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import JSONResponse

from vault_ray.errors import InvalidInput, VaultError
from vault_ray.models import Fact, WriteRequest
from vault_ray.wire import encode

from ..auth import Agent, Svc
from ..errors import problem_response
from ..schemas import AddResultOut, FactsIn, MessagesIn
from ..service import Service
from . import WRITE, known_query_only

router = APIRouter(prefix="/v1", tags=["writes"], dependencies=[Depends(known_query_only)])

IdempotencyKey = Annotated[str | None, Header(
    min_length=1, max_length=128, json_schema_extra={"pattern": "^[\x20-\x7e]+$"},
    description="Facts without a claim id get ids derived from this key: a retried request applies once "
                "(1-128 printable ASCII characters)")]


def checked_key(key: str | None) -> str | None:
    """The Idempotency-Key header, or InvalidInput: a header travels as bytes the server reads as
    Latin-1, so a key of other characters (UTF-8) would arrive garbled: say so, not what it became."""
    if key is not None and not (key.isascii() and key.isprintable()):
        raise InvalidInput("the Idempotency-Key header must be 1-128 printable ASCII characters (letters, digits, "
                           "punctuation: e.g. a UUID); this one has other characters")
    return key


@router.post("/messages", response_model=AddResultOut, responses=WRITE)
async def add_messages(body: MessagesIn, who: Agent, svc: Svc, http: Request,
                       idempotency_key: IdempotencyKey = None) -> Any:
    """Extract facts from the latest user turn (`messages`, or `text`) and write them as this token's agent."""
    messages = body.text if body.text is not None else [m.model_dump() for m in body.messages or ()]
    request = WriteRequest(who.name, messages=messages, session=body.session, observed_at=body.observed_at,
                           key=checked_key(idempotency_key))
    return await write(svc, request, http.url.path)


@router.post("/facts", response_model=AddResultOut, responses=WRITE)
async def add_facts(body: FactsIn, who: Agent, svc: Svc, http: Request,
                    idempotency_key: IdempotencyKey = None) -> Any:
    """Write facts directly (no extraction) as this token's agent. A batch with one bad fact is rejected whole."""
    facts = [Fact(f.entity, f.text, f.value, str(f.kind), f.observed_at, f.claim_id, f.confidence, f.meta, f.source)
             for f in body.facts]
    request = WriteRequest(who.name, facts=facts, session=body.session, resolve=body.resolve,
                           key=checked_key(idempotency_key))
    return await write(svc, request, http.url.path)


async def write(svc: Service, request: WriteRequest, path: str) -> Any:
    """One write, batched with its neighbours; the `Vault-Batch` header says where it was decided."""
    written = await svc.write(request)
    where = f"batch={written.batch}; position={written.position}; size={written.size}"
    if isinstance(written.result, VaultError):
        failed = problem_response(written.result, path)
        failed.headers["Vault-Batch"] = where
        return failed
    # the hot path answers its JSON as is: `encode` gives exactly AddResultOut (the schema tests hold it)
    return JSONResponse(encode(written.result), headers={"Vault-Batch": where})
