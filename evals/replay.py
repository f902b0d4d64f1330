"""Replay scenarios through a vault under one policy and count what happened.

`replay_block` replays a block of scenarios in one vault (see namespace.py for why
that decides exactly like one vault per scenario) in *rounds*: round k holds the
k-th write of every scenario, preceded by the reads that come before it; the writes
go in one `add_facts` call per (agent, session), the reads are `get`s. Scenarios
never share an entity, so only the order inside a scenario matters, and a round
costs a handful of transactions instead of one per write. `lww_counts` is the
last-write-wins baseline; the reliability oracle is in oracle.py.

Counts are kept per (scenario, true entity) (`replay_entities`): a write counts on the
entity it is really about, whatever its label; `replay_block` sums them per scenario,
the recommendation sums them per entity pattern.
"""

from __future__ import annotations

import tempfile
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from vault_ray import DisputeCapExceeded, Fact, HashingEmbedder, RuleReasoner, ScriptedReasoner, Vault
from vault_ray.models import AddResult, Decision, EntityView

from .config import EvalConfig
from .metrics import COUNT_COLUMNS, answer_of, is_wrong_overwrite, new_counts, tally_final, tally_label, tally_read
from .namespace import TEXT_DIM, Namespace, NamespacedReasoner, NamespacedRegistry, TenantEmbedder, tenant_vectors
from .oracle import oracle_replay
from .policies import OracleJudge, PolicySpec
from .scenario import Query, Scenario, Write

Counts = dict[str, int]
EntityKey = tuple[int, str]
"""(scenario id, true entity)."""


