"""recycle.env: every game as a PettingZoo and an OpenSpiel environment, checked by those
projects' own tests (api_test, seed_test, random_sim_test, the ISMCTS bot).

Needs the ``rl`` extra (``pip install -e '.[rl]'``, which setup.sh installs); without it
these tests are skipped, each saying which package is missing.
"""

from __future__ import annotations

import random

import contextlib
import importlib.util
import io
import warnings

import numpy as np
import pytest

import recycle
from tests.conftest import CORPUS, GAMES, ROOT, sweep_marks

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]'): no pettingzoo")
pytest.importorskip("gymnasium", reason="the rl extra is not installed (pip install -e '.[rl]'): no gymnasium")

from pettingzoo.test import api_test, seed_test

from recycle.env import env_spec, pettingzoo_env
from recycle.env.spec import ActionSpaceExceeded

OUR_GAMES = sorted(GAMES.glob("*.rcy"))
CORPUS_GAMES = sorted(CORPUS.glob("*.rcy")) if CORPUS.is_dir() else []
NO_CORPUS = pytest.param(None, marks=pytest.mark.skip(reason=f"corpus folder {CORPUS} is absent"), id="corpus")


def _quiet(fn, *args, **kwargs):
    """Run one of PettingZoo's tests without its prints and its advice-only warnings."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        fn(*args, **kwargs)


def _check_game(path, seed_cycles: int) -> None:
    spec = env_spec(path)
    if spec.sample.max_options == 0:
        # no decision at all (e.g. War): all agents are done at reset, which api_test forbids
        env = pettingzoo_env(path, seed=1)
        env.reset(seed=1)
        assert all(env.terminations.values()) or all(env.truncations.values())
        env.close()
        pytest.skip(
            f"{path.name} offers no decision: PettingZoo's api_test needs a game whose agents "
            "are not done right after reset; checked that every agent ends at reset instead"
        )
    _quiet(api_test, pettingzoo_env(path, seed=1), num_cycles=1000)
    _quiet(seed_test, lambda: pettingzoo_env(path), num_cycles=seed_cycles)


@pytest.mark.parametrize("path", OUR_GAMES, ids=[p.name for p in OUR_GAMES])
def test_pettingzoo_api_and_seed_tests_pass_for_our_games(path):
    _check_game(path, seed_cycles=500)


@pytest.mark.parametrize(
    "path", [pytest.param(p, id=p.name, marks=sweep_marks(p)) for p in CORPUS_GAMES] or [NO_CORPUS]
)
def test_pettingzoo_api_and_seed_tests_pass_for_the_corpus(path):
    _check_game(path, seed_cycles=100)  # fewer cycles per corpus game: the suite's time


SCHWIMMEN = GAMES / "schwimmen.rcy"
HEARTS = GAMES / "hearts.rcy"


def _cards_seen(spec, vec) -> set[int]:
    a, size = spec.sections["cards"]
    block = vec[a : a + size].reshape(-1, spec.ncards)
    return set(np.flatnonzero(block.any(0)).tolist())


@pytest.mark.parametrize("path", [SCHWIMMEN, HEARTS, CORPUS / "GoFish2.rcy"], ids=["schwimmen", "hearts", "gofish"])
def test_observations_show_exactly_the_cards_a_player_may_see(path):
    if not path.exists():
        pytest.skip(f"{path} is absent")
    spec = env_spec(path)
    s = spec.game.new_state(seed=5)
    for _ in range(40):
        if s.is_terminal():
            break
        for p in range(spec.nplayers):
            assert _cards_seen(spec, spec.vector(s, p)) == s.observation(p).known_cards()
            # what an option would show never names a card the player cannot see now
            if p == s.current_player():
                for row in spec.after_vectors(s, p):
                    assert _cards_seen(spec, row) <= s.observation(p).known_cards()
        s.apply(int(np.random.default_rng(len(s.history)).integers(s.num_options())))


def test_reset_deals_the_deal_of_recycle_run_and_rewards_come_from_the_scoring():
    env = pettingzoo_env(SCHWIMMEN)
    env.reset(seed=7)
    s = recycle.load(SCHWIMMEN).new_state(seed=7)
    assert env.state.locs == s.locs
    rng = np.random.default_rng(0)
    final = {}  # the reward each agent is told when its game is over
    for agent in env.agent_iter():
        obs, reward, term, trunc, _info = env.last()
        if term or trunc:
            final[agent] = reward
            env.step(None)
            continue
        assert obs["action_mask"].sum() == env.state.num_options()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    winners = env.state.winners()
    assert winners and final == {f"player_{p}": 1.0 if p in winners else 0.0 for p in range(5)}
    score_env = pettingzoo_env(SCHWIMMEN, reward="score")
    assert score_env.spec_.rewards(env.state) == [float(x) for x in env.state.returns()]
    assert env.spec_.rewards(env.state) == [1.0 if p in winners else 0.0 for p in range(5)]


def test_a_decision_larger_than_the_action_space_fails_clearly():
    env = pettingzoo_env(SCHWIMMEN, max_actions=1)
    with pytest.raises(ActionSpaceExceeded, match=r"offers 2 options, more than the action space of 1 .*max_actions=4"):
        env.reset(seed=1)


def test_illegal_actions_are_refused():
    env = pettingzoo_env(SCHWIMMEN, seed=1)
    env.reset()
    with pytest.raises(ValueError, match="not legal"):
        env.step(21)


def test_env_describe_command():
    from typer.testing import CliRunner

    from recycle.cli import app

    r = CliRunner().invoke(app, ["env", "describe", str(SCHWIMMEN)])
    assert r.exit_code == 0, r.output
    assert "actions: 22" in r.output and "HAND(me), MIDDLE, DISCARD" in r.output
    r = CliRunner().invoke(app, ["env", "describe", str(SCHWIMMEN), "--json"])
    assert r.exit_code == 0 and '"observation_size": 249' in r.output


def test_the_training_example_runs_a_few_steps():
    spec = importlib.util.spec_from_file_location("train_schwimmen", ROOT / "examples" / "train_schwimmen.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        rate = mod.main(["--episodes", "64", "--eval", "10", "--batch", "16"])
    assert 0.0 <= rate <= 1.0
    assert "win rate" in out.getvalue()


# -- OpenSpiel -------------------------------------------------------------------------------


def _pyspiel():
    return pytest.importorskip(
        "pyspiel", reason="the rl extra is not installed (pip install -e '.[rl]'): no open_spiel"
    )


@pytest.mark.parametrize(
    "path,sims,chance",
    [
        (SCHWIMMEN, 5, "rules"),
        (SCHWIMMEN, 5, "seed"),
        pytest.param(HEARTS, 1, "seed", marks=pytest.mark.slow),  # a match of many deals: 10 s
        pytest.param(CORPUS / "Hearts4.rcy", 3, "rules", marks=pytest.mark.slow),  # 5 s (natively stepped)
        (CORPUS / "Hearts4.rcy", 3, "seed"),
    ],
    ids=["schwimmen", "schwimmen-seed", "hearts-seed", "corpus-Hearts4", "corpus-Hearts4-seed"],
)
def test_openspiel_random_sim_test(path, sims, chance):
    pyspiel = _pyspiel()
    if not path.exists():
        pytest.skip(f"{path} is absent")
    from recycle.env import openspiel_game

    game = openspiel_game(path, chance=chance)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)
    assert pyspiel.load_game(game.get_type().short_name).num_distinct_actions() == game.num_distinct_actions()


def _deal(state, seed: int = 0) -> None:
    """Play the chance nodes at the start of ``state`` (deal bytes or the cards drawn)."""
    rng = random.Random(seed)
    while state.is_chance_node():
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("chance", ["rules", "seed"])
def test_openspiel_resampling_keeps_the_information_state(chance):
    pyspiel = _pyspiel()
    from recycle.env import openspiel_game

    game = openspiel_game(CORPUS / "Hearts4.rcy" if CORPUS.is_dir() else HEARTS, chance=chance)
    state = game.new_initial_state()
    _deal(state)
    for _ in range(10):
        state.apply_action(state.legal_actions()[0])
    assert not state.is_chance_node()
    p = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = [state.resample_from_infostate(p, sampler) for _ in range(5)]
    assert all(w.information_state_string(p) == state.information_state_string(p) for w in worlds)
    assert all(w.observation_tensor(p) == state.observation_tensor(p) for w in worlds)
    other = (p + 1) % game.num_players()
    assert any(w.observation_string(other) != state.observation_string(other) for w in worlds)
    # the other players' pasts are told as p saw them: p does not know what they saw
    assert all(w.information_state_string(other).startswith(f"P{other} as P{p} saw:") for w in worlds)
    # a world plays on to its end
    w = worlds[0]
    while not w.is_terminal():
        w.apply_action(w.legal_actions()[0])


@pytest.mark.parametrize("chance", ["rules", "seed"])
def test_openspiel_ismcts_bot_plays_schwimmen_through_the_adapter(chance):
    _pyspiel()
    from open_spiel.python.algorithms import ismcts, mcts

    from recycle.env import openspiel_game

    game = openspiel_game(SCHWIMMEN, chance=chance)
    rng = np.random.RandomState(3)
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(1, rng),
        uct_c=2.0,
        max_simulations=20,
        random_state=rng,
        allow_inconsistent_action_sets=True,
    )
    state = game.new_initial_state()
    _deal(state, 9)
    while not state.is_terminal():
        legal = state.legal_actions()
        if state.is_chance_node():
            action = legal[0]
        else:
            action = int(bot.step(state)) if state.current_player() == 0 else legal[0]
        assert action in legal
        state.apply_action(action)
    assert sorted(set(state.returns())) in ([0.0, 1.0], [1.0])


def test_a_game_stopped_by_its_step_limit_is_truncated_for_every_agent():
    env = pettingzoo_env(SCHWIMMEN, max_steps=5)
    env.reset(seed=3)
    done = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            assert trunc and not term and reward == 0 and "step limit" in info["truncated"]
            assert not obs["action_mask"].any()
            done.append(agent)
            env.step(None)
            continue
        env.step(0)
    assert done == env.possible_agents
