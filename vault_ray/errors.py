"""The one exception tree of vault-ray.

::

    VaultError
    ├── InvalidInput              bad input; nothing was changed
    │   ├── InvalidEntity         entity key fails ^[a-z0-9_]+(\\.[a-z0-9_]+)*$ or > 128 chars
    │   ├── InvalidFact           empty/oversized text, confidence outside [0, 1], bad kind, ...
    │   ├── InvalidEmbedding      wrong size, NaN or infinite values
    │   ├── InvalidPolicy         bad pattern, weight, strategy, cardinality or threshold
    │   ├── NothingToReindex      a reindex onto the store's own embedder (the CLI exits 0)
    │   ├── UnknownAgent          an HTTP request without a token that names an agent (missing, unknown, revoked)
    │   └── PayloadTooLarge       an HTTP request body over the server's size limit
    ├── Forbidden                 a known token whose role may not do this (an agent token on an admin route)
    ├── NotFound
    │   ├── ClaimNotFound
    │   ├── DisputeNotFound
    │   └── EntityNotFound        forget/erase of a key no claim was ever made on, with stored keys like it (a typo)
    ├── DisputeError              resolving a resolved dispute, a winner outside it, ...
    │   └── DisputeCapExceeded    too many open disputes by one agent on one entity
    ├── RateLimited               an agent exceeded its write budget (carries retry_after)
    ├── PolicyConflict            a policy change made against a version the policy has left
    ├── StoreError
    │   ├── StoreLocked           another process holds the store (use cluster mode, or reach its holder)
    │   ├── StoreClosed           a call on a vault after its close()
    │   ├── StoreMismatch         the store was created with other settings (partitions, dim, embedder)
    │   ├── StorageFailure        the claim log or the index failed; the write was not applied
    │   ├── RestoreUnfinished     a write, export, reindex or normalize of a store whose restore was cut short
    │   └── ExportError           an export that is incomplete, tampered or truncated, or a non-empty target
    ├── ReasonerError             a reasoner answered malformed output twice, or failed
    │   └── EmbedderError         an embedder backend failed (no API key, a transport or API error)
    └── ClusterError              Ray cluster mode could not be reached or set up

Every error carries the offending value in an attribute named after it, so callers
can act on it without parsing messages.
"""

from __future__ import annotations


class VaultError(Exception):
    """Root of every error vault-ray raises on purpose."""

    def __reduce__(self):  # type: ignore[no-untyped-def]
        # Subclasses take their fields, not the message, so the default pickling
        # (call the class with `args`) garbles or breaks them; errors cross process
        # boundaries in cluster mode (Ray) and in evaluation jobs.
        return _rebuild_error, (type(self), self.args, dict(self.__dict__))


class InvalidInput(VaultError, ValueError):
    """Input was rejected before anything was written."""


class InvalidEntity(InvalidInput):
    index: int | None = None
    """The position of the fact that named it, in a write (None elsewhere: not in the problem then)."""

    def __init__(self, entity: object, why: str = "", *, index: int | None = None) -> None:
        self.entity = entity
        if index is not None:
            self.index = index
        detail = f": {why}" if why else ""
        super().__init__(
            f"invalid entity {shown(entity)}{detail} "
            "(a dotted key of lowercase ASCII letters, digits and '_', e.g. 'user.timezone', at most 128 "
            "characters)"
        )


class InvalidFact(InvalidInput):
    claim_id: str | None = None
    """The refused claim id, when a given id is what is wrong (another agent's, or reused)."""

    def __init__(self, message: str, *, index: int | None = None, field: str | None = None,
                 claim_id: str | None = None) -> None:
        self.index = index
        self.field = field
        if claim_id is not None:
            self.claim_id = claim_id
        where = f"fact {index}: " if index is not None else ""
        super().__init__(f"{where}{message}")


class InvalidEmbedding(InvalidInput):
    def __init__(self, message: str, *, expected_dim: int | None = None) -> None:
        self.expected_dim = expected_dim
        super().__init__(message)


class InvalidPolicy(InvalidInput):
    field: str | None = None
    """The policy setting at fault, when one is (`align_threshold`, `rules.stale_after_s`, ...)."""

    def __init__(self, message: str, *, value: object = None, field: str | None = None) -> None:
        self.value = value
        if field is not None:
            self.field = field
        super().__init__(message)


class NothingToReindex(InvalidInput):
    """The store already uses that embedder (a rerun of a finished reindex: `vault-ray reindex` exits 0)."""


class UnknownAgent(InvalidInput):
    """`token` is never the secret itself: at most its public id."""

    def __init__(self, token: str = "", why: str = "") -> None:
        self.token = token
        super().__init__(f"unknown agent token{': ' + why if why else ''}")


