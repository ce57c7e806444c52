"""Computer players: specs, determinism, strength in a small sample, and no peeking."""

import random

import pytest

import recycle
from recycle.players.lookahead import DealRng, GreedyPlayer, ISMCTSPlayer, OmniscientPlayer, PIMCPlayer
from recycle.engine.game import rollout_seed
from recycle.engine.runner import privileged
from recycle.players import RandomPlayer, make_players

from ..conftest import GAMES

SCHWIMMEN = GAMES / "schwimmen.rcy"

# P0 always gets the same three cards (K, Q, J: the top of the unshuffled deck) and sees
# the same public card (an ace); the other hands depend on the seed. P1 and P2 bet (a public choice), then
# everyone plays one card; the highest card played wins.
BETTING = """(game
 (setup (create players 3)
  (create deck (game iloc STOCK) (deck (SUIT (S, H, D)) (RANK (A, K, Q, J)))))
 (do (
  (repeat 3 (move (top (game iloc STOCK)) (top ((current player) iloc HAND))))
  (move (top (game iloc STOCK)) (top (game vloc MIDDLE)))
  (shuffle (game iloc STOCK))
  (all player 'P ((!= 'P (current player)) (repeat 3 (move (top (game iloc STOCK)) (top ('P iloc HAND))))))
  (set (game points VAL) (((RANK : A) 4) ((RANK : K) 3) ((RANK : Q) 2) ((RANK : J) 1)))
  (cycle current (next player))))
 (choice ((inc (game sto BET) 1) (inc (game sto BET) 2)))
 (do ((cycle current (next player))))
 (choice ((inc (game sto BET) 1) (inc (game sto BET) 2)))
 (do ((cycle current (next player))))
 (stage player (end (all player 'P (> (size ('P vloc PLAY)) 0)))
  (choice ((any ((current player) iloc HAND) 'C (move 'C (top ((current player) vloc PLAY)))))))
 (scoring max (sum ((current player) vloc PLAY) using (game points VAL))))"""


class _Stop(Exception):
    pass


@privileged  # it hands the live observation to the look-ahead players under test
class _Grab:
    """Stops the game at the first decision of ``seat`` (others take option ``other``)."""

    needs_view = True

    def __init__(self, seat=0, other=0):
        self.seat, self.other = seat, other

    def choose(self, view, options, rng):
        if view.player != self.seat:
            return self.other
        raise _Stop(view, options)


def view_at_first_decision(game, seed, seat=0, other=0):
    try:
        game.play([_Grab(seat, other)] * game.nplayers, seed=seed)
    except _Stop as stop:
        return stop.args
    raise AssertionError("no decision for that seat")


def same_view_pairs(game, seeds, limit):
    """Pairs of seeds whose first decision shows player 0 exactly the same (hidden cards differ)."""
    seen, pairs = {}, []
    for seed in seeds:
        view, _ = view_at_first_decision(game, seed)
        key = (repr(view.locations()), repr(view.ints()), repr(view.strs()), view.decisions_so_far)
        if key in seen:
            pairs.append((seen[key], seed))
            if len(pairs) == limit:
                break
        else:
            seen[key] = seed
    return pairs


def first_option_game(view, key):
    """The final scores of the world numbered ``key`` played on with option 0 everywhere."""
    world = view.sample_world(DealRng(key))
    while not world.is_terminal():
        world.apply(0)
    return world.returns()


def hidden_cards(view):
    s = view._state
    return [list(map(int, lst)) for lst in s.locs]


# -- specs -------------------------------------------------------------------------------------


def test_make_players_kinds_budgets_and_names():
    pl = make_players("ismcts:50,pimc,greedy:2,omniscient:7,random", 5)
    assert [type(p) for p in pl] == [ISMCTSPlayer, PIMCPlayer, GreedyPlayer, OmniscientPlayer, RandomPlayer]
    assert [p.name for p in pl] == ["ismcts:50", "pimc:200", "greedy:2", "omniscient:7", "random"]
    assert [p.name for p in make_players("pimc:10,random", 3)] == ["pimc:10", "random", "random"]
    for bad in ("mcts", "pimc:x", "pimc:0", "random:5"):
        with pytest.raises(ValueError):
            make_players(bad, 3)
    with pytest.raises(ValueError):
        make_players("random,random,random", 2)


def test_option_key_tells_options_apart_and_is_stable():
    g = recycle.load(SCHWIMMEN)

    @privileged  # it reads the live options' keys and state
    class SecondDecision:
        needs_view = True
        calls = 0

        def choose(self, view, options, rng):
            self.calls += 1
            if self.calls == 2:
                raise _Stop(view, options)
            return 1

    with pytest.raises(_Stop) as stop:
        g.play([SecondDecision()] * 5, seed=3)
    view, options = stop.value.args
    assert len(options) == 11  # pass, swap the hand, 9 single swaps
    keys = [o.key for o in options]
    assert len(set(keys)) == len(keys)
    assert keys == [o.key for o in view._state.clone().legal_options()]


# -- determinism -------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["greedy:1", "pimc:8", "ismcts:8", "omniscient:8"])
def test_a_seed_gives_the_same_game(spec):
    g = recycle.load(SCHWIMMEN)
    runs = [g.play(make_players(f"{spec},random", 5), seed=11, describe=True) for _ in range(2)]
    assert [(d.player, d.chosen) for d in runs[0].choices] == [(d.player, d.chosen) for d in runs[1].choices]
    assert runs[0].scores == runs[1].scores


