"""The cluster's part of an erasure a crash cut short (engine/erase.py): the owner shard's part is
done (its record waits, marked `WAITING`), but claims of other shards may still keep the erased
claims' source messages. `finish_waiting` has every shard drop them, then each owner remove its
records. The control actor runs it (`ControlActor.finish_erasures`) with Ray calls; the unit tests
run it over plain `Shard`s. No Ray import here.

Idempotent: dropping a source message twice drops nothing the second time, and an owner removes
only a record whose every source message was dropped (a newer erasure of the entity stays). If a
shard cannot be reached, `call` raises and every record stays, to be finished at the next try.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

log = logging.getLogger("vault_ray")

Call = Callable[[Sequence[str], str, Callable[[str], tuple[Any, ...]]], Mapping[str, Any]]
"""`call(shards, method, args_of)`: `method(*args_of(name))` on every named shard, answered by name."""


def finish_waiting(owned: Mapping[str, Sequence[int]], call: Call) -> list[str]:
    """Finish the erasures waiting at any shard of `owned` ({shard: its partitions}); returns the
    entities whose records were removed."""
    names = sorted(owned)
    found = call(names, "erasures_waiting", lambda n: (list(owned[n]),))
    waiting = {(n, p): rows for n in names for p, rows in found[n].items() if rows}
    if not waiting:
        return []
    sources = sorted({str(s) for rows in waiting.values() for r in rows for s in r.get("sources") or ()})
    for (_n, p), rows in sorted(waiting.items()):
        for r in rows:
            log.warning("vault-ray: finishing the erasure of %s (by %s) recorded in partition %d: every shard drops "
                        "its %d source message(s)", r["entity"], r.get("by"), p, len(r.get("sources") or ()))
    call(names, "drop_sources", lambda n: (list(owned[n]), sources))
    done: list[str] = []
    for (n, p), rows in sorted(waiting.items()):
        done += call([n], "erasures_done", lambda _n, p=p, rows=rows: (p, [r["entity"] for r in rows], sources))[n]
    return done
