"""The compiled engine (recycle/lang/python/pygen.py): the generated module, its fallback, ``recycle compile``.

That it plays the same games as the plain path is tests/engine/test_differential.py's to show."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import recycle
from recycle.lang.python import pygen
from ..helpers import PEAK_MB

ROOT = Path(__file__).resolve().parents[2]
GAMES = sorted((ROOT / "games").glob("*.rcy"))
SCHWIMMEN = ROOT / "games" / "schwimmen.rcy"


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_every_game_in_games_is_compiled(path):
    g = recycle.load(path)
    assert g.engine == "compiled", g.warnings
    assert "def run(s, e):" in g.generated and "def resume(s, e, frames, k):" in g.generated
    compile(g.generated, str(path), "exec")  # the text shown is the text run


def test_blocks_carry_the_line_of_their_form():
    g = recycle.load(SCHWIMMEN)
    lines = SCHWIMMEN.read_text().splitlines()
    comments = re.findall(r"# line (\d+): (.*)", g.generated)
    assert len(comments) > 30
    for number, text in comments:
        head = text.split()[0]
        # the form quoted starts on the line named
        assert head.strip("(") in lines[int(number) - 1], (number, text)
    # the shuffle, the stage ends and the choices are there, in order
    assert "# line 16: (shuffle (game iloc STOCK))" in g.generated
    assert g.generated.index("# line 32: (choice") < g.generated.index("# line 44: (stage player")


def test_written_out_forms_are_python_not_calls():
    src = recycle.load(SCHWIMMEN).generated
    # (set (game sto PASS) 0) and (inc (game sto PASS)) are plain list stores
    assert re.search(r"s\.ints\[\d+\] = 0", src)
    assert re.search(r"= s\.ints\[\d+\] \+ 1", src)
    # the deal moves three cards at once
    assert "del _l" in src and ".extend(_moved" in src
    # the close choice counts its options from the storage, without a closure call
    assert re.search(r"_c\d+ = 1 if \(s\.ints\[\d+\] == 0\) else 0", src)


def test_the_engines_are_named_and_checked():
    assert recycle.load(SCHWIMMEN, engine="closures").generated is None
    assert recycle.load(SCHWIMMEN, fast=False).engine == "plain"
    with pytest.raises(ValueError, match="engine must be one of compiled, closures, plain"):
        recycle.load(SCHWIMMEN, engine="jit")


def test_a_game_the_generator_cannot_write_stays_on_the_closures(monkeypatch):
    def broken(compiler, flow, name, source):
        return "def run(s, e):\n    return (\n", {}
    monkeypatch.setattr(pygen, "generate", broken)
    g = recycle.load(SCHWIMMEN)
    assert g.engine == "closures" and g.generated is None
    assert any(w.startswith("note: played by the closures, not compiled to Python (SyntaxError")
               for w in g.warnings)
    # and it still plays, as the closures do
    assert g.play(seed=3).scores == recycle.load(SCHWIMMEN, engine="closures").play(seed=3).scores


def test_compile_command_writes_the_module(tmp_path):
    out = tmp_path / "schwimmen_gen.py"
    env = dict(os.environ, RECYCLE_CACHE_DIR=str(tmp_path / "cache"))
    said = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-m", "recycle", "compile", str(SCHWIMMEN), "-o", str(out)],
                           capture_output=True, text=True, cwd=ROOT, env=env)
        assert r.returncode == 0, r.stderr
        assert re.match(rf"wrote {re.escape(str(out))}: \d+ lines, \d+ compiled forms called", r.stderr)
        said.append("its bytecode read from the cache" in r.stderr)
    assert said == [False, True]
    assert out.read_text() == recycle.load(SCHWIMMEN).generated


def test_compile_command_reports_bad_input(tmp_path):
    r = subprocess.run([sys.executable, "-m", "recycle", "compile", str(tmp_path / "nothere.rcy")],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "nothere.rcy" in r.stderr
    r = subprocess.run([sys.executable, "-m", "recycle", "compile", str(SCHWIMMEN), "-o",
                        str(tmp_path / "missing" / "x.py")], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "the folder" in r.stderr and "does not exist" in r.stderr


# -- the size of what is written out (pygen.MAX_CHARS, pyexpr.MAX_UNROLLED, pygen.MAX_LISTED_PARTS) --

def nested_players_loops(depth: int, players: int) -> str:
    """A game whose stage ends on ``depth`` nested ``(any player ...)``: written out player
    by player, players ** depth copies of the innermost condition."""
    cond = f"(> (size ('P{depth} iloc HAND)) 1)"
    for d in range(depth, 0, -1):
        cond = f"(any player 'P{d} {cond})"
    return (f"(game (setup (create players {players}) (create deck (game iloc STOCK) (deck (RANK (A, B, C, D))"
            f" (SUIT (W, X, Y, Z)))))\n (stage player (end {cond})\n  (move (top (game iloc STOCK))"
            " (top ((current player) iloc HAND))))\n (scoring max 0))\n")


LOAD_AND_MEASURE = f"""
import sys
import recycle
g = recycle.load(sys.argv[1])
print(g.engine, len(g.generated or ""), {PEAK_MB})
"""


def limit_memory():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # a runaway fails, not the machine


@pytest.mark.parametrize("depth, players", [(7, 10), (22, 2)])
def test_nested_players_loops_are_written_out_within_bounds(tmp_path, depth, players):
    """Seven nested loops over ten players (a few hundred bytes) took 4 GB to write out, 22 over
    two players alike: such a condition stays the closure's, and the game is checked at once."""
    path = tmp_path / "nested.rcy"
    path.write_text(nested_players_loops(depth, players))
    assert path.stat().st_size < 700
    env = dict(os.environ, RECYCLE_NO_CACHE="1")
    r = subprocess.run([sys.executable, "-c", LOAD_AND_MEASURE, str(path)], capture_output=True, text=True,
                       cwd=ROOT, env=env, preexec_fn=limit_memory)
    assert r.returncode == 0, r.stderr[-800:]
    engine, size, rss_mb = r.stdout.split()
    assert engine == "compiled" and int(size) < 20_000
    assert int(rss_mb) < 300
    r = subprocess.run([sys.executable, "-m", "recycle", "check", str(path)], capture_output=True, text=True,
                       cwd=ROOT, env=env, preexec_fn=limit_memory)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr[-800:]


