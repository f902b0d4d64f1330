"""`PartitionSet`, the one host of partitions (engine/partitions.py): several callers'
writes decided together, each isolated on failure, one commit per partition per
group; lazy creation; storage injected (run over every index kind)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from vault_ray import DisputeCapExceeded, HashingEmbedder, Policy, RuleReasoner
from vault_ray.engine.logs import duckdb_logs, open_logs
from vault_ray.engine.partitions import PartitionSet
from vault_ray.engine.txn import WriteItem
from vault_ray.errors import StorageFailure
from vault_ray.storage import INDEX_KINDS as KINDS
from vault_ray.storage import DuckDBClaimLog
from vault_ray.storage.layout import partition_of, partition_path

EMB = HashingEmbedder(dim=32)
NOW = datetime(2026, 1, 1, tzinfo=UTC)
P = 4
POLICY = Policy(default_strategy="authority", max_open_disputes=1)


class CountingLog(DuckDBClaimLog):
    """A real DuckDB claim log that counts its commits (the seam: `open_log` is injected)."""

    commits = 0

    def commit(self, changes):  # type: ignore[no-untyped-def]
        CountingLog.commits += 1
        super().commit(changes)


@pytest.fixture(params=sorted(KINDS))
def host(request, tmp_path):
    CountingLog.commits = 0

    def open_log(number, create):
        path = partition_path(tmp_path, number)
        if not create and not path.exists():
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        return CountingLog(path, dim=EMB.dim)

    found = PartitionSet(tmp_path, partitions=P, dim=EMB.dim, open_log=open_log,
                         new_index=lambda: KINDS[request.param](EMB.dim))
    yield found
    found.close_all()


def item(cid: str, entity: str, value: str, agent: str = "a", cardinality: str = "one") -> WriteItem:
    text = f"the {entity.split('.')[-1]} is {value}"
    return WriteItem(id=cid, entity=entity, text=text, value=value, kind="semantic", agent=agent, session=None,
                     observed_at=NOW, confidence=1.0, meta={}, vector=EMB.embed([text])[0], cardinality=cardinality)


def call(*items: WriteItem) -> dict[int, list[WriteItem]]:
    out: dict[int, list[WriteItem]] = {}
    for it in items:
        out.setdefault(partition_of(it.entity, P), []).append(it)
    return out


def outcomes(results):
    return [r if isinstance(r, Exception) else sorted((d.claim_id, str(d.outcome)) for ds in r.values() for d in ds)
            for r in results]


def test_a_partition_gets_a_log_only_when_written(host, tmp_path):
    assert host.open(0, create=False) is None and host.opened() == []
    host.write(call(item("c1", "user.diet", "vegan")), POLICY, RuleReasoner(), NOW)
    owner = partition_of("user.diet", P)
    assert [p.number for p in host.opened()] == [owner]
    assert sorted(p.name for p in (tmp_path / "partitions").glob("*.duckdb")) == [f"p{owner:04d}.duckdb"]


def test_a_group_commits_once_per_partition_and_decides_in_order(host):
    calls = [call(item(f"c{i}", f"user.k{i}", "x"), item(f"d{i}", "user.diet", f"v{i}", agent=f"a{i}"))
             for i in range(5)]
    touched = {p for c in calls for p in c}
    results = host.write_many(calls, POLICY, RuleReasoner(), NOW)
    assert CountingLog.commits == len(touched)  # one commit per partition for the whole group
    assert all(isinstance(r, dict) for r in results)
    # in order: the first diet claim is the incumbent, the others (equal weight) challenge it
    diet = [next(d for ds in r.values() for d in ds if d.entity == "user.diet") for r in results]
    assert str(diet[0].outcome) == "active" and all(str(d.outcome) == "disputed" for d in diet[1:])
    assert host.check(range(P)) == dict.fromkeys(range(P), True)


def test_a_failing_call_is_rolled_back_alone(host):
    reasoner = RuleReasoner()
    for n, food in enumerate(("peanuts", "shellfish")):
        host.write(call(item(f"no{n}", "user.allergies", f"not:{food}", agent="x", cardinality="many")), POLICY, reasoner, NOW)
    host.write(call(item("first", "user.allergies", "peanuts", "b", "many")), POLICY, reasoner, NOW)  # b's one open dispute
    calls = [
        call(item("ok1", "user.job", "pilot", agent="b")),
        call(item("k", "user.pets", "cat", agent="b"), item("over", "user.allergies", "shellfish", "b", "many")),  # over the cap
        call(item("ok2", "user.name", "ann", agent="c")),
    ]
    results = host.write_many(calls, POLICY, reasoner, NOW)
    assert isinstance(results[1], DisputeCapExceeded)
    assert outcomes([results[0], results[2]]) == [[("ok1", "active")], [("ok2", "active")]]
    claims = {c.id for c in host.all_claims()}
    assert {"ok1", "ok2"} <= claims and not {"k", "over"} & claims  # nothing of the failed call, anywhere
    assert host.history("user.pets") == []
    assert host.check(range(P)) == dict.fromkeys(range(P), True)


def test_a_group_decides_like_the_same_calls_one_by_one(tmp_path):
    calls = [call(item("a1", "user.diet", "vegan", agent="a")), call(item("b1", "user.diet", "keto", agent="b")),
             call(item("a2", "user.diet", "vegan", agent="c")), call(item("a1", "user.diet", "vegan", agent="a"))]
    together = PartitionSet(tmp_path / "g", partitions=P, dim=EMB.dim)
    alone = PartitionSet(tmp_path / "s", partitions=P, dim=EMB.dim)
    policy = Policy(default_strategy="consensus", consensus_margin=0.4)
    try:
        grouped = host_results = together.write_many(calls, policy, RuleReasoner(), NOW)
        single = [alone.write_many([c], policy, RuleReasoner(), NOW)[0] for c in calls]
        assert outcomes(grouped) == outcomes(single)
        assert host_results[3] == host_results[0]  # a repeated claim id answers the first decision
        state = {c.id: (str(c.status), c.superseded_by) for c in together.all_claims()}
        assert state == {c.id: (str(c.status), c.superseded_by) for c in alone.all_claims()}
    finally:
        together.close_all()
        alone.close_all()


def test_duckdb_logs_creates_only_on_request(tmp_path):
    open_log = duckdb_logs(tmp_path, 8)
    assert open_log(3, False) is None and not (tmp_path / "partitions").exists()
    log = open_log(3, True)
    assert log is not None and partition_path(tmp_path, 3).exists()
    log.close()


def test_several_logs_open_side_by_side_and_one_failing_closes_the_others(tmp_path):
    base, closed = duckdb_logs(tmp_path, 8), []

    def open_log(number, create):
        if number == 3:
            raise StorageFailure("partition 3: disk full")
        log = base(number, create)
        if log is not None:
            real = log.close
            log.close = lambda: (closed.append(number), real())
        return log

    logs = open_logs(open_log, [0, 1, 2], True)
    assert sorted(logs) == [0, 1, 2] and all(partition_path(tmp_path, p).exists() for p in range(3))
    for log in logs.values():
        log.close()
    found = open_logs(open_log, [0, 4, 5], False)
    assert sorted(found) == [0] and not partition_path(tmp_path, 4).exists()  # no log for 4 or 5, and none made
    found[0].close()
    closed.clear()
    with pytest.raises(StorageFailure, match="disk full"):
        open_logs(open_log, [0, 1, 2, 3, 4], True)
    assert sorted(closed) == [0, 1, 2, 4]  # nothing is left open


def test_a_first_write_to_every_partition_of_a_new_store_opens_them_all(tmp_path):
    host = PartitionSet(tmp_path, partitions=8, dim=EMB.dim)
    try:
        entities = {partition_of(f"user.e{i}", 8): f"user.e{i}" for i in range(200)}
        assert len(entities) == 8
        calls = [{p: [item(f"c{p}", entity, "set")] for p, entity in entities.items()}]
        (decided,) = host.write_many(calls, POLICY, RuleReasoner(), NOW)
        assert sorted(host.parts) == list(range(8)) and sum(len(d) for d in decided.values()) == 8
        assert all(partition_path(tmp_path, p).exists() for p in range(8))
    finally:
        host.close_all()
