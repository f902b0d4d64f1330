"""The offline defaults (LocalEmbedder + RuleReasoner): what `Vault.open(path)` gives,
and both seed scenarios end to end with it, no scripted help."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from scenarios import check_authority_dispute, check_recency_supersede, recency_supersede

from vault_ray import Fact, HashingEmbedder, InvalidEmbedding, LocalEmbedder, RuleReasoner, StoreMismatch, Vault
from vault_ray.cores import free_cores, free_of, idle_cores
from vault_ray.embedders import SPIN_COUNT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def local_embedder():
    embedder = LocalEmbedder()
    embedder.embed(["warm up"])  # loads the model from the installed package, offline
    return embedder


def test_local_embedder_is_offline_minilm(local_embedder):
    vectors = local_embedder.embed(["The user is vegetarian", "The user does not eat meat", "The user lives in Oslo"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sims = vectors @ vectors.T
    assert sims[0, 1] > sims[0, 2]  # meaning, not wording


def test_every_call_size_gives_the_vectors_model_encode_gives(local_embedder):
    """Calls of several texts run packed (several texts to a row, each attending to
    itself), single texts padded-free: the vectors are those of `encode`, whatever the
    lengths in one call, including texts longer than a row and texts the model truncates."""
    texts = ["Hi", "The user is vegetarian and cooks at home most evenings, usually pasta", "user diet",
             "Ich wohne in Berlin", "", "word " * 400, "日本語のテキスト 🎉", "the " * 40] * 5
    model = local_embedder.model
    expected = model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    small = np.concatenate([local_embedder.embed(texts[i:i + 3]) for i in range(0, len(texts), 3)])
    single = np.concatenate([local_embedder.embed([x]) for x in texts[:8]])
    assert local_embedder._packs() and len(texts) > LocalEmbedder.SMALL
    assert np.allclose(small, expected, atol=1e-5) and np.allclose(local_embedder.embed(texts), expected, atol=1e-5)
    assert np.allclose(single, expected[:8], atol=1e-5)
    assert small.dtype == np.float32 and small.flags.c_contiguous


def test_the_free_cores_are_those_no_other_process_waits_for():
    assert (free_of(0, cores=2), free_of(1, cores=2), free_of(2, cores=2), free_of(5, cores=2)) == (2, 1, 1, 1)
    assert (free_of(0, cores=1), free_of(40, cores=64), free_of(-1, cores=2)) == (1, 24, 2)
    assert 1 <= free_cores() <= len(__import__("os").sched_getaffinity(0))


def test_on_busy_cores_small_calls_run_on_one_torch_thread_large_ones_on_threads(local_embedder):
    """While other processes keep every core busy, a write's text and label phrase, or a
    search query, run on one torch thread (a second one stalls at every barrier); larger
    calls run on `threads`; each calling thread gets its own torch setting back,
    concurrent calls included."""
    import os
    import subprocess
    import sys
    import threading
    import time

    import torch

    embedder = LocalEmbedder(threads=2)
    embedder._model = local_embedder.model  # the loaded model, shared
    embedder.embed(["warm up"])  # its first call decides, once, whether the model packs
    seen: list[tuple[int, int]] = []
    encoder = embedder.model[0]  # single texts run through it, packed ones through its BERT
    hooks = [m.register_forward_pre_hook(lambda module, args: seen.append((threading.get_ident(), torch.get_num_threads())))
             for m in (encoder, encoder.auto_model)]
    before = torch.get_num_threads()
    torch.set_num_threads(3)  # this thread's own setting, neither 1 nor `threads`
    texts = [f"The user's meeting {i} moved to Thursday at {i % 12 + 1}pm" for i in range(40)]
    expected = embedder.model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    # niced: runnable (what free_cores counts) while taking little from processes that want a core
    burn = "import os\nos.nice(19)\nwhile True: pass"
    burners = [subprocess.Popen([sys.executable, "-c", burn]) for _ in range(len(os.sched_getaffinity(0)) + 1)]
    try:
        deadline = time.monotonic() + 10
        while free_cores() > 1:
            assert time.monotonic() < deadline, "the burners never showed as runnable"
            time.sleep(0.05)
        for n in (1, 2, LocalEmbedder.ONE_THREAD, LocalEmbedder.ONE_THREAD + 1, len(texts)):
            seen.clear()
            assert np.allclose(embedder.embed(texts[:n]), expected[:n], atol=1e-5)
            assert seen and {threads for _, threads in seen} == {1 if n <= LocalEmbedder.ONE_THREAD else 2}, n
            assert torch.get_num_threads() == 3

        def small(i: int) -> np.ndarray:
            return embedder.embed(texts[i % 37:i % 37 + 3])

        seen.clear()
        with ThreadPoolExecutor(4) as pool:
            large = [pool.submit(embedder.embed, texts) for _ in range(2)]
            got = list(pool.map(small, range(40)))
        for i, vectors in enumerate(got):
            assert np.allclose(vectors, expected[i % 37:i % 37 + 3], atol=1e-5)
        assert all(np.allclose(f.result(), expected, atol=1e-5) for f in large)
        assert 2 in {threads for _, threads in seen} and torch.get_num_threads() == 3
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
        for hook in hooks:
            hook.remove()
        torch.set_num_threads(before)
    for bad in (0, -1, "2", True, 1.5):
        with pytest.raises(InvalidEmbedding):
            LocalEmbedder(threads=bad)


def test_loading_the_model_shortens_torch_s_openmp_spin_unless_the_process_chose_one():
    """Loading the model sets GOMP_SPINCOUNT (so torch's idle workers stop holding a core
    a few ms after each call) only when the process set no spin count or wait policy and
    had not loaded torch yet; in a fresh process each way (a spin count of its own: the next
    test), the model loaded for real. The process that chose a wait policy then drops it and
    loads the model again: torch is loaded by then, so the spin count stays unset (as when a
    process imports torch first)."""
    import os
    import subprocess
    import sys

    probe = ("import os, sys\n"
             "from vault_ray import LocalEmbedder\n"
             "LocalEmbedder().embed(['warm up'])\n"
             "print(os.environ.get('GOMP_SPINCOUNT'), 'torch' in sys.modules)\n"
             "if sys.argv[1] == 'then-torch-loaded':\n"
             "    os.environ.pop('OMP_WAIT_POLICY')\n"
             "    LocalEmbedder().embed(['warm up'])\n"
             "    print(os.environ.get('GOMP_SPINCOUNT'), 'torch' in sys.modules)")
    base = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}

    def run(how: str, **extra: str) -> str:
        done = subprocess.run([sys.executable, "-c", probe, how], env={**base, **extra}, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.strip()

    assert run("plain") == f"{SPIN_COUNT} True"
    assert run("then-torch-loaded", OMP_WAIT_POLICY="active").splitlines() == ["None True", "None True"]


def test_a_spin_count_the_process_chose_is_kept(monkeypatch):
    """As a fresh process that set GOMP_SPINCOUNT would load the model (torch not loaded yet): the
    setting is its own."""
    import os
    import sys

    from vault_ray.embedders import _short_spin

    monkeypatch.delitem(sys.modules, "torch", raising=False)  # put back after the test
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.setenv("GOMP_SPINCOUNT", "123")
    _short_spin()
    assert os.environ["GOMP_SPINCOUNT"] == "123"
    monkeypatch.delenv("GOMP_SPINCOUNT")
    _short_spin()  # the same process with nothing chosen: the short spin
    assert os.environ["GOMP_SPINCOUNT"] == SPIN_COUNT


def test_a_helper_thread_is_asked_for_only_while_a_core_is_idle():
    """`idle_cores` counts this process's own runnable threads as busy (a spinning OpenMP
    worker competes with a helper thread as any process does): with one more spinning
    thread of its own than the cores, only one core is left."""
    import hashlib
    import os
    import threading
    import time

    stop = threading.Event()
    block = os.urandom(1 << 20)

    def spin() -> None:  # hashing a large block runs without the GIL: each thread runs at once
        while not stop.is_set():
            hashlib.sha256(block).digest()

    cores = len(os.sched_getaffinity(0))
    spinners = [threading.Thread(target=spin, daemon=True) for _ in range(cores + 1)]
    for s in spinners:
        s.start()
    try:
        time.sleep(0.05)
        seen = []
        for _ in range(20):  # free_cores would say `cores` here, its reading cached for 0.1 s
            seen.append(idle_cores())
            time.sleep(0.05)
        assert seen.count(1) >= 18, seen
    finally:
        stop.set()
        for s in spinners:
            s.join()


def test_a_model_packing_does_not_reproduce_keeps_the_padded_path(local_embedder):
    """Packing reproduces BERT with mean pooling; a model pooled otherwise (here the same
    encoder with CLS pooling) is embedded as `encode` embeds it."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Normalize, Pooling

    cls_model = SentenceTransformer(modules=[local_embedder.model[0], Pooling(384, pooling_mode="cls"), Normalize()],
                                    device="cpu")
    embedder = LocalEmbedder()
    embedder._model = cls_model
    texts = ["Hi", "The user is vegetarian", "user diet", "word " * 40] * 6
    assert not embedder._packs()
    expected = cls_model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    assert np.allclose(embedder.embed(texts), expected, atol=1e-5)
    assert np.allclose(embedder.embed(texts[:3]), expected[:3], atol=1e-5)