class PayloadTooLarge(InvalidInput):
    def __init__(self, limit: int, size: int | None = None) -> None:
        self.limit, self.size = limit, size
        got = f"request body is {size} bytes" if size is not None else f"request body is over {limit} bytes (streamed)"
        super().__init__(f"{got}; this server takes at most {limit} bytes")


class Forbidden(VaultError):
    """A known principal whose role does not allow the operation."""

    def __init__(self, principal: str, role: str, needed: str) -> None:
        self.principal, self.role, self.needed = principal, role, needed
        super().__init__(f"{principal!r} has the {role!r} role; this needs the {needed!r} role")


class NotFound(VaultError, LookupError):
    """A named claim or dispute does not exist."""


class ClaimNotFound(NotFound):
    def __init__(self, claim_id: str) -> None:
        self.claim_id = claim_id
        super().__init__(f"no claim with id {claim_id!r}")


class DisputeNotFound(NotFound):
    def __init__(self, dispute_id: str) -> None:
        self.dispute_id = dispute_id
        super().__init__(f"no dispute with id {dispute_id!r}")


class EntityNotFound(NotFound):
    """A call that acts on an entity (`forget`, `erase`) named a key no claim was ever made on
    while stored keys are close to it (a typo?): nothing was changed. `suggestions` lists
    those keys, best first, as `EntityView.suggestions` does for `get`."""

    def __init__(self, entity: str, suggestions: list[str], *, action: str = "change") -> None:
        self.entity, self.suggestions = entity, list(suggestions)
        super().__init__(f"no claim was ever made on {entity!r} ({did_you_mean(self.suggestions)}), so there is "
                         f"nothing to {action}: nothing was changed")


def did_you_mean(keys: list[str] | tuple[str, ...]) -> str:
    """"did you mean 'user.employer'?" ("did you mean 'a', 'b' or 'c'?"; "" for no key)."""
    if not keys:
        return ""
    quoted = [f"'{k}'" for k in keys]
    either = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return f"did you mean {either}?"


class DisputeError(VaultError):
    winner: str | None = None
    """The winner named, when it is no claim of the dispute (bad input: the CLI exits 2)."""
    keep_both: bool = False
    """True when keep_both was asked of a dispute on a 'one' entity (bad input too: the CLI exits 2)."""

    def __init__(self, message: str, *, dispute_id: str | None = None, winner: str | None = None,
                 keep_both: bool = False) -> None:
        self.dispute_id = dispute_id
        if winner is not None:
            self.winner = winner
        if keep_both:
            self.keep_both = True
        super().__init__(message)


class DisputeCapExceeded(DisputeError):
    """An agent's write that would open one dispute too many on an entity. In a write of several
    facts, `index` is the fact that tripped it and `batch` how many the write held; `written` says
    whether the others may have been stored (False: nothing of the write was, the usual case)."""

    index: int | None = None
    batch: int | None = None
    claim_id: str | None = None
    written: bool = False

    def __init__(self, agent: str, entity: str, cap: int, *, claim_id: str | None = None, index: int | None = None,
                 batch: int | None = None, written: bool = False) -> None:
        self.agent, self.entity, self.cap = agent, entity, cap
        for name, value in (("claim_id", claim_id), ("index", index), ("batch", batch)):
            if value is not None:
                setattr(self, name, value)
        if written:
            self.written = True
        why = f"agent {agent!r} already has {cap} open dispute(s) as challenger on {entity!r} (policy.max_open_disputes)"
        if index is not None and batch is not None and batch > 1:
            kept = ("this fact was not written (the batch's facts on other partitions may have been: read them back)"
                    if written else f"so nothing of this write ({batch} facts) was written: send the others again without it")
            said = f"fact {index} ({entity!r}; counting from 0) of a write of {batch}: {why}, {kept}"
        else:
            said = f"{why}, so this write was not stored"
        super().__init__(f"{said}. Those disputes wait for a resolver or a person (a token allowed to resolve, the "
                         "inbox), not for this agent: its value can be sent again once one is settled")


class PolicyConflict(VaultError):
    """`set_policy(..., if_version=N)` (or `PATCH /v1/policy` with `version`) while the
    store's policy is at another version: someone changed it meanwhile. Nothing changed."""

    def __init__(self, expected: int, current: int) -> None:
        self.expected, self.current = expected, current
        super().__init__(f"the policy is at version {current}, not {expected}: read it again and reapply the change")


class RateLimited(VaultError):
    def __init__(self, agent: str, retry_after: float) -> None:
        self.agent = agent
        self.retry_after = retry_after
        super().__init__(f"agent {agent!r} is rate limited; retry after {retry_after:.2f}s")


class StoreError(VaultError):
    """The store could not be opened or written."""


