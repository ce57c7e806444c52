"""recycle's changes to Numba's compile (recycle/native/compiling.py) change nothing a game plays.

They make a module's first compile shorter: machine code only for the entry, the other
generated functions kept as LLVM IR it links in, and the typing of builtin operators kept per
argument types. Each test here runs fresh processes (a process installs the changes once):

* a module compiled with Numba as it is (``RECYCLE_NUMBA_AS_IS=1``) and one compiled with the
  changes play the same games, seed for seed;
* only the entry is kept in the cache folder, and a second process loads it and compiles
  nothing (no other function of the module is compiled), playing the same games again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba", reason="the native extra is not installed (pip install -e '.[native]'): no numba")

from recycle.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs Numba and NumPy")

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import json, os, sys
import recycle
from recycle.native import compiling, native_game
from recycle.native.engine import entry_name
sys.path.insert(0, sys.argv[2])
from tests.conftest import tiny
from tests.engine.test_native import DRY_RUN
game = tiny(DRY_RUN, deck="(deck (RANK (A, B, C, D, E)) (SUIT (X, Y)))", scoring="(scoring max ((current player) sto EMPTY))")
native = native_game(game)
scores, counts = native.rollouts(range(200), 100_000, game.max_work)[:2]
compiled = sorted(name for name, f in vars(native.module).items()
                  if getattr(f, "overloads", None) and getattr(f, "py_func", None) is not None
                  and f.py_func.__module__ == native.module.__name__)
print(json.dumps({"scores": scores.tolist(), "counts": counts.tolist(), "changes": list(compiling.installed()),
                  "compiled": compiled, "entry": entry_name(native.source)}))
"""


def child(tmp_path: Path, **env: str) -> dict:
    """Compile (or load) the DRY_RUN game's module in a fresh process and play 200 rollouts."""
    environ = {k: v for k, v in os.environ.items() if k not in ("RECYCLE_NUMBA_AS_IS", "RECYCLE_NO_CACHE")}
    environ.update(env, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path), str(ROOT)],
        env=environ,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # compiles games twice, in child processes, with empty caches
def test_numba_as_is_and_the_changed_compile_play_the_same_games_and_only_the_entry_is_cached(tmp_path, monkeypatch):
    import numba

    from recycle.native.compiling import TESTED

    measured = TESTED[0] <= tuple(int(x) for x in numba.__version__.split(".")[:2]) <= TESTED[1]
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    as_is = child(tmp_path, RECYCLE_NUMBA_AS_IS="1", RECYCLE_NO_CACHE="1")
    changed = child(tmp_path, RECYCLE_CACHE_DIR=str(cache))
    again = child(tmp_path, RECYCLE_CACHE_DIR=str(cache))

    assert as_is["changes"] == []
    assert changed["changes"] == (["entry-only machine code", "operator types kept"] if measured else [])
    # the same games, whichever way the machine code was made, and from the cache
    assert all(row[1] > 0 for row in as_is["counts"])  # steps: the games were played
    assert changed["scores"] == as_is["scores"] and changed["counts"] == as_is["counts"]
    assert again["scores"] == as_is["scores"] and again["counts"] == as_is["counts"]
    # the first process compiled the entry and every function it calls; the second loaded the
    # entry from the cache and compiled nothing
    assert "games" in changed["compiled"] and "play" in changed["compiled"]
    assert again["compiled"] == ["games"]
    from recycle.native import cache as native_cache

    monkeypatch.setenv("RECYCLE_CACHE_DIR", str(cache))
    kept = native_cache.read(again["entry"])  # the module's entry in the native cache (cache.py)
    assert kept and sorted({item.split(".")[0] for item in kept}) == ["games"]
