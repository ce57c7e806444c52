"""Conformance: every game parses and finishes random rollouts, with invariants checked.

The CardStock corpus (``../shared/corpus/cardstock/``, skipped when absent) and our own
``games/*.rcy``: ``ROLLOUTS`` random rollouts per game (seeds ``rollout_seed(0, i)``), each
with card conservation checked after every card event and every player's view checked at
every decision (``recycle/study/invariants.py``). CI runs 30 rollouts per game; the full figure is
``python tools/conformance.py`` (200 rollouts per game, see docs/conformance.md).

A game listed in ``KNOWN_BAD`` is expected to fail (``xfail``, not strict: when the
interpreter is fixed it shows as XPASS — then remove it from the list).
"""

from __future__ import annotations

import importlib.util
import json

import pytest

import recycle

from ..conftest import CORPUS, GAMES, ROOT, requires_corpus, sweep_marks
from recycle.study.invariants import (
    InvariantSink,
    InvariantViolation,
    check_conservation,
    check_views,
    checked_play,
    run_rollouts,
)

# game (file stem) -> why it does not run cleanly yet
KNOWN_BAD: dict[str, str] = {}

ROLLOUTS = 30  # per game in CI; tools/conformance.py runs 200
MAX_STEPS = 20_000

CORPUS_FILES = sorted(CORPUS.glob("*.rcy")) if CORPUS.is_dir() else []
OWN_FILES = sorted(GAMES.glob("*.rcy"))


def _param(path):
    marks = sweep_marks(path) if path.parent == CORPUS else []
    if path.stem in KNOWN_BAD:
        marks.append(pytest.mark.xfail(reason=KNOWN_BAD[path.stem], strict=False))
    return pytest.param(path, id=path.stem, marks=marks)


def assert_conforms(path, rollouts: int = ROLLOUTS) -> None:
    try:
        game = recycle.load(path)
    except recycle.RecycleError as exc:
        pytest.fail(f"{path.name} does not load: {exc.format().splitlines()[0]}")
    out = run_rollouts(game, rollouts, seed=0, max_steps=MAX_STEPS, check=True)
    assert out["errors"] == 0, (
        f"{path.name}: {out['errors']} of {rollouts} rollouts failed; first "
        f"(seed {out['first_error_seed']}): {out['first_error']}"
    )
    assert out["finished"] + out["step_limit_hits"] == rollouts


@requires_corpus()
def test_corpus_is_there():
    assert len(CORPUS_FILES) >= 50, f"expected the corpus share of 57 games in {CORPUS}"


@requires_corpus()
@pytest.mark.parametrize("path", [_param(p) for p in CORPUS_FILES])
def test_corpus_game(path):
    assert_conforms(path)


@pytest.mark.parametrize("path", [_param(p) for p in OWN_FILES])
def test_own_game(path):
    assert_conforms(path)


def test_known_bad_names_exist():
    """A misspelt name in KNOWN_BAD would silently excuse nothing."""
    if not CORPUS.is_dir():
        pytest.skip(f"corpus folder {CORPUS} is absent")
    stems = {p.stem for p in CORPUS_FILES} | {p.stem for p in OWN_FILES}
    assert set(KNOWN_BAD) <= stems


# -- the checks are not vacuous ------------------------------------------------------------

SMALL = """(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 (do ((shuffle (game iloc STOCK))
      (all player 'P (repeat 2 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))
      (move (top (game iloc STOCK)) (top (game hloc BURIED)))
      (move (top (game iloc STOCK)) (top (game vloc UP)))))
 (stage player (end (== (size ((current player) iloc HAND)) 0))
  (choice ((any ((current player) iloc HAND) 'C (move 'C (top ((current player) oloc SHOWN)))))))
 (scoring max (size ((current player) oloc SHOWN))))"""


def test_checked_play_checks_every_event_and_decision():
    g = recycle.loads(SMALL, "small.rcy")
    calls = []
    sink = InvariantSink()

    def on_decision(state, player, options, index):
        calls.append(player)
        check_views(state)

    r = g.play(seed=3, record=sink, on_decision=on_decision)
    assert sink.checked >= 6 and len(calls) == r.decisions >= 1
    checked_play(g, seed=3, max_steps=1000)


