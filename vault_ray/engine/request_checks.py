"""A write request's own checks that need no front work: made before the store's refusal of
the request (RestoreUnfinished, `Vault.write_batch`), so a caller hears of its own mistake first,
and by extraction before it asks the reasoner (`user_turn`)."""

from __future__ import annotations

from collections.abc import Sequence

from ..embedders import check_vectors
from ..errors import InvalidFact, VaultError
from ..models import Fact, WriteRequest, as_utc, keyed_id
from ..policy import Policy
from ..reasoners.base import Message, as_messages, latest_turn, no_user_turn
from .front import validate_batch


def user_turn(messages: Sequence[Message] | str, policy: Policy) -> tuple[str, list[Message]]:
    """The latest user message of a turn to extract from, and the turn as messages; InvalidFact
    when there is none to extract from, or it is longer than extraction takes."""
    user, _ = latest_turn(msgs := as_messages(messages))
    if not user.strip():
        raise InvalidFact(no_user_turn(msgs), field="messages")
    if len(user) > policy.max_text * 10:
        raise InvalidFact(f"message is {len(user)} characters; extraction takes at most {policy.max_text * 10}")
    return user, msgs


def check_unstaged(req: WriteRequest, given: list[Fact] | None, policy: Policy, dim: int) -> None:
    """A request the store refuses before any front work (RestoreUnfinished) checked as if it were
    taken, so that the caller's own mistake is what it hears first: its facts (and vectors, when
    given: no embedding), or its turn and time (no extraction)."""
    if given is None:
        user_turn(req.messages, policy)  # type: ignore[arg-type]
        as_utc(req.observed_at)
    else:
        facts = validate_batch(given, policy)
        if req.vectors is not None:
            check_vectors(req.vectors, len(facts), dim, given=True)


REUSED = "was already used for another fact"
"""What `receipts.same_fact` says of a claim id sent again with a fact that says something else."""


def keyed_refusal(req: WriteRequest, error: VaultError) -> VaultError:
    """`error`, said of the request's idempotency key when the reused claim id it refuses is one the key
    derived (`keyed_id`: the caller chose no id, so "leave the id out" would not help): the same key
    sent again with a body whose facts differ."""
    claim_id, index = getattr(error, "claim_id", None), getattr(error, "index", None)
    if (req.key is None or not isinstance(error, InvalidFact) or error.field != "claim_id" or index is None
            or REUSED not in str(error) or claim_id != keyed_id(req.agent, req.key, index)):
        return error
    return InvalidFact(f"the idempotency key {req.key!r} {REUSED} (a request whose facts differ; a retry sends the "
                       "same body and gets the first answer back): send new content with a new key",
                       index=index, field="claim_id", claim_id=claim_id)
