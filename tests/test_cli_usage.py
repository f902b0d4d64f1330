"""Usage errors (an unknown command or option, a missing argument, a bad choice, a value of the
wrong type) are one line on stderr, as every other error: what Click found wrong and which
command's --help to read, exit code 2. Nothing runs and nothing is made."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from vault_ray.cli import app

runner = CliRunner()


@pytest.mark.parametrize("args, said, command", [
    (["nosuch"], "no such command 'nosuch'", "vault-ray"),
    (["get"], "missing argument 'entity'", "vault-ray get"),
    (["get", "user.diet", "--stor", "p"], "no such option: --stor (Possible options: --as-of, --json, --store)",
     "vault-ray get"),
    (["get", "user.diet", "--store"], "option '--store' requires an argument", "vault-ray get"),
    (["up", "--port", "abc"], "invalid value for '--port'", "vault-ray up"),
    (["eval", "--scenarios", "many"], "invalid value for '--scenarios'", "vault-ray eval"),
    (["disputes", "--status", "closed", "--store", "p"], "'closed': use open, resolved or all", "vault-ray disputes"),
    (["token", "add"], "missing argument 'agent'", "vault-ray token add"),
    (["token", "add", "x", "--tokens"], "option '--tokens' requires an argument", "vault-ray token add"),
    (["token", "frob"], "no such command 'frob'", "vault-ray token"),
    (["webhook", "status", "--jsn"], "no such option: --jsn", "vault-ray webhook status"),
    (["policy", "apply"], "missing argument 'file'", "vault-ray policy apply"),
    (["authority", "--stor", "p"], "no such option: --stor", "vault-ray authority"),
])
def test_a_usage_error_is_one_line_naming_what_was_wrong_and_the_help_to_read(tmp_path, monkeypatch, args, said,
                                                                             command):
    monkeypatch.chdir(tmp_path)
    got = runner.invoke(app, args)
    assert got.exit_code == 2, got.output
    assert got.stdout == "" and got.stderr.count("\n") == 1, got.stderr
    assert got.stderr.startswith("error: ") and said in got.stderr, got.stderr
    assert got.stderr.rstrip().endswith(f"see `{command} --help`"), got.stderr
    assert list(tmp_path.iterdir()) == []  # no store, no token file


def test_a_group_alone_still_shows_its_commands():
    got = runner.invoke(app, ["token"])
    assert "add" in got.output and "revoke" in got.output and "error" not in got.output
