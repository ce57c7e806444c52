"""Worlds dealt for a look-ahead player of a native game (recycle/native/worlds.py): the
observation a player receives (``OutsideState.player_observation``) tells what the reference
State's tells, deals for the same generator the same worlds card for card (played on alike to
the end), and holds no path to the native state, the twin, the game's generator or its seed."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

import recycle
from recycle.engine.runner import consult
from recycle.engine.state import State
from recycle.native import NativeUnavailable, NativeUnsupported, available
from recycle.native.outside import OutsideState, start_outside
from recycle.players import make_player
from recycle.streams import Stream

from ..conftest import GAMES
from .test_native_outside import _observed

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")

GAMES_DEALT = ("crazy-eights", "goofspiel", "go-fish", "leduc", "schwimmen")


def _both(name: str, seed: int):
    game = recycle.load(GAMES / f"{name}.rcy")
    try:
        native = start_outside(game, seed, track=True)
    except (NativeUnsupported, NativeUnavailable):
        pytest.skip(f"{name} is not native here")
    return game.new_state(seed, track=True), native


def _played_out(world, seed: int) -> tuple:
    """The world played to its end by random choices of ``seed``: its decisions and returns."""
    rng = random.Random(seed)
    while not world.is_terminal():
        world.apply(int(rng.random() * world.num_options()))
    return world.history, world.returns()


@pytest.mark.parametrize("name", GAMES_DEALT)
def test_native_observation_deals_the_reference_worlds(name):
    ref, native = _both(name, 3)
    path = random.Random(5)
    compared = 0
    for _decision in range(12):
        if ref.is_terminal():
            break
        for p in range(ref.game.nplayers):
            theirs, mine = ref.observation(p), native.player_observation(p)
            assert _observed(mine) == _observed(theirs)
            for k in range(3):
                a, b = theirs.sample_world(random.Random(k)), mine.sample_world(random.Random(k))
                assert (a.locs, a.card_loc, a.num_options()) == (b.locs, b.card_loc, b.num_options())
                assert _played_out(a, k) == _played_out(b, k)
                compared += 1
        i = int(path.random() * ref.num_options())
        ref.apply(i)
        native.apply(i)
    assert compared > 0


def _reachable(root) -> list:
    """Every object reachable from ``root`` through attributes, slots and containers (not
    through classes, functions or modules: what a player holds, not what it may import)."""
    seen, out, todo = set(), [], [root]
    while todo:
        x = todo.pop()
        if id(x) in seen or isinstance(x, (type, type(len), type(_reachable))) or type(x).__name__ == "module":
            continue
        seen.add(id(x))
        out.append(x)
        if isinstance(x, dict):
            todo += list(x.keys()) + list(x.values())
        elif isinstance(x, (list, tuple, set, frozenset)):
            todo += list(x)
        for cls in type(x).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if hasattr(x, slot):
                    todo.append(getattr(x, slot))
        if hasattr(x, "__dict__") and not isinstance(x, type):
            todo.append(vars(x))
    return out


def test_a_players_observation_holds_no_path_to_the_game():
    ref, native = _both("crazy-eights", 11)
    for i in (0, 1, 0):
        ref.apply(i % ref.num_options())
        native.apply(i % native.num_options())
    twin = native.twin()
    obs = native.player_observation(0)
    held = _reachable(obs)
    assert not [x for x in held if isinstance(x, (OutsideState, Stream, type(native._ns)))]
    assert not [x for x in held if x is twin or x is twin.rng]
    copies = [x for x in held if isinstance(x, State)]
    assert len(copies) == 1 and copies[0].seed is None
    # no other player's memory, and every card the player may not place lies in sorted order
    assert all(k == {} for q, k in enumerate(copies[0].knowledge) if q != 0)
    from recycle.engine.knowledge import redeal_plan

    for family, ordered in redeal_plan(copies[0], 0, copies[0].known_locations(0)):
        assert tuple(c for _i, _k, c in family) == ordered
    # the true deal of those places is not sorted (else the test shows nothing)
    assert any(
        tuple(c for _i, _k, c in family) != ordered for family, ordered in redeal_plan(twin, 0, twin.known_locations(0))
    )


def test_a_lookahead_player_decides_alike_under_both_engines():
    ref, native = _both("crazy-eights", 2)
    player = make_player("pimc:8")
    for _ in range(6):
        if ref.is_terminal():
            break
        p = ref.current_player()
        a = consult(player, ref, p, ref.legal_options(), random.Random(1))
        b = consult(player, native, p, native.legal_options(), random.Random(1))
        assert a == b
        ref.apply(a)
        native.apply(b)