def test_pimc_reports_values_for_every_option():
    g = recycle.load(SCHWIMMEN)
    view, options = view_at_first_decision(g, 5)
    p = PIMCPlayer(20)
    i = p.choose(view, options, random.Random(1))
    assert len(p.last_values) == len(options) == 2 and 0 <= i < 2
    assert all(0.0 <= v <= 1.0 for v in p.last_values)
    assert p.last_values[i] == max(p.last_values)


def test_ismcts_spends_its_budget_at_the_root():
    g = recycle.load(SCHWIMMEN)
    view, options = view_at_first_decision(g, 5)
    p = ISMCTSPlayer(30)
    i = p.choose(view, options, random.Random(1))
    assert sum(p.last_visits) == 30
    assert p.last_visits[i] == max(p.last_visits)


# -- strength (a small sample; docs/players.md has the real measurement) -----------------------


def test_pimc_beats_random_players_at_schwimmen():
    g = recycle.load(SCHWIMMEN)
    pl = make_players("pimc:20,random", 5)
    wins = sum(0 in g.play(pl, seed=rollout_seed(2, i)).winners for i in range(30))
    assert wins >= 12  # random seats win about 24%; pimc:20 about 60%


# -- no peeking --------------------------------------------------------------------------------


def test_sampled_worlds_depend_on_the_view_only():
    g = recycle.load(SCHWIMMEN)
    pairs = same_view_pairs(g, range(1500), limit=6)
    assert len(pairs) >= 3
    for a, b in pairs:
        va, _ = view_at_first_decision(g, a)
        vb, _ = view_at_first_decision(g, b)
        assert hidden_cards(va) != hidden_cards(vb)
        for key in (1, 2, 3):
            assert first_option_game(va, key) == first_option_game(vb, key)


def test_determinize_with_a_plain_generator_depends_on_the_view_only():
    """The core re-deal (no DealRng): the same view and generator give the same world."""
    g = recycle.load(SCHWIMMEN)
    pairs = same_view_pairs(g, range(1500), limit=4)
    assert pairs
    for a, b in pairs:
        worlds = []
        for seed in (a, b):
            v, _ = view_at_first_decision(g, seed)
            world = v.sample_world(random.Random(11))
            worlds.append([[int(c) for c in lst] for lst in world.locs])
        assert worlds[0] == worlds[1]


@pytest.mark.parametrize(
    "make",
    [lambda: PIMCPlayer(12), lambda: ISMCTSPlayer(12), lambda: GreedyPlayer(2)],
    ids=["pimc", "ismcts", "greedy"],
)
def test_decisions_do_not_change_with_the_hidden_cards_of_others(make):
    """Two deals where player 0 sees exactly the same: same decision and same option values."""
    g = recycle.load(SCHWIMMEN)
    pairs = same_view_pairs(g, range(1500), limit=4)
    assert len(pairs) >= 2  # else the loop below checks nothing
    for a, b in pairs:
        (va, oa), (vb, ob) = view_at_first_decision(g, a), view_at_first_decision(g, b)
        pa, pb = make(), make()
        assert pa.choose(va, oa, random.Random(5)) == pb.choose(vb, ob, random.Random(5))
        assert pa.last_values == pb.last_values


# pimc:12 samples 4 worlds per option, in which the best card wins about a third of the time:
# too few to be sure the options' values differ; 60 (20 worlds) is
@pytest.mark.parametrize("make", [lambda: PIMCPlayer(60), lambda: ISMCTSPlayer(12)], ids=["pimc", "ismcts"])
def test_no_peeking_after_public_decisions(make):
    """In BETTING, player 0 decides after two public bets; other hands differ by seed."""
    g = recycle.loads(BETTING, "betting.rcy")
    views = [view_at_first_decision(g, seed, other=1) for seed in range(1, 7)]
    assert len({repr(v.locations()) for v, _ in views}) == 1
    assert len({repr(hidden_cards(v)) for v, _ in views}) == len(views)
    assert views[0][0].decisions_so_far == 2
    decided = []
    for v, opts in views:
        p = make()
        decided.append((p.choose(v, opts, random.Random(9)), p.last_values))
    assert all(d == decided[0] for d in decided)
    assert len(set(decided[0][1])) > 1  # the options are worth different amounts


def test_the_same_harness_catches_a_cheater():
    """The omniscient player sees the true hidden cards, so its values differ between the deals."""
    g = recycle.loads(BETTING, "betting.rcy")
    values = []
    for seed in range(1, 7):
        v, opts = view_at_first_decision(g, seed, other=1)
        p = OmniscientPlayer(40)
        p.choose(v, opts, random.Random(9))
        values.append(p.last_values)
    assert len({tuple(x) for x in values}) > 1


def test_budgets_are_bounded_whatever_is_asked():
    from types import SimpleNamespace

    from recycle.players.lookahead import DECISION_SHARE, MAX_BUDGET, SIMULATION_SHARE

    with pytest.raises(ValueError, match="at most 100,000 iterations"):
        make_players(f"ismcts:{MAX_BUDGET + 1}", 2)
    assert make_players(f"pimc:{MAX_BUDGET}", 2)[0].budget == MAX_BUDGET
    view = SimpleNamespace(game=SimpleNamespace(max_work=10_000_000))
    player = ISMCTSPlayer(MAX_BUDGET)
    # a few simulations get a share each; many never more than DECISION_SHARE games' budgets
    assert player.work_left(view, 3) == [3 * 10_000_000 // SIMULATION_SHARE]
    assert player.work_left(view, MAX_BUDGET) == [DECISION_SHARE * 10_000_000]
