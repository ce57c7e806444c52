"""The studio's table speaks the game's words, as the terminal does (issue 40.4, 40.6):
storages as the game names them (hidden ones left out, labels and value words used), the
person's own moves, forced or chosen, in the words of the game's options, and a hint in the
option's words with its figures (interval and tries)."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("starlette")

from recycle import load
from recycle.cli.table import FORCED, storage_texts, table_lines
from recycle.players.human import Hint
from recycle.studio import table as table_module

from .helpers import ROOT

HEARTS = ROOT / "games" / "hearts.rcy"


def _wait(table):
    for _ in range(3000):
        with table.cond:
            if not table._busy():
                return
        time.sleep(0.01)
    raise AssertionError("the computer players did not finish")


def test_table_storages_are_shown_as_the_game_names_them():
    game = load(HEARTS)
    table = table_module.Table(game, HEARTS, ["human", "random", "random", "random"], 3)
    _wait(table)
    view = table.seat_view(0)
    texts = [s["text"] for s in view["storages"]]
    obs = table.state.observation(0)
    # the very words of the terminal's play screen (one function makes both)
    assert texts == [text for _, text in storage_texts(obs)]
    screen = "\n".join(table_lines(obs, ["you", "random", "random", "random"], None))
    assert all(text in screen for text in texts)
    assert any(t.startswith("suit led ") for t in texts)  # LEAD, as hearts labels it
    assert any(t.startswith("passing ") for t in texts)  # SHIFT, with its value's words
    assert not any(word in t for t in texts for word in ("SEATS", "MOON", "DEDUCT", "LEAD", " = "))
    assert {s["owner"] for s in view["storages"]} <= {"you", "P1", "P2", "P3", "table"}


def test_table_tells_the_persons_forced_move_in_the_games_words():
    game = load(HEARTS)
    table = table_module.Table(game, HEARTS, ["human", "random", "random", "random"], 3)
    for _ in range(400):
        _wait(table)
        s = table.state
        forced = [d for d, p, n, _ in table.log if p == 0 and n == 1 and d in table.said[0]]
        if forced or s.is_terminal():
            break
        table.act(0, None, 0)
    assert forced, "no forced move of the person's in this deal"
    d = forced[0]
    words = table.said[0][d]
    assert words.split(":")[0] in ("follow suit", "lead", "discard", "pass")  # the game's option names
    history = table.seat_view(0)["history"]
    assert f"  you   {FORCED}{words}" in history


def test_table_hint_is_said_in_the_options_words_with_its_figures(monkeypatch):
    """Not 'hint from ismcts:200: option 1': who advises, the option's words, the figure."""
    monkeypatch.setattr(
        table_module,
        "hint",
        lambda view, options, spec, seed, stop=None: Hint(
            "ismcts:200", 1, [0.0, 0.5] + [None] * (len(options) - 2), [3, 100] + [0] * (len(options) - 2)
        ),
    )
    game = load(ROOT / "games" / "crazy-eights.rcy")
    table = table_module.Table(game, ROOT / "games" / "crazy-eights.rcy", ["human", "random", "random"], 3)
    _wait(table)
    assert len(table.seat_view(0)["options"]) >= 2
    table.hint(0, None)
    for _ in range(1000):
        view = table.seat_view(0)
        if view["hint"]:
            break
        time.sleep(0.01)
    h = view["hint"]
    assert h["who"] == "an ismcts:200 adviser"
    assert h["advice"] == (
        f"hint from an ismcts:200 adviser: 2. {view['options'][1]} "
        "(estimated chance of winning 50% (40-60%, 100 tries))"
    )
    assert h["figures"][:2] == ["0% (0-56%, only 3 tries: a guess)", "50% (40-60%, 100 tries)"]
    assert h["few"][:2] == [True, False]


def test_table_tells_another_players_simultaneous_choice_as_unseen():
    """games/goofspiel.rcy at the studio's table, the person in seat 1: P0's bid is told as made
    but unseen while the person decides, and under P0 once both bids are applied."""
    path = ROOT / "games" / "goofspiel.rcy"
    table = table_module.Table(load(path), path, ["random", "human"], 1)
    _wait(table)
    history = table.seat_view(1)["history"]
    assert history[-1] == "  P0    chose (unseen until every player has chosen)"
    assert not any("BID:" in line for line in history)
    table.act(1, None, 0)
    _wait(table)
    history = table.seat_view(1)["history"]
    assert any(line.startswith("  P0    P0's HAND → P0's BID: ") for line in history)
