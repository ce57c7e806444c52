"""(stage player simultaneous (end C) ITEM ...) (issue 41, the second of its two new forms): every
player chooses on the same state, in seat order; the choices stay hidden (no event, no card
moved, the same observation for the others whatever was chosen, a sampled world drawing the
others' choices anew) and are applied together in seat order once all have chosen. Goofspiel
in games/ in both forms, and `analyze --information` telling them apart."""

from pathlib import Path

import pytest

import recycle
from recycle.lang.forms.values import MoveEvent
from recycle.players.lookahead import ISMCTSPlayer
from recycle.streams import Stream
from recycle.study.information import hidden_locations, information_value

GAMES = Path(__file__).resolve().parents[2] / "games"
GOOFSPIEL = GAMES / "goofspiel.rcy"
SEQUENTIAL = GAMES / "goofspiel-sequential.rcy"


@pytest.fixture(scope="module")
def goofspiel():
    return recycle.load(GOOFSPIEL)


def hand(s, p):
    return list(s.location(p, "iloc", "HAND"))


def test_each_player_is_asked_in_seat_order_on_the_same_state(goofspiel):
    s = goofspiel.new_state(seed=0, record=True)
    assert s.current_player() == 0 and len(s.legal_options()) == 7
    before = (hand(s, 0), hand(s, 1), len(s.events), s.observation(1).locations())
    s.apply(2)
    # P0 has chosen: nothing moved, nothing told; P1 chooses among its own 7 cards
    assert s.current_player() == 1 and len(s.legal_options()) == 7 and s.decisions == 2
    assert (hand(s, 0), hand(s, 1), len(s.events), s.observation(1).locations()) == before
    s.apply(0)
    bids = [e for e in s.events[before[2] :] if isinstance(e, MoveEvent) and e.chooser is not None]
    assert [(e.chooser, e.card) for e in bids] == [(0, before[0][2]), (1, before[1][0])]  # in seat order
    assert len(hand(s, 0)) == len(hand(s, 1)) == 6
    assert s.current_player() == 0  # the next round asks P0 first again


@pytest.mark.parametrize("deduce", [False, True])
def test_what_the_second_player_observes_does_not_depend_on_the_first_choice(goofspiel, deduce):
    """P1's observation, its sampled worlds (plain or deduced) and its ISMCTS decision are the
    same whichever card P0 chose (and its worlds never hold P0's real choice)."""
    seen = []
    for first in (0, 6):
        s = goofspiel.new_state(seed=3, track=True)
        s.apply(first)
        obs = s.observation(1)
        worlds = []
        rng = Stream.keyed(5)
        for _ in range(20):
            w = obs.sample_world(rng, deduce=deduce)
            worlds.append(w.frames[0][0][1])  # P0's pending choice in the sampled world
        decision = ISMCTSPlayer(60).choose(obs, s.legal_options(), Stream.keyed(9))
        seen.append((obs.locations(), obs.ints(), obs.known_locations(), worlds, decision))
    assert seen[0] == seen[1]
    assert len(set(seen[0][3])) > 1  # drawn, not the real choice


def test_the_stepped_game_inline_and_rollout_play_one_game(goofspiel):
    r = goofspiel.play(seed=4)
    s = goofspiel.new_state(seed=4)
    for i in r.state.history:
        while len(s.legal_options()) == 1:
            s.apply(0)
        s.apply(i)
    while not s.is_terminal():
        s.apply(0)
    assert s.scores == r.scores and s.card_loc == r.state.card_loc
    assert (s.decisions, s.steps) == (r.state.decisions, r.state.steps) == (14, 21)


@pytest.mark.parametrize(
    ("stage", "message"),
    [
        (
            "(stage team simultaneous (end (== 1 1)) (turn pass))",
            "t.rcy:3:2: error: expected (stage player simultaneous (end CONDITION) ITEM ...)",
        ),
        (
            "(stage player simultaneous (end (== 1 1)) (stage player (end (== 1 1)) (turn pass)))",
            "t.rcy:3:44: error: a stage cannot stand inside a simultaneous stage",
        ),
    ],
)
def test_a_malformed_simultaneous_stage_is_a_positioned_error(stage, message):
    with pytest.raises(recycle.RecycleError) as exc:
        recycle.loads(
            f"(game (setup (create players 2) (create deck (game iloc S) (deck (R (A, B)))))\n\n {stage}\n (scoring max 0))",
            "t.rcy",
        )
    assert str(exc.value).startswith(message)


