#!/usr/bin/env python3
"""``recycle run Hearts4 --players ismcts:1000,random`` of two checkouts: the search alone.

    git worktree add /tmp/pre42 5495493        # before the native issue (issue 42)
    python tools/bench_run.py /tmp/pre42 .     # older checkout first; --repeat K, --budget S
    git worktree remove /tmp/pre42

Issue 42's target: the command at least 5x faster than at 5495493, counting only the search,
that is the same game with random players subtracted. For each checkout (its own ``recycle``
package on PYTHONPATH, in a fresh process, from its own folder) the command is run as a user
types it, with a fixed seed, and so is ``--players random``; the checkouts alternate, in
``--repeat`` rounds, and each keeps its best time of each (the host drifts). Both wall time and
CPU time (user + system of the process and every process it waited for: a compiler it ran) are
shown; on a loaded machine the CPU time is the steadier figure. The first run of a checkout
also builds (or loads) its machine code: it is shown apart, as "first". ``--budget`` (seconds)
starts no new round after that time (one round at least). The load average is printed before
and after: compare runs made under similar loads.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEARTS4 = ROOT.parent / "shared" / "corpus" / "cardstock" / "Hearts4.rcy"


def run_once(root: Path, game: Path, players: str, seed: int, timeout: float) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, the output's last line) of one ``recycle run`` in ``root``."""
    env = dict(os.environ, PYTHONPATH=str(root))
    cmd = [sys.executable, "-m", "recycle", "run", str(game), "--players", players, "--seed", str(seed)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        _children_cpu()  # (its time counts for no later run)
        return float("nan"), float("nan"), f"timed out after {timeout:g} s"
    wall = time.perf_counter() - t0
    # the child's CPU time with its waited-for children's (a compiler it ran): the growth of
    # this process's RUSAGE_CHILDREN, which adds up every child reaped so far
    return wall, _children_cpu(), (out.strip().splitlines() or ["(no output)"])[-1] + _status(proc)


_CPU = [0.0]


def _children_cpu() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = ru.ru_utime + ru.ru_stime
    got, _CPU[0] = total - _CPU[0], total
    return got


def _status(proc) -> str:
    return "" if proc.returncode == 0 else f" (exit {proc.returncode})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="+", help="checkouts to compare, the older first")
    ap.add_argument("--game", type=Path, default=HEARTS4, help="the game (default: the corpus Hearts4)")
    ap.add_argument("--players", default="ismcts:1000,random", help="the players of the timed command")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="rounds, alternating the checkouts; best kept")
    ap.add_argument("--budget", type=float, default=600.0, help="no new round after this many seconds")
    ap.add_argument("--timeout", type=float, default=900.0, help="one command's limit (seconds)")
    args = ap.parse_args(argv)
    if not args.game.exists():
        print(f"{args.game}: not found")
        return 1
    roots = [Path(r).resolve() for r in args.roots]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    kinds = (args.players, "random")
    best = {(r, k): [float("inf"), float("inf")] for r in roots for k in kinds}
    first: dict = {}
    _children_cpu()
    t0 = time.perf_counter()
    for rnd in range(args.repeat):
        if rnd and time.perf_counter() - t0 > args.budget:
            print(f"budget of {args.budget:g} s spent after {rnd} rounds")
            break
        for root in roots:
            for kind in kinds:
                wall, cpu, last = run_once(root, args.game, kind, args.seed, args.timeout)
                first.setdefault((root, kind), (wall, cpu))
                b = best[root, kind]
                b[0], b[1] = min(b[0], wall), min(b[1], cpu)
                print(f"round {rnd + 1} {root.name:>12} {kind:<22} {wall:7.2f} s wall {cpu:7.2f} s CPU   {last}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    search = {}
    for root in roots:
        s, r = best[root, args.players], best[root, "random"]
        search[root] = (s[0] - r[0], s[1] - r[1])
        fw, fc = first[root, args.players]
        print(
            f"{root}: search alone (best of each) {search[root][0]:.2f} s wall, {search[root][1]:.2f} s CPU; "
            f"first run {fw:.2f} s wall, {fc:.2f} s CPU (its machine code built or loaded)"
        )
    if len(roots) >= 2:
        old, new = search[roots[0]], search[roots[-1]]
        ratio = [o / n if n > 0 else float("inf") for o, n in zip(old, new)]
        print(f"{roots[-1].name} against {roots[0].name}: {ratio[0]:.1f}x (wall), {ratio[1]:.1f}x (CPU) on the search")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
