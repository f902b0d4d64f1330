"""STORE/label_vectors.npz: the vectors of label phrases and registry descriptions that
entity resolution compared, kept across a close and reopen.

Resolving a new label near existing entities compares its phrase with theirs
(reasoners/labels.py). Those vectors live in memory, at most 65,536 of them; without
this file a reopened store embedded every candidate's phrase again, in a second model
call on the write path (raw encode + 28 ms instead of + 6 ms, measured on 60 such writes;
docs/performance.md). It is a cache: the claim log never depends on it, a file written by
another embedder (or dimension) is ignored, and a damaged one is ignored (and replaced at
the next close), with a log message.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vault_ray.errors import StorageFailure

FILE = "label_vectors.npz"
log = logging.getLogger("vault_ray")


def load(root: str | os.PathLike[str], embedder: str, dim: int) -> tuple[list[str], np.ndarray] | None:
    """(texts, vectors) saved for `embedder` and `dim`, or None."""
    path = Path(root) / FILE
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["embedder"]) != embedder or int(data["dim"]) != dim:
                return None
            texts, vectors = [str(t) for t in data["texts"]], np.asarray(data["vectors"], dtype=np.float32)
    except (OSError, ValueError, KeyError) as exc:
        log.warning("vault-ray: ignoring the label vector cache %s (%s); it is rebuilt as labels are compared", path, exc)
        return None
    if vectors.shape != (len(texts), dim):
        log.warning("vault-ray: ignoring the label vector cache %s (shape %s)", path, vectors.shape)
        return None
    return texts, vectors


def save(root: str | os.PathLike[str], embedder: str, dim: int, texts: Sequence[str], vectors: np.ndarray) -> None:
    """Replace the file atomically (a crash leaves the old one or the new one)."""
    path = Path(root) / FILE
    tmp = path.with_name(FILE + ".tmp")
    try:
        with open(tmp, "wb") as out:
            np.savez(out, embedder=np.array(embedder), dim=np.array(dim), texts=np.array(list(texts), dtype=str),
                     vectors=np.asarray(vectors, dtype=np.float32).reshape(-1, dim))
        os.replace(tmp, path)
    except OSError as exc:  # a full disk: the old file (a cache) is kept, no temporary left
        tmp.unlink(missing_ok=True)
        raise StorageFailure(f"cannot save {path}: {exc.strerror or exc}") from exc
