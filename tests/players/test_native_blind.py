"""Look-ahead seats of a native table state play their worlds out natively, from a blind start
(recycle/native/blind.py): a copy of the native state's block at the decision, made blind. The
same decisions as on the reference engine (whose playouts start from the native twin or search
in machine code), for PIMC and ISMCTS; and the start holds neither the game's stream keys nor
the true places of the cards the seat cannot place."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

import numpy as np

import recycle
from recycle.engine.knowledge import redeal_plan
from recycle.engine.runner import consult
from recycle.native import NativeUnavailable, NativeUnsupported, available
from recycle.native.outside import start_outside
from recycle.players import make_player
from recycle.streams import CHANCE, PLAYERS, Stream, stream_key

from ..conftest import GAMES

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")


def _both(name, seed: int, search: bool = False):
    game = name if not isinstance(name, str) else recycle.load(GAMES / f"{name}.rcy")
    try:
        native = start_outside(game, seed, track=True, search=search)
    except (NativeUnsupported, NativeUnavailable):
        pytest.skip(f"{name} is not native here")
    return game.new_state(seed, track=True), native


def _decisions(name, spec, seed: int, upto: int = 40, search: bool = False) -> tuple:
    """One player of ``spec`` (or made by it) at every seat, on both engines: the options chosen
    (equal, with each decision's values and visit counts and the players' stream after it) and
    the playouts the native side played from a blind start, those it declined, and the decisions
    it searched whole from a blind start. ``search``: the native table is stepped by the game's
    search module, whose blocks a seat's whole search runs from (recycle/native/blind_search.py)."""
    ref, native = _both(name, seed, search)
    theirs, mine = (make_player(spec), make_player(spec)) if isinstance(spec, str) else (spec(), spec())
    chosen = []
    while not ref.is_terminal() and len(chosen) < upto:
        if ref.num_options() == 1:
            ref.apply(0)
            native.apply(0)
            continue
        p = ref.current_player()
        ra, rb = Stream(seed * 1000 + ref.decisions), Stream(seed * 1000 + ref.decisions)
        a = consult(theirs, ref, p, ref.legal_options(), ra)
        b = consult(mine, native, p, native.legal_options(), rb)
        assert a == b, (name, spec, seed, ref.decisions)
        assert (theirs.last_values, theirs.last_visits, ra.count) == (mine.last_values, mine.last_visits, rb.count)
        assert theirs.warnings == mine.warnings
        chosen.append(a)
        ref.apply(a)
        native.apply(b)
    playouts = mine._native[1]
    if playouts is None:
        return chosen, (0, 0, 0)
    return chosen, (playouts.from_blind, playouts.declined, playouts.searched_blind)


@pytest.mark.parametrize(
    "name,spec", [("crazy-eights", "pimc:12"), ("crazy-eights", "ismcts:12"), ("schwimmen", "ismcts:10")]
)
def test_lookahead_seats_of_a_native_state_play_out_natively_and_decide_alike(name, spec):
    chosen, (blind, declined, _searched) = _decisions(name, spec, 3)
    assert len(chosen) >= 3
    assert blind > 0 and declined == 0


@pytest.mark.parametrize(
    "name,spec", [("crazy-eights", "ismcts:12"), ("schwimmen", "ismcts:40"), ("hearts", "ismcts:30")]
)
def test_an_ismcts_seat_of_a_native_table_searches_whole_in_machine_code_and_decides_alike(name, spec):
    """A table stepped by the game's search module: each ISMCTS decision is one native search
    from the seat's blind start (no playout played one by one, none declined), with the
    reference engine's options, values, visit counts and players' stream."""
    chosen, (blind, declined, searched) = _decisions(name, spec, 3, upto=12, search=True)
    assert len(chosen) >= 3
    assert searched == len(chosen) and blind == 0 and declined == 0


def test_every_shape_of_option_native_code_keys_is_searched_from_a_blind_start_as_on_the_reference():
    """The tiny game whose choice offers every shape of option native keys follow
    (test_native_search.py): a native table's seats search it whole from their blind starts,
    the tree's children told apart below the root as the reference's search tells them."""
    from .test_native_search import keyed_game

    total = 0
    for seed in (1, 2, 3):
        chosen, (blind, _declined, searched) = _decisions(keyed_game(), "ismcts:60", seed, upto=8, search=True)
        assert searched == len(chosen) and blind == 0
        total += len(chosen)
    assert total >= 8


