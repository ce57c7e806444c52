"""The stepping API of a compiled game: states, options, clones, errors, an immutable game."""

import random

import pytest
from typer.testing import CliRunner

import recycle
from recycle.engine.game import players_stream
from recycle.cli import app

from ..conftest import GAMES, tiny

SCHWIMMEN = GAMES / "schwimmen.rcy"
HEARTS = GAMES / "hearts.rcy"


def test_a_stepped_game_is_the_game_play_plays():
    g = recycle.load(SCHWIMMEN)
    s = g.new_state(seed=7)
    draw = players_stream(7).random  # the random players' stream in g.play
    while not s.is_terminal():
        n = s.num_options()
        s.apply(int(draw() * n) if n > 1 else 0)
    r = g.play(seed=7)
    assert s.returns() == r.scores == [20, 38, 22, 14, 20]
    assert s.winners() == r.winners == [1]
    assert s.decisions == r.decisions == 13


def test_options_are_typed_and_told_as_the_chooser_sees_them():
    g = recycle.load(SCHWIMMEN)
    s = g.new_state(seed=7)
    opts = s.legal_options()
    assert [o.index for o in opts] == [0, 1]
    # the dealer may swap its hand for the extra hand, whose cards it has not seen
    assert opts[0].describe() == "swap Q♠ Q♥ J♥ from your HAND for 3 cards from EXTRA"
    assert opts[0].describe(None) == "swap Q♠ Q♥ J♥ from P0's HAND for 10♣ A♥ K♣ from EXTRA"
    assert opts[1].describe() == "pass"
    assert opts[0].cards[:3] == [23, 20, 16] and opts[0].cards[3:] == [None, None, None]
    assert opts[0].render() == "(swap ((current player) iloc HAND) (game iloc EXTRA))"
    s.apply(opts[1])
    texts = [o.describe() for o in s.legal_options()]
    assert texts[0] == "set PASS to 1"
    assert texts[2].startswith("swap ") and texts[2].endswith("from MIDDLE; set PASS to 0")


def test_option_keys_are_stable_across_copies():
    s = recycle.load(HEARTS).new_state(seed=3)
    assert [o.key for o in s.legal_options()] == [o.key for o in s.clone().legal_options()]
    assert len({o.key for o in s.legal_options()}) == s.num_options()


def test_clone_is_independent_and_continues_identically():
    g = recycle.load(HEARTS)
    s = g.new_state(seed=5)
    for _ in range(30):
        s.apply(0)
    t = s.clone()
    before = [list(loc) for loc in s.locs]
    t.apply(t.num_options() - 1)
    assert [list(loc) for loc in s.locs] == before
    u = s.clone()
    s.play_randomly(random.Random(9).random)
    u.play_randomly(random.Random(9).random)
    assert s.returns() == u.returns() and s.card_loc == u.card_loc and s.decisions == u.decisions


def test_misuse_is_a_clear_error():
    s = recycle.load(SCHWIMMEN).new_state(seed=1)
    with pytest.raises(ValueError, match="option 5 of a decision with 2 options"):
        s.apply(5)
    with pytest.raises(ValueError, match="not over"):
        s.returns()
    s.play_randomly(random.Random(1).random)
    assert s.is_terminal() and s.legal_options() == [] and s.num_options() == 0
    with pytest.raises(ValueError, match="over"):
        s.apply(0)


def test_a_game_without_decisions_ends_in_new_state():
    g = tiny(
        "(do ((repeat 3 (move (top (game iloc STOCK)) (top (game vloc PILE))))))",
        scoring="(scoring max (size (game vloc PILE)))",
    )
    s = g.new_state(seed=0)
    assert s.is_terminal() and s.returns() == [3, 3] and s.decisions == 0


def test_the_compiled_game_does_not_grow_while_playing():
    g = recycle.load(HEARTS)
    cards, locs = len(g.card_attrs), g.layout.nlocs
    assert cards == 52  # made at load time, before any game
    for seed in range(5):
        g.random_rollout(seed)
    assert (len(g.card_attrs), g.layout.nlocs) == (cards, locs)


def test_an_internal_error_is_reported_as_ours_with_the_position(monkeypatch):
    from recycle.lang.forms import form_shuffle

    def broken(lst, random):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(form_shuffle, "shuffle", broken)
    g = recycle.load(SCHWIMMEN)
    with pytest.raises(recycle.RecycleBug) as err:
        g.new_state(seed=4)
    assert "ZeroDivisionError: boom" in str(err.value)
    assert "schwimmen.rcy, seed 4, decision 0, step 0" in str(err.value)
    assert "bug in recycle" in str(err.value)
    result = CliRunner().invoke(app, ["run", str(SCHWIMMEN), "--seed", "4"])
    assert result.exit_code == 2
    assert "internal error (" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("path", [SCHWIMMEN, HEARTS])
def test_keys_of_a_decision_s_options_are_distinct_and_those_of_each_option(path):
    """The look-ahead players key a decision's options (``option_keys``): the keys must be
    each option's own, and tell every option apart. (Until issue 41 the keys of lazily listed
    options were worked out without building them; the options are always built now.)"""
    from recycle.engine.options import option_key, option_keys

    s = recycle.load(path).new_state(seed=4)
    draw = random.Random(4).random
    many = 0
    while not s.is_terminal():
        opts = s._raw_options()
        keys = option_keys(opts, {})
        assert keys == [option_key(o) for o in opts]
        assert len(set(keys)) == len(keys)
        n = len(opts)
        many += n > 1
        s.apply(int(draw() * n) if n > 1 else 0)
    assert many >= 5
