"""The compiled engine (recycle/lang/pygen.py): the generated module, its fallback, ``recycle compile``.

That it plays the same games as the plain path is tests/test_differential.py's to show."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import recycle
from recycle.lang import pygen

ROOT = Path(__file__).resolve().parents[1]
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
