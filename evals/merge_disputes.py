"""What a merge does to the disputes and a person's decisions on a merged label (docs/jobs.md,
"Disputes and a person's decisions"), for the plan (what a reviewer is told) and for `--apply`
(what it does):

- **held**: an open dispute on the label waits for a person (`needs_user`: high stakes, a
  challenge to a person's decision, ...) or stands against a value a person chose. Re-keying
  would put its claims through the target's strategy and settle it with no person, so the
  label is not merged (no alias, no copy) until a person resolved it; apply the plan again then.
- **carried**: a dispute a person resolved for a claim that is still active on the label. The
  decision goes to the target with the claim (`engine.bulk.carry_decisions`): its copy is a value
  a person chose there, which no agent's value overturns by policy (a contradiction waits for a
  person, decided.py), and which does not give way to the target's own values either.
- **re-decided**: any other open dispute. Its claims meet the target's claims under the target's
  strategy; the dispute, left with no live claim on the old label, is closed by `normalize`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vault_ray.engine.decided import by_person
from vault_ray.models import Dispute, DisputeStatus


def chosen_ids(disputes: Iterable[Dispute]) -> set[str]:
    """The claims a person chose, in `disputes` (resolved by a person for a winner)."""
    return {d.resolution.winner for d in disputes if by_person(d) and d.resolution and d.resolution.winner}


def waiting(d: Dispute, chosen: set[str]) -> bool:
    """Whether an open dispute waits for a person: flagged so, or standing against a chosen claim."""
    return d.status == DisputeStatus.OPEN and (d.needs_user or bool(set(d.incumbents) & chosen))


def held_reason(label: str, target: str, disputes: Iterable[Dispute]) -> str | None:
    """Why `label` is not merged into `target` now (None: it may be), from the disputes on `label`."""
    mine = [d for d in disputes if d.entity == label]
    chosen = chosen_ids(mine)
    waits = [d.id for d in mine if waiting(d, chosen)]
    if not waits:
        return None
    return (f"{len(waits)} dispute(s) on {label} wait for a person ({', '.join(waits[:3])}"
            f"{', ...' if len(waits) > 3 else ''}): merging would settle them by {target}'s strategy. "
            "Resolve them, then apply the plan again")


def carried(label: str, disputes: Iterable[Dispute], active: set[str]) -> list[Dispute]:
    """The disputes a person resolved on `label` for a claim still active there, oldest first."""
    found = [d for d in disputes if d.entity == label and by_person(d) and d.resolution.winner in active]  # type: ignore[union-attr]
    return sorted(found, key=lambda d: (d.resolution.at, d.id))  # type: ignore[union-attr]


def touched(label: str, target: str, disputes: Iterable[Dispute], active: set[str]) -> list[dict[str, Any]]:
    """The plan's `disputes` cell of a merge: each open dispute on `label` and each decision a
    person made there that the merge carries, with what the merge does to it."""
    mine = [d for d in disputes if d.entity == label]
    chosen = chosen_ids(mine)
    out = []
    for d in sorted(mine, key=lambda d: (d.opened_at, d.id)):
        res = d.resolution
        if d.status == DisputeStatus.OPEN:
            effect = ("held: waits for a person; the label is not merged until a person resolves it" if waiting(d, chosen)
                      else f"re-decided: its claims meet {target}'s strategy; the dispute is closed by normalize")
        elif by_person(d) and res is not None and res.winner in active:
            effect = f"carried: the value {res.decided_by} chose stays a person's choice on {target}"
        else:
            continue
        out.append({"dispute": d.id, "status": str(d.status), "needs_user": d.needs_user,
                    "decided_by": res.decided_by if res else None, "claim": res.winner if res else d.challenger,
                    "effect": effect})
    return out
