"""Random games stepped natively with their options counted at every decision
(recycle/native/option_counts.py, the game page's branching figure): the counts are the
reference interpreter's, decision for decision, and a game native code stops is handed back."""

from __future__ import annotations

import pytest

import recycle
from recycle.engine.game import rollout_seed
from recycle.native import available
from recycle.native.option_counts import _reference, random_options
from recycle.study.page import build_page

from ..conftest import CORPUS, GAMES

native = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")
# a simultaneous stage (goofspiel), one-option decisions (whist), teams, the corpus's Hearts4
CASES = [GAMES / f"{name}.rcy" for name in ("schwimmen", "goofspiel", "go-fish", "whist", "leduc")]
CASES.append(CORPUS / "Hearts4.rcy")


@native
@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_native_counts_are_the_reference_interpreters(path):
    if not path.exists():
        pytest.skip(f"{path} is not here (../shared)")
    g = recycle.load(path)
    for i in range(6):
        seed = rollout_seed(11, i)
        got = random_options(g, seed, 100_000, "native")
        want = _reference(g, seed, 100_000)
        assert got["engine"] == "native"
        assert (got["limit"], got["options"]) == (want["limit"], want["options"])
        assert sum(got["options"]) == g.play(seed=seed).options_total


def test_a_game_native_code_stops_is_played_by_the_reference_interpreter():
    g = recycle.load(GAMES / "schwimmen.rcy")
    got = random_options(g, 3, 5)  # the step limit, before the game ends
    assert got == {"seed": 3, "limit": True, "options": [], "engine": "reference"}
    got = random_options(g, 3, 100_000, "reference")
    assert got["engine"] == "reference" and not got["limit"] and len(got["options"]) == g.play(seed=3).decisions


@native
def test_the_pages_random_games_are_played_natively():
    inc = "(do ((inc (game sto T))))"
    text = f"""(game (setup (create players 2))
     (stage player (end (> (game sto T) 1)) (choice ({inc} {inc} {inc})))
     (scoring max (game sto T)))"""
    p = build_page(recycle.loads(text, "three.rcy"), games=3, seed=1, players=["random"], lint_seconds=0.1)
    assert p.branching["engine"] == "native"
    assert p.branching["per_game"] == [[3, 3]] * 3
