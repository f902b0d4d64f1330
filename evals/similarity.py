"""How alike two entity labels are: the similarity work of normalization, on Ray Data.

Per label, four vectors (all from one embedder, the local model by default):

- `phrase`: the label in words ('user.home_town' -> 'home town'), and each of its words;
- `statement`: the mean of its value-masked statements ('the user lives in ___');
- `values`: the mean of its values ('Paris', 'Lyon'), which says what *kind* of
  thing the label holds (places, companies, times);
- `described`: for a registered label, its registry entry's description.

A pair of labels with the same subject (first segment) scores, each in [0, 1]:
`statement`, `name` = the better of `label` and `described` (a registry description
against the other label's statements or phrase), and `values`. `label` compares the
phrases, or, when the labels share words and each has words of its own, just those
own words ('user.pref_level' / 'user.auth_level': 'pref' against 'auth'): shared
words say nothing about whether two labels name one thing. The combined score is their geometric mean (values left out when either
label has none): one weak signal is enough to keep two labels apart, as
'user.work_schedule' and 'user.employer' are ("the user works ___"
alike, but times are not companies).

    ray.data.range(labels) -> map_batches(score_rows)   # each row: one label against the later ones
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from vault_ray import ClusterError, EntityRegistry

from .embedder_spec import EmbedderFactory
from .job import CPU_HINT, free_cpus
from .label_profiles import LabelProfile
from .text_vectors import NODE, TEXT, embed_texts, vectors_of

PAIR_SCHEMA = pa.schema([("a", pa.string()), ("b", pa.string()), ("label", pa.float64()), ("statement", pa.float64()),
                         ("values", pa.float64()), ("described", pa.float64()), ("combined", pa.float64()),
                         ("node", pa.string())])
FLOOR = 0.2
"""Pairs scoring below this are not reported at all."""


@dataclass
class LabelVectors:
    labels: list[str]
    subjects: list[str]
    words: list[frozenset[str]]
    word_vectors: dict[str, np.ndarray]
    phrase: np.ndarray
    statement: np.ndarray
    values: np.ndarray
    described: np.ndarray
    has_values: np.ndarray
    has_description: np.ndarray


def description_text(label: str, registry: EntityRegistry) -> str | None:
    entry = registry.entries.get(label)
    if entry is None or not entry.description:
        return None
    return f"{label.split('.', 1)[-1].replace('.', ' ').replace('_', ' ')}: {entry.description}"


def label_words(p: LabelProfile) -> frozenset[str]:
    return frozenset(w for w in p.phrase.split() if w)


def profile_texts(profiles: list[LabelProfile], registry: EntityRegistry) -> list[str]:
    texts: set[str] = set()
    for p in profiles:
        texts.add(p.phrase)
        texts.update(label_words(p))
        texts.update(p.top_statements())
        texts.update(p.top_values())
        described = description_text(p.label, registry)
        if described:
            texts.add(described)
    return sorted(texts)


def embed_profiles(profiles: list[LabelProfile], registry: EntityRegistry, factory: EmbedderFactory, *,
                   batch_size: int = 256, actors: int = 1,
                   cpus_per_actor: int | None = None) -> tuple[LabelVectors, Counter[str]]:
    """Embed every label's texts once, in the Ray Data actor pool; also the texts per Ray node."""
    found: dict[str, np.ndarray] = {}
    nodes: Counter[str] = Counter()
    for batch in embed_texts(profile_texts(profiles, registry), factory, batch_size=batch_size, actors=actors,
                             cpus_per_actor=cpus_per_actor):
        found.update(zip(batch.column(TEXT).to_pylist(), vectors_of(batch), strict=True))
        nodes.update(batch.column(NODE).to_pylist())
    return label_vectors(profiles, registry, found), nodes