def text_vectors(scenarios: Sequence[Scenario], precomputed: Sequence[np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Salted vectors of every write, keyed by write id (computed once per block, for all
    policies). The text part is `precomputed` (per scenario, one row per write: the local
    model's, from the job's embedding stage) or else the hashing embedder's."""
    writes = [(s.id, w) for s in scenarios for w in s.writes]
    if not writes:
        return {}
    if precomputed is None:
        text = HashingEmbedder(TEXT_DIM).embed([w.text for _, w in writes])
    else:
        if [len(v) for v in precomputed] != [len(s.writes) for s in scenarios]:
            raise ValueError("precomputed vectors must have one row per write of each scenario")
        text = np.concatenate([np.asarray(v, dtype=np.float32) for v in precomputed if len(v)])
    vecs = tenant_vectors(text, [sid for sid, _ in writes])
    return {w.write_id: vecs[i] for i, (_, w) in enumerate(writes)}


def replay_block(scenarios: Sequence[Scenario], spec: PolicySpec, cfg: EvalConfig, *, seed: int = 0,
                 vectors: dict[str, np.ndarray] | None = None, isolated: bool = False,
                 embedder: TenantEmbedder | None = None) -> list[Counts]:
    """Counts per scenario (same order). `isolated=True` opens one vault per scenario and
    writes one fact per call (the reference the shared vault is tested against; ~30x slower).
    `embedder` must match the vectors' text part (default: hashing, as `text_vectors`)."""
    by_entity = replay_entities(scenarios, spec, cfg, seed=seed, vectors=vectors, isolated=isolated, embedder=embedder)
    totals = {s.id: new_counts() for s in scenarios}
    for (sid, _), counts in by_entity.items():
        into = totals[sid]
        for c in COUNT_COLUMNS:
            into[c] += counts[c]
    return [totals[s.id] for s in scenarios]


def replay_entities(scenarios: Sequence[Scenario], spec: PolicySpec, cfg: EvalConfig, *, seed: int = 0,
                    vectors: dict[str, np.ndarray] | None = None, isolated: bool = False,
                    embedder: TenantEmbedder | None = None) -> dict[EntityKey, Counts]:
    """Counts per (scenario id, true entity): every entity of every scenario has an entry."""
    if spec.world is not None:
        return {(s.id, e): c for s in scenarios for e, c in oracle_replay(s, spec.world)[0].items()}
    if spec.policy is None:
        return {(s.id, e): c for s in scenarios for e, c in lww_entity_counts(s).items()}
    vectors = vectors if vectors is not None else text_vectors(scenarios)
    embedder = embedder or TenantEmbedder()
    if isolated:
        out: dict[EntityKey, Counts] = {}
        for s in scenarios:
            out.update(VaultReplay([s], spec, cfg, seed, vectors, Namespace.isolated(), embedder).run())
        return out
    return VaultReplay(list(scenarios), spec, cfg, seed, vectors, Namespace(), embedder).run()


class VaultReplay:
    def __init__(self, scenarios: list[Scenario], spec: PolicySpec, cfg: EvalConfig, seed: int,
                 vectors: dict[str, np.ndarray], ns: Namespace, embedder: TenantEmbedder) -> None:
        self.scenarios, self.spec, self.cfg, self.ns, self.vectors = scenarios, spec, cfg, ns, vectors
        self.embedder = embedder
        self.counts = {(s.id, e): new_counts() for s in scenarios for e in s.entities}
        self.owner = {w.write_id: s for s in scenarios for w in s.writes}
        self.judge = OracleJudge(cfg.judge_accuracy, seed, self._judge_truth) if spec.uses_judge else None
        self.pending: list[tuple[Scenario, Write, str]] = []  # writes that joined a dispute
        self.seen: set[tuple[int, str]] = set()  # (scenario, true entity) written so far

    def run(self) -> dict[EntityKey, Counts]:
        assert self.spec.policy is not None
        # the rule reasoner weighs label evidence with the replay's text embedder (no torch here)
        rules = RuleReasoner(self.embedder.text)
        inner = ScriptedReasoner(judge=self.judge, fallback=rules) if self.judge else rules
        reasoner = NamespacedReasoner(inner) if self.ns.shared else inner
        registry = None
        if self.ns.shared:
            registry = NamespacedRegistry.builtin()
            registry.bind([s.id for s in self.scenarios])
        with tempfile.TemporaryDirectory(prefix="vault-eval-") as tmp, Vault.open(
            tmp, partitions=self.cfg.partitions, embedder=self.embedder, reasoner=reasoner,
            policy=self.ns.policy(self.spec.policy), registry=registry,
        ) as vault:
            self._rounds(vault)
            for s in self.scenarios:
                views = vault.get_many([self.ns.key(e, s.id) for e in s.entities])
                for e in s.entities:
                    view = views[self.ns.key(e, s.id)]
                    tally_final(self.counts[(s.id, e)], self._answer(view), s.final(e), view.contested)
            self._disputes(vault)
        if self.judge is not None:
            for key, n in self.judge.calls.items():
                self._at(*key)["judge_calls"] += n
        return self.counts

    def _at(self, sid: int, entity: str) -> Counts:
        """The counts of a true entity (a hand-built write may name one without truth)."""
        found = self.counts.get((sid, entity))
        if found is None:
            found = self.counts[(sid, entity)] = new_counts()
        return found

    def _rounds(self, vault: Vault) -> None:
        """Round r: every scenario's reads that precede its r-th write (they see the
        state after write r-1), then its r-th write; a last round for trailing reads."""
        steps = {s.id: _steps(s) for s in self.scenarios}
        longest = max((len(v) for v in steps.values()), default=0)
        for r in range(longest):
            groups: dict[tuple[str, str], list[tuple[Scenario, Write]]] = defaultdict(list)
            reads: list[tuple[Scenario, Query]] = []
            for s in self.scenarios:
                if r < len(steps[s.id]):
                    before, write = steps[s.id][r]
                    reads += [(s, q) for q in before]
                    if write is not None:
                        groups[(write.agent, write.session)].append((s, write))
            self._read(vault, reads)
            for (agent, session), items in groups.items():
                self._write(vault, agent, session, items)

    def _read(self, vault: Vault, reads: list[tuple[Scenario, Query]]) -> None:
        if not reads:
            return
        views = vault.get_many({self.ns.key(q.entity, s.id) for s, q in reads})
        for s, q in reads:
            answer = self._answer(views[self.ns.key(q.entity, s.id)])
            tally_read(self._at(s.id, q.entity), answer, q.value, s.past_values(q.entity, q.at))

    def _write(self, vault: Vault, agent: str, session: str, items: list[tuple[Scenario, Write]]) -> None:
        facts = [Fact(self.ns.key(w.label, s.id), w.text, value=w.value, observed_at=w.observed_at,
                      claim_id=w.write_id) for s, w in items]
        vecs = np.stack([self.vectors[w.write_id] for _, w in items])
        try:
            result: AddResult | None = vault.agent(agent).add_facts(facts, session=session, vectors=vecs)
        except DisputeCapExceeded:
            result = None  # one write hit the cap and the batch was refused whole: retry one by one
        if result is not None:
            for (s, w), d in zip(items, result.decisions, strict=True):
                self._record(s, w, d)
            return
        for (s, w), fact, vec in zip(items, facts, vecs, strict=True):
            try:
                d = vault.agent(agent).add_facts([fact], session=session, vectors=vec[None, :]).decisions[0]
            except DisputeCapExceeded:
                d = None
            self._record(s, w, d)

    def _record(self, s: Scenario, w: Write, d: Decision | None) -> None:
        c = self._at(s.id, w.entity)
        c["writes"] += 1
        c["must_escalate"] += w.must_escalate
        landed = self.ns.base(d.entity) if d is not None else None
        first = (s.id, w.entity) not in self.seen
        self.seen.add((s.id, w.entity))
        tally_label(c, w.drift, landed == w.entity, first,
                    d is not None and d.aligned_from is not None and landed != w.entity)
        if d is None:
            c["rejected"] += 1
            return
        if d.superseded:
            c["overwrites"] += 1
            replaced = [(s.by_id[cid].value, s.truth_at(s.by_id[cid].entity, w.delivered_at)) for cid in d.superseded]
            c["wrong_overwrites"] += is_wrong_overwrite(w.value, replaced)
        if d.dispute_id is not None and d.claim_id == w.write_id:  # it opened or joined the dispute itself
            self.pending.append((s, w, d.dispute_id))

    def _disputes(self, vault: Vault) -> None:
        disputes = vault.disputes(None)
        needs_user = {d.id: d.needs_user for d in disputes}
        for d in disputes:
            s = self.owner[d.challenger]
            self._at(s.id, s.by_id[d.challenger].entity)["disputes"] += 1
        for s, w, dispute_id in self.pending:
            if needs_user.get(dispute_id):
                c = self._at(s.id, w.entity)
                c["escalated"] += 1
                c["escalated_tp"] += w.must_escalate

    def _judge_truth(self, case) -> tuple[EntityKey, str | None]:  # type: ignore[no-untyped-def]
        s = self.owner[case.incoming.id]
        incoming = s.by_id[case.incoming.id]
        about = s.by_id[case.incumbents[0].id].entity if case.incumbents else incoming.entity
        return (s.id, incoming.entity), s.truth_at(about, incoming.delivered_at)

    @staticmethod
    def _answer(view: EntityView) -> str | None:
        return answer_of(c.value or c.text for c in view.active)


def _steps(s: Scenario) -> list[tuple[list[Query], Write | None]]:
    """The scenario's events as (reads before a write, the write); trailing reads last."""
    steps: list[tuple[list[Query], Write | None]] = []
    reads: list[Query] = []
    for event in s.events:
        if isinstance(event, Query):
            reads.append(event)
        else:
            steps.append((reads, event))
            reads = []
    if reads:
        steps.append((reads, None))
    return steps


def lww_counts(s: Scenario) -> Counts:
    """Last-write-wins on the label as written: each delivered write replaces the value."""
    total = new_counts()
    for counts in lww_entity_counts(s).values():
        for c in COUNT_COLUMNS:
            total[c] += counts[c]
    return total


def lww_entity_counts(s: Scenario) -> dict[str, Counts]:
    """`lww_counts` per true entity (a write counts on its true entity, whatever its label)."""
    out: dict[str, Counts] = {e: new_counts() for e in s.entities}
    state: dict[str, Write] = {}
    seen: set[str] = set()
    for event in s.events:
        if isinstance(event, Query):
            held = state.get(event.entity)
            c = out.setdefault(event.entity, new_counts())
            tally_read(c, held.value if held else None, event.value, s.past_values(event.entity, event.at))
            continue
        w = event
        c = out.setdefault(w.entity, new_counts())
        c["writes"] += 1
        c["must_escalate"] += w.must_escalate
        first = w.entity not in seen
        seen.add(w.entity)
        tally_label(c, w.drift, w.label == w.entity, first, False)
        prev = state.get(w.label)
        if prev is not None and prev.value != w.value:
            c["overwrites"] += 1
            c["wrong_overwrites"] += is_wrong_overwrite(w.value, [(prev.value, s.truth_at(prev.entity, w.delivered_at))])
        state[w.label] = w
    for e in s.entities:
        held = state.get(e)
        tally_final(out[e], held.value if held else None, s.final(e), False)
    return out
