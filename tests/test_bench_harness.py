"""`arena bench`'s comparison of the two isolation modes: paired round by round."""

from __future__ import annotations

import pytest

from arena.bench import harness
from arena.bench.harness import Rate


def scripted(monkeypatch, sandbox_works: bool, process_share):
    """harness_rate replaced by a script of a machine whose load changes from round to round:
    every run of round r (three runs a round with bubblewrap, two without) finds the machine at
    ``LOAD[r]``, whatever the run; process isolation runs at ``process_share(r)`` of the shared
    mode's speed at that load. Returns the runs made: (round, isolation, sandbox)."""
    runs: list[tuple] = []
    per_round = 3 if sandbox_works else 2

    def fake_rate(name, games, jobs, records=True, seed=1, isolation="shared", sandbox="auto"):
        r = len(runs) // per_round  # the load follows time, not the seed the run was given
        runs.append((seed, isolation, sandbox))
        dps = LOAD[r] * (1.0 if isolation == "shared" else process_share(r))
        return Rate(dps, dps / 100, 1e6 / dps)

    monkeypatch.setattr(harness, "harness_rate", fake_rate)
    monkeypatch.setattr(harness.bubblewrap, "active", lambda settings: sandbox_works)
    return runs


LOAD = [100_000.0, 400_000.0, 200_000.0]


def test_process_isolation_is_compared_with_the_shared_mode_of_the_same_round(monkeypatch):
    runs = scripted(monkeypatch, True, lambda r: 0.3)
    lines: list[str] = []
    figures = {("twenty-down", "engine"): 1_000_000.0}
    harness._paired_rates("twenty-down", 1000, 1, 3, figures, lines.append)
    # Round by round the ratio is 0.3 exactly, however the load moved. (Run in phases, all
    # shared runs first, the process runs would have met other loads: 0.3 × 400,000 / 200,000.)
    assert figures[("twenty-down", "ratio1-bwrap")] == pytest.approx(0.3)
    assert figures[("twenty-down", "ratio1-none")] == pytest.approx(0.3)
    bwrap_line = next(line for line in lines if "--sandbox bwrap" in line)
    assert "(0.30× the shared mode, 0.30–0.30)" in bwrap_line
    none_line = next(line for line in lines if "--sandbox none" in line)
    assert "(0.30× the shared mode's speed)" in none_line  # (CPU time, paired too)
    # Every round plays each seed in every mode; every other round in the reverse order.
    assert runs == [
        (0, "shared", "auto"),
        (0, "process", "bwrap"),
        (0, "process", "none"),
        (1, "process", "none"),
        (1, "process", "bwrap"),
        (1, "shared", "auto"),
        (2, "shared", "auto"),
        (2, "process", "bwrap"),
        (2, "process", "none"),
    ]


def test_the_ratio_is_the_median_of_the_rounds_own_ratios(monkeypatch):
    scripted(monkeypatch, False, lambda r: [0.4, 0.1, 0.3][r])
    lines: list[str] = []
    figures = {("how-low-can-you-go", "engine"): 1_000_000.0}
    harness._paired_rates("how-low-can-you-go", 1000, 2, 3, figures, lines.append)
    # Process isolation ran at 40,000, 40,000 and 60,000 decisions/s: the ratio of the medians
    # would be 40,000 / 200,000 = 0.2; the rounds' own ratios are 0.4, 0.1 and 0.3.
    assert figures[("how-low-can-you-go", "ratio2-none")] == pytest.approx(0.3)
    assert figures[("how-low-can-you-go", "process2")] == pytest.approx(40_000)
    (line,) = [line for line in lines if "--isolation process" in line]
    assert "(0.30× the shared mode, 0.10–0.40)" in line and "--sandbox none" in line


def test_one_round_prints_no_range(monkeypatch):
    scripted(monkeypatch, False, lambda r: 0.5)
    lines: list[str] = []
    figures = {("twenty-down", "engine"): 1_000_000.0}
    harness._paired_rates("twenty-down", 1000, 1, 1, figures, lines.append)
    (line,) = [line for line in lines if "--isolation process" in line]
    assert "(0.50× the shared mode)" in line