def test_defaults_are_local_embedder_and_rule_reasoner(tmp_path):
    """`Vault.open(path)` with nothing else: the local model (offline) and the rule reasoner."""
    with Vault.open(tmp_path / "s") as vault:
        assert isinstance(vault.embedder, LocalEmbedder) and isinstance(vault.reasoner, RuleReasoner)
        assert (vault.info().embedder, vault.info().dim) == ("all-MiniLM-L6-v2", 384)
        vault.agent("a").add("I'm vegetarian")
        hits = vault.search("does the user eat meat?")
        assert hits and hits[0].claim.entity == "user.diet"
    with pytest.raises(StoreMismatch):  # the store remembers which model wrote it
        Vault.open(tmp_path / "s", embedder=HashingEmbedder())


def test_authority_dispute_with_defaults(tmp_path, local_embedder):
    with Vault.open(tmp_path / "s", embedder=local_embedder) as vault:
        vault.set_strategy("user.timezone", "authority")
        vault.set_authority("agent-a", "user.timezone", 0.9)
        vault.set_authority("agent-b", "user.timezone", 0.2)
        a = vault.agent("agent-a").add("I'm in PST").decisions
        b = vault.agent("agent-b").add("I'm in EST").decisions
        out = {"a": a, "b": b, "disputes": vault.disputes(),
               "hits": vault.search("what timezone is the user in?", k=3), "view": vault.get("user.timezone")}
        check_authority_dispute(out)


def test_label_drift_is_aligned_with_defaults(tmp_path, local_embedder):
    """A drifting extractor's label is aligned by the rule reasoner over the relevant
    registry entries, even though the local model rates the two claims only ~0.56."""
    with Vault.open(tmp_path / "s", embedder=local_embedder) as vault:
        vault.set_strategy("user.timezone", "authority")
        vault.set_authority("agent-a", "user.timezone", 0.9)
        vault.set_authority("agent-b", "user.timezone", 0.2)
        vault.agent("agent-a").add("I'm in PST")
        (b,) = vault.agent("agent-b").add_facts([Fact("user.wrong_label", "The user is in EST", value="EST")]).decisions
        assert (b.entity, b.aligned_from, b.outcome) == ("user.timezone", "user.wrong_label", "disputed")
        hits = vault.search("what timezone is the user in?")
        assert "PST" in hits[0].claim.text and hits[0].contested


def test_recency_supersede_with_defaults(tmp_path, local_embedder):
    with Vault.open(tmp_path / "s", embedder=local_embedder) as vault:
        check_recency_supersede(recency_supersede(vault))
