"""The low-precision copies a large flat pool scans first (storage/prescan.py): every
answer is still brute force's, and each copy's bound is the one it claims."""

import numpy as np
import pytest
from test_vector_index import unit_rows


@pytest.mark.parametrize("queries", [1, 2, 4])
def test_a_large_flat_pool_scans_its_low_precision_copies_and_answers_exactly(queries):
    """From 16,384 rows a search of a few queries scans a byte copy (then, for what that
    cannot settle, a float16 one) first and scores its best rows again in float32: the
    answer is brute force's, ids and scores."""
    from vault_ray.storage import FlatIndex

    vecs = unit_rows(20_000, 384, seed=queries)
    index = FlatIndex(384)
    index.add(np.arange(20_000), vecs)
    index.remove(np.arange(0, 20_000, 9))
    live = np.array(sorted(index.ids()))
    asked = unit_rows(queries, 384, seed=7)
    scores, ids = index.search(asked, 10)
    exact = asked @ vecs[live].T
    want = live[np.argsort(-exact, axis=1, kind="stable")[:, :10]]
    assert index._plain.copies and (ids == want).all()
    assert np.allclose(scores, np.take_along_axis(exact, np.argsort(-exact, axis=1, kind="stable")[:, :10], 1), atol=1e-6)


def test_near_identical_rows_beyond_the_copies_candidates_fall_back_to_the_full_scan(monkeypatch):
    """400 rows whose scores lie within float16's precision of each other: neither the byte
    nor the float16 scan can order them, their bounds say so, and the query is scanned in
    float32 instead."""
    from vault_ray.storage import FlatIndex
    from vault_ray.storage.flat import _Pool

    monkeypatch.setattr(_Pool, "PRESCAN_ROWS", 64)
    base, noise = unit_rows(1, 64, seed=1)[0], unit_rows(400, 64, seed=2) * 1e-2  # scores 1 - 5e-5 or so
    close = (base + noise) / np.linalg.norm(base + noise, axis=1, keepdims=True)
    vecs = np.concatenate([unit_rows(500, 64, seed=3), close])
    index = FlatIndex(64)
    index.add(np.arange(900), vecs)
    scores, ids = index.search(base[None, :], 5)
    exact = vecs.astype(np.float64) @ base
    assert np.allclose(scores[0], np.sort(exact)[::-1][:5], atol=1e-6) and np.allclose(scores[0], exact[ids[0]], atol=1e-6)
    assert [copy.fallbacks for copy in index._plain.copies] == [1, 1]  # the byte copy, then the float16 one

def test_the_low_precision_copies_are_made_by_the_housekeeping_while_no_write_comes(tmp_path, monkeypatch):
    """A reopened large flat store gets its copies from the background thread, not from
    the first search; `maintain(busy=True)` (writes under way) leaves them for later."""
    import time

    from vault_ray import Fact, HashingEmbedder, Vault
    from vault_ray.storage import FlatIndex
    from vault_ray.storage.flat import _Pool

    monkeypatch.setattr(_Pool, "PRESCAN_ROWS", 64)
    index = FlatIndex(16)
    index.add(np.arange(100), unit_rows(100, 16), tagged=np.arange(0, 100, 2))
    index.maintain(busy=True)
    assert not index._plain.copies and not index._tagged.copies
    index.maintain()
    assert not index._plain.copies and not index._tagged.copies  # 50 rows each: under the threshold
    index.add(np.arange(100, 200), unit_rows(100, 16, seed=1))
    index.maintain()
    assert index._plain.copies and not index._tagged.copies
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        vault.agent("a").add_facts([Fact(f"user.topic_{i}", f"fact {i} about topic {i}") for i in range(150)], resolve=False)
    with Vault.open(tmp_path / "s", embedder=HashingEmbedder()) as vault:
        pools = vault._backend.host.host.index
        deadline = time.monotonic() + 10
        while not pools._tagged.copies and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pools._tagged.copies and all(copy.fallbacks == 0 for copy in pools._tagged.copies)
        assert vault.search("fact 7 about topic 7", k=1)[0].claim.entity == "user.topic_7"


