"""The Python examples of docs/api.md run as written (from the repository's root)."""

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "api.md").read_text(), re.S)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_api_example_runs(code, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    exec(compile(code, "docs/api.md", "exec"), {"__name__": "docs_example"})  # our own doc, not game input
    assert capsys.readouterr().out.strip()


def test_the_observation_shown_is_the_real_one(monkeypatch):
    import recycle

    monkeypatch.chdir(ROOT)
    text = (ROOT / "docs" / "api.md").read_text()
    shown = re.search(r"```\n(Observation of P0.*?)\n  \.\.\.\n```", text, re.S).group(1)
    s = recycle.load("games/schwimmen.rcy").new_state(seed=3)
    assert repr(s.observation(0)).startswith(shown)
    assert os.path.exists(ROOT / "docs" / "players.md")
