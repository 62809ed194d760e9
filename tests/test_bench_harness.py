"""`arena bench`'s comparison of the two isolation modes: paired round by round."""

from __future__ import annotations

import pytest

from arena.bench import harness
from arena.bench.harness import Rate


@pytest.fixture
def scripted_rates(monkeypatch):
    """harness_rate replaced by a script: the shared mode's rate drifts from round to round (the
    machine's load), process isolation always runs at 0.3 of the shared rate of its round."""
    calls: list[tuple] = []
    shared = [100_000.0, 400_000.0, 200_000.0]

    def fake_rate(name, games, jobs, records=True, seed=1, isolation="shared", sandbox="auto"):
        calls.append((seed, isolation, sandbox))
        base = shared[seed]
        dps = base if isolation == "shared" else 0.3 * base
        return Rate(dps, dps / 100, 1e6 / dps)

    monkeypatch.setattr(harness, "harness_rate", fake_rate)
    monkeypatch.setattr(harness.bubblewrap, "active", lambda settings: True)
    return calls


def test_process_isolation_is_compared_with_the_shared_mode_of_the_same_round(scripted_rates):
    lines: list[str] = []
    figures = {("twenty-down", "engine"): 1_000_000.0}
    harness._paired_rates("twenty-down", 1000, 1, 3, figures, lines.append)
    # Round by round the ratio is 0.3 exactly, whatever the drift of the shared mode's rate.
    assert figures[("twenty-down", "ratio1-bwrap")] == pytest.approx(0.3)
    assert figures[("twenty-down", "ratio1-none")] == pytest.approx(0.3)
    bwrap_line = next(line for line in lines if "--sandbox bwrap" in line)
    assert "(0.30× the shared mode, 0.30–0.30)" in bwrap_line
    # Each round: the shared mode first, then both sandboxes, in turn first.
    assert scripted_rates == [
        (0, "shared", "auto"),
        (0, "process", "bwrap"),
        (0, "process", "none"),
        (1, "shared", "auto"),
        (1, "process", "none"),
        (1, "process", "bwrap"),
        (2, "shared", "auto"),
        (2, "process", "bwrap"),
        (2, "process", "none"),
    ]


def test_the_ratio_is_the_median_of_the_rounds_own_ratios(monkeypatch):
    ratios = iter([0.4, 0.1, 0.3])
    shared = [100_000.0, 400_000.0, 200_000.0]

    def fake_rate(name, games, jobs, records=True, seed=1, isolation="shared", sandbox="auto"):
        dps = shared[seed] if isolation == "shared" else next(ratios) * shared[seed]
        return Rate(dps, dps / 100, 1e6 / dps)

    monkeypatch.setattr(harness, "harness_rate", fake_rate)
    monkeypatch.setattr(harness.bubblewrap, "active", lambda settings: False)
    lines: list[str] = []
    figures = {("how-low-can-you-go", "engine"): 1_000_000.0}
    harness._paired_rates("how-low-can-you-go", 1000, 2, 3, figures, lines.append)
    # Process isolation ran at 40,000, 40,000 and 60,000 decisions/s: the ratio of the medians
    # would be 40,000 / 200,000 = 0.2; the rounds' own ratios are 0.4, 0.1 and 0.3.
    assert figures[("how-low-can-you-go", "ratio2-none")] == pytest.approx(0.3)
    (line,) = [line for line in lines if "--isolation process" in line]
    assert "(0.30× the shared mode, 0.10–0.40)" in line and "--sandbox none" in line
