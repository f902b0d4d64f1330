"""A store whose restore was cut short says so wherever it is opened, answers its (partial)
reads and refuses every change, export, reindex and normalize with one error naming the
unfinished restore and the two ways out, until the same import finishes it
(vault_ray/backends/unfinished.py). Before this, such a store took writes silently, and a
write made the resume refuse: the store had to be deleted."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from bulk_data import fill, reads
from interrupting import ctrl_c_after
from typer.testing import CliRunner

from vault_ray import (
    Fact,
    HashingEmbedder,
    Policy,
    RegistryEntry,
    RestoreUnfinished,
    StoreError,
    UnfinishedRestoreWarning,
    Vault,
    WriteRequest,
)
from vault_ray.cli import app
from vault_ray.reasoners.rules import RuleReasoner

PARTITIONS = 4
WIDE = {"COLUMNS": "500"}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root = tmp_path_factory.mktemp("unfinished")
    with Vault.open(root / "source", embedder=HashingEmbedder(), partitions=PARTITIONS) as vault:
        fill(vault, claims=240, seed=5)
        result = vault.export(root / "export")
        expected = reads(vault, explain=False)
    return root / "export", result, expected


@pytest.fixture
def half(exported, tmp_path):
    """A store whose restore of the export stopped (Ctrl-C) after 2 of its 4 partitions."""
    export = exported[0]
    store = tmp_path / "copy"
    vault = Vault.open(store, embedder=HashingEmbedder(), partitions=PARTITIONS)
    with ctrl_c_after(vault._backend, "restore_partition", 2), pytest.raises(KeyboardInterrupt):
        vault.import_from(export)
    vault.close()
    assert (store / "restoring.json").exists()
    return store, export


def reopened(store: Path) -> Vault:
    with pytest.warns(UnfinishedRestoreWarning) as warned:
        vault = Vault.open(store, embedder=HashingEmbedder())
    assert len(warned) == 1, [str(w.message) for w in warned]
    return vault


def refused_for_the_restore(error: BaseException, export: Path) -> None:
    said = str(error)
    assert isinstance(error, RestoreUnfinished) and isinstance(error, StoreError), repr(error)
    assert "unfinished restore" in said and str(export) in said and "nothing was changed" in said
    assert f"vault-ray import {export}" in said and "Vault.import_from" in said and "delete the store" in said


def test_opening_warns_once_reads_answer_partially_and_every_change_is_refused(half, exported, tmp_path):
    store, export = half
    expected = exported[2]
    with pytest.warns(UnfinishedRestoreWarning) as warned:
        vault = Vault.open(store, embedder=HashingEmbedder())
    assert len(warned) == 1 and warned[0].filename == __file__  # the user's line, not the library's
    said = str(warned[0].message)
    assert "unfinished restore" in said and "partial" in said and f"vault-ray import {export} --store {store}" in said
    with vault:
        before = reads(vault, explain=False)
        assert 0 < len(before["claims"]) < len(expected["claims"])  # the partitions restored so far answer
        claim = before["claims"][0]
        dispute = before["disputes"][0].id if before["disputes"] else "dsp-0-none"
        fact = Fact("user.city", "The user lives in Porto", "porto")
        here = {c.id for c in before["claims"]}
        missing = next(c for c in expected["claims"] if c.id not in here)  # of a partition not restored yet
        changes = {
            "add_facts": lambda: vault.agent("ops").add_facts([fact]),
            "add_facts unresolved": lambda: vault.agent("ops").add_facts([fact], resolve=False),
            "add (text)": lambda: vault.agent("ops").add("I live in Porto"),
            "retract": lambda: vault.retract(claim.id, decided_by="ops", note="wrong"),
            "forget": lambda: vault.forget(claim.entity, decided_by="ops"),
            "erase": lambda: vault.erase(claim.entity, decided_by="ops"),
            "retract, not restored yet": lambda: vault.retract(missing.id, decided_by="ops"),  # not ClaimNotFound
            "forget, not restored yet": lambda: vault.forget(missing.entity, decided_by="ops"),  # not []
            "resolve_dispute": lambda: vault.resolve_dispute(dispute, None, decided_by="user", keep_both=True),
            "apply_rules": lambda: vault.apply_rules(),
            "set_strategy": lambda: vault.set_strategy("user.location", "recency"),
            "set_authority": lambda: vault.set_authority("ops", "user.*", 0.9),
            "set_policy": lambda: vault.set_policy(Policy(max_open_disputes=5)),
            "patch_policy": lambda: vault.patch_policy({"max_open_disputes": 5}),
            "add_high_stakes": lambda: vault.add_high_stakes("user.health.*"),
            "register": lambda: vault.register(RegistryEntry("user.project.codename", aliases=("user.project.alias",))),
            "register, clashing": lambda: vault.register(RegistryEntry("user.city")),  # refused first: the store's state
            "export": lambda: vault.export(tmp_path / "out"),
        }
        for name, change in changes.items():
            with pytest.raises(RestoreUnfinished) as refused:
                change()
            refused_for_the_restore(refused.value, export)
            assert str(refused.value).startswith(f"this {'export' if name == 'export' else 'write'} was refused"), name
        batch = vault.write_batch([WriteRequest("ops", facts=[fact]), WriteRequest("crm", facts=[fact])])
        assert all(isinstance(r, RestoreUnfinished) for r in batch)  # each request gets the error
        assert reads(vault, explain=False) == before  # nothing changed: statuses, disputes, policy, registry
        assert not (tmp_path / "out").exists()
    assert (store / "restoring.json").exists()


class CountingEmbedder(HashingEmbedder):
    """The store's (hashing) embedder, keeping the texts it was given to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts.extend(texts)
        return super().embed(texts)


