"""Request and response models of `POST /v1/claims/{claim_id}/retract` and
`POST /v1/entities/{entity}/forget` (routes/admin.py): a person takes a claim back
(`Vault.retract`), or every live claim of an entity (`Vault.forget`). Kept beside
`schemas.py`, in the same style."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from .bodies import NOTE
from .schemas import ClaimOut, Strict


class RetractIn(Strict):
    note: str = Field("", description="Why the claim is taken back (kept with the retraction)", json_schema_extra=NOTE)


class ForgetIn(Strict):
    note: str = Field("", description="Why the entity's claims are taken back (kept with each retraction)",
                      json_schema_extra=NOTE)


class EraseIn(Strict):
    note: str = Field("", description="Why the entity is erased (kept with the erasure record; write no personal data here)",
                      json_schema_extra=NOTE)


class RetractionOut(BaseModel):
    claim: ClaimOut = Field(description="The claim as it stands now: status `retracted`")
    decided_by: str = Field(description="Who retracted it: the token's principal")
    note: str
    at: datetime
    disputes: list[str] = Field([], description="Open disputes it left (closed by a rule, or open without it)")
    already: bool = Field(False, description="It was retracted before (this call changed nothing)")