def test_the_sequential_goofspiel_leaks_the_first_bid_and_the_simultaneous_one_does_not():
    """`analyze --information`: in the sequential game P0's face-down bid lies in BID(P0) at P1's
    decisions, and seeing it is worth a great deal to P1; in the simultaneous game no bid is in
    any location while a player decides, so there is no such location to see."""
    sequential, simultaneous = recycle.load(SEQUENTIAL), recycle.load(GOOFSPIEL)
    labels = {p: [sequential.layout.infos[i].label for i in v] for p, v in hidden_locations(sequential).items()}
    assert "BID(P0)" in labels[1] and "BID(P1)" not in labels[0]
    found = hidden_locations(simultaneous)
    assert not any("BID" in simultaneous.layout.infos[i].label for v in found.values() for i in v)
    bid = sequential.layout.find(0, "iloc", "BID")
    a = information_value(sequential, n=20, budget=20, seats=[1], locations={1: [bid]})
    (row,) = a["locations"]
    assert row["location"] == "BID(P0)" and row["with"]["win_rate"] == 1.0 and row["value_ci"][0] > 0


def test_the_environments_hide_the_first_choice_from_the_second_player():
    """OpenSpiel (sequential, imperfect information: the players are asked in turn, the choices
    so far told to nobody else) and PettingZoo (AEC, the agent to move is the player asked):
    P1's information state and observation are the same whichever card P0 chose."""
    pytest.importorskip("pyspiel", reason="the rl extra is not installed")
    from recycle.env.petting import pettingzoo_env
    from recycle.env.spiel import openspiel_game

    game = openspiel_game(GOOFSPIEL, chance="seed")  # deal 0, as PettingZoo's reset(seed=0)
    told = []
    for first in (0, 6):
        state = game.new_initial_state()
        for _ in range(4):
            state.apply_action(0)  # the deal bytes: deal 0
        assert state.current_player() == 0
        state.apply_action(first)
        assert state.current_player() == 1
        assert f"P0:{first}" in state.information_state_string(0)  # its own choice, to P0 only
        env = pettingzoo_env(GOOFSPIEL)
        env.reset(seed=0)
        env.step(first)
        assert env.agent_selection == "player_1"
        told.append(
            (
                state.information_state_string(1),
                state.observation_string(1),
                state.observation_tensor(1),
                env.observe("player_1")["observation"].tolist(),
            )
        )
    assert told[0] == told[1]


def test_the_tree_and_a_record_know_the_simultaneous_stage(tmp_path):
    """`recycle tree` says whose the choice is; a record of a game with a look-ahead player (whose
    sampled worlds draw the pending choices anew) replays to the letter."""
    from typer.testing import CliRunner

    from recycle.cli import app

    runner = CliRunner()
    tree = runner.invoke(app, ["tree", str(GOOFSPIEL)]).output
    assert "stage: every player at once (simultaneous), until size PRIZES == 0" in tree
    assert "choice: every player picks one option, unseen by the others; all applied together" in tree
    record = tmp_path / "g.json"
    r = runner.invoke(
        app, ["run", str(GOOFSPIEL), "--seed", "3", "--players", "random,ismcts:20", "--record", str(record)]
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["replay", str(record), "--game-folder", str(GAMES)])
    assert r.exit_code == 0 and "replay identical to the record: deal #3, 14 decisions" in r.output, r.output


def test_the_native_engine_plays_goofspiel_and_leaves_sampled_worlds_to_python():
    """Native rollouts of the simultaneous stage end as the reference's (lang/forms/form_simultaneous.py);
    a look-ahead player's playouts from sampled worlds are Python's (the native replay of the
    history would hold the other player's real pending choice), so it decides alike."""
    pytest.importorskip("numpy", reason="the native extra is not installed")
    from recycle.engine.game import rollout_seed
    from recycle.native import available, why_not_native

    if not available():
        pytest.skip("the native engine needs NumPy and a C compiler")
    from ..engine.test_native import compiled
    from ..players.test_native_playouts import decisions, tree_in_python

    g = recycle.load(GOOFSPIEL)
    assert why_not_native(g) is None
    seeds = [rollout_seed(2, i) for i in range(30)]
    scores, counts, where = compiled(g).rollouts(seeds, 20_000, g.max_work, places=True)
    for i, sd in enumerate(seeds):
        s = g.random_rollout(sd, 20_000)
        native = (int(counts[i, 0]), [int(v) for v in scores[i]], *(int(v) for v in counts[i, 1:4]))
        assert native == (0, list(s.scores), s.steps, s.decisions, s.options_total), f"seed {sd}"
        assert [int(v) for v in where[i]] == [int(v) for v in s.card_loc], f"seed {sd}"

    def make(e):
        return tree_in_python(ISMCTSPlayer(16, playouts=e))

    native, natives = decisions(g, make, "native", 1, upto=6)
    python, _ = decisions(g, make, "reference", 1, upto=6)
    assert native == python
    assert natives and all(n.played == 0 and n.declined > 0 for n in natives)


