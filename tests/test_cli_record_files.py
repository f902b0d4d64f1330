"""`vault-ray token ...` and `vault-ray webhook ...` given a file that is no token or webhook
file (a typo of the path, another program's JSON): one line, exit code 4, and the file and its
directory as they were: no lock file beside it, no rewrite."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from vault_ray import HashingEmbedder, Vault
from vault_ray.cli import app

runner = CliRunner()

FOREIGN = {
    "notes.txt": (b"hello\n", "it is not JSON (Expecting value"),
    "package.json": (b'{"name": "pkg", "version": "1.0"}\n', "it is JSON, but not a {what} file (it has no '{what}s' list)"),
    "list.json": (b"[1, 2]\n", "it is JSON, but not a {what} file"),
    "photo.jpg": (b"\xff\xd8\xff\xe0", "it is not JSON"),
    "damaged.json": (b'{"version": 1, "tokens": [{"id": 1}], "webhooks": [{"id": 1}]}', "a record in it is damaged"),
}
COMMANDS = {
    "token": (["token", "add", "bob"], ["token", "list"], ["token", "revoke", "bob"]),
    "webhook": (["webhook", "add", "http://127.0.0.1:9/hook"], ["webhook", "list"], ["webhook", "remove", "wh_1"]),
}


def _files(where):
    return {p.name: p.read_bytes() for p in where.iterdir() if p.is_file()}


@pytest.mark.parametrize("what", sorted(COMMANDS))
@pytest.mark.parametrize("name", sorted(FOREIGN))
def test_a_file_that_is_no_record_file_is_refused_and_left_as_it_was(tmp_path, what, name):
    content, said = FOREIGN[name]
    (tmp_path / name).write_bytes(content)
    for command in COMMANDS[what]:
        got = runner.invoke(app, [*command, f"--{what}s", str(tmp_path / name)])
        assert got.exit_code == 4, (command, got.output)
        assert got.stdout == "" and got.stderr.count("\n") == 1, (command, got.stderr)
        assert f"error: cannot read the {what} file {tmp_path / name}: {said.format(what=what)}" in got.stderr
        assert _files(tmp_path) == {name: content}, command


@pytest.mark.parametrize("command", [["token", "revoke", "bob"], ["webhook", "remove", "wh_1"]])
def test_taking_back_what_is_not_there_makes_nothing(tmp_path, command):
    """A store with no token (webhook) file yet: the id is not found, and no file appears beside the store's."""
    Vault.open(tmp_path / "store", embedder=HashingEmbedder()).close()
    before = _files(tmp_path / "store")
    got = runner.invoke(app, [*command, "--store", str(tmp_path / "store")])
    assert got.exit_code == 3, got.output
    assert _files(tmp_path / "store") == before