def test_nested_players_loops_play_alike_written_out_or_not():
    for depth, players in [(3, 2), (7, 2), (2, 10), (3, 10)]:  # written out, or the closure
        text = nested_players_loops(depth, players)
        want = recycle.loads(text, "n.rcy", engine="plain").play(seed=2)
        got = recycle.loads(text, "n.rcy").play(seed=2)
        assert (got.scores, got.steps, got.state.locs) == (want.scores, want.steps, want.state.locs)


def choice_of(options: int) -> str:
    opts = " ".join(f"((== (game sto X) {i % 3}) (inc (game sto Y)))" for i in range(options))
    return ("(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B)))))\n"
            f" (choice ({opts}))\n (choice ({opts}))\n (scoring max (game sto Y)))\n")


def test_a_choice_of_many_options_is_not_written_out_as_their_square():
    text = choice_of(1000)  # 80 kB
    g = recycle.loads(text, "choice.rcy")
    assert g.engine == "compiled" and len(g.generated) < 20_000
    plain = recycle.loads(text, "choice.rcy", engine="plain")
    assert g.play(seed=1).scores == plain.play(seed=1).scores


def test_a_module_longer_than_the_bound_stays_on_the_closures():
    """A long condition after many choices: each choice's resume writes it again (the
    text, not the statements, grows); past ``pygen.MAX_CHARS`` the game plays by the closures."""
    cond = "(and " + " ".join(f"(== (game sto X) {i % 3})" for i in range(3000)) + ")"
    text = ("(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B)))))\n"
            + " (choice ((inc (game sto X)) (turn pass)))\n" * 40
            + f" (do (({cond} (inc (game sto Y)))))\n (scoring max (game sto Y)))\n")
    assert len(text) < 100_000
    g = recycle.loads(text, "long.rcy")
    assert g.engine == "closures" and g.generated is None
    assert any(f"{pygen.MAX_CHARS:,} characters" in w for w in g.warnings), g.warnings
    assert g.play(seed=5).scores == recycle.loads(text, "long.rcy", engine="plain").play(seed=5).scores
