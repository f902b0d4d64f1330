"""The vector index contract, run over every index kind `vault_ray.storage` ships
(exact flat search and approximate HNSW: on these small sets HNSW is exact too)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from vault_ray.engine.vectors import HostIndex
from vault_ray.storage import INDEX_KINDS, HnswIndex, restore_index


@pytest.fixture(params=sorted(INDEX_KINDS))
def make_index(request):
    return INDEX_KINDS[request.param]


def unit_rows(n: int, dim: int, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_add_remove_search(make_index):
    index = make_index(4)
    vecs = np.eye(4, dtype=np.float32)
    index.add([10, 11, 12, 13], vecs)
    scores, rids = index.search(vecs[1:2], 2)
    assert rids[0][0] == 11 and scores[0][0] == pytest.approx(1.0)
    index.remove([11])
    assert index.ids() == {10, 12, 13} and len(index) == 3
    _, rids = index.search(vecs[1:2], 10)
    assert 11 not in rids[0]


def test_search_finds_each_vector_itself_first(make_index):
    vecs = unit_rows(500, 32)
    index = make_index(32)
    index.add(list(range(1000, 1500)), vecs)
    scores, rids = index.search(vecs[:50], 5)
    assert rids.shape == (50, 5)
    assert list(rids[:, 0]) == list(range(1000, 1050))
    assert np.all(np.diff(scores, axis=1) <= 1e-6)  # best first


def test_empty_and_small_indexes_answer_short_lists(make_index):
    index = make_index(8)
    scores, rids = index.search(unit_rows(3, 8), 5)
    assert scores.shape == (3, 0) and rids.shape == (3, 0)
    index.add([7], unit_rows(1, 8))
    _, rids = index.search(unit_rows(2, 8, seed=1), 5)
    assert rids.shape == (2, 1) and set(rids.ravel()) == {7}


def test_reset_empties_and_removed_ids_can_return(make_index):
    index = make_index(8)
    vecs = unit_rows(4, 8)
    index.add([1, 2, 3, 4], vecs)
    index.remove([2])
    index.add([2], vecs[1:2])  # a reinstated claim comes back under its rid
    assert index.ids() == {1, 2, 3, 4}
    index.reset()
    assert len(index) == 0 and index.ids() == set()


def test_an_added_id_replaces_its_vector(make_index):
    index = make_index(8)
    vecs = unit_rows(3, 8)
    index.add([5, 6], vecs[:2])
    index.add([5], vecs[2:3])
    assert len(index) == 2 and index.ids() == {5, 6}
    np.testing.assert_allclose(index.vectors([5]), vecs[2:3], atol=1e-6)
    _, rids = index.search(vecs[2:3], 1)
    assert rids[0][0] == 5


def test_tagged_search_sees_only_the_tagged_subset(make_index):
    vecs = unit_rows(50, 16)
    index = make_index(16)
    index.add(list(range(50)), vecs)
    index.tag([3, 7, 11], True)
    scores, rids = index.search_tagged(vecs[:20], 5)
    assert rids.shape == (20, 3) and set(rids.ravel()) == {3, 7, 11}
    assert rids[7][0] == 7 and scores[7][0] == pytest.approx(1.0, abs=1e-5)
    index.remove([7])  # a removed id loses its tag
    index.add([7], vecs[7:8])
    assert index.tagged_count() == 2 and 7 not in index.search_tagged(vecs[7:8], 5)[1]
    index.add([3], vecs[3:4])  # replacing a vector keeps its tag
    index.tag([11], False)
    assert index.search_tagged(vecs[:20], 5)[1].ravel().tolist() == [3] * 20
    assert index.search(vecs[11:12], 1)[1][0][0] == 11  # untagged rows are still searched normally


def test_export_and_restore_answer_alike(make_index):
    vecs = unit_rows(200, 16)
    index = make_index(16)
    index.add(list(range(1000, 1200)), vecs)
    index.remove(list(range(1000, 1050)))
    again = restore_index(index.kind, 16, index.export())
    assert again.ids() == index.ids() and len(again) == 150
    np.testing.assert_array_equal(again.search(vecs[60:80], 3)[1], index.search(vecs[60:80], 3)[1])


def test_hnsw_buffers_new_vectors_and_moves_them_into_the_graph_in_the_background():
    vecs = unit_rows(300, 16)
    index = HnswIndex(16)
    index.add(list(range(300)), vecs)
    index.tag([5, 7], True)
    assert index.buffered() == 300 and len(index) == 300
    before = index.search(vecs[:50], 3), index.search_tagged(vecs[:10], 2)
    while index.maintain():  # what the host's background thread does
        pass
    assert index.buffered() == 0 and len(index) == 300 and index.tombstones() == 0
    after = index.search(vecs[:50], 3), index.search_tagged(vecs[:10], 2)
    np.testing.assert_array_equal(after[0][1], before[0][1])
    np.testing.assert_array_equal(after[1][1], before[1][1])
    assert set(after[1][1].ravel()) == {5, 7}


def test_hnsw_moves_its_buffer_into_the_graph_once_searches_have_scanned_it_enough():
    """Entity resolution of bulk writes searches in batches: the exact scans of the buffer
    would grow with every write before (quadratic), so past `SCANS_PER_INSERT` scans per
    buffered vector the buffer goes into the graph first. The answers do not change."""
    vecs = unit_rows(400, 16)
    index = HnswIndex(16)
    index.SCANS_PER_INSERT = 100
    index.add(list(range(400)), vecs)
    index.tag(list(range(0, 400, 2)), True)
    small = index.search(vecs[:60], 3)  # 60 scans of each buffered vector: under 100
    assert index.buffered() == 400
    tagged = index.search_tagged(vecs[:60], 2)  # 120 in all: moved first, then searched
    assert index.buffered() == 0 and len(index) == 400
    np.testing.assert_array_equal(index.search(vecs[:60], 3)[1], small[1])
    assert set(tagged[1].ravel()) <= set(range(0, 400, 2)) and (tagged[1][::2, 0] == np.arange(0, 60, 2)).all()
    index.add([400], unit_rows(1, 16, seed=1))  # a new buffer counts afresh
    index.search(vecs[:60], 3)
    assert index.buffered() == 1


def test_a_saved_hnsw_graph_holds_every_vector_in_the_graph_not_in_the_buffer(tmp_path):
    """A host saves its graph settled: reopened, it searches the graph alone at once."""
    vecs = unit_rows(300, 16)
    host = HostIndex(HnswIndex(16), 2, tmp_path / "host.hnsw")
    host.view(0).add(list(range(150)), vecs[:150])
    host.view(1).add(list(range(150)), vecs[150:])
    assert host.index.buffered() == 300  # nothing drained yet: no background thread here
    before = host.search(vecs[:20], 3)
    host.save({0: "a", 1: "b"})
    again = HostIndex(HnswIndex(16), 2, tmp_path / "host.hnsw")
    assert again.restore({0: "a", 1: "b"}) == {0, 1}
    assert again.index.buffered() == 0 and len(again.index) == 300
    after = again.search(vecs[:20], 3)
    assert [[(p, r) for _, p, r in q] for q in after] == [[(p, r) for _, p, r in q] for q in before]
    assert np.allclose([[s for s, _, _ in q] for q in after], [[s for s, _, _ in q] for q in before], atol=1e-5)


def test_hnsw_does_little_background_work_while_writes_come_unless_its_buffer_is_large():
    vecs = unit_rows(2000, 16)
    index = HnswIndex(16)
    index.BUSY_DRAIN_S = 0.0  # one step at most per busy round
    index.add(list(range(2000)), vecs)
    assert index.maintain(busy=True) is False and index.buffered() >= 2000 - index.DRAIN_STEP
    index.BUSY_BUFFER_CAP = 100  # past the cap the buffer is drained at the full budget
    while index.maintain(busy=True):
        pass
    assert index.buffered() == 0 and len(index) == 2000


def test_hnsw_compacts_its_tombstones_without_changing_answers():
    vecs = unit_rows(600, 16)
    index = HnswIndex(16)
    index.add(list(range(600)), vecs)
    while index.maintain():
        pass
    index.tag(list(range(0, 600, 2)), True)
    index.remove(list(range(300)))
    assert index.tombstones() == 300 and len(index) == 300
    before = index.search(vecs[300:400], 3)
    assert index.maintain() is True
    assert index.tombstones() == 0 and len(index) == 300 and index.ids() == set(range(300, 600))
    np.testing.assert_array_equal(index.search(vecs[300:400], 3)[1], before[1])
    assert set(index.search_tagged(vecs[300:400], 5)[1].ravel()) <= set(range(300, 600, 2))
    assert index.maintain() is False  # nothing left to compact


def test_negative_ids_are_refused(make_index):
    with pytest.raises(ValueError):
        make_index(4).add([-1], unit_rows(1, 4))


def test_room_reserved_ahead_changes_no_answer(make_index):
    vecs = unit_rows(300, 16, seed=3)
    plain, reserved = make_index(16), make_index(16)
    reserved.add(list(range(10)), vecs[:10])
    reserved.reserve(300)  # after some rows: they stay
    for start in range(0, 300, 100):
        plain.add(list(range(start, start + 100)), vecs[start:start + 100])
        reserved.add(list(range(start, start + 100)), vecs[start:start + 100])  # the first 10 again: replaced
    assert len(reserved) == len(plain) == 300 and reserved.ids() == plain.ids()
    for a, b in zip(plain.search(vecs[:20], 5), reserved.search(vecs[:20], 5), strict=True):
        assert np.array_equal(a, b)


def test_a_reopened_store_holds_every_vector_it_was_told_of(tmp_path):
    from vault_ray import Fact, HashingEmbedder, Vault

    texts = [f"fact number {i} about topic {i % 7}" for i in range(500)]
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder(), partitions=4) as vault:
        vault.agent("a").add_facts([Fact(f"user.k{i}", t) for i, t in enumerate(texts)], resolve=False)
        before = vault.search("fact number 42 about topic 0", k=3)
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:  # from the snapshots, room made at once
        assert len(vault._backend.host.host.index) == 500
        assert [h.claim.id for h in vault.search("fact number 42 about topic 0", k=3)] == [h.claim.id for h in before]


@pytest.mark.parametrize("queries", [1, 3, 4, 5, 16, 40])
def test_exact_search_answers_as_brute_force_for_every_batch_size(queries):
    """FAISS scans small batches with SIMD and runs larger ones through BLAS (the switch
    sits at a few queries); both must give the brute-force answer, freed rows never found."""
    from vault_ray.storage import FlatIndex

    vecs = unit_rows(3_000, 384, seed=queries)
    index = FlatIndex(384)
    index.add(list(range(3_000)), vecs)
    index.remove(list(range(0, 3_000, 7)))
    index.tag(list(range(1, 3_000, 3)), True)
    live = np.array(sorted(index.ids()))
    tagged = np.array([i for i in live if i % 3 == 1])
    asked = unit_rows(queries, 384, seed=99)
    for found, among in ((index.search(asked, 5), live), (index.search_tagged(asked, 5), tagged)):
        want = among[np.argsort(-(asked @ vecs[among].T), axis=1, kind="stable")[:, :5]]
        assert (found[1] == want).all()


@pytest.mark.parametrize("prescan", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_flat_index_matches_brute_force_through_any_sequence_of_changes(seed, prescan, monkeypatch):
    """Adds (some tagged at once), replaced vectors, removals, tags on and off, in random
    batches and single rows: after each step the exact index answers as brute force over
    what a user put in, the tagged search over the tagged ids only. `prescan`: from 8 rows
    on, searches scan the pools' byte and float16 copies first, which every change must keep in step."""
    from vault_ray.storage import FlatIndex
    from vault_ray.storage.flat import _Pool

    if prescan:
        monkeypatch.setattr(_Pool, "PRESCAN_ROWS", 8)
    rng = np.random.default_rng(seed)
    dim, index = 24, FlatIndex(24)
    vectors: dict[int, np.ndarray] = {}
    tagged: set[int] = set()
    for step in range(160):
        size = int(rng.choice([1, 1, 2, 7, 300]))
        ids = rng.integers(0, 2_000, size) * (1 + 49 * (seed % 2))  # dense ids, or spread out
        op = rng.choice(["add", "add_tagged", "remove", "tag", "untag"])
        if op in ("add", "add_tagged"):
            vecs = unit_rows(size, dim, seed=1_000 * seed + step)
            joining = ids[rng.random(size) < 0.5] if op == "add_tagged" else None
            index.add(ids, vecs, tagged=joining)
            for i, v in zip(ids.tolist(), vecs, strict=True):
                vectors[i] = v
            tagged |= set(joining.tolist()) if joining is not None else set()
        elif op == "remove":
            index.remove(ids)
            for i in ids.tolist():
                vectors.pop(i, None)
                tagged.discard(i)
        else:
            index.tag(ids, op == "tag")
            present = {i for i in ids.tolist() if i in vectors}
            tagged = tagged | present if op == "tag" else tagged - present
        assert index.ids() == set(vectors) and len(index) == len(vectors)
        assert index.tagged_count() == len(tagged)
        if step % 10 == 9 and vectors:
            live = np.array(sorted(vectors))
            assert np.array_equal(index.vectors(live), np.stack([vectors[i] for i in live.tolist()]))
            asked = unit_rows(5, dim, seed=step)
            for found, among in ((index.search(asked, 4), live), (index.search_tagged(asked, 4), np.array(sorted(tagged)))):
                if not len(among):
                    assert found[1].shape == (5, 0)
                    continue
                want = np.sort(-(asked @ np.stack([vectors[i] for i in among.tolist()]).T), axis=1)[:, :4]
                assert np.allclose(-found[0], want, atol=1e-5)
                assert set(found[1].ravel().tolist()) <= set(among.tolist())
                true = np.array([[asked[q] @ vectors[i] for i in row] for q, row in enumerate(found[1].tolist())])
                assert np.allclose(found[0], true, atol=1e-5)  # each score is its id's own
        if prescan and step % 10 == 9:
            assert any(pool.copies for pool in (index._plain, index._tagged)) or len(vectors) < 8