@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_every_byte_score_lies_within_the_bound_the_byte_copy_claims(kind):
    """The byte copy's promise, on dense unit rows (a model's) and sparse ones (the hashing
    embedder's): for every row and query, its score is within its bound of the exact one."""
    from vault_ray.storage.prescan import ByteCopy

    rng = np.random.default_rng(3)
    rows = unit_rows(3_000, 96, seed=4)
    if kind == "sparse":
        rows = rows * (rng.random(rows.shape) < 0.08)
        rows = rows[np.linalg.norm(rows, axis=1) > 0]
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    rows = rows.astype(np.float32)
    queries = np.concatenate([unit_rows(20, 96, seed=5), rows[:5] + 0.01]).astype(np.float32)
    copy = ByteCopy(rows, len(rows))
    approx, found, bound = copy.scan(queries, len(rows), len(rows))
    exact = queries.astype(np.float64) @ rows.T.astype(np.float64)
    errors = np.abs(approx - np.take_along_axis(exact, found, 1))
    assert (errors <= bound[:, None]).all()
    assert errors.max() > 0.05 * bound.max()  # a real, not a vacuous, bound


def test_a_row_past_the_byte_range_remakes_the_copy_before_the_next_search(monkeypatch):
    """The byte copy's scale comes from the rows it was made from; a later row with a larger
    coordinate would be clipped, so the copy is made again (a new scale) before it answers."""
    from vault_ray.storage import FlatIndex
    from vault_ray.storage.flat import _Pool

    monkeypatch.setattr(_Pool, "PRESCAN_ROWS", 64)
    rows = unit_rows(600, 64, seed=8) * 0.3 + unit_rows(600, 64, seed=9) * 0.1
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    index = FlatIndex(64)
    index.add(np.arange(600), rows)
    index.search(rows[:1], 3)
    byte = index._plain.copies[0]
    scale = byte.scale
    spike = np.zeros(64, np.float32)
    spike[5] = 1.0  # past the largest coordinate of the rows the scale came from
    index.add([600], spike[None, :])
    assert byte.stale
    scores, ids = index.search(spike[None, :], 3)
    assert ids[0][0] == 600 and scores[0][0] == pytest.approx(1.0, abs=1e-6)
    assert not byte.stale and byte.scale < scale
    everything = np.concatenate([rows, spike[None, :]])
    queries = unit_rows(10, 64, seed=10)
    want = np.argsort(-(queries @ everything.T), axis=1, kind="stable")[:, :5]
    assert (index.search(queries, 5)[1] == want).all()


def test_the_byte_bound_holds_where_every_rounding_error_points_the_same_way():
    """The worst cases of the byte bound's two terms: a row each of whose coordinates the
    copy rounds down by 0.49 of a step (the row's term), and a query whose small
    coordinates it rounds to zero against a row of large ones (the query's term)."""
    from vault_ray.storage.prescan import ByteCopy

    dim = 64
    base = unit_rows(300, dim, seed=11)
    copy = ByteCopy(base, len(base))
    s = copy.scale
    rows = np.concatenate([base, np.full((1, dim), 100 / s), np.full((1, dim), 20.49 / s)]).astype(np.float32)
    copy.put(slice(len(base), len(rows)), rows)
    spiky = np.full(dim, 0.49 / 127)
    spiky[0] = 1.0
    queries = np.stack([np.ones(dim), spiky]).astype(np.float32)
    approx, found, bound = copy.scan(queries, len(rows), len(rows))
    errors = np.abs(approx - np.take_along_axis(queries.astype(np.float64) @ rows.T.astype(np.float64), found, 1))
    assert (errors <= bound[:, None]).all()
    flat_row, spiky_row = errors[0][found[0] == len(rows) - 1][0], errors[1][found[1] == len(rows) - 2][0]
    assert flat_row > 0.5 * bound[0] and spiky_row > 0.9 * bound[1]  # each term is needed


def test_a_copy_that_settles_nothing_sits_out_ever_longer_and_the_answers_stay_exact(monkeypatch):
    """Near-identical rows defeat both copies: each rests for 1, 3, 7, ... searches (the
    float32 scan answers meanwhile), and every answer is still brute force's."""
    from vault_ray.storage import FlatIndex
    from vault_ray.storage.flat import _Pool
    from vault_ray.storage.prescan import MAX_REST

    monkeypatch.setattr(_Pool, "PRESCAN_ROWS", 64)
    base = unit_rows(1, 64, seed=1)[0]
    close = base + unit_rows(400, 64, seed=2) * 1e-2
    vecs = np.concatenate([unit_rows(500, 64, seed=3), close / np.linalg.norm(close, axis=1, keepdims=True)])
    index = FlatIndex(64)
    index.add(np.arange(900), vecs)
    for _ in range(15):
        scores, ids = index.search(base[None, :], 5)
        assert np.allclose(scores[0], np.sort(vecs @ base)[::-1][:5], atol=1e-6)
    assert [copy.fallbacks for copy in index._plain.copies] == [4, 4]  # tried at searches 1, 3, 7 and 15
    assert [copy.span for copy in index._plain.copies] == [15, 15]
    far = unit_rows(1, 64, seed=4)  # a query the byte copy settles: it is back at once
    for copy in index._plain.copies:
        copy.rest = 0
    index.search(far, 5)
    assert index._plain.copies[0].span == 0 and MAX_REST >= 15