class StoreLocked(StoreError):
    """`holder`: what holds the store, when the lock says so: "cluster" (cluster-mode actors:
    `vault-ray up` or `vault-ray serve`) or "process" (an embedded open); None when unknown.
    `address`, `namespace`: the Ray address and namespace `vault-ray up` (or `vault-ray serve
    --store`) recorded for the cluster that holds it."""

    def __init__(self, path: str, *, here: bool = False, holder: str | None = None,
                 address: str | None = None, namespace: str | None = None) -> None:
        self.path = path
        self.here = here
        self.holder, self.address, self.namespace = holder, address, namespace
        if here:
            super().__init__(f"store {path!r} is already open in this process: use that Vault (threads may share "
                             "it), or close it before opening the store again")
            return
        jobs = "every command, the bulk jobs (export, import, reindex, normalize) included"
        if holder == "cluster" and address and namespace:
            how = (f"it is served in cluster mode (`vault-ray up` or `vault-ray serve --store`, Ray at {address}, "
                   f"namespace {namespace!r}): reach it with `--address {address} --namespace {namespace}` on the "
                   f"command line ({jobs}) or `Vault.connect({address!r}, namespace={namespace!r})` in Python")
        elif holder == "cluster" and address:
            how = (f"it is served in cluster mode (`vault-ray up`, Ray at {address}): reach it with `--address "
                   f"{address}` on the command line ({jobs}) or `Vault.connect({address!r})` in Python (and "
                   "`--namespace` / `namespace=` if it is not 'vault')")
        elif holder == "cluster":
            how = ("it is served in cluster mode: reach it with the `--address ADDR --namespace NS` that `vault-ray "
                   "up` or `vault-ray serve` printed (`Vault.connect(ADDR, namespace=NS)` in Python); a `vault-ray "
                   "serve` that printed none: its HTTP API serves reads and writes (`VaultClient(URL, TOKEN)`), and "
                   "a bulk job (export, import, reindex, normalize) needs it stopped first")
        else:
            how = ("embedded mode allows one process per store. To share a store between processes use cluster "
                   "mode (`vault-ray up --store PATH`, then `--address ADDR` / `Vault.connect(ADDR)`); if the holder "
                   "is `vault-ray up` or `vault-ray serve`, reach it with the `--address ADDR --namespace NS` it "
                   "printed (reads and writes also through a serve's HTTP API: `VaultClient(URL, TOKEN)`); else stop "
                   "the holder first")
        super().__init__(f"store {path!r} is held by another process; {how}.")


class StoreClosed(StoreError):
    """A call on a vault after `close()`: open the store again."""


class StoreMismatch(StoreError):
    def __init__(self, message: str, *, path: str | None = None) -> None:
        self.path = path
        super().__init__(message)


class StorageFailure(StoreError):
    def __init__(self, message: str, *, partition: int | None = None) -> None:
        self.partition = partition
        super().__init__(message)


class RestoreUnfinished(StoreError):
    """The store holds an unfinished restore (STORE/restoring.json: an import into an empty
    store cut short): its reads are partial, and until the same import finishes it (or the
    store is deleted) it refuses writes of every kind, exports, reindexes and normalizations.
    `action` is what was refused; `export` the export being restored, `started_at` when;
    `target` the flags that reach the store (`--store PATH`, `--address ADDR --namespace NS`)."""

    def __init__(self, store: str, export: str | None, started_at: str | None, *, target: str = "",
                 action: str = "this write") -> None:
        self.store, self.export, self.started_at, self.target, self.action = store, export, started_at, target, action
        target = target or f"--store {store}"
        super().__init__(
            f"{action} was refused: the store {store} holds an unfinished restore of {export!r} (started "
            f"{started_at}); until it is finished its reads are partial and it takes no change, export, reindex or "
            f"normalize (nothing was changed). To finish it, run the same import again (`vault-ray import {export} "
            f"{target}`, or `Vault.import_from` with that export); or delete the store and import the export again")


class ExportError(StoreError):
    """An export directory that cannot be written (not empty) or read (no manifest, a
    checksum or row count that does not match): nothing was written."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        self.path = path
        super().__init__(message)


class ReasonerError(VaultError):
    def __init__(self, message: str, *, answer: object = None) -> None:
        self.answer = answer
        super().__init__(message)


class EmbedderError(ReasonerError):
    """An embedder backend (`OpenAIEmbedder`) could not be made or failed: no API key, the
    `openai` package missing, a transport or API error. A ReasonerError, as these were before
    it had a class of its own: `except ReasonerError` still catches it."""


class ClusterError(VaultError):
    """Cluster mode could not be reached or set up."""


def _rebuild_error(cls: type[VaultError], args: tuple[object, ...], state: dict[str, object]) -> VaultError:
    exc = cls.__new__(cls, *args)
    exc.args = args
    exc.__dict__.update(state)
    return exc


def shown(value: object) -> str:
    """`value` as an error message shows it: its repr, cut to 80 characters (a 5,000-character
    key sent back whole would bury the message; the error keeps the value itself)."""
    return text if len(text := repr(value)) <= 80 else text[:77] + "..."
