"""Many scenarios in one vault, each deciding exactly as if it had a vault of its own.

Opening a vault per scenario costs ~60 ms and every write is its own transaction
(~20 ms); one vault per block of scenarios amortizes both. Each scenario is a
*tenant*: its entity keys get a suffix (`user.timezone` -> `user.timezone.sc42`), so
policy wildcards such as `user.payment.*` still match, and three pieces keep the
tenants apart where the vault looks across entities:

- `TenantEmbedder` / `tenant_vectors`: a write's vector is [text, tenant salt] / sqrt 2
  (text from the hashing embedder, or the local model's vectors precomputed by the job),
  so within a tenant cos = (cos_text + 1) / 2 and across tenants it stays below
  ~0.66; the replay policies use align/ask thresholds 0.925/0.85, which are the
  defaults 0.85/0.70 on cos_text. Entity resolution never crosses tenants.
- `NamespacedRegistry`: the builtin registry, answering for suffixed keys
  (`user.tz.sc42` -> `user.timezone.sc42`) in O(1) instead of one entry per tenant.
- `NamespacedReasoner`: disambiguation sees the tenant's own candidates, unsuffixed.

`Namespace.isolated()` is the identity used when a scenario does get a vault of its
own; tests/test_evals_replay.py checks that both give the same decisions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np

from vault_ray import EntityRegistry, HashingEmbedder, JudgeCase, Judgement, Policy, RegistryEntry
from vault_ray.embedders import normalize_rows
from vault_ray.errors import InvalidEmbedding
from vault_ray.models import Claim, Fact
from vault_ray.reasoners.base import Message, OwnVerdict

_TENANT = re.compile(r"\.sc(\d+)$")
TEXT_DIM, SALT_DIM = 256, 128
ALIGN_THRESHOLD = (0.85 + 1) / 2
ASK_THRESHOLD = (0.70 + 1) / 2


@dataclass(frozen=True)
class Namespace:
    shared: bool = True

    @classmethod
    def isolated(cls) -> Namespace:
        return cls(shared=False)

    def key(self, entity: str, scenario: int) -> str:
        return f"{entity}.sc{scenario}" if self.shared else entity

    def base(self, key: str) -> str:
        return _TENANT.sub("", key) if self.shared else key

    def policy(self, policy: Policy) -> Policy:
        """The same policy over suffixed keys: an exact pattern E becomes `E.*`."""
        if not self.shared:
            return policy

        def ns(table: dict[str, Any]) -> dict[str, Any]:
            return {_wild(p): v for p, v in table.items()}

        return replace(
            policy, strategies=ns(policy.strategies), cardinality=ns(policy.cardinality),
            on_ambiguous=ns(policy.on_ambiguous), high_stakes=tuple(_wild(p) for p in policy.high_stakes),
            authority={a: ns(t) for a, t in policy.authority.items()},
        )


def _wild(pattern: str) -> str:
    return pattern if pattern == "*" or pattern.endswith(".*") else pattern + ".*"


@lru_cache(maxsize=1 << 16)
def split_tenant(key: str) -> tuple[str, str | None]:
    """`user.tz.sc42` -> (`user.tz`, `.sc42`); a key without a tenant -> (key, None)."""
    m = _TENANT.search(key)
    return (key[: m.start()], m.group(0)) if m else (key, None)


class TenantEmbedder:
    """Text vectors (`text_dim`) next to a per-tenant salt (SALT_DIM dims).

    `embed` (queries, registry descriptions) has no salt; writes carry
    `tenant_vectors`, passed to `add_facts(vectors=...)`. The text part comes from
    `text` (any embedder; default the hashing one, TEXT_DIM dims): with the local
    model's vectors precomputed by the job, it is a `TableEmbedder` of the registry
    descriptions, so the replay never loads the model."""

    def __init__(self, text: Any = None) -> None:
        self.text = text if text is not None else HashingEmbedder(TEXT_DIM)
        self.text_dim = int(self.text.dim)
        self.dim = self.text_dim + SALT_DIM
        self.name = f"eval-tenant-{getattr(self.text, 'name', 'text')}-{self.text_dim}+{SALT_DIM}"

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        out[:, : self.text_dim] = self.text.embed(list(texts))
        return out

    def close(self) -> None:
        pass


class TableEmbedder:
    """Vectors looked up by text: the job embeds the registry descriptions once with the
    local model, and replays (which must not load torch next to FAISS) read them here."""

    def __init__(self, table: dict[str, Sequence[float]], name: str) -> None:
        if not table:
            raise ValueError("TableEmbedder needs at least one vector")
        self.table = {t: np.asarray(v, dtype=np.float32) for t, v in table.items()}
        self.dim = len(next(iter(self.table.values())))
        self.name = name

    def embed(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in texts if t not in self.table]
        if missing:
            raise InvalidEmbedding(f"no precomputed vector for {missing[0]!r} (and {len(missing) - 1} more)")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.table[t] for t in texts])

    def close(self) -> None:
        pass


def salt(scenario: int) -> np.ndarray:
    vec = np.random.default_rng([0x5A17, scenario]).standard_normal(SALT_DIM)
    return (vec / np.linalg.norm(vec)).astype(np.float32)


def tenant_vectors(text_vectors: np.ndarray, scenarios: Sequence[int]) -> np.ndarray:
    """[unit text vector, the scenario's salt] / sqrt 2 per row (any text dimension)."""
    text_vectors = np.asarray(text_vectors, dtype=np.float32).reshape(len(scenarios), -1)
    text_dim = text_vectors.shape[1]
    salts = {s: salt(s) for s in set(scenarios)}
    out = np.empty((len(scenarios), text_dim + SALT_DIM), dtype=np.float32)
    out[:, :text_dim] = normalize_rows(text_vectors) if len(scenarios) else 0
    out[:, text_dim:] = np.stack([salts[s] for s in scenarios]) if len(scenarios) else 0
    return normalize_rows(out / math.sqrt(2))


class NamespacedRegistry(EntityRegistry):
    """The builtin entries, looked up for any tenant's suffixed key.

    `relevant(vector)` (the registry keys the front offers as cold-start candidates)
    answers with the keys of the tenant whose salt the vector carries: `bind` the
    block's scenario ids first."""

    _salts: np.ndarray | None = None
    _tenants: list[int] | None = None

    def bind(self, scenarios: Sequence[int]) -> None:
        self._tenants = list(scenarios)
        self._salts = np.stack([salt(s) for s in self._tenants]) if self._tenants else None

    def lookup(self, key: str) -> RegistryEntry | None:
        base = split_tenant(key)[0]
        memo = self.__dict__.setdefault("_memo", {})  # the front asks 3-4 times per fact
        if base not in memo:
            memo[base] = super().lookup(base)
        return memo[base]

    def canonical(self, key: str) -> str:
        base, tenant = split_tenant(key)
        found = super().canonical(base)
        return found + tenant if tenant else found

    def add(self, entry: RegistryEntry) -> None:
        self.__dict__.pop("_memo", None)
        super().add(entry)

    def relevant(self, vector: np.ndarray, embed, *, k: int = 8, min_similarity: float = 0.2) -> list[RegistryEntry]:  # type: ignore[no-untyped-def]
        found = super().relevant(vector, embed, k=k, min_similarity=min_similarity)
        tenant = self._tenant_of(np.asarray(vector, dtype=np.float32))
        if tenant is None:
            return found
        return [e if e.key.endswith(".*") else replace(e, key=f"{e.key}.sc{tenant}", aliases=()) for e in found]

    def _tenant_of(self, vector: np.ndarray) -> int | None:
        if self._salts is None or self._tenants is None or vector.shape[-1] <= SALT_DIM:
            return None
        dots = self._salts @ vector[-SALT_DIM:]
        best = int(np.argmax(dots))
        return self._tenants[best] if dots[best] > 0.5 else None  # own salt: 1/sqrt 2; others: ~0.1


class NamespacedReasoner:
    """Delegates to `inner`; disambiguation runs on the tenant's unsuffixed keys."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = f"namespaced-{getattr(inner, 'name', 'reasoner')}"

    def extract(self, messages: Sequence[Message], registry: Sequence[RegistryEntry] = ()) -> list[Fact]:
        return self.inner.extract(messages, registry)

    def classify(self, incoming: Claim, own: Sequence[Claim], cardinality: str) -> OwnVerdict:
        return self.inner.classify(incoming, own, cardinality)

    def conflicts(self, incoming: Claim, others: Sequence[Claim], cardinality: str) -> list[str]:
        return self.inner.conflicts(incoming, others, cardinality)

    def judge(self, case: JudgeCase) -> Judgement:
        return self.inner.judge(case)

    def disambiguate(self, fact: Fact, candidates: Sequence[str], registry: Sequence[RegistryEntry] = ()) -> str | None:
        base, tenant = split_tenant(fact.entity)
        # the tenant's own keys, and registry patterns (user.schedule.*), which every tenant shares
        mine = [split_tenant(c)[0] for c in candidates if split_tenant(c)[1] == tenant or c.endswith(".*")]
        if not mine:
            return None
        entries = [replace(e, key=split_tenant(e.key)[0]) for e in registry]
        chosen = self.inner.disambiguate(replace(fact, entity=base), mine, entries)
        return None if chosen is None else chosen + (tenant or "")

    def close(self) -> None:
        self.inner.close()