def test_flat_index_gives_back_the_room_of_removed_rows():
    """Rows removed in bulk (a partition handed to another shard, entities forgotten) do not
    stay allocated: what is left is scanned and held densely."""
    from vault_ray.storage import FlatIndex

    index, rows = FlatIndex(384), unit_rows(50_000, 384)
    index.add(np.arange(50_000), rows, tagged=np.arange(0, 50_000, 2))
    before = index._plain.data.nbytes + index._tagged.data.nbytes
    index.remove(np.arange(1_000, 50_000))
    assert len(index) == 1_000 and index.tagged_count() == 500
    assert index._plain.data.nbytes + index._tagged.data.nbytes < before / 10
    assert index.search(rows[7:8], 1)[1][0][0] == 7 and index.search_tagged(rows[7:8], 1)[1][0][0] != 7


@pytest.mark.parametrize("removed", [0, 1200])
def test_hnsw_answers_a_small_graph_or_a_large_k_exactly(removed):
    """A beam misses rows of an HNSW graph (pruned links, tombstones): a graph of at most
    `EXACT_TAGGED` live rows, or a search asking for a quarter of them or more, is scored
    whole, so `k` covering the store returns every row, in the exact order."""
    vecs = unit_rows(1000 + removed, 64, seed=3)
    index = HnswIndex(64)
    index.add(list(range(len(vecs))), vecs)
    index.settle()
    index.remove(list(range(1000, 1000 + removed)))
    queries = unit_rows(8, 64, seed=4)
    exact = queries @ vecs[:1000].T
    for k in (300, 1000):
        scores, rids = index.search(queries, k)
        assert [set(row) for row in rids.tolist()] == [set(np.argsort(-row, kind="stable")[:k]) for row in exact]
        assert np.allclose(scores, -np.sort(-exact, axis=1)[:, :k], atol=1e-5)


