"""Which engine a people's table plays on, said (``env.engines.played_by``): native code where
the game builds here (``auto``), else the reference interpreter and why."""

from __future__ import annotations

import pytest

from recycle import load
from recycle.native import choose
from recycle.env.engines import PlayedBy, played_by, table_state

from ..conftest import GAMES


def test_the_reference_asked_for_says_so():
    game = load(GAMES / "crazy-eights.rcy")
    s = table_state(game, 3, 1000, "reference")
    assert played_by(s, "reference") == PlayedBy("reference", "asked for")
    assert played_by(s, "reference").line() == "played by: the reference interpreter (asked for)"


def test_auto_without_the_native_engine_says_why(monkeypatch):
    game = load(GAMES / "crazy-eights.rcy")
    monkeypatch.setattr(choose, "_HERE", [False])
    s = table_state(game, 3, 1000, "auto")
    got = played_by(s, "auto")
    assert got.engine == "reference" and got.why.startswith("the native engine needs ")


def test_auto_on_a_game_native_code_does_not_write_says_which_form(monkeypatch):
    pytest.importorskip("numpy")
    from recycle import native

    if not native.available():
        pytest.skip("the native engine needs NumPy and a C compiler")
    game = load(GAMES / "crazy-eights.rcy")
    monkeypatch.setattr(native, "why_not_native", lambda g: "the native engine does not write (frobnicate) (3:4)")
    s = game.new_state(3, max_steps=1000)  # (what table_state deals when native code declines)
    assert played_by(s, "auto").line() == (
        "played by: the reference interpreter (the native engine does not write (frobnicate) (3:4))"
    )
    native_state = table_state(game, 3, 1000, "auto")
    assert played_by(native_state, "auto").line() == "played by: native code"
