"""vault-ray: shared memory for fleets of AI agents that does not silently overwrite itself."""

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from .backends import StoreInfo
from .backends.unfinished import UnfinishedRestoreWarning
from .embedders import Embedder, HashingEmbedder, LocalEmbedder
from .engine.explain import Explanation
from .errors import (
    ClaimNotFound,
    ClusterError,
    DisputeCapExceeded,
    DisputeError,
    DisputeNotFound,
    EmbedderError,
    EntityNotFound,
    ExportError,
    Forbidden,
    InvalidEmbedding,
    InvalidEntity,
    InvalidFact,
    InvalidInput,
    InvalidPolicy,
    NotFound,
    PayloadTooLarge,
    PolicyConflict,
    RateLimited,
    ReasonerError,
    RestoreUnfinished,
    StorageFailure,
    StoreClosed,
    StoreError,
    StoreLocked,
    StoreMismatch,
    UnknownAgent,
    VaultError,
)
from .events import EventPage, VaultEvent
from .models import (
    AddResult,
    Candidate,
    Claim,
    Decision,
    Dispute,
    DisputeStatus,
    EntityView,
    Event,
    Fact,
    Found,
    Hit,
    Kind,
    Op,
    Outcome,
    Resolution,
    Retraction,
    Status,
    Unextracted,
    WriteRequest,
)
from .openai_backend import OpenAIEmbedder, OpenAIReasoner
from .policy import AutoResolveRules, Policy, RateLimit
from .policy_file import read_policy_file, write_policy_file
from .reasoners import Extraction, JudgeCase, Judgement, OwnVerdict, Reasoner, RuleReasoner, ScriptedReasoner
from .registry import EntityRegistry, RegistryEntry
from .transfer import ExportResult, ImportResult
from .vault import AgentMemory, Vault

if _TYPE_CHECKING:
    from .client import AsyncVaultClient, VaultClient

__version__ = "0.1.0"

_LAZY = {"AsyncVaultClient": "client", "VaultClient": "client"}
"""Imported on first use: the HTTP client and its httpx were a sixth of the import of vault_ray (about
0.1 s of CPU) in every process that imports it, each shard and control actor of a cluster and each
CLI call among them, and most of those never make an HTTP call."""


def __getattr__(name: str) -> _Any:
    if name in _LAZY:
        module = _importlib.import_module(f".{_LAZY[name]}", __name__)
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "AddResult",
    "AgentMemory",
    "AsyncVaultClient",
    "AutoResolveRules",
    "Candidate",
    "Claim",
    "ClaimNotFound",
    "ClusterError",
    "Decision",
    "Dispute",
    "DisputeCapExceeded",
    "DisputeError",
    "DisputeNotFound",
    "DisputeStatus",
    "Embedder",
    "EmbedderError",
    "EntityNotFound",
    "EntityRegistry",
    "EntityView",
    "Event",
    "EventPage",
    "Explanation",
    "ExportError",
    "ExportResult",
    "Extraction",
    "Fact",
    "Forbidden",
    "Found",
    "HashingEmbedder",
    "Hit",
    "ImportResult",
    "InvalidEmbedding",
    "InvalidEntity",
    "InvalidFact",
    "InvalidInput",
    "InvalidPolicy",
    "JudgeCase",
    "Judgement",
    "Kind",
    "LocalEmbedder",
    "NotFound",
    "Op",
    "OpenAIEmbedder",
    "OpenAIReasoner",
    "Outcome",
    "OwnVerdict",
    "PayloadTooLarge",
    "Policy",
    "PolicyConflict",
    "RateLimit",
    "RateLimited",
    "Reasoner",
    "ReasonerError",
    "RegistryEntry",
    "Resolution",
    "RestoreUnfinished",
    "Retraction",
    "RuleReasoner",
    "ScriptedReasoner",
    "Status",
    "StorageFailure",
    "StoreClosed",
    "StoreError",
    "StoreInfo",
    "StoreLocked",
    "StoreMismatch",
    "Unextracted",
    "UnfinishedRestoreWarning",
    "UnknownAgent",
    "Vault",
    "VaultClient",
    "VaultError",
    "VaultEvent",
    "WriteRequest",
    "__version__",
    "read_policy_file",
    "write_policy_file",
]
