"""Deduction-aware worlds (issue 44, requirement 5): ``sample_world(deduce=True)`` and the
look-ahead players' ``:deduce`` deal only worlds in which the others' earlier choices were legal."""

from __future__ import annotations

import collections

import pytest

from recycle.engine import deduce
from recycle.engine.deduce import Deducer
from recycle.engine.game import loads
from recycle.players import make_player
from recycle.players.lookahead import DealRng, ISMCTSPlayer

from .test_no_peeking import reachable

# three players, two suits of four; two cards each, two left in the stock. The first card
# played sets the suit to follow for the whole game; who holds none may play any card.
FOLLOW = """
(game
 (setup
  (create players 3)
  (create deck (game iloc STOCK)
   (deck (RANK (ONE, TWO, THREE, FOUR)) (SUIT (SPADES, HEARTS)))))
 (do (
  (shuffle (game iloc STOCK))
  (repeat 2 (all player 'P (move (top (game iloc STOCK)) (top ('P iloc HAND)))))
  (set (game str LEAD) NONE)))
 (stage player
  (end (all player 'P (== (size ('P iloc HAND)) 0)))
  (choice (
   ((== (game str LEAD) NONE)
    (any ((current player) iloc HAND) 'C
     (do ((move 'C (top (game vloc TABLE))) (set (game str LEAD) (cardatt SUIT 'C))))))
   ((!= (game str LEAD) NONE)
    (any (filter ((current player) iloc HAND) 'C (== (cardatt SUIT 'C) (game str LEAD))) 'C
     (move 'C (top (game vloc TABLE)))))
   ((and (!= (game str LEAD) NONE)
         (all ((current player) iloc HAND) 'C (!= (cardatt SUIT 'C) (game str LEAD))))
    (any ((current player) iloc HAND) 'C (move 'C (top (game vloc TABLE))))))))
 (scoring max (size ((current player) iloc HAND))))
"""


@pytest.fixture(scope="module")
def game():
    return loads(FOLLOW, "follow.rcy")


def _loc(game, label):
    return next(info.index for info in game.layout.infos if info.label == label)


def _suit(game, c):
    return game.card_name(c)[-1]


def _off_suit(game, seed):
    """The deal of ``seed`` after P0 led its first card and P1 played its first legal card,
    when P1 did not follow suit (None otherwise): P2 to move."""
    s = game.new_state(seed, track=True)
    s.apply(0)
    s.apply(0)
    table = s.locs[_loc(game, "TABLE")]
    if len(table) == 2 and _suit(game, table[0]) != _suit(game, table[1]) and s.current_player() == 2:
        return s
    return None


def _first_off_suit(game):
    return next(s for s in map(lambda d: _off_suit(game, d), range(100)) if s is not None)


def _p1_suits(game, world):
    return tuple(_suit(game, c) for c in world.locs[_loc(game, "HAND(P1)")])


def test_a_player_who_did_not_follow_suit_holds_none_of_it_in_every_deduced_world(game):
    s = _first_off_suit(game)
    led = _suit(game, s.locs[_loc(game, "TABLE")][0])
    obs = s.observation(2)
    deduced = collections.Counter(_p1_suits(game, obs.sample_world(DealRng(k), deduce=True)) for k in range(200))
    plain = collections.Counter(_p1_suits(game, obs.sample_world(DealRng(k))) for k in range(200))
    assert all(led not in suits for suits in deduced), deduced
    assert any(led in suits for suits in plain), plain  # without deduction some worlds give P1 the suit
    assert obs.deduction["fallbacks"] == 0 and obs.deduction["checked"] == 2
    assert obs.deduction["rejected"] > 0


def _past(state, p):
    obs = state.observation(p)
    return Deducer(obs, obs._redeal_plan()).past


def test_the_checks_are_the_others_choices_only(game):
    s = _first_off_suit(game)
    past = _past(s, 2)
    assert past.reason is None and past.seen == 2
    assert [c[1] for c in past.checks] == [1, 0]  # the most recent first; none of P2's own
    assert _past(s, 0).seen == 1  # P0 checks P1's choice, not its own


def test_an_impossible_budget_falls_back_to_a_plain_world_and_says_so(game, monkeypatch):
    monkeypatch.setattr(deduce, "DEDUCE_TRIES", 0)
    monkeypatch.setattr(deduce, "REPAIR_STEPS", 0)
    s = _first_off_suit(game)
    obs = s.observation(2)
    world = obs.sample_world(DealRng(1), deduce=True)
    assert world is not None
    assert obs.deduction["fallbacks"] == 1
    assert obs.deduction["why"] == (
        "no world of 0 dealt and 0 swaps let every earlier choice of the others be legal; "
        "plain worlds were used at that decision"
    )
    player = ISMCTSPlayer(5, deduce=True)
    player.choose(s.observation(2), s.legal_options(), DealRng(3))
    assert player.deduction["fallbacks"] == 5
    assert player.warnings == [obs.deduction["why"]]


