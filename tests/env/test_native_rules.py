"""The OpenSpiel game's default chance (``chance="rules"``) stepped by native code (issue 42:
recycle/env/native_rules.py, recycle/native/chance_module.py): random paths through it and
through the reference interpreter's show the same player, legal actions, chance outcomes with
their probabilities, observation and information-state strings and tensors and returns at every
node; games whose shuffled piles a rule reads stay the reference's."""

from __future__ import annotations

import copy
import random

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed: no numpy")
pytest.importorskip("pyspiel", reason="the rl extra is not installed (pip install -e '.[rl]'): no pyspiel")

from recycle.env import openspiel_game
from recycle.env.native_rules import NativeRulesState
from recycle.env.rules import RulesCore
from recycle.native import NativeUnsupported, available

from ..conftest import CORPUS, GAMES

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")


def _walk(path, seed: int, max_steps: int | None = None, every: int = 1) -> int:
    """A random path through the native and the reference game, compared at every node (the
    strings every ``every`` nodes: a long game's information-state strings are long)."""
    kw = {} if max_steps is None else {"max_steps": max_steps}
    ours, theirs = openspiel_game(path, **kw), openspiel_game(path, engine="reference", **kw)
    assert ours.native_rules and not theirs.native_rules
    a, b = ours.new_initial_state(), theirs.new_initial_state()
    assert type(a) is NativeRulesState
    rng = random.Random(seed)
    n = ours.num_players()
    k = 0
    while True:
        assert (a.current_player(), a.is_terminal(), a.is_chance_node()) == (
            b.current_player(),
            b.is_terminal(),
            b.is_chance_node(),
        ), k
        for p in range(n) if k % every == 0 or a.is_terminal() else ():
            assert a.observation_string(p) == b.observation_string(p), k
            assert a.information_state_string(p) == b.information_state_string(p), k
        if k % (5 * every) == 0 and not a.is_chance_node() and not a.is_terminal():
            p = a.current_player()
            assert a.observation_tensor(p) == b.observation_tensor(p), k
            assert a.information_state_tensor(p) == b.information_state_tensor(p), k
        if a.is_terminal():
            assert a.returns() == b.returns()
            assert a.serialize() == b.serialize().replace(theirs.get_type().short_name, ours.get_type().short_name)
            return k
        if a.is_chance_node():
            outcomes = a.chance_outcomes()
            assert outcomes == b.chance_outcomes(), k
            assert a.legal_actions() == b.legal_actions() == [o for o, _ in outcomes]
            action = rng.choice(outcomes)[0]
        else:
            assert a.legal_actions() == b.legal_actions(), k
            action = rng.choice(a.legal_actions())
        a.apply_action(action)
        b.apply_action(action)
        k += 1


@pytest.mark.parametrize("name", ["leduc", "crazy-eights", "go-fish", "schwimmen", "goofspiel"])
def test_random_paths_are_the_references_on_games(name):
    for seed in (1, 2) if name == "leduc" else (1,):
        assert _walk(GAMES / f"{name}.rcy", seed) > 0


@pytest.mark.parametrize("name", ["KuhnPoker2", "NoThanks3", "Pairs3", "ContinuousPairs4"])
def test_random_paths_are_the_references_on_corpus_games(name):
    path = CORPUS / f"{name}.rcy"
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared)")
    assert _walk(path, 1) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["hearts", "oh-hell", "whist", "schwimmen-lives", "goofspiel-sequential"])
def test_random_paths_are_the_references_on_long_games(name):
    assert _walk(GAMES / f"{name}.rcy", 3, every=1 if name == "goofspiel-sequential" else 23) > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Hearts4", "LAMA2", "Agram2", "Coup4", "BottleImp3"])
def test_random_paths_are_the_references_on_more_corpus_games(name):
    path = CORPUS / f"{name}.rcy"
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared)")
    assert _walk(path, 3) > 0


