#!/usr/bin/env python3
"""The designer's loop, timed as a designer meets it: each command a fresh process, cold cache.

    python tools/designer_loop.py [GAME ...] [--games 10000] [--analyze GAME] [--bytecode both] [--busy]

For every game of games/ (or those named): the wall time of ``recycle simulate GAME -n 10000``
in a fresh process whose cache folder (``RECYCLE_CACHE_DIR``) is empty, so the game is built
into machine code in that run (issue 42's target: at most 2 s each). Python's own bytecode is
timed both ways with ``--bytecode both`` (the default): ``PYTHONDONTWRITEBYTECODE=1`` with
recycle's own ``.pyc`` files removed first (its imports compiled again in every process, as on
a machine that sets it; the installed packages keep theirs) and without it (the ``.pyc`` files
written once, by a first run not counted). Then, with ``--analyze GAME``, the README's
``analyze`` recipe (``-n 500 --values winprob:20 --skilled ismcts:100``; the target: at most
60 s on a game of about 50 decisions) in the same way. Which engine played is read from each
run's ``--json``. The command, the date and the load (``uptime``'s) are printed first and the
load again at the end; above a 1-minute load of 0.5 it refuses to run unless ``--busy`` is given
(tools/timing.py): a busy machine's figures are history, not current ones. Never part of the tests.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from timing import QUIET_LOAD, busy_banner, load_average, load_text  # noqa: E402

RECIPE = ["-n", "500", "--values", "winprob:20", "--skilled", "ismcts:100"]


def timed(argv: list[str], bytecode: bool, timeout: float) -> tuple[float, str]:
    """Wall seconds of ``python -m recycle ARGV`` in a fresh process with an empty cache
    folder, and its standard output."""
    with tempfile.TemporaryDirectory(prefix="recycle-loop-") as cache:
        env = dict(os.environ, RECYCLE_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if not bytecode:
            # recycle's own .pyc files gone (an earlier run may have written them): every one
            # of its imports compiled again, as where PYTHONDONTWRITEBYTECODE was always set
            # (the installed packages keep theirs: their installer wrote them)
            for pyc in (ROOT / "recycle").rglob("__pycache__/*.pyc"):
                pyc.unlink()
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        t0 = time.perf_counter()
        p = subprocess.run(
            [sys.executable, "-m", "recycle", *argv], env=env, capture_output=True, text=True, timeout=timeout
        )
        dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"recycle {' '.join(argv)} failed: {p.stderr.strip()[-500:]}")
    return dt, p.stdout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("games", nargs="*", help="game files (default: every game of games/)")
    ap.add_argument("--games", dest="n", type=int, default=10_000, help="games a simulate plays")
    ap.add_argument("--analyze", metavar="GAME", help="also time the README's analyze recipe on GAME")
    ap.add_argument("--bytecode", choices=("both", "written", "not-written"), default="both")
    ap.add_argument("--busy", action="store_true", help="run on a busy machine (figures are history)")
    args = ap.parse_args()
    one = load_average()[0]
    print(f"$ {' '.join(sys.argv)}\n{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {load_text()}")
    if one > QUIET_LOAD:
        print(busy_banner(one, "at the start"))
        if not args.busy:
            return 2
    games = [Path(g) for g in args.games] or sorted((ROOT / "games").glob("*.rcy"))
    modes = {"both": (False, True), "written": (True,), "not-written": (False,)}[args.bytecode]
    worst = {m: 0.0 for m in modes}
    print(f"{'game':28} " + "  ".join(f"{'pyc ' + ('on' if m else 'off'):>9}" for m in modes) + "  engine")
    for g in games:
        cells, engine = [], "?"
        for m in modes:
            if m:  # .pyc files written (again, after a "pyc off" run removed them) by a run not counted
                timed(["simulate", str(g), "-n", "1", "--no-progress"], True, 600)
            dt, out = timed(["simulate", str(g), "-n", str(args.n), "--json", "--no-progress"], m, 600)
            engine = json.loads(out).get("engine", "?")
            worst[m] = max(worst[m], dt)
            cells.append(f"{dt:8.2f}s")
        print(f"{g.stem:28} " + "  ".join(cells) + f"  {engine}", flush=True)
    print("slowest: " + ", ".join(f"pyc {'on' if m else 'off'} {worst[m]:.2f} s" for m in modes))
    if args.analyze:
        for m in modes:
            if m:
                timed(
                    [
                        "analyze",
                        args.analyze,
                        "-n",
                        "1",
                        "--values",
                        "winprob:1",
                        "--skilled",
                        "ismcts:1",
                        "--skill-games",
                        "1",
                    ],
                    True,
                    600,
                )
            dt, out = timed(["analyze", args.analyze, *RECIPE, "--json"], m, 7200)
            d = json.loads(out)
            print(
                f"analyze {Path(args.analyze).name} {' '.join(RECIPE)}: {dt:.1f} s "
                f"(pyc {'on' if m else 'off'}; {d['length']['decisions']['mean']:.1f} decisions a game)"
            )
    print(f"at the end: {load_text()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
