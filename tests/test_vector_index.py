"""The vector index contract, run over every index kind `vault_ray.storage` ships."""

from __future__ import annotations

import numpy as np
import pytest
from vault_ray.storage import FlatIndex

KINDS = {"flat": FlatIndex}


@pytest.fixture(params=sorted(KINDS))
def make_index(request):
    return KINDS[request.param]


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
