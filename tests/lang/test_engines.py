"""The two engines by name (issue 41): ``reference`` and ``native`` (and ``auto``), the retired
names refused with a message naming them, ``recycle compile`` writing the native module, and
games whose forms nest deeply loading within bounds on the reference interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import recycle
from recycle.players.lookahead import ISMCTSPlayer

from ..helpers import PEAK_MB

ROOT = Path(__file__).resolve().parents[2]
SCHWIMMEN = ROOT / "games" / "schwimmen.rcy"
RETIRED = ["python", "compiled", "closures", "plain"]


def test_the_reference_interpreter_is_the_default():
    g = recycle.load(SCHWIMMEN)
    assert g.engine == "reference"
    assert recycle.load(SCHWIMMEN, engine="reference").play(seed=3).scores == g.play(seed=3).scores
    # fast= is accepted and changes nothing (one Python engine)
    assert recycle.load(SCHWIMMEN, fast=False).play(seed=3).scores == g.play(seed=3).scores


@pytest.mark.parametrize("name", RETIRED)
def test_a_retired_engine_name_is_refused_naming_the_engines(name):
    with pytest.raises(ValueError, match=f"the engine '{name}' is retired: engines are reference"):
        recycle.load(SCHWIMMEN, engine=name)
    with pytest.raises(ValueError, match=f"the engine '{name}' is retired: engines are auto, native, reference"):
        recycle.simulate(recycle.load(SCHWIMMEN), 5, engine=name)
    with pytest.raises(ValueError, match=f"the engine '{name}' is retired: engines are auto, native, reference"):
        ISMCTSPlayer(10, playouts=name)


def test_an_unknown_engine_name_is_refused():
    with pytest.raises(ValueError, match="engine must be one of reference, not 'jit'"):
        recycle.load(SCHWIMMEN, engine="jit")


def test_simulate_on_the_reference_interpreter_says_so():
    stats = recycle.simulate(recycle.load(SCHWIMMEN), 20, seed=1, engine="reference")
    assert (stats.engine, stats.engine_note) == ("reference", None)


def run_recycle(*args, **kw):
    return subprocess.run(
        [sys.executable, "-m", "recycle", *args], capture_output=True, text=True, cwd=ROOT, check=False, **kw
    )


@pytest.mark.parametrize("name", RETIRED)
def test_the_command_line_refuses_a_retired_engine_with_the_new_names(name):
    r = run_recycle("simulate", str(SCHWIMMEN), "-n", "5", "--engine", name)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert f"error: --engine: the engine '{name}' is retired: engines are auto, native, reference" in r.stderr


def test_the_command_line_plays_on_the_reference_interpreter():
    r = run_recycle("simulate", str(SCHWIMMEN), "-n", "5", "--engine", "reference", "--json")
    assert r.returncode == 0, r.stderr
    assert '"rollouts": 5' in r.stdout or '"games": 5' in r.stdout, r.stdout[:300]


def test_compile_writes_the_native_module_with_or_without_native(tmp_path):
    out = [tmp_path / "a.py", tmp_path / "b.py"]
    for path, extra in zip(out, ([], ["--native"])):
        r = run_recycle("compile", str(SCHWIMMEN), "-o", str(path), *extra)
        assert r.returncode == 0, r.stderr
        assert r.stderr.startswith(f"wrote {path}: ") and "recycle/native/writer.py" in r.stderr
    assert out[0].read_text() == out[1].read_text()
    assert out[0].read_text().startswith('"""Native module of ')


def test_compile_command_reports_bad_input(tmp_path):
    r = run_recycle("compile", str(tmp_path / "nothere.rcy"))
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "nothere.rcy" in r.stderr
    r = run_recycle("compile", str(SCHWIMMEN), "-o", str(tmp_path / "missing" / "x.py"))
    assert r.returncode == 2 and "the folder" in r.stderr and "does not exist" in r.stderr


# -- deeply nested forms load within bounds --------------------------------------------------------


def nested_players_loops(depth: int, players: int) -> str:
    """A game whose stage ends on ``depth`` nested ``(any player ...)``."""
    cond = f"(> (size ('P{depth} iloc HAND)) 1)"
    for d in range(depth, 0, -1):
        cond = f"(any player 'P{d} {cond})"
    return (
        f"(game (setup (create players {players}) (create deck (game iloc STOCK) (deck (RANK (A, B, C, D))"
        f" (SUIT (W, X, Y, Z)))))\n (stage player (end {cond})\n  (move (top (game iloc STOCK))"
        " (top ((current player) iloc HAND))))\n (scoring max 0))\n"
    )


LOAD_AND_MEASURE = f"""
import sys
import recycle
g = recycle.load(sys.argv[1])
print(g.engine, {PEAK_MB})
"""


def limit_memory():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # a runaway fails, not the machine


@pytest.mark.parametrize("depth, players", [(7, 10), (22, 2)])
def test_nested_players_loops_load_within_bounds(tmp_path, depth, players):
    """Seven nested loops over ten players (a few hundred bytes) once took 4 GB to write out as
    Python, 22 over two players alike: the reference interpreter loads them in little memory,
    and the game is checked at once."""
    path = tmp_path / "nested.rcy"
    path.write_text(nested_players_loops(depth, players))
    assert path.stat().st_size < 700
    env = dict(os.environ, RECYCLE_NO_CACHE="1")
    r = subprocess.run(
        [sys.executable, "-c", LOAD_AND_MEASURE, str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        preexec_fn=limit_memory,
        check=False,
    )
    assert r.returncode == 0, r.stderr[-800:]
    engine, rss_mb = r.stdout.split()
    assert engine == "reference" and int(rss_mb) < 300
    r = run_recycle("check", str(path), env=env, preexec_fn=limit_memory)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-800:]


def test_nested_players_loops_play():
    for depth, players in [(3, 2), (7, 2), (2, 10), (3, 10)]:
        text = nested_players_loops(depth, players)
        g = recycle.loads(text, "n.rcy")
        a, b = g.play(seed=2), g.random_rollout(2)
        assert (a.scores, a.steps, a.state.locs) == (b.scores, b.steps, b.locs)