class CountingReasoner(RuleReasoner):
    """The rule reasoner, counting the turns it extracts facts from (an LLM's would cost tokens)."""

    turns = 0

    def extract(self, messages, registry=()):
        self.turns += 1
        return super().extract(messages, registry)

    def extract_turn(self, messages, registry=()):
        self.turns += 1
        return super().extract_turn(messages, registry)


def test_a_write_is_refused_before_its_text_is_extracted_or_embedded(half):
    store, export = half
    embedder = CountingEmbedder()
    reasoner = CountingReasoner(embedder)
    with pytest.warns(UnfinishedRestoreWarning):
        vault = Vault.open(store, embedder=embedder, reasoner=reasoner)
    with vault:
        before = reads(vault, explain=False)
        embedder.texts.clear()
        ops = vault.agent("ops")
        turns = [
            lambda: ops.add("I live in Porto"),
            lambda: ops.add([{"role": "assistant", "content": "Where do you work?"},
                             {"role": "user", "content": "My employer is Acme and my dog is called Rex"}]),
            lambda: vault.agent("crm").add("The user's favourite colour is green", session="s1", resolve=False),
            lambda: ops.add_facts([Fact("user.city", "The user lives in Porto", "porto"),
                                   Fact("project.apollo.owner", "Apollo is run by Dana", "Dana")]),
            lambda: ops.add_facts(Fact("user.pet", "The user has a cat", "cat"), resolve=False),
        ]
        for write in turns:
            with pytest.raises(RestoreUnfinished) as refused:
                write()
            refused_for_the_restore(refused.value, export)
        batch = vault.write_batch([WriteRequest("ops", messages="I moved to Lisbon"),
                                   WriteRequest("crm", facts=[Fact("user.city", "The user lives in Faro", "faro")])])
        assert [type(r) for r in batch] == [RestoreUnfinished] * 2
        assert (reasoner.turns, embedder.texts) == (0, [])  # nothing extracted, nothing embedded
        assert reads(vault, explain=False) == before
        vault.import_from(export)  # finished: the same vault extracts and writes again
        added = ops.add("I live in Porto")
        assert reasoner.turns == 1 and embedder.texts and [d.value for d in added.decisions] == ["Porto"]


def test_opening_with_another_policy_is_refused_and_lets_the_store_go(half):
    store, export = half
    with pytest.raises(RestoreUnfinished) as refused:
        Vault.open(store, embedder=HashingEmbedder(), policy=Policy(max_open_disputes=5))
    refused_for_the_restore(refused.value, export)
    with reopened(store) as vault:  # not held (StoreLocked) by the refused open
        assert vault.policy.max_open_disputes != 5


def test_the_same_import_finishes_it_and_writes_are_taken_again(half, exported):
    store, export = half
    _, result, expected = exported
    with reopened(store) as vault:
        assert vault.restoring()["export"] == str(export)  # the record, as the warning named it
        resumed = vault.import_from(export)  # the resume itself proceeds
        assert vault.restoring() is None
        assert (resumed.mode, resumed.resumed, resumed.rows) == ("restore", 2, result.rows)
        assert reads(vault, explain=False) == expected
        added = vault.agent("ops").add_facts([Fact("user.city", "The user lives in Porto", "porto")])
        assert [str(d.outcome) for d in added.decisions] == ["active"]  # the same vault writes again
    assert not (store / "restoring.json").exists()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning any more
        with Vault.open(store, embedder=HashingEmbedder()) as vault:
            vault.set_strategy("user.location", "recency")
            assert vault.get("user.city").values == ("porto",)


