#!/usr/bin/env python3
"""Benchmarks of the engine (figures for the README; never timed assertions in tests).

    python tools/bench.py [rollouts] [--games 20000] [--repeat 5]   # Schwimmen vs the hand-written simulator
    python tools/bench.py lookahead [--budget 300]                  # ISMCTS iterations per second
    python tools/bench.py clone                                     # clone() early and late in a Hearts deal
    python tools/bench.py hearts [--games 2000]                     # Hearts against OpenSpiel's (needs open_spiel)
    python tools/bench.py corpus [--seconds 0.5]                    # every corpus game: rollouts per second
    python tools/bench.py load                                      # loading every game
    python tools/bench.py parts                                     # where a Schwimmen game's time goes
    python tools/bench.py native [--games 20000] [--repeat 5]       # machine code (recycle/native)
    python tools/bench.py all

Python is measured on the reference interpreter (the one Python engine since issue 41).

Every figure is the best of ``--repeat`` rounds, with its spread (the worst and the best
round), and the two sides of every comparison are measured in one run, alternating (one
round of each in turn, the order reversed every other round), so that a host whose speed
drifts slows both alike; a ratio is given with the range of the rounds' own ratios. The
command, the date and the load average (as ``uptime`` prints it) are printed first, the load
again at the end. Figures are current ones only when taken on a quiet machine: above a
1-minute load of 0.5 (``QUIET_LOAD``) the benchmark refuses to run (exit 2), unless ``--busy``
is given, and then says loudly, at the start and the end, that its figures are not current.

``rollouts``: random rollouts of Schwimmen by recycle and by ../shared/bench/schwimmen_native.py
in this one process, in alternating rounds, best of ``--repeat`` each, so that a machine whose
speed drifts slows both alike and the ratio is comparable across machines.
``lookahead``: one ISMCTS decision with ``--budget`` iterations at several decisions (those
with two or more options, counted from 1) of a corpus Hearts4 deal and of a Schwimmen game,
the playouts by the reference interpreter and by the native engine (recycle/native/playouts.py) in alternating
rounds (best of 3 each).
``clone``: the cost of ``State.clone()`` at the first and the 40th decision of a deal of
games/hearts.rcy (best of many).
``corpus``: random rollouts per second of every corpus game, best of ``--repeat`` rounds.
``load``: ``recycle.load`` of every corpus game and every game in games/, best of
``--repeat``: the median and the slowest games.
``parts``: the microseconds of one Schwimmen game, hand-written and by recycle, split into the
parts every game pays whatever its rules (seeding, a new state, the shuffle, scores and
statistics) and the play itself; then what the rollouts goal (a ratio of 0.5) leaves for the play.
``native``: the native engine (machine code built from C, recycle/native; not part of ``all``), best
of ``--repeat`` of ``--games`` rollouts each, the sides of each comparison in alternating rounds;
the first native call (a build, or a load from the cache) is made before and reported apart, and
the optimised library (gcc -O2, built in the background) is waited for (build times:
tools/native_build.py):
Schwimmen's random rollouts against ../shared/bench/schwimmen_native.py (as ``rollouts``);
corpus Hearts4 against OpenSpiel's hearts(pass_cards=false) played in C++
(../shared/bench/openspiel_hearts_cpp.py, 5000 games a round, in a child process: its own
games/s); Schwimmen with ``threads=2`` against 1 (and whether the statistics are identical).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from timing import (  # noqa: E402
    OWN_LOAD,
    QUIET_LOAD,
    Side,
    alternate,
    busy_banner,
    load_average,
    load_text,
    ratio_text,
    timed,
)

import recycle  # noqa: E402
from recycle.players.lookahead import ISMCTSPlayer  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "cardstock"


def load_native(path: Path):
    spec = importlib.util.spec_from_file_location("schwimmen_native", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def time_native(mod, games: int, seed: int) -> float:
    rng = random.Random(seed)
    play = mod.play_round
    t0 = time.perf_counter()
    for _ in range(games):
        play(rng)
    return time.perf_counter() - t0


def load_openspiel():
    """The OpenSpiel benchmark module of ../shared/bench, or None (no file or no pyspiel)."""
    path = ROOT.parent / "shared" / "bench" / "openspiel_hearts.py"
    try:
        return load_native(path) if path.exists() else None
    except ImportError:
        return None


def time_openspiel(mod, game, games: int, seed: int) -> float:
    rng = random.Random(seed)
    t0 = time.perf_counter()
    for _ in range(games):
        mod.play(game, rng)
    return time.perf_counter() - t0


def bench_hearts(args) -> None:
    """Hearts against OpenSpiel's hearts, alternating rounds in this process (best of each)."""
    mod = load_openspiel()
    if mod is None:
        print("hearts: OpenSpiel not available (pip install open_spiel; ../shared/bench/openspiel_hearts.py)")
        return
    cases = [
        ("corpus Hearts4.rcy", CORPUS / "Hearts4.rcy", "hearts(pass_cards=false)"),
        ("games/hearts.rcy", ROOT / "games" / "hearts.rcy", "hearts"),
    ]
    for name, path, spiel_name in cases:
        if not path.exists():
            print(f"{name}: not found")
            continue
        game = recycle.load(path)
        spiel = mod.pyspiel.load_game(spiel_name)
        recycle.simulate(game, 200, seed=args.seed + 99)
        n = max(1, args.games // 10)
        # games/hearts.rcy plays deals until someone has 100 points: compare deals
        deals = 1.0
        if "DEAL" in game.layout._bases["sto"]:
            deals = sum(game.random_rollout(i).sto("game", "DEAL") for i in range(n)) / n
        ours = Side(name, timed(n * deals, lambda game=game, n=n: time_recycle(game, n, args.seed)))
        theirs = Side(spiel_name, timed(n, lambda spiel=spiel, n=n: time_openspiel(mod, spiel, n, args.seed)))
        alternate([ours, theirs], args.repeat)
        what = "deals" if deals != 1.0 else "games"
        print(
            f"{name:20} {ours.best():8,.0f} {what}/s ({ours.spread()})   OpenSpiel {spiel_name}: "
            f"{theirs.best():8,.0f} deals/s ({theirs.spread()})   ratio {ratio_text(ours, theirs)}  "
            f"(reference, {n} games of {deals:.1f} deals, best of {args.repeat})"
        )


def bench_corpus(args) -> None:
    """Random rollouts per second of every corpus game on the reference interpreter."""
    import statistics

    def rollouts_for(game) -> Callable[[], float]:
        def run() -> float:  # rollouts a second for args.seconds
            n, seed, t0 = 0, 0, time.perf_counter()
            while time.perf_counter() - t0 < args.seconds:
                try:
                    game.random_rollout(seed, max_steps=20_000)
                except recycle.RecycleError:
                    pass
                n, seed = n + 1, seed + 1
            return n / (time.perf_counter() - t0)

        return run

    rows = []
    for path in sorted(CORPUS.glob("*.rcy")):
        try:
            game = recycle.load(path)
        except recycle.RecycleError:
            continue
        (side,) = alternate([Side("reference", rollouts_for(game))], args.repeat)
        rows.append((path.stem, side.best(), side))
    for name, rate, side in rows:
        print(f"{name:22} {rate:9,.0f} rollouts/s ({side.spread()})")
    rates = sorted(r[1] for r in rows)
    slowest = min(rows, key=lambda r: r[1])
    print(f"(each game: best of {args.repeat} rounds of {args.seconds} s)")
    print(
        f"median {statistics.median(rates):,.0f} rollouts/s over {len(rows)} games; slowest: {slowest[0]} "
        f"{slowest[1]:,.0f}/s"
    )


def time_recycle(game, games: int, seed: int) -> float:
    t0 = time.perf_counter()
    recycle.simulate(game, games, seed=seed, engine="reference")
    return time.perf_counter() - t0


def bench_rollouts(args) -> None:
    game = recycle.load(args.game)
    recycle.simulate(game, 500, seed=args.seed + 99, engine="reference")  # warm caches, as a long run would
    native_path = Path(args.native)
    mod = load_native(native_path) if native_path.exists() else None
    n = args.games
    ours = Side("recycle", timed(n, lambda: time_recycle(game, n, args.seed)))
    theirs = None if mod is None else Side("hand-written", timed(n, lambda: time_native(mod, n, args.seed)))
    alternate([ours] + ([theirs] if theirs else []), args.repeat)
    print(f"recycle : {ours.best():10,.0f} rollouts/s  ({n} games, best of {args.repeat}; rounds {ours.spread()})")
    if theirs is None:
        print(f"native  : {native_path} not found; no ratio")
        return
    print(f"native  : {theirs.best():10,.0f} rollouts/s  (rounds {theirs.spread()}; {native_path.name})")
    print(f"ratio   : {ratio_text(ours, theirs, '.3f', 10)}  (recycle / hand-written; goal >= 0.5)")


def simulate_native(game, games: int, seed: int, threads: int = 1, keep_records: bool = True):
    """``simulate`` on the native engine (recycle.study.stats: ``recycle.simulate`` takes no engine)."""
    from recycle.study.stats import simulate

    return simulate(game, games, seed, engine="native", threads=threads, keep_records=keep_records)


def time_simulate_native(game, games: int, seed: int, threads: int = 1, keep_records: bool = True) -> float:
    t0 = time.perf_counter()
    stats = simulate_native(game, games, seed, threads, keep_records)
    dt = time.perf_counter() - t0
    if stats.engine != "native":
        raise RuntimeError(f"{game.name} was played by {stats.engine}: {stats.engine_note}")
    return dt


def native_ready(name: str, path: Path, seed: int):
    """The game at ``path`` with its native module compiled (or loaded from the cache), or None
    after a line saying why not."""
    from recycle.native import native_source, why_not_native
    from recycle.native.engine import is_cached

    if not path.exists():
        print(f"{name}: {path} not found; skipped")
        return None
    game = recycle.load(path)
    why = why_not_native(game)
    if why is not None:
        print(f"{name}: not native ({why}); skipped")
        return None
    from recycle.native import native_game

    cached = is_cached(native_source(game))
    t0 = time.perf_counter()
    simulate_native(game, 200, seed + 99)  # the first call makes (or loads) the machine code
    first = time.perf_counter() - t0
    library = native_game(game).module.games
    library.ready.wait()  # the optimised library, built in the background, plays the figures
    print(
        f"{name}: first native call {first:.2f} s "
        f"({'library from the cache' if cached else 'built'}; not in the figures below); "
        f"playing with the {library.tier} library"
    )
    return game


def openspiel_cpp_rate(script: Path, spiel_name: str, games: int, seed: int) -> float:
    """Games per second of OpenSpiel's C++ game loop, as ``script`` reports it (a child process)."""
    import subprocess

    r = subprocess.run(
        [sys.executable, str(script), "--game", spiel_name, "--games", str(games), "--seed", str(seed)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    for line in r.stdout.splitlines():
        if line.startswith("games/second:"):
            return float(line.split(":", 1)[1])
    raise RuntimeError(f"{script.name} exited {r.returncode}: {(r.stderr.strip() or r.stdout.strip())[-300:]}")


def bench_native(args) -> None:
    """The native engine: Schwimmen against the hand-written simulator, corpus Hearts4 against
    OpenSpiel in C++, and two threads against one (alternating rounds, best of each)."""
    from recycle.native import available

    if not available():
        print("native: not available here (it needs NumPy and a C compiler); skipped")
        return
    n, rep = args.games, args.repeat
    schwimmen = native_ready("games/schwimmen.rcy", Path(args.game), args.seed)
    # (1) Schwimmen: native rollouts against the hand-written Python simulator
    native_path = Path(args.native)
    if schwimmen is None:
        pass
    elif not native_path.exists():
        print(f"schwimmen vs hand-written: {native_path} not found; skipped")
    else:
        mod = load_native(native_path)
        ours, theirs = alternate(
            [
                Side("native", timed(n, lambda: time_simulate_native(schwimmen, n, args.seed))),
                Side("hand-written", timed(n, lambda: time_native(mod, n, args.seed))),
            ],
            rep,
        )
        print(
            f"schwimmen native      : {ours.best():12,.0f} rollouts/s  ({n} games, best of {rep}; "
            f"rounds {ours.spread()})"
        )
        print(
            f"schwimmen hand-written: {theirs.best():12,.0f} rollouts/s  ({native_path.name}; rounds {theirs.spread()})"
        )
        print(f"ratio                 : {ratio_text(ours, theirs, '.2f', 12)}  (native / hand-written)")
    # (2) corpus Hearts4 against OpenSpiel's hearts played in C++
    script = ROOT.parent / "shared" / "bench" / "openspiel_hearts_cpp.py"
    spiel_name, spiel_games = "hearts(pass_cards=false)", 5000
    if not script.exists():
        print(f"hearts vs OpenSpiel C++: {script} not found; skipped")
    elif importlib.util.find_spec("pyspiel") is None:
        print("hearts vs OpenSpiel C++: pyspiel not importable (pip install open_spiel); skipped")
    else:
        hearts = native_ready("corpus Hearts4.rcy", CORPUS / "Hearts4.rcy", args.seed)
        if hearts is not None:
            ours, theirs = alternate(
                [
                    Side("native", timed(n, lambda: time_simulate_native(hearts, n, args.seed))),
                    Side("OpenSpiel C++", lambda: openspiel_cpp_rate(script, spiel_name, spiel_games, args.seed)),
                ],
                rep,
            )
            print(
                f"Hearts4 native        : {ours.best():12,.0f} games/s  ({n} games, best of {rep}; "
                f"rounds {ours.spread()})"
            )
            print(
                f"OpenSpiel C++         : {theirs.best():12,.0f} games/s  ({spiel_name}, {spiel_games} games, "
                f"pyspiel.evaluate_bots; rounds {theirs.spread()})"
            )
            print(f"ratio                 : {ratio_text(ours, theirs, '.2f', 12)}  (native / OpenSpiel C++)")
    # (3) Schwimmen on two threads against one: ten times the games, no records kept (as the
    # command line), so that the play, not the Python between chunks, is measured
    if schwimmen is not None:
        m = 10 * n

        def threaded(threads: int) -> Side:
            return Side(
                f"threads={threads}", timed(m, lambda: time_simulate_native(schwimmen, m, args.seed, threads, False))
            )

        single, double = alternate([threaded(1), threaded(2)], rep)
        keep = ("seconds", "rollouts_per_second", "threads")  # (how it was played, not what)
        one, two = (
            {k: v for k, v in simulate_native(schwimmen, m, args.seed, t, False).to_dict().items() if k not in keep}
            for t in (1, 2)
        )
        print(
            f"schwimmen threads=1   : {single.best():12,.0f} rollouts/s  ({m} games, no records; "
            f"rounds {single.spread()})"
        )
        print(
            f"schwimmen threads=2   : {double.best():12,.0f} rollouts/s  (rounds {double.spread()})  "
            f"x{ratio_text(double, single)}, statistics {'identical' if one == two else 'DIFFERENT'} "
            f"({os.cpu_count()} cores here; two threads add about 1 to the load)"
        )


def state_at(game, seed: int, decision: int):
    """A state of ``game`` (random players, seed ``seed``) waiting at its ``decision``-th
    real decision (1-based, counting decisions with two or more options), or None if the
    game ends before."""
    s = game.new_state(seed=seed)
    draw = random.Random(seed).random
    seen = 0
    while not s.is_terminal():
        n = s.num_options()
        if n > 1:
            seen += 1
            if seen == decision:
                return s
        s.apply(int(draw() * n) if n > 1 else 0)
    return None


def bench_lookahead(args) -> None:
    """ISMCTS iterations per second, the playouts played by the reference interpreter and natively (alternating,
    best of 3 each; the native machine code is made or loaded before)."""
    from recycle.native import available
    from recycle.streams import Stream

    cases = [
        ("Hearts4 (corpus)", CORPUS / "Hearts4.rcy", (1, 20, 30, 40)),
        ("schwimmen.rcy", ROOT / "games" / "schwimmen.rcy", (1, 5, 10)),
    ]
    engines = ["reference"] + (["native"] if available() else [])
    for name, path, decisions in cases:
        if not path.exists():
            print(f"{name}: {path} not found")
            continue
        game = recycle.load(path)
        for d in decisions:
            s = state_at(game, 3, d)
            if s is None:
                continue
            obs, options = s.observation(s.current_player()), s.legal_options()
            if "native" in engines:
                ISMCTSPlayer(2, playouts="native").choose(obs, options, Stream(1))  # compile or load

            def search(playouts: str, obs=obs, options=options) -> Callable[[], float]:
                def run() -> float:
                    player = ISMCTSPlayer(args.budget, playouts=playouts)
                    t0 = time.perf_counter()
                    player.choose(obs, options, Stream(1))
                    return args.budget / (time.perf_counter() - t0)

                return run

            sides = alternate([Side(playouts, search(playouts)) for playouts in engines], args.repeat)
            for side in sides:
                ratio = f"  x{ratio_text(side, sides[0])}" if side is not sides[0] else ""
                print(
                    f"ismcts {name:17} decision {d:3} {side.name:9}: {side.best():8,.0f} iterations/s "
                    f"({1000 / side.best():.3f} ms each; rounds {side.spread()}, best of {args.repeat}){ratio}"
                )


def bench_clone(args) -> None:
    game = recycle.load(ROOT / "games" / "hearts.rcy")
    n = 2000

    def clones(s) -> Callable[[], float]:
        def run() -> float:
            t0 = time.perf_counter()
            for _ in range(n):
                s.clone()
            return n / (time.perf_counter() - t0)

        return run

    # the two decisions alternate, as the sides of a comparison do
    sides = alternate([Side(str(d), clones(state_at(game, 5, d))) for d in (1, 40)], args.repeat)
    for side in sides:
        print(
            f"clone hearts.rcy decision {side.name:>3}: {1e6 / side.best():7.1f} µs  "
            f"(rounds {side.spread_of_time(1e6)} µs, best of {args.repeat})"
        )


def bench_load(args) -> None:
    """Seconds to load (parse and compile to closures) each game."""
    import statistics

    paths = sorted(CORPUS.glob("*.rcy")) + sorted((ROOT / "games").glob("*.rcy"))

    def loading(path) -> Callable[[], float]:
        def run() -> float:  # loads a second
            t0 = time.perf_counter()
            recycle.load(path)
            return 1 / (time.perf_counter() - t0)

        return run

    rows = []
    for path in paths:
        (side,) = alternate([Side("load", loading(path))], args.repeat)
        rows.append((1 / side.best(), path.name, side))
    rows.sort(reverse=True)
    print(f"(each game: best of {args.repeat} loads)")
    for seconds, name, side in rows[:5]:
        print(f"load {name:28} {seconds * 1000:6.1f} ms ({side.spread_of_time(1000)})")
    print(f"load median over {len(rows)} games: {statistics.median(r[0] for r in rows) * 1000:.1f} ms")


def per_game(fn, games: int) -> float:
    """Microseconds of ``fn(i)``, called for i in range(games)."""
    t0 = time.perf_counter()
    for i in range(games):
        fn(i)
    return (time.perf_counter() - t0) / games * 1e6


def bench_parts(args) -> None:
    """Where one Schwimmen game's time goes, and what a ratio of 0.5 leaves for the play itself."""
    from recycle.engine.state import State
    from recycle.lang.forms.items import shuffle
    from recycle.streams import CHANCE, PLAYERS, Stream
    from recycle.study.stats import _Aggregate

    mod = load_native(Path(args.native)) if Path(args.native).exists() else None
    if mod is None:
        print(f"parts: {args.native} not found")
        return
    game = recycle.load(args.game)
    recycle.simulate(game, 500, seed=args.seed + 99)
    n, rep = args.games, args.repeat
    rng = random.Random(args.seed)
    deck = list(range(32))
    nslots = len(game.new_state(seed=0).env)

    def new_state(i):  # as a rollout makes it, its generator aside
        State(game, rng, False, 100_000, game.max_work).env = [None] * nslots

    final = game.random_rollout(1)
    agg = _Aggregate(game, True)
    record = (final.scores, final.decisions, final.options_total)
    parts = {
        "native": lambda i: mod.play_round(rng),
        "native shuffle": lambda i: rng.shuffle(deck),
        "seeding": lambda i: (Stream.for_game(i, CHANCE), Stream.for_game(i, PLAYERS)),
        "state": new_state,
        "shuffle": lambda i: shuffle(deck, rng.random),
        "scoring": lambda i: (game.final_scores(final, final.env), agg.add(record)),
    }
    # rounds in turn, so that a drifting host slows every part alike (rates: games a second)
    sides = [Side("ours", timed(n, lambda: time_recycle(game, n, args.seed)))]
    sides += [Side(name, lambda fn=fn: 1e6 / per_game(fn, n)) for name, fn in parts.items()]
    alternate(sides, rep)
    best = {side.name: 1e6 / side.best() for side in sides}  # microseconds a game
    spread = {side.name: side.spread_of_time(1e6) for side in sides}
    native, native_shuffle, ours = best["native"], best["native shuffle"], best["ours"]
    seeding, state, our_shuffle, scoring = best["seeding"], best["state"], best["shuffle"], best["scoring"]
    fixed = seeding + state + our_shuffle + scoring
    budget = native / 0.5
    print(f"Schwimmen, microseconds per game (best of {rep}, {n} games)")
    print(
        f"  hand-written simulator      {native:6.1f}   "
        f"its shuffle {native_shuffle:.1f}, its play {native - native_shuffle:.1f}   (rounds {spread['native']})"
    )
    print(f"  {'recycle (reference)':27} {ours:6.1f}   ratio {native / ours:.3f}   (rounds {spread['ours']})")
    print(f"    seeding its two generators {seeding:5.1f}   (the chance and the players' streams of this rollout)")
    print(f"    a new state                {state:5.1f}")
    print(f"    the shuffle                {our_shuffle:5.1f}")
    print(f"    scores and statistics      {scoring:5.1f}")
    print(f"    the play                   {ours - fixed:5.1f}   (the rest: setup, deal, turns, scoring stage)")
    print(
        f"  a ratio of 0.5 is a game in {budget:.1f}: after the parts above ({fixed:.1f}), "
        f"{budget - fixed:.1f} for the play, against the hand-written play's {native - native_shuffle:.1f}"
    )


def bench_limits(args) -> None:
    """``recycle check`` of the largest files allowed in their costliest shapes
    (``recycle/study/largest.py``), each in a fresh process without the bytecode cache: the
    wall time, best of ``--repeat``, and the peak memory (issue 25: under 2 s and 500 MB)."""
    import os
    import resource
    import subprocess
    import tempfile

    from recycle.lang.syntax.reader import MAX_SOURCE_BYTES
    from recycle.study.largest import largest_files

    env = dict(os.environ, RECYCLE_NO_CACHE="1")
    print(f"recycle check of files of {MAX_SOURCE_BYTES:,} bytes (the limit), best of {args.repeat}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in largest_files().items():
            path = Path(tmp) / "largest.rcy"
            path.write_text(text)
            walls, cpus = [], []
            for _ in range(args.repeat):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                r = subprocess.run(
                    [sys.executable, "-m", "recycle", "check", str(path)], env=env, capture_output=True, text=True
                )
                dt = time.perf_counter() - t
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                # CPU time too: on a busy machine the wall time also counts the others' work
                cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                walls.append(dt)
                cpus.append(cpu)
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
            status = "ok" if r.returncode == 0 else f"exit {r.returncode}: {r.stderr.strip()[:80]}"
            print(
                f"  {name:28} {min(walls):5.2f} s wall ({min(walls):.2f}–{max(walls):.2f}), {min(cpus):5.2f} s CPU "
                f"({min(cpus):.2f}–{max(cpus):.2f})   (peak of any check so far {peak} MB)  {status}"
            )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "what",
        nargs="?",
        default="rollouts",
        choices=["rollouts", "lookahead", "clone", "hearts", "corpus", "load", "parts", "limits", "native", "all"],
    )
    ap.add_argument("--seconds", type=float, default=0.5, help="corpus: seconds of rollouts per game and round")
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=int, default=300)
    ap.add_argument("--game", default=str(ROOT / "games" / "schwimmen.rcy"))
    ap.add_argument("--native", default=str(ROOT.parent / "shared" / "bench" / "schwimmen_native.py"))
    ap.add_argument(
        "--busy",
        action="store_true",
        help=f"run even when the 1-minute load is above {QUIET_LOAD} (the figures are then not current "
        "ones, and the output says so)",
    )
    args = ap.parse_args(argv)
    command = "python tools/bench.py " + " ".join(sys.argv[1:] if argv is None else argv)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"$ {command.strip()}")
    print(f"{now}, {os.cpu_count()} cores, Python {sys.version.split()[0]}; at the start: {load_text()}")
    start = load_average()[0]
    if start > QUIET_LOAD:
        if not args.busy:
            print(
                f"refused: the 1-minute load is {start:.2f}, above {QUIET_LOAD}: figures taken now would not be "
                "current ones. Wait for a quiet machine, or give --busy to measure anyway (not for the docs)."
            )
            return 2
        print(busy_banner(start, "at the start"))
    code = run_benchmarks(args)
    end = load_average()[0]
    print(f"at the end: {load_text()} (this benchmark itself adds about {OWN_LOAD:.0f} while it runs)")
    if start > QUIET_LOAD:
        print(busy_banner(start, "at the start"))
    elif end > QUIET_LOAD + OWN_LOAD + (1 if args.what == "native" else 0):  # native: two threads at the end
        print(busy_banner(end, "at the end"))
    return code


def run_benchmarks(args) -> int:
    """The benchmarks ``args.what`` names."""
    if args.what in ("rollouts", "all"):
        bench_rollouts(args)
    if args.what in ("lookahead", "all"):
        bench_lookahead(args)
    if args.what in ("clone", "all"):
        bench_clone(args)
    if args.what in ("hearts", "all"):
        bench_hearts(args)
    if args.what in ("corpus", "all"):
        bench_corpus(args)
    if args.what in ("load", "all"):
        bench_load(args)
    if args.what in ("parts", "all"):
        bench_parts(args)
    if args.what in ("limits", "all"):
        bench_limits(args)
    if args.what == "native":
        bench_native(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