def test_visibility_check_catches_a_leaking_view(monkeypatch):
    import recycle.engine.view

    g = recycle.loads(SMALL, "small.rcy")
    monkeypatch.setattr(recycle.engine.view, "may_see", lambda info, player, team_of: True)
    with pytest.raises(InvariantViolation, match="sees card identities"):
        checked_play(g, seed=0, max_steps=1000)


def test_conservation_check_catches_a_lost_and_a_doubled_card():
    g = recycle.loads(SMALL, "small.rcy")
    s = g.play(seed=0).state
    check_conservation(s)
    hand = s.locs[g.layout.find(0, "oloc", "SHOWN")]
    c = hand.pop()
    with pytest.raises(InvariantViolation, match="lost"):
        check_conservation(s)
    hand.extend([c, c])
    with pytest.raises(InvariantViolation, match="two locations"):
        check_conservation(s)


# -- tools/conformance.py ------------------------------------------------------------------


def _tool(name):
    spec = importlib.util.spec_from_file_location(f"tool_{name}", ROOT / "tools" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_conformance_tool_table_json_and_exit_status(tmp_path, capsys):
    conf = _tool("conformance")
    (tmp_path / "Good.rcy").write_text(SMALL)
    assert conf.main([str(tmp_path), "--rollouts", "5", "--check"]) == 0
    out = capsys.readouterr().out
    assert "| Good | yes | 5/5 | 0 | 0 |" in out

    (tmp_path / "Broken.rcy").write_text(SMALL.replace("(scoring", "(scoring (", 1))
    (tmp_path / "Crashing.rcy").write_text(SMALL.replace("(size ((current player) iloc HAND)) 0", "1 2"))
    (tmp_path / "Forever.rcy").write_text(
        SMALL.replace("(== (size ((current player) iloc HAND)) 0)", "(== 1 2)").replace(
            "(move 'C (top ((current player) oloc SHOWN)))", "(turn pass)"
        )
    )
    assert conf.main([str(tmp_path), "--rollouts", "3", "--max-steps", "200", "--json"]) == 1
    rows = {r["game"]: r for r in json.loads(capsys.readouterr().out)["games"]}
    assert rows["Good"]["finished"] == 3 and rows["Good"]["errors"] == 0
    assert not rows["Broken"]["parsed"] and rows["Broken"]["first_error"].startswith(str(tmp_path / "Broken.rcy") + ":")
    assert rows["Crashing"]["errors"] == 3 and ":" in rows["Crashing"]["first_error"]
    assert rows["Forever"]["step_limit_hits"] == 3 and rows["Forever"]["errors"] == 0
    assert conf.main([str(tmp_path / "missing")]) == 2


def test_rollouts_stop_at_the_time_limit_with_the_figures_so_far(tmp_path, capsys):
    """On by default (``DEFAULT_TIMEOUT`` per game): no rollout is started after it."""
    import inspect

    from recycle.study.invariants import DEFAULT_TIMEOUT

    assert inspect.signature(run_rollouts).parameters["timeout"].default == DEFAULT_TIMEOUT == 300
    game = recycle.load(GAMES / "schwimmen.rcy")
    out = run_rollouts(game, 1000, timeout=0)
    assert out["stopped_by_time_limit"] and out["played"] == 1 == out["finished"] + out["step_limit_hits"]
    out = run_rollouts(game, 5, timeout=None)
    assert not out["stopped_by_time_limit"] and out["played"] == 5 == out["finished"]

    conf = _tool("conformance")
    (tmp_path / "Good.rcy").write_text(SMALL)
    assert conf.main([str(tmp_path), "--rollouts", "100000", "--timeout", "0.2", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["games"][0]
    assert row["stopped_by_time_limit"] and 1 <= row["played"] == row["finished"] < 100_000
    assert row["first_error"] == f"time limit: {row['played']} of 100000 rollouts played in 0.2 s"
    assert conf.main([str(tmp_path), "--rollouts", "100000", "--timeout", "0.2"]) == 0
    assert "stopped by the time limit (the rollouts played are counted): Good" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        conf.main([str(tmp_path), "--timeout", "-1"])