def test_a_blind_search_that_spends_its_work_budget_stops_where_the_reference_s_stops():
    """A decision's work budget spent in a search from a blind start: the same iterations as
    on the reference engine, and the same warning."""
    from recycle.players.lookahead import _SPENT, ISMCTSPlayer

    def short():
        player = ISMCTSPlayer(400)
        player.max_work = 20_000  # some tens of iterations' work
        return player

    chosen, (_blind, _declined, searched) = _decisions("schwimmen", short, 2, upto=4, search=True)
    assert searched == len(chosen) == 4
    _ref, native = _both("schwimmen", 2, search=True)
    while native.num_options() == 1:
        native.apply(0)
    player = short()
    consult(player, native, native.current_player(), native.legal_options(), Stream(1))
    assert 0 < sum(player.last_visits) < 400 and player.warnings == [_SPENT]


@pytest.mark.parametrize("search", [False, True])
def test_a_blind_start_holds_no_stream_key_and_no_true_place(search):
    ref, native = _both("crazy-eights", 11, search)
    for i in (0, 1, 0):
        ref.apply(i % ref.num_options())
        native.apply(i % native.num_options())
    obs = native.player_observation(0)
    start = obs._state.native
    assert start is not None
    bytes_held = b"".join(a.tobytes() for a in (start.block.pool, start.block.scratch, start.block.raw))
    for which in (CHANCE, PLAYERS):
        assert np.uint64(stream_key(11, which)).tobytes() not in bytes_held
    # the re-dealt places hold the blind copy's (sorted) cards, not the true deal
    world = start.world()
    try:
        locs = world.arrays()[0]
        plan = redeal_plan(ref, 0, ref.known_locations(0))
        assert any(tuple(c for _i, _k, c in family) != ordered for family, ordered in plan)
        for family, ordered in plan:
            assert tuple(int(locs[i, k]) for i, k, _c in family) == ordered
    finally:
        world.release()


def test_no_blind_start_where_the_block_holds_the_others_pending_picks():
    """A simultaneous stage keeps the other players' picks in the block: no start (the worlds
    are played in Python), and the decisions are still the reference's."""
    _ref, native = _both("goofspiel", 2)
    native.apply(0)  # (the first player's pick is pending when the second picks)
    assert native.player_observation(native.current_player())._state.native is None
    chosen, (blind, _declined, _searched) = _decisions("goofspiel", "pimc:6", 2, upto=6)
    assert len(chosen) == 6 and blind == 0


@pytest.mark.parametrize("search", [False, True])
def test_a_blind_start_depends_on_what_the_player_saw_never_on_the_hidden_cards(search):
    """Deals the player cannot tell apart (its view and the others' choices as it saw them) whose
    hidden cards differ give blind starts equal byte for byte: the native arrays, the scratch
    stack and the stopped choice's C stack (what lay above a location's top, and the versions that
    counted the runner's earlier games, once told them apart)."""
    from recycle.engine.game import loads

    from .test_deduce import FOLLOW, _off_suit, _seen_by

    game = loads(FOLLOW, "follow.rcy")
    by_view: dict = {}
    pairs = 0
    for seed in range(400):
        s = _off_suit(game, seed)
        if s is None:
            continue
        native = start_outside(game, seed, track=True, search=search)
        native.apply(0)
        native.apply(0)
        start = native.player_observation(2)._state.native
        block = tuple(bytes(getattr(start.block, part)) for part in ("pool", "scratch", "raw"))
        key, hidden = repr(_seen_by(s, 2)), repr(s.locs)
        for other_hidden, other_block in by_view.get(key, []):
            if other_hidden != hidden:
                assert block == other_block
                pairs += 1
        by_view.setdefault(key, []).append((hidden, block))
    assert pairs >= 1


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.stem for p in GAMES.glob("*.rcy")))
def test_every_game_decides_alike_from_a_blind_start(name):
    """Every game of games/: PIMC and ISMCTS seats on a native state choose as on the reference
    engine (``_decisions`` asserts it at each decision), ISMCTS also searching whole natively."""
    for spec in ("pimc:6", "ismcts:6", "ismcts:6:deduce"):
        _decisions(name, spec, 1, upto=15)
    _decisions(name, "ismcts:6", 1, upto=15, search=True)
