"""benchmarks/_harness.py, what every benchmark reports through: the statistics, the table and the JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import _harness as harness
from tests.conftest import REPO


def test_percentile_is_nearest_rank() -> None:
    values = [5.0, 1.0, 4.0, 2.0, 3.0, 10.0, 9.0, 8.0, 7.0, 6.0]
    assert [harness.percentile(values, share) for share in (0.1, 0.5, 0.9, 0.95, 1.0)] == [1.0, 5.0, 9.0, 10.0, 10.0]


def test_a_row_is_read_against_the_floor_of_the_same_rounds() -> None:
    samples = harness.Samples()
    for floor, command, cpu in ((10.0, 30.0, 6.0), (20.0, 50.0, 8.0), (30.0, 40.0, 7.0)):
        samples.add("floor", floor, 2.0)
        samples.add("get", command, cpu)
    row = samples.row("get")
    assert (row["median_ms"], row["p90_ms"], row["ratio"], row["samples_ms"]) == (40.0, 50.0, 2.0, [30.0, 50.0, 40.0])
    assert (row["cpu_median_ms"], row["cpu_ratio"]) == (7.0, 3.5)
    assert "ratio" not in samples.row("floor")


def test_rounds_run_the_floor_first_and_drop_the_warm_up(capsys: pytest.CaptureFixture[str]) -> None:
    rounds = harness.Rounds("test", repeat=2, warmup=1)
    seen = []
    for round_no in rounds:
        seen.append(round_no)
        rounds.record("work", 100.0 + round_no)
    assert seen == [0, 1, 2]
    assert rounds.samples.wall["work"] == [101.0, 102.0]
    assert len(rounds.samples.wall["floor"]) == 2 and len(rounds.samples.cpu["floor"]) == 2
    assert capsys.readouterr().err.splitlines()[-1].startswith("test: round 2/2 done in ")


def test_the_table_aligns_numbers_right_text_left_and_keeps_blank_lines() -> None:
    lines = harness.table([("command", ""), ("median ms", ".1f"), ("x", ".2f")],
                          [["get", 12.345, 1.5], None, ["a longer one", 7.0, None]])
    assert lines == ["command      median ms    x",
                     "-" * 27,
                     "get               12.3 1.50",
                     "",
                     "a longer one       7.0    -"]


def test_report_writes_the_json_where_asked_and_prints_the_table(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "deep" / "bench.json"
    machine: dict[str, object] = {"cpu_count": 2}
    targets = [{"name": "fast", "status": "PASS", "detail": "1 ms"}]
    written = harness.report("bench", {"machine": machine, "targets": targets}, title=["a title"],
                             columns=[("what", ""), ("ms", ".1f")], rows=[["x", 1.0]], out=out)
    assert written == out
    data = json.loads(out.read_text())
    assert data["benchmark"] == "bench" and data["targets"] == targets and "when" in data
    assert "loadavg_at_end" in data["machine"]
    printed = capsys.readouterr().out.splitlines()
    assert printed == ["a title", "", "what  ms", "--------", "x    1.0", "", "targets (informational)",
                       "  PASS  fast: 1 ms", "", f"wrote {out}"]


def test_the_default_place_is_results_by_name() -> None:
    assert harness.results_path("speed") == REPO / "benchmarks" / "results" / "speed.json"