def test_a_step_limit_hands_the_game_to_the_reference_interpreter():
    # native code stops at the limit; the reference, replayed, ends the game truncated
    assert _walk(GAMES / "go-fish.rcy", 4, max_steps=20) > 0
    state = openspiel_game(GAMES / "go-fish.rcy", max_steps=20).new_initial_state()
    rng = random.Random(4)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert type(state._core) is RulesCore
    assert "step limit: the game did not end within 20 steps" in state._core.truncated
    assert state.returns() == [0.0, 0.0, 0.0]


def test_a_game_whose_shuffled_pile_a_rule_reads_is_the_references():
    game = openspiel_game(GAMES / "war.rcy")
    assert not game.native_rules
    assert type(game.new_initial_state()) is not NativeRulesState
    with pytest.raises(NativeUnsupported, match="a card moved from a shuffled location other than onto a top"):
        openspiel_game(GAMES / "war.rcy", engine="native")


def test_a_wrong_outcome_is_refused_as_the_reference_refuses_it():
    messages = []
    for engine in ("auto", "reference"):
        state = openspiel_game(GAMES / "leduc.rcy", engine=engine).new_initial_state()
        assert state.is_chance_node()
        with pytest.raises(ValueError) as exc:
            state.apply_action(99)
        messages.append(str(exc.value))
        assert state.chance_outcomes()  # the node still waits
    assert messages[0] == messages[1]


def test_a_copy_steps_apart_from_its_original():
    state = openspiel_game(GAMES / "crazy-eights.rcy").new_initial_state()
    before = state.chance_outcomes()
    twin = copy.deepcopy(state)
    other = state.clone()
    twin.apply_action(before[0][0])
    other.apply_action(before[-1][0])
    assert state.chance_outcomes() == before
    assert twin.chance_outcomes() != other.chance_outcomes()
    assert before[0][0] not in [o for o, _ in twin.chance_outcomes()]


def _histories(state) -> tuple:
    full = [(x.player, x.action) for x in state.full_history()]
    return state.history(), full, state.history_str(), state.move_number(), state.is_initial_state()


def test_openspiel_history_holds_actions_applied_from_python_and_from_cpp():
    # apply_action from Python skips OpenSpiel's C++ (native_rules._sync tells its history
    # later); child() applies through the C++, which must put the Python ones first
    path = GAMES / "crazy-eights.rcy"
    ours, theirs = openspiel_game(path), openspiel_game(path, engine="reference")
    a, b = ours.new_initial_state(), theirs.new_initial_state()
    assert type(a) is NativeRulesState and _histories(a) == _histories(b)
    rng = random.Random(3)
    for k in range(60):
        if a.is_terminal():
            break
        action = rng.choice(a.legal_actions())
        if k % 7 == 3:
            a, b = a.child(action), b.child(action)
        else:
            a.apply_action(action)
            b.apply_action(action)
        if k % 5 == 0:
            assert _histories(a) == _histories(b), k
            assert _histories(a.clone()) == _histories(b), k
    assert len(a.history()) > 20 and _histories(a) == _histories(b)


def test_a_card_drawn_already_is_refused_as_the_reference_refuses_it():
    # a card in range but no outcome of the node: native code refuses it, the reference
    # interpreter says why and the state waits at the node (history and all) as the reference's
    path = GAMES / "crazy-eights.rcy"
    states = [openspiel_game(path, engine=e).new_initial_state() for e in ("auto", "reference")]
    assert type(states[0]) is NativeRulesState
    messages = []
    for state in states:
        first = state.chance_outcomes()[0][0]
        state.apply_action(first)
        with pytest.raises(ValueError) as exc:
            state.apply_action(first)
        messages.append(str(exc.value))
    assert messages[0] == messages[1] and "is not an outcome" in messages[0]
    a, b = states
    assert a.chance_outcomes() == b.chance_outcomes() and _histories(a) == _histories(b)
    a.apply_action(a.chance_outcomes()[-1][0])
    b.apply_action(b.chance_outcomes()[-1][0])
    assert a.chance_outcomes() == b.chance_outcomes() and _histories(a) == _histories(b)