def test_the_command_line_warns_in_one_line_reads_and_refuses_changes_and_jobs(half, tmp_path):
    store, export = half
    runner = CliRunner()
    read = runner.invoke(app, ["get", "user.auth.e1", "--store", str(store), "--hashing"], env=WIDE)
    assert read.exit_code == 0, read.output
    lines = read.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("warning: the store") and "unfinished restore" in lines[0]
    assert f"vault-ray import {export} --store {store}" in lines[0] and "partial" in lines[0]
    evaluated = runner.invoke(app, ["eval", "--from-store", str(store), "--out", str(tmp_path / "eval"),
                                    "--policies", "store"], env=WIDE)
    assert evaluated.exit_code == 0, evaluated.output  # a reader of the files: told too
    assert evaluated.stderr.startswith("warning: the store") and "unfinished restore" in evaluated.stderr
    for args in (["forget", "user.auth.e1", "--by", "ops"], ["strategy", "user.location", "recency"]):
        changed = runner.invoke(app, [*args, "--store", str(store), "--hashing"], env=WIDE)
        assert changed.exit_code == 4, changed.output
        assert "error: this write was refused" in changed.stderr and f"vault-ray import {export}" in changed.stderr
    jobs = {"export": ["export", "--out", str(tmp_path / "out")],
            "reindex": ["reindex", "--embedder", "hashing", "--dim", "64"],
            "normalize": ["normalize", "--out", str(tmp_path / "plan")]}
    for job, args in jobs.items():
        refused = runner.invoke(app, [*args, "--store", str(store)], env=WIDE)
        assert refused.exit_code == 4, refused.output
        assert refused.stderr.startswith(f"error: this {job} was refused: the store {store} holds an unfinished restore")
    assert not (tmp_path / "out").exists() and not (tmp_path / "plan").exists()
    finished = runner.invoke(app, ["import", str(export), "--store", str(store)], env=WIDE)
    assert finished.exit_code == 0 and "warning" not in finished.output, finished.output  # the resume says nothing of it
    assert "interrupted run" in finished.stdout
    written = runner.invoke(app, ["strategy", "user.location", "recency", "--store", str(store), "--hashing"], env=WIDE)
    assert written.exit_code == 0 and written.stderr == "", written.output


def test_the_http_surface_answers_reads_and_refuses_changes_with_409(half):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from vault_ray.actors.serve.app import create_app
    from vault_ray.actors.serve.service import local_service
    from vault_ray.problems import MEDIA_TYPE
    from vault_ray.tokens import TokenStore

    store, export = half
    vault = reopened(store)
    tokens = TokenStore(store.parent / "tokens.json")
    agent = {"Authorization": f"Bearer {tokens.add('ops')[0]}"}
    admin = {"Authorization": f"Bearer {tokens.add('boss', role='admin')[0]}"}
    with vault, TestClient(create_app(local_service(vault, tokens))) as client:
        assert client.get("/v1/entities/user.auth.e1", headers=agent).status_code == 200
        ready = client.get("/readyz")  # ready (reads answer), degraded: a probe keeps it served, a monitor sees why
        assert ready.status_code == 200 and ready.json()["status"] == "ready", ready.text
        unfinished = ready.json()["restore_unfinished"]
        assert unfinished["export"] == str(export) and unfinished["started_at"]
        said = unfinished["detail"]
        assert "unfinished restore" in said and "partial" in said and f"vault-ray import {export} --store {store}" in said
        before = client.get("/v1/policy", headers=agent).json()
        answers = [client.post("/v1/facts", headers=agent, json={"facts": [{"entity": "user.city",
                                                                            "text": "The user lives in Porto"}]}),
                   client.post("/v1/messages", headers=agent, json={"text": "I live in Porto"}),
                   client.post("/v1/policy/strategy", headers=admin, json={"pattern": "user.location", "strategy": "recency"}),
                   client.post("/v1/entities/user.auth.e1/forget", headers=admin, json={"note": "wrong"})]
        for answer in answers:
            assert answer.status_code == 409, answer.text
            assert answer.headers["content-type"] == MEDIA_TYPE
            body = answer.json()
            assert body["type"].endswith(":RestoreUnfinished") and body["export"] == str(export)
            assert "unfinished restore" in body["detail"] and "delete the store" in body["detail"]
        assert client.get("/v1/policy", headers=agent).json() == before
        vault.import_from(export)  # finished while served: ready, not degraded, and it writes
        assert client.get("/readyz").json()["restore_unfinished"] is None
        porto = {"facts": [{"entity": "user.city", "text": "The user lives in Porto"}]}
        assert client.post("/v1/facts", headers=agent, json=porto).status_code == 200


def test_the_mcp_tools_read_and_refuse_changes_as_tool_errors(half):
    pytest.importorskip("mcp")
    import asyncio

    from mcp import Client
    from mcp_clients import call, refused, stdio

    store, export = half

    async def session():
        async with Client(stdio("--store", str(store), "--agent", "ops", "--hashing")) as client:
            said = await refused(client, "remember", text="I live in Porto")
            fact = await refused(client, "remember_fact", entity="user.city", value="Porto",
                                 text="The user lives in Porto")
            return said, fact, await call(client, "recall", query="what does the user like?")

    said, fact, recalled = asyncio.run(session())
    for error in (said, fact):
        assert "RestoreUnfinished: this write was refused" in error and f"vault-ray import {export}" in error
    assert recalled  # the restored part answers
