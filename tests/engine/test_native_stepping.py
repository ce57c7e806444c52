"""Native stepping (recycle/native/stepping.py): a native game stopped at each choice and
stepped from outside, against the reference interpreter's State.

Random paths go through both engines with the same choices; at every decision the options'
count, the player to move, the steps and every card's place are equal, and at the end the
scores; clones taken along the way play on without changing their originals
(``stepping_check.step_agreement``)."""

from __future__ import annotations

import copy
import shutil
import types

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

import recycle
from recycle.native import available
from recycle.native.c import build
from recycle.native.c.library import ModuleLibrary
from recycle.native.engine import chance_and_player_keys, module_namespace, native_game
from recycle.native.stepped import start
from recycle.errors import RecycleRuntimeError
from recycle.native.stepping import NativeStopped, start_keys
from recycle.native.stepping_check import step_agreement
from recycle.streams import Stream

from ..conftest import CORPUS, FAST_CORPUS, GAMES, requires_corpus, tiny

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")

STEPPED = sorted(GAMES.glob("*.rcy"))
LONG = ("hearts", "whist", "schwimmen-lives")  # hundreds of decisions a game: the slow run


def _agree(path, seeds, limit, keys=False):
    got = step_agreement(recycle.load(path), seeds, max_decisions=limit, keys=keys)
    assert got.differences == []
    assert (got.games, got.stopped) == (len(seeds), [])
    assert got.decisions > 0 or path.stem == "war"  # War has no choice: dealt and played at once
    return got


@pytest.mark.parametrize("path", STEPPED, ids=lambda p: p.stem)
def test_games_step_alike(path):
    _agree(path, range(20), 25 if path.stem in LONG else 150)


@pytest.mark.slow
@pytest.mark.parametrize("path", STEPPED, ids=lambda p: p.stem)
def test_games_step_alike_to_their_end(path):
    _agree(path, range(20, 40), 100_000)


@requires_corpus()
@pytest.mark.parametrize("name", FAST_CORPUS)
def test_corpus_sample_steps_alike(name):
    _agree(CORPUS / f"{name}.rcy", range(20), 30)


@pytest.mark.parametrize("name", ["schwimmen", "hearts", "crazy-eights", "golf-six"])
def test_native_option_keys_are_equal_where_the_reference_keys_are(name):
    # on the game's search module, whose choices key their options (runtime_search.keys_stepped)
    got = _agree(GAMES / f"{name}.rcy", range(20), 25, keys=True)
    assert got.keyed > 0


def test_a_rule_broken_natively_is_handed_to_the_reference_interpreter_for_its_message():
    game = tiny(
        """(stage player (end (== 0 (size (game iloc STOCK))))
  (choice ((move (top (game iloc STOCK)) (top ((current player) iloc HAND)))
           (repeat 4 (move (top (game iloc STOCK)) (top ((current player) iloc HAND)))))))"""
    )
    s = start(game, 1)
    while not s.is_terminal():
        s.apply(1)
    assert s.history == [1, 1]
    with pytest.raises(NativeStopped, match="the native game broke a rule"):
        s.returns()
    with pytest.raises(RecycleRuntimeError, match="move from the empty location STOCK"):
        s.reference_state()


def test_a_plain_module_has_no_option_keys():
    s = start(recycle.load(GAMES / "schwimmen.rcy"), 1)
    assert s.num_options() > 1 and s.option_keys() is None


def test_a_clone_plays_on_and_leaves_its_original():
    g = recycle.load(GAMES / "schwimmen.rcy")
    a = start(g, 5)
    a.apply(1)
    before = (a.num_options(), a.current_player(), a.counters(), a.card_places())
    b = a.clone()
    picks = Stream(9)
    while not b.is_terminal():
        b.apply(int(picks.random() * b.num_options()))
    assert (a.num_options(), a.current_player(), a.counters(), a.card_places()) == before
    ref = g.new_state(5)
    ref.apply(1)
    ref2 = ref.clone()
    picks = Stream(9)
    while not ref2.is_terminal():
        ref2.apply(int(picks.random() * ref2.num_options()))
    assert b.returns() == ref2.returns()
    assert b.card_places() == [int(x) for x in ref2.card_loc]
    with pytest.raises(ValueError, match="the game is over"):
        b.apply(0)
    n = a.num_options()
    with pytest.raises(ValueError, match=f"option {n} of a decision with {n} options"):
        a.apply(n)


def test_two_games_stepped_in_turn_each_go_on_where_they_stopped():
    g = recycle.load(GAMES / "crazy-eights.rcy")
    nat = [start(g, s) for s in (1, 2)]
    ref = [g.new_state(s) for s in (1, 2)]
    while not all(r.is_terminal() for r in ref):
        for n, r in zip(nat, ref):
            if not r.is_terminal():
                assert n.num_options() == r.num_options()
                k = r.num_options() // 2
                n.apply(k)
                r.apply(k)
    assert [n.returns() for n in nat] == [r.returns() for r in ref]


def test_a_simultaneous_stage_stops_at_each_players_pick():
    # goofspiel's bids: one decision a player, each player to move in turn, as the reference State
    g = recycle.load(GAMES / "goofspiel.rcy")
    s, ref = start(g, 3), g.new_state(3)
    seen = []
    for _ in range(g.nplayers):
        assert (s.current_player(), s.num_options()) == (ref.current_player(), ref.num_options())
        seen.append(s.current_player())
        s.apply(0)
        ref.apply(0)
    assert seen == list(range(g.nplayers))


@pytest.mark.skipif(not (shutil.which("tcc") and shutil.which("gcc")), reason="needs both tcc and gcc")
def test_the_tcc_and_the_gcc_library_step_alike():
    game = recycle.load(GAMES / "hearts.rcy")
    ng = native_game(game)
    states = []
    for name, flags in (("tcc", build.TCC_FLAGS), ("gcc-O2", build.GCC_FLAGS)):
        lib = ModuleLibrary(
            ng.source, lambda: module_namespace(ng.source), tiers=((name, [shutil.which(name[:3]), *flags]), None)
        )
        twin = copy.copy(ng)
        twin.module = types.ModuleType("stepped_by_" + name.replace("-", "_"))
        twin.module.__dict__.update(ng.module.__dict__)
        twin.module.games = lib
        states.append(start_keys(twin, *(int(k) for k in chance_and_player_keys([4])[0])))
    picks = Stream(4)
    a, b = states
    while not a.is_terminal():
        assert (b.num_options(), b.current_player(), b.counters(), b.card_places()) == (
            a.num_options(),
            a.current_player(),
            a.counters(),
            a.card_places(),
        )
        k = int(picks.random() * a.num_options())
        a.apply(k)
        b.apply(k)
    assert b.is_terminal()
    assert (b.returns(), b.counters(), b.card_places()) == (a.returns(), a.counters(), a.card_places())