def test_a_pool_of_more_coordinates_than_a_byte_score_holds_keeps_the_float16_copy_only(monkeypatch):
    """Past `ByteCopy.MAX_DIM` coordinates (an OpenAI-size embedding of 1,536) a byte score
    could be rounded: such a pool scans its float16 copy alone, and answers exactly."""
    from vault_ray.storage import FlatIndex
    from vault_ray.storage.flat import _Pool
    from vault_ray.storage.prescan import ByteCopy, HalfCopy

    monkeypatch.setattr(_Pool, "PRESCAN_ROWS", 64)
    dim = 1_536
    assert dim > ByteCopy.MAX_DIM
    rows = unit_rows(300, dim, seed=12)
    index = FlatIndex(dim)
    index.add(np.arange(300), rows)
    queries = unit_rows(1, dim, seed=13)
    scores, ids = index.search(queries, 5)
    assert [type(copy) for copy in index._plain.copies] == [HalfCopy]
    assert (ids[0] == np.argsort(-(rows @ queries[0]), kind="stable")[:5]).all()


@pytest.mark.parametrize("kind", ["byte", "half"])
def test_a_scan_split_in_two_halves_on_two_threads_finds_what_one_scan_finds(kind):
    """From SPLIT_ROWS rows a copy's scan may run in two halves, the later on a helper
    thread: the merged top `wide` holds the scores of one scan's top `wide`, and the exact
    answer over the copy is brute force's (ties included: 50 rows repeated)."""
    from vault_ray.storage.prescan import SPLIT_ROWS, ByteCopy, HalfCopy

    n = SPLIT_ROWS + 1001
    vecs = unit_rows(n, 96, seed=11)
    vecs[-50:] = vecs[:50]  # the same rows in both halves
    copy = (ByteCopy if kind == "byte" else HalfCopy)(vecs, n)
    asked = np.concatenate([unit_rows(3, 96, seed=12), vecs[:1]])
    # through the copy's own scan: it hands FAISS the query as the copy's code expects (integers for
    # the byte copy; FAISS's AVX2 kernel on an AMD host truncates a float query to them, to zeros)
    one, two = copy.scan(asked, n, 300, threads=1), copy.scan(asked, n, 300, threads=2)
    assert np.array_equal(one[0], two[0]) and (two[1] >= 0).all() and (two[1] < n).all()
    assert np.allclose(one[0][:, 0], (asked @ vecs.T).max(axis=1), atol=0.02)  # the copy's scores: the queries' own
    assert (two[1] >= n // 2).any(axis=1).all() and (two[1] < n // 2).any(axis=1).all()  # both halves answered
    scores, rows, settled = copy.search(asked, vecs, n, 10, threads=2)
    exact = asked @ vecs.T
    want = np.argsort(-exact, axis=1, kind="stable")[:, :10]
    assert np.allclose(scores[settled], np.take_along_axis(exact, want, 1)[settled], atol=1e-6)
    assert settled[:3].all() and (rows[:3] == want[:3]).all()


def test_a_forked_child_splits_its_scans_on_a_thread_of_its_own():
    """The helper thread does not survive a fork; the child makes its own (a split scan in
    the child used to wait forever on the parent's executor)."""
    import os

    from vault_ray.storage.prescan import SPLIT_ROWS, ByteCopy, scan

    n = SPLIT_ROWS + 10
    vecs = unit_rows(n, 32, seed=13)
    copy = ByteCopy(vecs, n)
    want = scan(copy.index, vecs[:2], n, 20, threads=2)  # the parent's helper exists now
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only with the same answer
        try:
            os._exit(0 if np.array_equal(scan(copy.index, vecs[:2], n, 20, threads=2)[0], want[0]) else 1)
        except BaseException:
            os._exit(2)
    waited = 0
    import time

    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and waited < 300:
        time.sleep(0.1)
        waited += 1
    if done[0] == 0:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    assert done[0] == pid and os.waitstatus_to_exitcode(done[1]) == 0
