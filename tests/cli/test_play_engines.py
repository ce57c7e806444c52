"""`recycle play` on either engine (``PlaySession(engine=...)``, recycle/env/engines.py's
``table_state``): the same deal, keys and computer players give the same screens, character
for character, and the same game record, whether native code or the reference interpreter
steps the game."""

from __future__ import annotations

import io
import json
import random

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

import recycle
from recycle.cli.play import PlaySession, Terminal, seat_specs
from recycle.env.engines import is_native
from recycle.native import available

from ..conftest import GAMES

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")


class ScriptedTerminal(Terminal):
    """A plain terminal answering from a script, then with options drawn from ``rng``; quits
    at the end of the deal."""

    def __init__(self, keys, rng):
        super().__init__(io.StringIO(), io.StringIO(), tty=False)
        self.keys, self.rng = list(keys), rng

    def ask(self, prompt):
        if prompt.startswith("Your choice"):
            if self.keys:
                return self.keys.pop(0)
            n = int(prompt.split("1-", 1)[1].split(",", 1)[0].rstrip(")"))
            return str(self.rng.randrange(n) + 1)
        return "q"


def _played(name: str, engine: str, players: str, keys: list, tmp_path) -> tuple:
    g = recycle.load(GAMES / f"{name}.rcy")
    term = ScriptedTerminal(keys, random.Random(4))
    out = tmp_path / f"{engine}.json"
    session = PlaySession(
        term, g, str(GAMES / f"{name}.rcy"), 1, seat_specs(players, g.nplayers, 1), 9, out, engine=engine
    )
    session.run(9)
    record = json.loads(out.read_text())
    return term.stdout.getvalue().replace(str(out), "RECORD"), record, is_native(session.state), session


def _searches(session) -> bool:
    """Is the table stepped by the game's search module (its ISMCTS seats and hints search whole
    in machine code from the table's blind copy: recycle/native/blind_search.py)?"""
    return bool(session.state._ns._runner.ng.searches)


@pytest.mark.parametrize(
    "name,players,keys",
    [
        ("schwimmen-lives", "random", ["h", "r", "2", "u", "1"]),
        ("goofspiel", "pimc:6", ["1", "u", "2"]),  # a simultaneous stage, a look-ahead player
        ("crazy-eights", "ismcts:12", ["r", "h", "1"]),  # an ISMCTS seat and hint: the search module
    ],
)
def test_the_same_screens_and_record_under_both_engines(name, players, keys, tmp_path):
    screens, record, native, session = _played(name, "auto", players, keys, tmp_path)
    ref_screens, ref_record, ref_native, _ = _played(name, "reference", players, keys, tmp_path)
    assert native and not ref_native  # (auto: this game steps natively here)
    # every table here may be asked for a hint (an ISMCTS adviser): the search module steps it
    assert _searches(session) == (name != "goofspiel")  # (the simultaneous stage: Python's worlds)
    assert "game over" in screens
    # the same screens, but for the line saying which engine plays
    said = screens.count("played by: native code")
    assert said >= 1 and ref_screens.count("played by: the reference interpreter (asked for)") == said
    assert screens.replace("played by: native code", "") == ref_screens.replace(
        "played by: the reference interpreter (asked for)", ""
    )
    assert record == ref_record


def test_an_unknown_engine_is_refused():
    g = recycle.load(GAMES / "war.rcy")
    with pytest.raises(ValueError, match="engine must be one of auto, native, reference, not 'fast'"):
        PlaySession(ScriptedTerminal([], random.Random(0)), g, "war.rcy", 0, ["human", "random"], 1, engine="fast")
