"""plan.md stays readable on a store of many numbered labels (`user.room_1` .. `user.room_N`,
`user.flight_12`, ...): the merges in full, the pairs kept apart counted by reason with a bounded
sample, and every kept pair in kept.csv beside it (and as a `keep` row of plan.parquet)."""

from __future__ import annotations

import csv
import itertools
from collections import Counter

import pyarrow.parquet as pq
from test_merge_plan import claims, pairs, plan_for

from vault_ray.evals.plan_report import KEPT_IN_FULL, KEPT_PER_REASON, write_plan


def numbered_store(rooms: int, flights: int):  # type: ignore[no-untyped-def]
    rows = [("a", f"user.room_{i}", f"The user booked room {i} for guest {i}", f"guest {i}", "active")
            for i in range(1, rooms + 1)]
    rows += [("b", f"user.flight_{n}", f"The user's flight {n} leaves at gate {n}", f"gate {n}", "active")
             for n in range(10, 10 + flights)]
    rows += [("a", "user.location", "The user lives in Paris", "Paris", "active"),
             ("b", "user.residence", "The user resides in Berlin", "Berlin", "active"),
             ("a", "user.phone.work", "Work phone 555-0100", "555-0100", "active"),
             ("b", "user.phone.home", "Home phone 555-0199", "555-0199", "active")]
    families = [sorted({r[1] for r in rows if kind in r[1]}) for kind in ("room", "flight")]
    # look-alikes within a family score high (only their numbers differ); across families, low
    scored = [(x, y, 0.9 - 0.3 * (i % 7) / 7) for family in families
              for i, (x, y) in enumerate(itertools.combinations(family, 2))]
    scored += [("user.location", "user.residence", 0.7), ("user.phone.work", "user.phone.home", 0.95)]
    return plan_for(claims(*rows), pairs(*scored))


def test_many_kept_pairs_are_summarised_in_plan_md_and_listed_in_kept_csv(tmp_path):
    plan = numbered_store(rooms=90, flights=40)
    parquet, markdown = write_plan(plan, tmp_path)
    text = markdown.read_text()
    keep_rows = [r for r in pq.read_table(parquet).to_pylist() if r["action"] == "keep"]
    assert len(keep_rows) == len(plan.kept) > 4000

    assert len(text) < 40_000, len(text)  # not one line per kept pair (that was megabytes)
    assert [(m.source, m.target) for m in plan.merges] == [("user.residence", "user.location")]
    assert "| `user.residence` | `user.location` |" in text  # the merge in full: its table row and its section
    assert "### `user.residence` -> `user.location`" in text
    reasons = Counter(r["decided_by"] for r in keep_rows)
    assert set(reasons) >= {"numbered differently", "labels contrast"}
    for reason, n in reasons.items():  # counts by reason, as the full list has them
        assert f"| {reason} | {n:,} |" in text
    assert f"{len(keep_rows):,} pairs" in text and "`kept.csv`" in text and "`plan.parquet`" in text
    listed = [line for line in text.splitlines() if line.startswith("| `") and " / `" in line]
    assert len(listed) <= KEPT_PER_REASON * len(reasons)
    assert "`user.phone.work` / `user.phone.home`" in text or "`user.phone.home` / `user.phone.work`" in text

    with open(tmp_path / "kept.csv", newline="") as f:
        found = list(csv.DictReader(f))
    assert len(found) == len(keep_rows)
    assert {frozenset((r["from_label"], r["to_label"])) for r in found} == {frozenset((d.a, d.b)) for d in plan.kept}
    assert [float(r["score"]) for r in found] == sorted((float(r["score"]) for r in found), reverse=True)
    assert set(found[0]) == {"from_label", "to_label", "score", "decided_by", "evidence"}


def test_a_few_kept_pairs_are_listed_one_by_one(tmp_path):
    plan = numbered_store(rooms=5, flights=3)
    assert 0 < len(plan.kept) <= KEPT_IN_FULL
    _, markdown = write_plan(plan, tmp_path)
    text = markdown.read_text()
    for d in plan.kept:
        assert f"| `{d.a}` / `{d.b}` |" in text
    assert "too many to list" not in text
    with open(tmp_path / "kept.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == len(plan.kept)


def test_an_out_under_a_file_is_refused_before_the_job_starts(tmp_path):
    from typer.testing import CliRunner

    from vault_ray import Fact, HashingEmbedder, Vault
    from vault_ray.cli import app

    store = tmp_path / "store"
    with Vault.open(store, embedder=HashingEmbedder()) as vault:
        vault.agent("a").add_facts([Fact("user.city", "The user lives in Paris", value="Paris")])
    (tmp_path / "notes.txt").write_text("")
    for out in (tmp_path / "notes.txt", tmp_path / "notes.txt" / "plan"):
        ran = CliRunner().invoke(app, ["normalize", "--store", str(store), "--embedder", "hashing", "--out", str(out)])
        said = " ".join(ran.output.split())
        assert ran.exit_code == 2, said
        assert f"'{tmp_path / 'notes.txt'}' is a file, not a directory" in said and "Traceback" not in said
