#!/usr/bin/env python3
"""The designer's loop by CPU time: where each second of a cold ``recycle simulate`` goes, and
what it would take on an idle machine of two cores (a figure a busy machine spoils less).

    python tools/designer_cpu.py [GAME ...] [--games 10000]

For each game (default: every game of games/), ``recycle simulate GAME -n GAMES --no-progress``
runs in a fresh child process with an empty cache folder, as ``tools/designer_loop.py`` runs it,
and reports the CPU seconds of its parts: the main thread until the C build starts (interpreter,
imports, the command line, loading the game, writing and translating its native module), each
compiler (tcc at once, gcc -O2 in the background), the games played by tcc's library and by gcc's
(CPU seconds of the threads that played them), and the rest of the process. From them, the wall
time on an idle machine of two cores with ``simulate``'s schedule (``recycle/native/batch.py``:
tcc on one core while gcc builds on the other, then gcc's library on both):

    before + min(gcc, all games at tcc's rate) + (games left) / (2 x gcc's rate) + rest

Interpreter start and exit are in ``before`` and ``rest`` only in part (a tenth of a second is a
fair allowance). Wall times on a busy machine are history; these are not a measurement of wall
time either: ``tools/designer_loop.py`` on a quiet machine is. Never part of the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

INNER = r"""
import json, resource, runpy, sys, threading, time
import recycle.native.c.build as build
import recycle.native.c.library as library
import recycle.native.engine as engine

got = {"builds": {}, "chunks": []}
lock = threading.Lock()
compile_c = build.compile_c

def timed_compile(c_text, command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        return compile_c(c_text, command)
    finally:
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        with lock:
            got["builds"][" ".join(command[1:2])] = cpu

build.compile_c = timed_compile
rollouts = engine.NativeGame.rollouts_of_keys

def timed_rollouts(self, keys, *args, **kw):
    tier, t = self.module.games.tier, time.thread_time()
    out = rollouts(self, keys, *args, **kw)
    with lock:
        got["chunks"].append((tier, len(keys), time.thread_time() - t))
    return out

engine.NativeGame.rollouts_of_keys = timed_rollouts
init = library.ModuleLibrary.__init__

def timed_init(self, *args, **kw):
    got.setdefault("before", time.process_time())
    init(self, *args, **kw)

library.ModuleLibrary.__init__ = timed_init
sys.argv = ["recycle", *sys.argv[1:]]
try:
    runpy.run_module("recycle", run_name="__main__")
except SystemExit:
    pass
got["process"] = time.process_time()
print("\n" + json.dumps(got), file=sys.stderr)
"""


def parts(game: Path, games: int) -> dict:
    """The CPU seconds of a cold ``simulate`` of ``game`` (see the module's docstring)."""
    with tempfile.TemporaryDirectory(prefix="recycle-cpu-") as cache:
        env = dict(os.environ, RECYCLE_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        cmd = [sys.executable, "-c", INNER, "simulate", str(game), "-n", str(games), "--no-progress"]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"{game.name}: {p.stderr.strip()[-500:]}")
    return json.loads(p.stderr.strip().splitlines()[-1])


def idle_wall(d: dict) -> tuple[float, dict]:
    """The idle two-core estimate and its terms."""
    tcc = [c for c in d["chunks"] if c[0] == "tcc"]
    best = [c for c in d["chunks"] if c[0] != "tcc"]
    n_tcc, cpu_tcc = sum(c[1] for c in tcc), sum(c[2] for c in tcc)
    n_best, cpu_best = sum(c[1] for c in best), sum(c[2] for c in best)
    n = n_tcc + n_best
    gcc = d["builds"].get("-O2", 0.0)
    v_tcc = n_tcc / cpu_tcc if cpu_tcc else float("inf")
    v_best = n_best / cpu_best if cpu_best else float("inf")
    during = min(gcc, n / v_tcc) if n_tcc else 0.0
    after = max(0.0, n - during * v_tcc) / (2 * v_best) if n_best else 0.0
    rest = d["process"] - d.get("before", d["process"]) - cpu_tcc - cpu_best
    terms = {"before": d.get("before", 0.0), "tcc while gcc": during, "gcc on 2": after, "rest": rest}
    terms.update(gcc=gcc, tcc_games=n_tcc, gcc_games=n_best, tcc_rate=v_tcc, gcc_rate=v_best)
    return terms["before"] + during + after + rest, terms


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("games", nargs="*", help="game files (default: every game of games/)")
    ap.add_argument("--games", dest="n", type=int, default=10_000)
    args = ap.parse_args()
    paths = [Path(g) for g in args.games] or sorted((ROOT / "games").glob("*.rcy"))
    print(
        f"{'game':22} {'before':>7} {'gcc':>6} {'tcc g/s':>9} {'gcc g/s':>9} {'games tcc/gcc':>14} {'idle 2 cores':>13}"
    )
    for g in paths:
        wall, t = idle_wall(parts(g, args.n))
        rates = f"{t['tcc_rate']:9,.0f} {t['gcc_rate']:9,.0f}".replace("inf", "  -")
        print(
            f"{g.stem:22} {t['before']:6.2f}s {t['gcc']:5.2f}s {rates} "
            f"{t['tcc_games']:>7}/{t['gcc_games']:<6} {wall:11.2f} s",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
