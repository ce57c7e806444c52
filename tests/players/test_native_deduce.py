"""Deduction on a native state (recycle/native/blind_past.py): a deducing seat's blind copy
keeps the others' earlier choices, made blind by the table's side, so its worlds are the
reference's deduced worlds (not plain ones), its decisions are the reference's, and what it
holds has no seed, no generator and no native state."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

import recycle
from recycle.engine.game import loads
from recycle.engine.runner import consult
from recycle.engine.state import State
from recycle.native import NativeUnavailable, NativeUnsupported, available
from recycle.native.outside import OutsideState, start_outside
from recycle.players import make_player
from recycle.players.lookahead import DealRng
from recycle.streams import Stream

from ..conftest import GAMES
from ..engine.test_native_worlds import _reachable
from .test_deduce import FOLLOW, _off_suit

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")


def _native(game, seed: int) -> OutsideState:
    try:
        return start_outside(game, seed, track=True)
    except (NativeUnsupported, NativeUnavailable):
        pytest.skip(f"{game.name} is not native here")


def test_a_deducing_seat_of_a_native_state_deals_the_reference_deduced_worlds():
    game = loads(FOLLOW, "follow.rcy")
    compared = 0
    for seed in range(60):
        ref = _off_suit(game, seed)
        if ref is None:
            continue
        native = _native(game, seed)
        native.apply(0)
        native.apply(0)
        theirs, mine = ref.observation(2), native.player_observation(2, deduce=True)
        for k in range(12):
            a, b = theirs.sample_world(DealRng(k), deduce=True), mine.sample_world(DealRng(k), deduce=True)
            assert (a.locs, a.rng.getstate()) == (b.locs, b.rng.getstate())
        assert mine.deduction == theirs.deduction
        assert mine.deduction["fallbacks"] == 0 and mine.deduction["rejected"] > 0
        compared += 1
        if compared == 3:
            break
    assert compared == 3


def test_a_deducing_seats_blind_copy_holds_no_seed_generator_or_native_state():
    game = loads(FOLLOW, "follow.rcy")
    seed = next(d for d in range(100) if _off_suit(game, d) is not None)
    native = _native(game, seed)
    native.apply(0)
    native.apply(0)
    obs = native.player_observation(2, deduce=True)
    obs.sample_world(DealRng(0), deduce=True)
    held = _reachable(obs)
    assert obs._state.past is not None and obs._state.past.checks
    assert not [x for x in held if isinstance(x, (OutsideState, Stream, type(native._ns)))]
    assert all(x.seed is None for x in held if isinstance(x, State))
    assert all(x.knowledge is None for x in held if isinstance(x, State) and x is not obs._state)


@pytest.mark.parametrize("name", ["crazy-eights", "schwimmen"])
def test_a_deducing_player_decides_alike_under_both_engines(name):
    game = recycle.load(GAMES / f"{name}.rcy")
    ref, native = game.new_state(4, track=True), _native(game, 4)
    theirs, mine = make_player("ismcts:10:deduce"), make_player("ismcts:10:deduce")
    decided = 0
    while not ref.is_terminal() and decided < 12:
        p = ref.current_player()
        if ref.num_options() == 1:
            i = 0
        else:
            i = consult(theirs, ref, p, ref.legal_options(), Stream(decided))
            assert consult(mine, native, p, native.legal_options(), Stream(decided)) == i
            decided += 1
        ref.apply(i)
        native.apply(i)
    assert decided >= 6
    assert mine.deduction == theirs.deduction
    assert mine.deduction["worlds"] > 0 and mine.deduction["fallbacks"] == theirs.deduction["fallbacks"]
