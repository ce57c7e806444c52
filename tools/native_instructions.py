#!/usr/bin/env python3
"""Machine instructions per native rollout, counted by callgrind: a speed figure a busy machine
cannot spoil (seconds can, instructions cannot).

    python tools/native_instructions.py [GAME ...] [--games 2000] [--tier gcc-O2] [--top 15]

For each game (default: games/schwimmen.rcy and ../shared/corpus/cardstock/Hearts4.rcy), the
native library is built (or loaded from the cache) in this process, then a child process runs
under ``valgrind --tool=callgrind`` and plays ``--games`` random rollouts (seeds
0..games-1) in one call of the library, and another plays none: the instructions run in the
library (not Python, NumPy, nor the loading), the second run's taken off, divided by the
rollouts. Printed: instructions per rollout, and with ``--top`` the functions of the library
that run the most (each with what gcc inlined into it). The counts are repeatable to a few instructions per rollout; compare
the same ``--tier`` (``gcc-O2``, the optimised library, or ``tcc``). ``RECYCLE_TRY_CFLAGS="-O3
..."`` in the environment tries other optimisation flags for gcc. Never part of the tests.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_GAMES = [ROOT / "games" / "schwimmen.rcy", ROOT.parent / "shared" / "corpus" / "cardstock" / "Hearts4.rcy"]


def _native(path: Path, tier: str):
    import recycle
    from recycle.native import native_game
    from recycle.native.c import build

    if os.environ.get("RECYCLE_TRY_CFLAGS"):  # an experiment: the optimisation flags replaced
        build.GCC_FLAGS[:] = [f for f in build.GCC_FLAGS if not f.startswith("-O")]
        build.GCC_FLAGS[:0] = os.environ["RECYCLE_TRY_CFLAGS"].split()

    fast, best = build.compilers()
    tiers = {t[0]: t for t in (fast, best) if t is not None}
    if tier not in tiers:
        raise SystemExit(f"no {tier} compiler here (have: {', '.join(tiers) or 'none'})")
    game = recycle.load(path)
    ng = native_game(game)
    lib = ng.module.games
    lib.ready.wait()  # the optimised library (built in the background, kept in the cache)
    if lib.tier != tier:
        lib._use(tier, build.cached(lib._key(tiers[tier]), tier) or build.compile_c(lib.c_text(), tiers[tier][1]))
    return ng


def inner(path: Path, games: int, tier: str) -> None:
    """The measured process: load the library, then one call of ``games`` rollouts."""
    # valgrind reads no symbols from a memory file (nor all of them from a file deleted once
    # loaded): the library is loaded from a file kept while the process lives
    import ctypes

    from recycle.native.c import build

    keep = tempfile.mkdtemp(prefix="recycle-callgrind-lib-")
    loaded = []

    def load_library(data: bytes):
        path = os.path.join(keep, f"module{len(loaded)}.so")
        with open(path, "wb") as f:
            f.write(data)
        lib = ctypes.CDLL(path)
        fn = lib.rc_games
        fn.restype = None
        fn.argtypes = [ctypes.POINTER(ctypes.c_void_p), *[ctypes.POINTER(ctypes.c_longlong)] * 2]
        loaded.append(path)
        return lib, fn

    build.load_library = load_library
    ng = _native(path, tier)
    scores, counts, _ = ng.rollouts(list(range(games)), 100_000, ng.game.max_work)
    print(f"checksum {int(scores.sum())} {int(counts[:, 1].sum())}")
    shutil.rmtree(keep, ignore_errors=True)


def _run(path: Path, games: int, tier: str, tmp: str) -> tuple[str, str]:
    """One measured process under callgrind: (its callgrind file, its checksum line)."""
    out = os.path.join(tmp, f"callgrind.{games}.out")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__]
    cmd += ["--inner", str(path), "--games", str(games), "--tier", tier]
    env = dict(os.environ, PYTHONHASHSEED="0")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, env=env)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-2000:])
    return out, next((ln for ln in proc.stdout.splitlines() if ln.startswith("checksum")), "")


def native_costs(path: str) -> dict:
    """Instructions run in the library, per function, from a callgrind file. callgrind names the
    library's object right but gives part of its code (``rc_games`` and what gcc inlined into it)
    to libffi, which calls it: both objects are counted (libffi alone runs a few thousand
    instructions a call; the run without rollouts takes them off)."""
    names: dict = {}
    ob = fn = cob = cfn = None
    call_line = False
    costs: Counter = Counter()

    def named(kind: str, v: str) -> str:
        m = re.match(r"\((\d+)\)(?: (.*))?", v)
        if not m:
            return v
        if m.group(2) is not None:
            names[kind, m.group(1)] = m.group(2)
        return names.get((kind, m.group(1)), "?")

    with open(path) as f:
        for line in f:
            if line.startswith("ob="):
                ob = named("ob", line[3:].strip())
            elif line.startswith("cob="):
                cob = named("ob", line[4:].strip())
            elif line.startswith("fn="):
                fn = named("fn", line[3:].strip())
                cob = None
            elif line.startswith("cfn="):
                cfn = named("fn", line[4:].strip())
            elif line.startswith("calls="):
                call_line = True  # the next cost line is the callee's (inclusive): not this function's
            elif line[:1].isdigit() or line[:1] in "+-*":
                parts = line.split()
                if call_line:
                    call_line = False
                    # a call from the library into the C library (memcpy): the library's work too
                    callee = cob or ob
                    inside = ob and ("/module" in ob or "libffi" in ob)
                    if inside and callee and "libc.so" in callee and len(parts) >= 2:
                        costs[f"(C library: {cfn})"] += int(parts[1])
                    cob = None
                elif len(parts) >= 2 and ob and ("/module" in ob or "libffi" in ob):
                    costs[fn if "/module" in ob else "(libffi: rc_games, inlined code)"] += int(parts[1])
    return costs


def measure(path: Path, games: int, tier: str, top: int) -> None:
    _native(path, tier)  # built and kept before the measured process loads it
    with tempfile.TemporaryDirectory(prefix="recycle-callgrind-") as tmp:
        base_out, _ = _run(path, 0, tier, tmp)
        out, check = _run(path, games, tier, tmp)
        costs = native_costs(out)
        costs.subtract(native_costs(base_out))
        total = sum(costs.values())
        print(f"{path.name:20} {tier}: {total / games:12,.0f} instructions per rollout ({games} rollouts; {check})")
        for name, n in costs.most_common(top):
            print(f"    {n / games:12,.0f}  {name}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("games_", nargs="*", metavar="GAME")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--tier", default="gcc-O2")
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    paths = [Path(p) for p in args.games_] or DEFAULT_GAMES
    if args.inner:
        inner(paths[0], args.games, args.tier)
        return
    if not shutil.which("valgrind"):
        raise SystemExit("valgrind is needed (apt-get install valgrind)")
    for p in paths:
        measure(p, args.games, args.tier, args.top)


if __name__ == "__main__":
    main()
