"""The studio's table on either engine (``Table(engine=...)``, recycle/env/engines.py's
``table_state``): the same deal, the person's same choices and the same computer players give
the same pages (every seat view along the way), the same log and the same record, whether
native code or the reference interpreter steps the game; an undo too. (With a look-ahead seat
this once failed now and then: a computer thread that had handed the table to the person could
wake after the person's move and think too, drawing from the players' generator; only the
thread started last plays now.) And a record replayed in the studio, alike either way."""

from __future__ import annotations

import json
import random
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

from recycle import load
from recycle.env.engines import is_native
from recycle.native import available
from recycle.studio import table as table_module

from .helpers import ROOT

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")


def _wait(table):
    """Until the person decides (two options or more: the table's thread plays forced moves)
    or the game is over and saved."""
    for _ in range(3000):
        with table.cond:
            s = table.state
            if table.error is not None or (
                table.saved is not None if s.is_terminal() else not table._busy() and s.num_options() > 1
            ):
                return
        time.sleep(0.01)
    raise AssertionError("the computer players did not finish")


def _played(name: str, specs: list, engine: str, tmp_path) -> tuple:
    path = ROOT / "games" / f"{name}.rcy"
    folder = tmp_path / engine
    folder.mkdir()
    table = table_module.Table(load(path), path, specs, 3, records=folder, engine=engine)
    rng = random.Random(7)
    views = []
    for k in range(300):
        _wait(table)
        if table.state.is_terminal():
            break
        view = table.seat_view(0)
        views.append(dict(view))
        if k == 2:
            table.undo(0, None)
            continue
        table.act(0, None, rng.randrange(len(view["options"])), view.get("decision"))
    _wait(table)
    views.append(table.seat_view(0))
    engines = set()
    for view in views:
        del view["version"]  # (how often the page was told to look again: the thread's timing)
        engines.add(view.pop("engine"))
    assert table.error is None and table.saved is not None
    views[-1]["result"]["record"] = None  # (a random name)
    record = json.loads((tmp_path / table.saved).read_text())
    return views, table.log, record, is_native(table.state), engines


@pytest.mark.parametrize(
    "name,specs",
    [
        ("crazy-eights", ["human", "random", "pimc:6"]),  # a look-ahead seat: worlds from a blind copy
        pytest.param("hearts", ["human", "random", "pimc:3", "random"], marks=pytest.mark.slow),
        ("goofspiel", ["human", "random"]),  # a simultaneous stage
        # a cheating seat: the live cards, not a blind copy's sorted ones (once another game)
        ("crazy-eights", ["human", "omniscient:6", "random"]),
    ],
)
def test_the_same_table_under_both_engines(name, specs, tmp_path):
    views, log, record, native, said = _played(name, specs, "auto", tmp_path)
    ref_views, ref_log, ref_record, ref_native, ref_said = _played(name, specs, "reference", tmp_path)
    assert native and not ref_native
    assert said == {"played by: native code"}
    assert ref_said == {"played by: the reference interpreter (asked for)"}
    assert len(views) >= 3
    assert views == ref_views
    assert (log, record) == (ref_log, ref_record)


@pytest.mark.parametrize("name", ["crazy-eights", "goofspiel"])
def test_a_record_replays_alike_under_both_engines(name, tmp_path):
    """The studio's replay of a record (``replay_view``): every step, every seat and the
    revealed table, the same whether native code or the reference interpreter steps it."""
    from recycle.players import make_players
    from recycle.study.records import play_recorded, write_record
    from recycle.studio.replay import replay_view

    game_file = tmp_path / f"{name}.rcy"
    game_file.write_text((ROOT / "games" / f"{name}.rcy").read_text())
    game = load(game_file)
    specs = ["random"] * game.nplayers
    _result, record = play_recorded(game, make_players(",".join(specs), game.nplayers), 4, game_file, specs)
    write_record(record, tmp_path / "game.json")
    steps = len(record["decisions"])
    assert steps > 3
    for step in range(steps + 1):
        for seat in [None, *range(game.nplayers)]:
            mine = replay_view(tmp_path, "game.json", step, seat, engine="auto")
            theirs = replay_view(tmp_path, "game.json", step, seat, engine="reference")
            assert mine == theirs, (step, seat)


def test_a_table_is_native_by_default_and_says_so(tmp_path):
    """``Table`` without ``engine``: native code steps the game when it builds here (``auto``),
    a look-ahead seat plays its worlds out natively from a blind start, and every seat's view
    says which engine plays."""
    path = ROOT / "games" / "crazy-eights.rcy"
    table = table_module.Table(load(path), path, ["human", "pimc:6", "random"], 5, records=tmp_path)
    for _ in range(6):
        _wait(table)
        if table.state.is_terminal():
            break
        view = table.seat_view(0)
        table.act(0, None, 0, view.get("decision"))
    _wait(table)
    assert table.error is None
    assert is_native(table.state)
    assert table.seat_view(0)["engine"] == "played by: native code"
    playouts = table.players[1]._native[1]
    assert playouts is not None and playouts.from_blind > 0 and playouts.declined == 0