def test_hnsw_counts_its_rows_without_waiting_for_a_drain_step():
    """Every partition's commit asks the host index for its size: an HNSW index answers while a
    drain step holds its lock (inserting into the graph), and counts each row once wherever it
    is (buffer or graph), through replacements, removals, drain steps and a compaction."""
    vecs = unit_rows(300, 16)
    index = HnswIndex(16)
    index.add(list(range(300)), vecs)
    index.add([5, 6], unit_rows(2, 16, seed=3))  # replaced, not added
    index.COMPACT_MIN = 16
    index._drain(index.DRAIN_STEP)  # one step of the background drain
    assert index.buffered() == 300 - index.DRAIN_STEP and len(index) == 300
    index.remove([0, 200, 999])
    while index.maintain():
        pass
    assert index.buffered() == 0 and len(index) == 298 == len(index.ids())
    index.remove(list(range(1, 150)))
    assert index.maintain() is True and index.tombstones() == 0 and len(index) == 149 == len(index.ids())
    held, done = threading.Event(), threading.Event()

    def drain_step() -> None:
        with index._lock:  # as `_drain` holds it while FAISS inserts a step's vectors
            held.set()
            done.wait(5)

    worker = threading.Thread(target=drain_step)
    worker.start()
    held.wait(5)
    answered = []
    reader = threading.Thread(target=lambda: answered.append(len(index)))
    reader.start()
    reader.join(1.0)
    while_held = list(answered)  # what it answered while the step held the lock
    done.set()
    worker.join()
    reader.join()
    assert while_held == [149]