POOL = """(game
 (setup (create players 2) (create deck (game vloc POOL) (deck (RANK (A, B, C, D)))))
 (stage player simultaneous (end (== (size (game vloc POOL)) 0))
  (choice ((any (game vloc POOL) 'C (move 'C (top ((current player) vloc HAND)))))))
 (scoring max (size ((current player) vloc HAND))))"""


def test_choices_made_on_one_state_may_meet_and_the_native_engine_leaves_that_to_python():
    """Both players take a card of one pool: each chose among the same four, so both may name
    the same card, and P1's move, applied second, takes it from P0's hand. Native code, which
    lists P1's options again after P0's ran, finds three and stops: Python plays each rollout."""
    g = recycle.loads(POOL, "pool.rcy")
    s = g.new_state(seed=0)
    s.apply(1)
    s.apply(1)
    assert (s.location(0, "vloc", "HAND"), s.location(1, "vloc", "HAND")) == ([], [1])
    assert s.location("game", "vloc", "POOL") == [0, 2, 3]
    pytest.importorskip("numpy", reason="the native extra is not installed")
    from recycle.engine.game import rollout_seed
    from recycle.native import available, rollout_records
    from recycle.native.runtime import CAPACITY

    if not available():
        pytest.skip("the native engine needs NumPy and a C compiler")
    from ..engine.test_native import compiled

    seeds = [rollout_seed(3, i) for i in range(10)]
    _, counts, _ = compiled(g).rollouts(seeds, 20_000, g.max_work, places=True)
    assert [int(c) for c in counts[:, 0]] == [CAPACITY] * 10
    records = rollout_records(g, seeds, 20_000)
    for sd, rec in zip(seeds, records):
        r = g.random_rollout(sd, 20_000)
        assert rec[:3] == (list(r.scores), r.decisions, r.options_total)


def test_the_information_flow_graph_counts_each_bid_as_its_players_choice(goofspiel):
    """The moves of a simultaneous choice reach the graph when applied, each as its player's
    decision (``chosen``), from the player's private hand to its public bid."""
    from recycle.study.graphs import flow_graph

    G = flow_graph(goofspiel, rollouts=2, seed=1, per_player=True)
    for p in (0, 1):
        (edge,) = G.get_edge_data(f"P{p}/iloc/HAND", f"P{p}/vloc/BID").values()
        assert (edge["count"], edge["chosen"], edge["src_vis"], edge["dst_vis"]) == (14, 14, "private", "public")


def test_a_sampled_world_keeps_the_viewers_own_pending_choice_and_draws_the_others():
    """Three players: when P2 is asked, P0's and P1's choices are drawn anew in P2's worlds;
    P1, looking while P2 decides (an observation of a seat not to move), keeps its own."""
    g = recycle.loads(POOL.replace("(create players 2)", "(create players 3)"), "pool.rcy")
    s = g.new_state(seed=0)
    s.apply(3)
    s.apply(2)
    assert s.current_player() == 2 and s.frames[0][0][1:] == [3, 2]
    rng = Stream.keyed(1)
    drawn = {tuple(s.observation(2).sample_world(rng).frames[0][0][1:]) for _ in range(30)}
    assert len({d[0] for d in drawn}) > 1 and len({d[1] for d in drawn}) > 1
    kept = {tuple(s.observation(1).sample_world(rng).frames[0][0][1:]) for _ in range(30)}
    assert {d[1] for d in kept} == {2} and len({d[0] for d in kept}) > 1
    assert s.frames[0][0][1:] == [3, 2]  # the real state untouched