def test_a_state_that_is_not_its_seeds_game_is_not_deduced_from_and_says_so(game):
    s = _first_off_suit(game)
    world = s.observation(2).sample_world(DealRng(1))  # re-dealt: not the game of its seed
    obs = world.observation(2)
    obs.sample_world(DealRng(2), deduce=True)
    assert obs.deduction["fallbacks"] == 1
    assert obs.deduction["why"].startswith("no deduction: the game does not track what its players saw")


def _worlds(state, player, n=40):
    obs = state.observation(player)
    return [(w.locs, w.rng.getstate()) for w in (obs.sample_world(DealRng(k), deduce=True) for k in range(n))]


def test_the_same_seed_deals_the_same_deduced_worlds(game):
    s = _first_off_suit(game)
    again = _off_suit(game, s.seed)
    assert _worlds(s, 2) == _worlds(again, 2)
    assert len({repr(w) for w in _worlds(s, 2)}) > 1  # not one world over and over


def _seen_by(state, p):
    """What P``p`` may know of ``state``: its observation, and the others' choices as it saw them."""
    obs = state.observation(p)
    past = _past(state, p)
    return repr(obs), sorted(obs.known_locations().items()), [c[1:] for c in past.checks]


def test_deduced_worlds_depend_on_what_the_player_saw_never_on_the_hidden_cards(game):
    by_view: dict = {}
    pairs = 0
    for seed in range(400):
        s = _off_suit(game, seed)
        if s is None:
            continue
        hidden = tuple(tuple(s.locs[_loc(game, f"HAND(P{p})")]) for p in (0, 1)) + (tuple(s.locs[_loc(game, "STOCK")]),)
        key = repr(_seen_by(s, 2))
        for other, other_hidden in by_view.get(key, []):
            if other_hidden != hidden:
                assert _worlds(s, 2) == _worlds(other, 2)
                pairs += 1
        by_view.setdefault(key, []).append((s, hidden))
    assert pairs >= 1


def test_a_deduced_world_holds_no_earlier_state(game):
    s = _first_off_suit(game)
    world = s.observation(2).sample_world(DealRng(1), deduce=True)
    kinds = {type(x).__name__ for x in reachable(world)}
    assert not kinds & {"PastChoices", "Deducer", "Observation"}
    assert sum(type(x).__name__ == "State" for x in reachable(world)) == 1


def test_deduce_is_a_player_option():
    assert make_player("ismcts:200:deduce").name == "ismcts:200:deduce"
    assert make_player("pimc:deduce").deduce and make_player("greedy:3:deduce").deduce
    assert not make_player("ismcts:20").deduce
    with pytest.raises(ValueError, match="omniscient sees the true cards: it has nothing to deduce"):
        make_player("omniscient:20:deduce")
    with pytest.raises(ValueError, match="expected kind, kind:ITERATIONS or kind:ITERATIONS:deduce"):
        make_player("ismcts:20:guess")


def test_duplicate_play_reports_what_a_deducing_players_samples_did(game):
    from recycle.cli.analysis import duplicate_lines
    from recycle.study.duplicate import duplicate

    d = duplicate(game, ["ismcts:4:deduce", "ismcts:4"], deals=2, seed=1)
    got = d["players"][0]["deduction"]
    assert d["players"][0]["player"] == "ismcts:4:deduce" and "deduction" not in d["players"][1]
    assert got["worlds"] >= got["rejected"] > 0
    line = next(x for x in duplicate_lines(d) if x.startswith("ismcts:4:deduce: "))
    assert line.endswith(f"{got['fallbacks']:,} samples fell back to plain worlds")


def test_a_game_too_long_to_replay_is_not_deduced_from_and_says_so(game, monkeypatch):
    monkeypatch.setattr(deduce, "MAX_REPLAY", 1)
    s = _first_off_suit(game)
    obs = s.observation(2)
    obs.sample_world(DealRng(1), deduce=True)
    assert obs.deduction["why"] == (
        "no deduction: the game is past 1 decisions, too long to replay at every decision; plain worlds were used"
    )


def test_only_the_most_recent_choices_are_checked(game, monkeypatch):
    monkeypatch.setattr(deduce, "MAX_CHECKS", 1)
    assert [c[1] for c in _past(_first_off_suit(game), 2).checks] == [1]


def test_checks_that_cost_too_much_fall_back_to_plain_worlds_and_say_so(game, monkeypatch):
    monkeypatch.setattr(deduce, "MAX_COST", 0)
    monkeypatch.setattr(deduce, "DEDUCE_TRIES", 5)
    obs = _first_off_suit(game).observation(2)
    suits = {_p1_suits(game, obs.sample_world(DealRng(k), deduce=True)) for k in range(40)}
    assert obs.deduction["why"] == (
        "checking worlds against the others' choices cost more than 0 option listings at a decision; "
        "plain worlds were used for the rest of it"
    )
    assert ("♥",) in suits  # plain worlds: some give P1 the suit it did not follow
