"""What docs/writing-bots.md tells a bot author to import in a unit test keeps working."""

from __future__ import annotations

import re

from conftest import REPO


def test_the_unit_test_example_of_writing_bots_runs_as_printed(monkeypatch):
    text = (REPO / "docs" / "writing-bots.md").read_text(encoding="utf-8")
    example = next(
        block
        for block in re.findall(r"```python\n(.*?)```", text, re.S)
        if "play_game" in block and "load_registry" in block
    )
    # The example names the author's own bot: a bundled one stands in for it.
    example = example.replace('"my-bot"', '"random"').replace("range(20)", "range(3)")
    monkeypatch.chdir(REPO)
    namespace: dict = {}
    exec(compile(example, "writing-bots.md", "exec"), namespace)
    assert namespace["outcome"].faults == (0, 0, 0, 0)
