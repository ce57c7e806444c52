"""A look-ahead player's whole search in machine code (recycle/native/runtime_search.py) is the
Python player's search, draw for draw.

Whole games are played twice by ISMCTS players, their playouts ``"native"`` (every decision
searched natively) and ``"reference"`` (the Python search): every decision's option, values and
visit counts, and the players' stream after it, must be the same. The tiny game's choice offers
options of every shape whose keys native code writes (a fixed action, a block of actions, pairs,
an ``any`` over a conditional, a ``let``, a block of one item, a conditional repeat, a block
whose ``repeat all`` is listed on the state its move leaves, an ``all`` of moves, a computed
repeat, a block whose ``any`` is listed after its move, each option followed by the block's
last action), so the hashed keys must tell options apart exactly as ``option_key`` does; the players' hands are
hidden, so every world is dealt again. Then the search's other paths: the cheating players (no
deal, one location revealed), the ``score`` reward, a decision whose options native code cannot
key (declined: the Python search decides, with the same stream), and a spent work budget.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

from recycle.native import available, native_playouts
from recycle.native.playouts import key_agreement
from recycle.native.runtime import DECLINE, STATUS_WORDS
from recycle.players.lookahead import _SPENT, ISMCTSPlayer, OmniscientPlayer, RevealingPlayer
from recycle.streams import Stream

from ..conftest import CORPUS, GAMES, tiny
from ..engine.test_native import SHAPES, compiled, load
from .test_native_playouts import decisions

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")

KEYED = """(do ((shuffle (game iloc STOCK))
     (all player 'P (repeat 3 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))
     (move (top (game iloc STOCK)) (top (game vloc DONE)))))
 (stage player (end (or (> (game sto TURNS) 14) (== (size (game iloc STOCK)) 0)))
  (inc (game sto TURNS) 1)
  (choice (
   (inc ((current player) sto PASSES) 1)
   (do ((move (top (game iloc STOCK)) (top ((current player) iloc HAND)))
        (inc ((current player) sto DRAWS) 1)))
   (any ((current player) iloc HAND) 'C (any (game vloc DONE) 'D (swap 'C 'D)))
   (any ((current player) iloc HAND) 'C
     ((> (size ((current player) iloc HAND)) 2) (move 'C (top (game vloc DONE)))))
   (let (size ((current player) iloc HAND)) 'N
     ((> 'N 3) (move (top ((current player) iloc HAND)) (bottom (game vloc DONE)))))
   (do ((any (game vloc DONE) 'D ((== (cardatt SUIT 'D) X) (move 'D (top ((current player) iloc HAND)))))))
   ((== (game sto TURNS) 3) (repeat 2 (move (top (game iloc STOCK)) (top (game vloc DONE)))))
   ((> (size (game vloc DONE)) 1)
    (do ((move (top (game vloc DONE)) (top ((current player) iloc HAND)))
         (repeat all (move (top (game vloc DONE)) (top (game iloc STOCK)))))))
   (any ((current player) iloc HAND) 'C ((== (cardatt RANK 'C) A)
     (do ((move 'C (top (game vloc DONE)))
          (any (filter (game vloc DONE) 'D (== (cardatt SUIT 'D) Y)) 'D (inc ((current player) sto MARKS) 1))
          (inc ((current player) sto DRAWS) 1)))))
   ((> (size ((current player) iloc HAND)) 3) (all ((current player) iloc HAND) 'C (move 'C (top (game iloc STOCK)))))
   ((and (< (size ((current player) iloc HAND)) 4) (>= (size (game iloc STOCK)) 3))
    (repeat (- 4 (size ((current player) iloc HAND))) (move (top (game iloc STOCK)) (top ((current player) iloc HAND))))))))"""
KEYED_SCORING = "(scoring max (+ (size ((current player) iloc HAND)) ((current player) sto DRAWS)))"


def keyed_game():
    return tiny(KEYED, players=3, deck="(deck (RANK (A, B, C, D, E, F)) (SUIT (X, Y)))", scoring=KEYED_SCORING)


def searches(game, make, playouts: str, seed: int, upto: int = 10):
    """``decisions`` of one game (test_native_playouts.py), the native searches made, and why
    the others were declined."""
    out, natives = decisions(game, make, playouts, seed, upto)
    why: dict = {}
    for n in natives:
        for status, times in n.why.items():
            why[STATUS_WORDS[status]] = why.get(STATUS_WORDS[status], 0) + times
    return out, sum(n.searched for n in natives), why


def assert_searched_as_python(game, make, seeds, upto: int = 10, declines: bool = False):
    for seed in seeds:
        native, searched, why = searches(game, make, "native", seed, upto)
        python, none, _ = searches(game, make, "reference", seed, upto)
        assert native == python, f"seed {seed}"
        assert none == 0
        if declines:
            assert why and searched < len(native), (why, searched)
        else:
            assert not why and searched == len(native), (why, searched, len(native))


# the fast suite searches the first 5 decisions of one game; the long sweep (slow) whole games
# of three (the search in Python is what takes the time)
@pytest.mark.parametrize(
    "seed, upto",
    [
        (1, 5),
        pytest.param(1, 10, marks=pytest.mark.slow),
        pytest.param(2, 10, marks=pytest.mark.slow),
        pytest.param(3, 10, marks=pytest.mark.slow),
    ],
)
def test_every_shape_of_option_native_code_keys_is_searched_as_python(seed, upto):
    game = keyed_game()
    compiled(game, search=True)
    assert_searched_as_python(game, lambda e: ISMCTSPlayer(150, playouts=e), (seed,), upto=upto)


@pytest.mark.slow
def test_schwimmen_is_searched_as_python_with_a_deep_tree():
    game = load(GAMES / "schwimmen.rcy")
    compiled(game, search=True)
    assert_searched_as_python(game, lambda e: ISMCTSPlayer(400, playouts=e), (5,), upto=6)


@pytest.mark.parametrize(
    "make",
    [
        lambda e: OmniscientPlayer(80, playouts=e),
        lambda e: RevealingPlayer(80, reveal=(0,), playouts=e),
        lambda e: ISMCTSPlayer(80, reward="score", playouts=e),
    ],
    ids=["omniscient", "revealing", "score-reward"],
)
def test_cheating_players_and_the_score_reward_are_searched_as_python(make):
    game = keyed_game()
    compiled(game, search=True)
    assert_searched_as_python(game, make, (4,), upto=6)


# a block whose two items fork (Coup's accusations): native code does not key its options
FORKS_TWICE = """(do ((shuffle (game iloc STOCK)) (all player 'P (repeat 3 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))))
 (stage player (end (> (game sto TURNS) 5))
  (inc (game sto TURNS) 1)
  (choice (
   (inc ((current player) sto PASSES) 1)
   ((== (size (game vloc DONE)) 0)
    (do ((any ((current player) iloc HAND) 'C (move 'C (top (game vloc DONE))))
         (any ((current player) iloc HAND) 'D (move 'D (bottom (game vloc DONE)))))))
   ((> (size (game vloc DONE)) 0) (move (top (game vloc DONE)) (top ((current player) iloc HAND)))))))"""


def forks_twice_game():
    return tiny(
        FORKS_TWICE,
        players=2,
        deck="(deck (RANK (A, B, C, D, E, F)) (SUIT (X, Y)))",
        scoring="(scoring max (size ((current player) iloc HAND)))",
    )


def test_options_native_code_cannot_key_leave_the_search_to_python_with_the_same_stream():
    """A block whose two items fork is not keyed natively: a search that reaches it below the
    root declines, and Python searches that decision, from the same stream."""
    game = forks_twice_game()
    compiled(game, search=True)
    native, searched, why = searches(game, lambda e: ISMCTSPlayer(40, playouts=e), "native", 2, upto=4)
    python, _, _ = searches(game, lambda e: ISMCTSPlayer(40, playouts=e), "reference", 2, upto=4)
    assert native == python
    declined = why.get(STATUS_WORDS[DECLINE], 0)
    assert set(why) == {STATUS_WORDS[DECLINE]} and declined >= 1
    assert declined + searched == len(native)


def test_a_search_that_spends_its_work_budget_stops_and_says_so():
    game = keyed_game()
    compiled(game, search=True)
    s = game.new_state(1)
    while s.num_options() == 1:
        s.apply(0)
    player = ISMCTSPlayer(500, playouts="native")
    player.max_work = 10_000  # some tens of iterations' work
    rng = Stream(3)
    player.choose(s.observation(s.current_player()), s.legal_options(), rng)
    assert player._native[1].searched == 1
    assert 0 < sum(player.last_visits) < 100
    assert player.warnings == [_SPENT]


def test_the_native_search_considers_as_many_options_as_the_python_one():
    from recycle.native import runtime_search
    from recycle.players import lookahead

    assert runtime_search.MAX_CONSIDERED == lookahead.MAX_CONSIDERED


@pytest.mark.parametrize(
    "which",
    [
        "keyed",
        pytest.param("shapes", marks=pytest.mark.slow),
        "schwimmen",
        "forks-twice",
        pytest.param("LostCities2", marks=pytest.mark.slow),
    ],
)
def test_native_option_keys_are_equal_exactly_when_python_s_are(which):
    """Over every decision of a few random games: each Python key has one native key, and no
    two Python keys share one (so a search's tree has the same children natively)."""
    if which == "keyed":
        game = keyed_game()
    elif which == "forks-twice":
        game = forks_twice_game()
    elif which == "LostCities2":  # (all COLORS 'C ...) of options written out color by color
        game = load(CORPUS / "LostCities2.rcy")
    elif which == "schwimmen":
        game = load(GAMES / "schwimmen.rcy")
    else:
        game = tiny(
            SHAPES,
            deck="(deck (RANK (A, B, C, D, E)) (SUIT (X, Y)))",
            declare="(declare (RED, BLUE) 'COLORS) (declare (range 1..3) 'SLOTS)",
            scoring="(scoring max (+ ((current player) sto FIRST) ((current player) sto DRAWS)))",
        )
    compiled(game, search=True)
    got = key_agreement(native_playouts(game, "native", search=True), range(1, 7))
    assert got["keys"] >= (2 if which == "forks-twice" else 20)
    assert got["split"] == 0 and got["merged"] == 0
    if which == "forks-twice":
        assert got["declined"] > 0
    else:
        assert got["declined"] == 0