def label_vectors(profiles: list[LabelProfile], registry: EntityRegistry, found: dict[str, np.ndarray]) -> LabelVectors:
    dim = len(next(iter(found.values())))

    def mean(texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros(dim, np.float32)
        v = np.mean([found[t] for t in texts], axis=0)
        n = float(np.linalg.norm(v))
        return (v / n if n else v).astype(np.float32)

    descriptions = [description_text(p.label, registry) for p in profiles]
    words = [label_words(p) for p in profiles]
    return LabelVectors(
        labels=[p.label for p in profiles], subjects=[p.subject for p in profiles], words=words,
        word_vectors={w: found[w] for ws in words for w in ws},
        phrase=np.stack([found[p.phrase] for p in profiles]),
        statement=np.stack([mean(p.top_statements()) for p in profiles]),
        values=np.stack([mean(p.top_values()) for p in profiles]),
        described=np.stack([found[d] if d else np.zeros(dim, np.float32) for d in descriptions]),
        has_values=np.array([bool(p.values) for p in profiles]),
        has_description=np.array([d is not None for d in descriptions]),
    )


def combine(label: float, statement: float, values: float, described: float) -> float:
    """The geometric mean of the signals that exist (NaN: absent)."""
    name = label if math.isnan(described) else max(label, described)
    parts = [statement, name] + ([] if math.isnan(values) else [values])
    return float(np.exp(np.mean(np.log(np.clip(parts, 0.01, 1.0)))))


def pair_scores(v: LabelVectors, rows: list[int], floor: float = FLOOR) -> list[dict[str, object]]:
    """Each label in `rows` against every later label of the same subject."""
    out = []
    for i in rows:
        for j in range(i + 1, len(v.labels)):
            if v.subjects[i] != v.subjects[j]:
                continue
            label = _label_score(v, i, j)
            statement = float(v.statement[i] @ v.statement[j])
            values = float(v.values[i] @ v.values[j]) if v.has_values[i] and v.has_values[j] else math.nan
            described = _described(v, i, j)
            combined = combine(label, statement, values, described)
            if combined >= floor:
                out.append({"a": v.labels[i], "b": v.labels[j], "label": label, "statement": statement,
                            "values": values, "described": described, "combined": combined})
    return out


def _label_score(v: LabelVectors, i: int, j: int) -> float:
    shared = v.words[i] & v.words[j]
    own_i, own_j = v.words[i] - shared, v.words[j] - shared
    if not shared or not own_i or not own_j:
        return float(v.phrase[i] @ v.phrase[j])
    return float(_mean(v, own_i) @ _mean(v, own_j))


def _mean(v: LabelVectors, words: frozenset[str]) -> np.ndarray:
    m = np.mean([v.word_vectors[w] for w in sorted(words)], axis=0)
    n = float(np.linalg.norm(m))
    return m / n if n else m


def _described(v: LabelVectors, i: int, j: int) -> float:
    """A registry description against the other label's statements and phrase (NaN if neither is registered)."""
    scores = []
    for described, other in ((i, j), (j, i)):
        if v.has_description[described]:
            d = v.described[described]
            scores += [float(d @ v.statement[other]), float(d @ v.phrase[other])]
    return max(scores) if scores else math.nan


def score_rows(batch: pa.Table, *, vectors: object, floor: float) -> pa.Table:
    """The `map_batches` UDF: pairs of the labels whose indices the batch holds."""
    import ray  # noqa: PLC0415

    if isinstance(vectors, ray.ObjectRef):
        vectors = ray.get(vectors)
    assert isinstance(vectors, LabelVectors)
    node = ray.get_runtime_context().get_node_id()[:12]
    rows = [{**r, "node": node} for r in pair_scores(vectors, batch.column("id").to_pylist(), floor)]
    return pa.Table.from_pylist(rows, schema=PAIR_SCHEMA)


def score_pairs(v: LabelVectors, floor: float = FLOOR) -> pa.Table:
    """Every same-subject pair above `floor`, scored in Ray Data tasks (one block of labels each)."""
    import ray  # noqa: PLC0415

    n = len(v.labels)
    if n < 2:
        return PAIR_SCHEMA.empty_table()
    free, total = free_cpus()
    if free < 1:  # the tasks would wait for a CPU other actors hold, with no word
        raise ClusterError(f"no Ray CPU is free to score label pairs: Ray has {total}, all held; {CPU_HINT}")
    cpus = max(1, total)
    # earlier labels have more later ones to meet: interleave them over the blocks
    order = [i for k in range(cpus * 2) for i in range(k, n, cpus * 2)]
    blocks = max(1, min(n, cpus * 2))
    ds = ray.data.from_items([{"id": i} for i in order], override_num_blocks=blocks)
    scored = ds.map_batches(score_rows, batch_size=None, batch_format="pyarrow", num_cpus=1,
                            fn_kwargs={"vectors": ray.put(v), "floor": floor})
    tables = list(scored.iter_batches(batch_size=None, batch_format="pyarrow"))
    return pa.concat_tables([t.cast(PAIR_SCHEMA) for t in tables]) if tables else PAIR_SCHEMA.empty_table()
