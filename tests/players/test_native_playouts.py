"""Look-ahead players finish their sampled worlds in machine code (recycle/native/playouts.py)
and decide exactly as with Python's playouts.

For games/schwimmen.rcy (two seeds) and two corpus poker games (one), whole games are played
with ISMCTS and PIMC players twice, ``playouts="native"`` and ``"reference"``: every decision's option, value
and visit count must be the same, and most playouts must have been native (none declined in
these games). Then the cases where native code declines and Python plays on: a state whose
chance stream cannot be replayed, a world that moved a card a variable in scope holds, a
history the replay cannot follow (the players' stream is left untouched).
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

from recycle.engine.game import players_stream
from recycle.native import available
from recycle.native.playouts import NativePlayouts, Root
from recycle.players.lookahead import ISMCTSPlayer, PIMCPlayer
from recycle.streams import Stream

from ..conftest import CORPUS, GAMES
from ..engine.test_native import compiled, load

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")

GAMES_COMPARED = [
    pytest.param(GAMES / "schwimmen.rcy", id="games/schwimmen"),
    pytest.param(CORPUS / "KuhnPoker2.rcy", id="corpus/KuhnPoker2"),
    pytest.param(CORPUS / "LeducPoker2.rcy", id="corpus/LeducPoker2"),
]


def decisions(game, make, playouts: str, seed: int, upto: int = 12):
    """Each decision of one game, every seat looking ahead: (player, option, values, visits,
    the players' stream's count after), and the players' ``NativePlayouts``."""
    s = game.new_state(seed)
    rng = players_stream(seed)
    players = [make(playouts) for _ in range(game.nplayers)]
    out = []
    while not s.is_terminal() and len(out) < upto:
        opts = s.legal_options()
        if len(opts) == 1:
            s.apply(0)
            continue
        p = s.current_player()
        player = players[p]
        i = player.choose(s.observation(p), opts, rng)
        out.append(
            (p, i, [round(v, 12) for v in player.last_values], list(getattr(player, "last_visits", [])), rng.count)
        )
        s.apply(i)
    return out, [pl._native[1] for pl in players if pl._native[1] is not None]


def tree_in_python(player):
    """An ISMCTS player whose tree stays in Python, its playouts native (the game's plain
    module: what ``auto`` uses when only that one is made; whole native searches are
    tests/players/test_native_search.py's)."""
    player.searches = False
    return player


@pytest.mark.parametrize("path", GAMES_COMPARED)
@pytest.mark.parametrize("kind", ["ismcts", "pimc"])
def test_native_playouts_decide_as_python_playouts(path, kind):
    game = load(path)
    compiled(game)
    make = (
        (lambda e: tree_in_python(ISMCTSPlayer(24, playouts=e)))
        if kind == "ismcts"
        else (lambda e: PIMCPlayer(24, playouts=e))
    )
    for seed in (1, 2) if "schwimmen" in path.name else (1,):
        native, natives = decisions(game, make, "native", seed)
        python, none = decisions(game, make, "reference", seed)
        assert native == python, f"seed {seed}"
        assert none == []
        assert sum(n.declined for n in natives) == 0
        played = sum(n.played for n in natives)
        assert played >= len(native), (played, len(native))  # (a small game's tree reaches its ends)
        # every one from the real game's native twin (playouts_state.py), none replayed from the start
        assert sum(n.from_state for n in natives) == played


def _schwimmen_root():
    game = load(GAMES / "schwimmen.rcy")
    ng = compiled(game)
    s = game.new_state(4)
    while s.num_options() == 1:
        s.apply(0)
    view = s.observation(s.current_player())
    return game, ng, s, view


def test_a_state_whose_chance_cannot_be_replayed_plays_on_in_python():
    _game, ng, s, view = _schwimmen_root()
    playouts = NativePlayouts(ng)
    assert playouts.root(view) is not None
    s.rng = random.Random(5)  # a generator given from outside: nothing native code can replay
    assert playouts.root(view) is None
    player = ISMCTSPlayer(8, playouts="native")
    player.choose(view, s.legal_options(), players_stream(3))
    assert player._native[1].played == 0


def test_a_world_that_moved_a_card_in_scope_is_declined():
    _game, ng, s, view = _schwimmen_root()
    playouts = NativePlayouts(ng)
    root = playouts.root(view)
    world = view.sample_world(Stream(7))
    assert playouts.world_places(root, world) is not None
    i, k = root.slots[0]
    held = Root(
        root.chance_key,
        root.chance_count,
        root.history,
        root.decisions,
        root.max_steps,
        ((i, k, int(s.locs[i][k])),),
        root.slots,
    )
    moved = world.clone()
    other = next(c for c in moved.locs[root.slots[1][0]] if c != s.locs[i][k])
    moved.locs[i][k] = other
    assert playouts.world_places(held, moved) is None


def test_a_history_the_replay_cannot_follow_changes_nothing():
    game, ng, _s, view = _schwimmen_root()
    playouts = NativePlayouts(ng)
    root = playouts.root(view)
    world = view.sample_world(Stream(7))
    places = playouts.world_places(root, world)
    draw = Stream(11)
    draw.random()
    got = playouts.play(root, places, world.rng.getstate()[:2], world.work, [0], draw)
    assert got is not None and len(got[0]) == game.nplayers
    assert draw.count > 1  # the random players drew on from where the stream was
    count = draw.count
    wrong = Root(root.chance_key, root.chance_count + 1, root.history, root.decisions, root.max_steps, (), root.slots)
    assert playouts.play(wrong, places, world.rng.getstate()[:2], world.work, [0], draw) is None
    late = Root(
        root.chance_key, root.chance_count, root.history, root.decisions + 50_000, root.max_steps, (), root.slots
    )
    assert playouts.play(late, places, world.rng.getstate()[:2], world.work, [0], draw) is None
    assert draw.count == count
    assert (playouts.played, playouts.declined) == (1, 2)


def test_a_player_that_played_natively_goes_to_another_process_without_its_machine_code():
    import pickle

    _game, _ng, s, view = _schwimmen_root()
    player = PIMCPlayer(8, playouts="native")
    player.choose(view, s.legal_options(), players_stream(3))
    assert player._native[1].played > 0
    copy = pickle.loads(pickle.dumps(player))
    assert copy._native == (None, None) and copy.playouts == "native" and copy.budget == 8
    assert copy.choose(view, s.legal_options(), players_stream(3)) == player.choose(
        view, s.legal_options(), players_stream(3)
    )
