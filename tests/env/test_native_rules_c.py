"""The hot calls of a natively stepped OpenSpiel state in C (recycle/env/native_rules_step.c,
built and loaded by recycle/env/native_rules_c.py): they are the ones played where the
extension builds, OpenSpiel's C++ calls them back as Python overrides, and they play the same
episodes, refusals and answers as the Python methods (``RECYCLE_SPIEL_C=0``)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed: no numpy")
pytest.importorskip("pyspiel", reason="the rl extra is not installed (pip install -e '.[rl]'): no pyspiel")

from recycle.env import native_rules, openspiel_game
from recycle.env.native_rules import NativeRulesState
from recycle.native import available

from ..conftest import CORPUS, GAMES

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")
needs_c = pytest.mark.skipif(native_rules._STEP is None, reason="no Python.h or C compiler: the Python methods play")

ROOT = GAMES.parent

# random episodes through the shared benchmark's loop (chance drawn with random.choices),
# every node's player, actions or outcomes and the returns written down
EPISODES = """
import json, random, sys
from recycle.env import native_rules, openspiel_game
rng = random.Random(int(sys.argv[1]))
out = {"c": native_rules._STEP is not None, "episodes": []}
for path, n in zip(sys.argv[2::2], sys.argv[3::2]):
  game = openspiel_game(path)
  for _ in range(int(n)):
      s = game.new_initial_state()
      seen = []
      while not s.is_terminal():
          if s.is_chance_node():
              outcomes = s.chance_outcomes()
              actions, probs = zip(*outcomes)
              action = rng.choices(actions, probs)[0]
              seen.append(["chance", s.current_player(), outcomes[:3], len(outcomes)])
          else:
              legal = s.legal_actions()
              action = rng.choice(legal)
              seen.append([s.current_player(), legal, s.legal_actions(0)])
          s.apply_action(action)
      seen.append(s.returns())
      out["episodes"].append([seen, s.history()[-5:], str(s)[-200:]])
print(json.dumps(out))
"""


def _episodes(games: list, seed: int, c: bool) -> dict:
    env = {**os.environ, "RECYCLE_SPIEL_C": "1" if c else "0", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", EPISODES, str(seed), *(str(x) for game in games for x in game)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@needs_c
def test_the_c_calls_play_the_python_methods_episodes():
    games = [(GAMES / "leduc.rcy", 6), (GAMES / "crazy-eights.rcy", 3)]
    with_c, without = _episodes(games, 5, True), _episodes(games, 5, False)
    assert with_c["c"] and not without["c"]
    assert with_c["episodes"] == without["episodes"]
    assert len(with_c["episodes"]) == 9 and all(len(seen) > 3 for seen, _, _ in with_c["episodes"])


@needs_c
def test_the_hot_calls_are_c_and_openspiel_s_cpp_calls_them_back():
    for name in ("apply_action", "is_terminal", "is_chance_node", "current_player", "legal_actions", "chance_outcomes"):
        assert type(NativeRulesState.__dict__[name]).__name__ == "FastMethod", name
    game = openspiel_game(GAMES / "leduc.rcy")
    state = game.new_initial_state()
    assert type(state) is NativeRulesState
    # child() and the C++ algorithms ask current_player/chance_outcomes of the Python object
    child = state.child(state.chance_outcomes()[0][0])
    assert child.current_player() == -1 and len(child.history()) == 1
    import pyspiel

    def expected(game) -> list[float]:
        return pyspiel.expected_returns(game.new_initial_state(), [pyspiel.UniformRandomPolicy(game)] * 2, -1, False)

    kuhn = CORPUS / "KuhnPoker2.rcy"  # (a tree small enough to walk whole)
    if kuhn.exists():
        ours, theirs = openspiel_game(kuhn), openspiel_game(kuhn, engine="reference")
        assert type(ours.new_initial_state()) is NativeRulesState
        assert expected(ours) == pytest.approx(expected(theirs))


@needs_c
def test_a_refused_action_says_what_the_python_methods_say():
    state = openspiel_game(GAMES / "leduc.rcy").new_initial_state()
    with pytest.raises(ValueError, match=r"^99 is not an outcome of this chance node \(6 outcomes\)$"):
        state.apply_action(99)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        state.apply_action("1")
    with pytest.raises(TypeError):
        state.is_terminal(1)
    assert NativeRulesState.is_terminal(state) is False  # (unbound, as a plain method)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    n = len(state.legal_actions())
    with pytest.raises(ValueError, match=rf"^option {n} of a decision with {n} options$"):
        state.apply_action(n)
    other = 1 - state.current_player()
    assert state.legal_actions(other) == [] and state.legal_actions(player=state.current_player()) == list(range(n))


@needs_c
def test_a_state_handed_to_the_reference_interpreter_answers_through_the_python_methods():
    game = openspiel_game(GAMES / "go-fish.rcy", max_steps=20)
    state = game.new_initial_state()
    rng = random.Random(4)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert type(state._core).__name__ == "RulesCore"  # (the step limit: native code stopped)
    assert state.is_terminal() and not state.is_chance_node() and state.current_player() == -4
    assert state.legal_actions() == [] and state.chance_outcomes() == [] and state.returns() == [0.0, 0.0, 0.0]
