"""Wall time per write-path stage, for the ingest benchmark: the stages' functions are
wrapped (in this benchmark process only) to add up their time."""

from __future__ import annotations

import functools
import time
from collections import Counter, defaultdict
from typing import Any

from vault_ray.backends import EmbeddedBackend
from vault_ray.engine import front
from vault_ray.engine.partition import Partition
from vault_ray.storage import DuckDBClaimLog


class Stages:
    """Accumulated wall time per write-path stage (wrapped functions)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def wrap(self, owner: Any, attr: str, name: str) -> None:
        original = getattr(owner, attr)

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - start

        setattr(owner, attr, timed)

    def reset(self) -> None:
        self.seconds.clear()

    def breakdown(self, total: float, seconds: dict[str, float] | None = None) -> dict[str, float]:
        """Exclusive seconds per stage; `other` is validation, grouping, result assembly."""
        s = Counter(self.seconds if seconds is None else seconds)
        out = {
            "embed": s["embed"],
            "resolve: entities_present": s["entities_present"],
            "resolve: vector search": s["search"],
            "decide: receipts lookup": s["receipts"],
            "decide: passes 1-2": s["prepare"] - s["receipts"],
            "apply: journal append (fsync)": s["log_commit"],
            "apply: index + memory": s["apply"] - s["log_commit"],
            "open partitions (lazy)": s["open_partition"],
        }
        out["resolve: other"] = s["resolve"] - s["entities_present"] - s["search"]
        out["other"] = total - s["embed"] - s["resolve"] - s["prepare"] - s["apply"] - s["open_partition"]
        return out


STAGES = Stages()
STAGES.wrap(front, "embed_batch", "embed")
STAGES.wrap(front, "resolve_entities", "resolve")
STAGES.wrap(EmbeddedBackend, "entities_present", "entities_present")
STAGES.wrap(EmbeddedBackend, "nearest_entities", "search")
STAGES.wrap(Partition, "decide", "prepare")
STAGES.wrap(DuckDBClaimLog, "receipts", "receipts")
STAGES.wrap(Partition, "commit", "apply")
STAGES.wrap(DuckDBClaimLog, "commit", "log_commit")
STAGES.wrap(Partition, "__init__", "open_partition")
