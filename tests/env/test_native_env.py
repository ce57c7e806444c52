"""The environments step native states by default (recycle/env/engines.py): the same episodes,
action strings, observation and information-state strings and tensors, returns and saved
states as on the reference interpreter, for the same deal and actions."""

from __future__ import annotations

import copy
import random

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed: no numpy")
pytest.importorskip("pyspiel", reason="the rl extra is not installed (pip install -e '.[rl]'): no pyspiel")

from recycle.env import openspiel_game
from recycle.native import available

from ..conftest import GAMES

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")


def _episode(game, seed: int, every: int) -> list:
    """What a random episode shows (its strings and tensors every ``every`` actions)."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    out = []
    k = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.randrange(256))
            continue
        actions = state.legal_actions()
        p = state.current_player()
        if k % every == 0:
            out.append((p, actions, [state.action_to_string(p, a) for a in actions]))
            for q in range(game.num_players()):
                out.append((state.observation_string(q), state.information_state_string(q)))
                out.append(tuple(state.observation_tensor(q)))
            twin = copy.deepcopy(state)  # a copy plays on without changing its original
            twin.apply_action(actions[-1])
            out.append(state.serialize())
        state.apply_action(rng.choice(actions))
        k += 1
    out.append((state.returns(), state.serialize()))
    return out


@pytest.mark.parametrize("name", ["schwimmen", "golf-six", "hearts"])
def test_openspiel_episodes_are_the_same_natively(name):
    native = openspiel_game(GAMES / f"{name}.rcy", chance="seed")
    reference = openspiel_game(GAMES / f"{name}.rcy", chance="seed", engine="reference")
    assert native.new_initial_state()._core.engine == "auto"
    for seed in range(1 if name == "hearts" else 2):
        assert _episode(native, seed, 29 if name == "hearts" else 7) == _episode(
            reference, seed, 7 if name != "hearts" else 29
        )


def test_an_openspiel_state_steps_natively_by_default():
    game = openspiel_game(GAMES / "schwimmen.rcy", chance="seed")
    state = game.new_initial_state()
    for b in (0, 0, 0, 7):
        state.apply_action(b)
    assert state._core.s.engine == "native"
    reference = openspiel_game(GAMES / "schwimmen.rcy", chance="seed", engine="reference").new_initial_state()
    for b in (0, 0, 0, 7):
        reference.apply_action(b)
    assert type(reference._core.s).__name__ == "State"
    with pytest.raises(ValueError, match="engine must be one of auto, native, reference"):
        openspiel_game(GAMES / "schwimmen.rcy", engine="numba")
    # chance as the rules draw it (the default) is stepped natively too (its chance module)
    assert openspiel_game(GAMES / "schwimmen.rcy", engine="native").native_rules
    assert not openspiel_game(GAMES / "schwimmen.rcy", engine="reference").native_rules


def test_legal_actions_and_chance_nodes_answered_in_python_are_openspiels():
    # RecycleState answers legal_actions and is_chance_node itself (speed): as OpenSpiel's C++ does
    pyspiel = pytest.importorskip("pyspiel")
    game = openspiel_game(GAMES / "schwimmen.rcy", chance="seed")
    state = game.new_initial_state()
    rng = random.Random(3)
    while True:
        chance = [pyspiel.PlayerId.CHANCE] if state.is_chance_node() else []  # (else an error)
        for p in [None, *chance, *range(game.num_players())]:
            base = pyspiel.State.legal_actions(state) if p is None else pyspiel.State.legal_actions(state, p)
            assert state.legal_actions(p) == base
        assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))


def _pz_episode(env, seed: int) -> list:
    env.reset(seed=seed)
    rng = random.Random(seed)
    out = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        out.append((agent, obs["observation"].tolist(), obs["action_mask"].tolist(), reward, term, trunc))
        out.append({k: v.tolist() if hasattr(v, "tolist") else v for k, v in info.items()})
        if term or trunc:
            env.step(None)
        else:
            env.step(rng.choice([i for i, m in enumerate(obs["action_mask"]) if m]))
    return out


@pytest.mark.parametrize("name", ["schwimmen", "golf-six"])
def test_pettingzoo_episodes_are_the_same_natively(name):
    pytest.importorskip("pettingzoo")
    from recycle.env import pettingzoo_env

    path = GAMES / f"{name}.rcy"
    native = pettingzoo_env(path, describe=True, option_observations=True)
    reference = pettingzoo_env(path, describe=True, option_observations=True, engine="reference")
    for seed in range(2 if name == "schwimmen" else 1):
        assert _pz_episode(native, seed) == _pz_episode(reference, seed)
        assert native.state.engine == "native"
