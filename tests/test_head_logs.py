"""Where `vault-ray up` keeps the log of the Ray head it starts: in Ray's temporary directory while
the head starts (beside the session directories), then in the head's session directory, beside
Ray's own logs of it, which `vault-ray down` removes; never left behind in /tmp."""

from __future__ import annotations

from pathlib import Path

from vault_ray.cli import head_logs


def test_the_starting_log_goes_where_ray_puts_the_heads_sessions(tmp_path, monkeypatch):
    monkeypatch.delenv("RAY_TMPDIR", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmpdir"))
    assert head_logs.starting_path(6379, str(tmp_path / "raytmp")) == tmp_path / "raytmp" / "vault-ray-head-6379.log"
    assert (tmp_path / "raytmp").is_dir()  # made, as `ray start --temp-dir` would
    assert head_logs.starting_path(26379) == tmp_path / "tmpdir" / "ray" / "vault-ray-head-26379.log"
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path / "r"))  # Ray's own variable comes first
    assert head_logs.starting_path(6380) == tmp_path / "r" / "ray" / "vault-ray-head-6380.log"


def test_a_temp_dir_that_cannot_hold_it_leaves_it_in_the_systems_temporary_directory(tmp_path, monkeypatch):
    (tmp_path / "not-a-dir").write_text("")
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR read again
    assert head_logs.starting_path(6379, str(tmp_path / "not-a-dir")) == tmp_path / "tmp" / "vault-ray-head-6379.log"


def test_the_log_moves_into_the_heads_session_and_the_head_keeps_writing_to_it(tmp_path):
    root = tmp_path / "ray"
    session = root / "session_2026-12-06_08-00-00_000000_1"
    (session / "logs").mkdir(parents=True)
    log = head_logs.starting_path(6379, str(root))
    with open(log, "w") as head:  # the `ray start --block` process's stdout
        head.write("Ray runtime started.\n")
        head.flush()
        settled = head_logs.settle(log, session)
        head.write("a later line\n")
    assert settled == session / "logs" / "vault-ray-head.log"
    assert settled.read_text() == "Ray runtime started.\na later line\n"
    assert not log.exists() and sorted(p.name for p in root.iterdir()) == [session.name]


def test_without_the_heads_session_the_log_stays_where_it_is(tmp_path):
    log = tmp_path / "vault-ray-head-6379.log"
    log.write_text("started\n")
    assert head_logs.settle(log, tmp_path / "session_gone") == log
    assert log.read_text() == "started\n"


def test_down_removes_only_a_head_log(tmp_path):
    mine, other = tmp_path / "vault-ray-head-6379.log", tmp_path / "notes.log"
    for path in (mine, other):
        path.write_text("x")
    head_logs.discard(str(mine))
    head_logs.discard(str(other))
    head_logs.discard(None)
    head_logs.discard(str(tmp_path / "vault-ray-head-1.log"))  # gone already: nothing to say
    assert [p.name for p in Path(tmp_path).iterdir()] == ["notes.log"]
