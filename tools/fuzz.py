#!/usr/bin/env python3
"""Long fuzzing runs: hostile game files, game records and state-machine games.

    python tools/fuzz.py [-n 10000] [--kind mixed|mutate|shapes|records|state] [--workers 2]
                         [--seed 0] [--timeout 20] [--time-bound 5] [--max-steps 2000]
                         [--mem-limit 2048] [--out fuzz-crashes]
    python tools/fuzz.py --state -n 20000 --workers 2        # the state-machine fuzzer
    python tools/fuzz.py --kind names -n 2000                # hostile file names
    python tools/fuzz.py --record-files -n 300 --timeout 60  # record files through `recycle replay`
    python tools/fuzz.py --studio-requests -n 2000 [--seed 0]  # hostile requests to the studio
    python tools/fuzz.py --campaign-plans -n 500             # hostile campaign plans
    python tools/fuzz.py --campaign-databases -n 500         # crafted campaign databases for `recycle report`

Kinds of input (``recycle/study/fuzzing.py`` and ``statefuzz.py``):

* ``mutate`` — mutated corpus games and ``games/*.rcy`` (Hypothesis: token/parenthesis
  deletion, duplication and swaps, random bytes and text, deep nesting, huge integers,
  truncation, empty files, non-UTF-8 bytes); each is loaded and one random game played.
* ``shapes`` — games whose work multiplies: nested repeat/all/any/filter, ``(range
  1..200000)`` inside any/all/filter/sum/size in an end condition, a conditional, a ``set``
  value, scoring or a choice, and choices of 50,000 options.
* ``records`` — hand-edited game records (JSON) of a Schwimmen game, read with
  ``read_record`` and replayed (``replay``, scripted and with the players run again): missing
  or mistyped fields, tampered seeds, players, hashes and decisions, deep nesting, junk bytes,
  paths to devices. A record must be refused (``ValueError``), stop on a ``RecycleError``,
  replay as different or replay as identical — never crash, and never replay as identical
  when it changed what determines the game.
* ``state`` — small random games that move, swap, remember, forget and shuffle cards in every
  way (views, mem locations, ``repeat``, choices; ``statefuzz.random_game``), played on the fast
  and the plain compilation and as an inline rollout: card conservation after every card
  event, every player's view at every decision, and the three plays must agree
  (``statefuzz.exercise_state``). Game ``i`` is ``random_game(seed * 2**32 + i)`` played with
  that seed, so any failure is reproduced from its number.
* ``names`` — hostile names of game files (``recycle/study/namefuzz.py``): quotes, backslashes,
  every kind of line break, NUL, bytes that are not UTF-8, terminal escapes, code, option-like
  and over-long names. Each names a small game, in memory and (where a file can have the name)
  on disk with a record beside it, and ``recycle check`` of a broken game by that name: the
  generated module is the plain-named one but for its docstring, the game plays the same, the
  record replays, messages are positioned and print no control character, and nothing is left
  in the folder (a name that ran code would leave a file).
* ``mixed`` (the default) — mutate, shapes and records, 7:2:1.
(``--cache-entries``, which damaged entries of the generated-Python engine's bytecode cache, went
with that engine in issue 41: the cache left is the native engine's, whose damaged, planted and
foreign entries its own tests exercise.)

``--record-files`` (a mode of its own: ``fuzz_record_files``, the edits and checks in
``tools/fuzz_records.py``) fuzzes record files through the command line, ``recycle replay``
with and without ``--text``, as a person would run it on a record from someone else: game
paths out of the folder (absolute, ``..``, symbolic links,
NUL, drives, backslashes), hashes (wrong, malformed, and the hash of the file outside the
folder), control characters in every string, huge and odd numbers, wrong types. Each input
runs in a process of its own, killed after ``--timeout`` seconds (a hang); it fails if the
command ends in a traceback, if an ``open`` of a file outside the record's folder is seen
(an audit hook), if a line of that file shows in the output, or if a control character
reaches standard output or standard error.

``--studio-requests`` (a mode of its own: ``fuzz_studio_requests``, the requests and checks in
``tools/fuzz_studio.py``) sends hostile requests to every endpoint of the studio through
Starlette's TestClient, in a served folder laid with traps (links out of it and inside it, a
``records`` folder that is a link out, a named pipe): hostile paths, names, bodies and query
strings. It fails on any 5xx or an answer that is not JSON, on any file outside the folder
made, changed or removed, on a write through an in-folder link, on a name outside the
studio's safe alphabet, and on a run that ended in an internal error.
``--campaign-plans`` and ``--campaign-databases`` (modes of their own: ``fuzz_campaign``, the
inputs and checks in ``recycle/study/campaign/hostile.py``) fuzz campaigns: plans with hostile
keys, values, names (``$`` markup, control characters, paths out of the folder, a link out),
numbers past every bound and broken TOML, read, planned and (when small) run and reported; and
valid campaign databases changed by SQL (views and macros reading a canary file with
``read_text``, ``glob``, ``read_csv``, a billion-row ``range``; rows with hostile values; tables
dropped, added or altered) or by damaged bytes, then reported as ``recycle report`` does. Each
input runs in a process of its own killed after ``--timeout`` seconds; it fails if it ends in an
exception other than the refusal (PlanError, StoreError), if the canary's text reaches a report
or a message, if the process dies, or if it hangs.

Inputs are made as the workers ask for them, never all up front: the Hypothesis kinds are
drawn ``--batch`` (200) at a time, batch ``b`` by one Hypothesis run seeded with ``(seed <<
32) + b``, so input ``i`` is example ``i % batch`` of batch ``i // batch``
(``input_number(i, seed, kind, batch)`` draws it again) and this process holds one batch at
most, whatever ``-n``. (One Hypothesis run of 20,000 examples grew past 20 GB.)

Every input runs in a worker process killed after ``--timeout`` seconds (a hang) and limited
to ``--mem-limit`` MB of address space (past it, Python's MemoryError is a crash); an input
that ends but takes over ``--time-bound`` seconds is "slow", one after which the worker's peak
resident memory is over ``--mem-limit`` MB (2048 when 0) is "memory" (the worker is then
started again). Prints the count of each outcome, the peak memory of any worker and of this
process, and each failure — crashes (a Python exception that is not a RecycleError), bad
messages (no ``file:line:column:``), invariant breaks, divergences, accepted tampering,
memory, slow inputs and hangs. Each distinct failure is saved in ``--out`` as ``NNN.rcy`` or
``NNN.json`` (the exact input) and ``NNN.txt`` (what happened, how to run it again, the
traceback).

Exit status 0 if no input failed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import collections
import gc
import itertools
import multiprocessing as mp
import re
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from recycle.study import fuzzing, namefuzz, recordfuzz, statefuzz  # noqa: E402

KINDS = ("mixed", "mutate", "shapes", "records", "names", "state")
FAILURES = ("crash", "bad message", "invariant", "divergence", "tampering", "memory", "slow", "hang")


BATCH = 200  # inputs drawn by one Hypothesis run: the most the parent holds at once


def generate_batch(batch: int, seed: int, kind: str = "mutate", size: int = BATCH) -> list[tuple]:
    """Batch number ``batch`` of inputs ``(description, input kind, data, extra)``: one Hypothesis
    run of ``size`` examples of the strategies of ``fuzzing``, seeded with ``(seed << 32) +
    batch`` (so any batch is drawn again alone). Input ``i`` of a run is example ``i % size``
    of batch ``i // size`` (Hypothesis may skip a duplicate, leaving a batch short)."""
    from hypothesis import HealthCheck, Phase, given, seed as hseed, settings
    from hypothesis import strategies as st

    mutate = st.builds(lambda c: (c[0], "rcy", c[1], None), fuzzing.mutated_inputs())
    shapes = st.builds(lambda c: (c[0], "rcy", c[1], None), fuzzing.shaped_inputs(big=True))
    records = st.builds(lambda c: (c[0], "record", c[1], c[2]), recordfuzz.record_inputs())
    names = st.builds(lambda c: (c[0], "name", c[1], None), namefuzz.name_inputs())
    strategy = {
        "mutate": mutate,
        "shapes": shapes,
        "records": records,
        "names": names,
        "mixed": st.one_of(*([mutate] * 7 + [shapes] * 2 + [records])),
    }[kind]
    inputs: list = []

    @hseed((seed << 32) + batch)
    @settings(
        max_examples=size,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(example):
        inputs.append(example)

    collect()
    return inputs[:size]


def generate_inputs(n: int, seed: int, kind: str = "mutate", size: int = BATCH):
    """Yields ``(number, input)`` for ``n`` inputs, drawing a batch of ``size`` only when the
    previous one is used up: the caller's memory stays that of one batch whatever ``n`` (one
    Hypothesis run of 20,000 examples grew past 20 GB). ``input_number`` draws one again."""
    made = 0
    for b in itertools.count():
        if made >= n:
            return
        batch = collections.deque(generate_batch(b, seed, kind, size))
        if not batch:  # nothing more to draw (never seen with these strategies)
            return
        k = 0
        while batch and made < n:
            yield b * size + k, batch.popleft()  # handed out, no longer held here
            k += 1
            made += 1


def input_number(i: int, seed: int, kind: str = "mutate", size: int = BATCH) -> tuple:
    """Input ``i`` of a run with this seed, kind and batch size, drawn again."""
    return generate_batch(i // size, seed, kind, size)[i % size]


def generate(n: int, seed: int, kind: str = "mutate", size: int = BATCH) -> list[tuple]:
    """The first ``n`` inputs as a list (small ``n`` only: ``main`` streams them)."""
    return [inp for _, inp in generate_inputs(n, seed, kind, size)]


def state_inputs(n: int, seed: int):
    """The state-machine games, made as they are handed out (any ``n``, little memory)."""
    for i in range(n):
        game_seed = (seed << 32) + i
        yield (
            f"state game {i} (random_game({game_seed}), played with seed {game_seed})",
            "state",
            statefuzz.random_game(game_seed),
            game_seed,
        )


def run_one(kind: str, data, extra, max_steps: int) -> str:
    """One input, without a time bound (the caller times it); returns its outcome."""
    if kind == "rcy":
        return fuzzing.exercise(data, max_steps=max_steps, time_bound=None)
    if kind == "record":
        return recordfuzz.exercise_record(data, extra or "", time_bound=None)
    if kind == "name":
        return namefuzz.exercise_name(data)
    return statefuzz.exercise_state(data, seed=extra, max_steps=max_steps, time_bound=None)


def peak_mb() -> int:
    """This process's peak resident memory so far, MB (Linux reports KB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def _timed_source(source, spent: list):
    """``source``, adding the time each item took to make to ``spent[0]``."""
    it = iter(source)
    while True:
        t = time.perf_counter()
        try:
            item = next(it)
        except StopIteration:
            return
        finally:
            spent[0] += time.perf_counter() - t
        yield item


def _address_space() -> int:
    """This process's virtual size in bytes (0 where /proc does not say)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _worker(conn, max_steps: int, mem_limit: int, slow: float) -> None:
    if mem_limit:
        import resource

        # the bound is on what the inputs add: a forked worker starts with its parent's address
        # space (a test process's may hold gigabytes of mappings: libraries, thread stacks)
        limit = _address_space() + mem_limit
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    while True:
        job = conn.recv()
        if job is None:
            return
        idx, kind, data, extra = job
        t0 = time.perf_counter()
        try:
            outcome, detail = run_one(kind, data, extra, max_steps), ""
            if time.perf_counter() - t0 > slow:
                # again, after freeing what earlier inputs left behind, to time this input alone
                gc.collect()
                t0 = time.perf_counter()
                run_one(kind, data, extra, max_steps)
        except (statefuzz.StateFailure, namefuzz.NameFailure) as exc:
            outcome = exc.kind
            detail = str(exc)
            if exc.__cause__ is not None:
                detail += "\n\n" + "".join(traceback.format_exception(exc.__cause__))
        except fuzzing.FuzzFailure as exc:
            cause = exc.__cause__
            if cause is not None:
                outcome = "crash"
                detail = "".join(traceback.format_exception(cause))
            elif str(exc).startswith("tampering"):
                outcome, detail = "tampering", str(exc)
            else:
                outcome = "bad message"
                detail = str(exc)
        except BaseException as exc:  # noqa: BLE001 - e.g. MemoryError escaping somewhere odd
            outcome = "crash"
            detail = "".join(traceback.format_exception(exc))
        conn.send((idx, outcome, detail, time.perf_counter() - t0, peak_mb()))


class Worker:
    def __init__(self, ctx, max_steps: int, mem_limit: int, slow: float):
        self.args = (ctx, max_steps, mem_limit, slow)
        self.start()

    def start(self):
        ctx, *args = self.args
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, *args), daemon=True)
        self.proc.start()
        self.job = None
        self.since = 0.0

    def submit(self, idx, kind, data, extra):
        self.job = (idx, kind, data, extra)
        self.since = time.perf_counter()
        self.conn.send(self.job)

    def restart(self):
        self.proc.kill()
        self.proc.join()
        self.start()


def signature(outcome: str, detail: str, idx: int) -> str:
    """Failures with the same signature are the same bug (saved once); every hang, slow and
    memory input is saved (up to ``MAX_SAVED`` of each), as nothing tells them apart."""
    if outcome == "crash":
        lines = [ln for ln in detail.strip().splitlines() if ln.strip()]
        where = [ln.strip() for ln in lines if ln.strip().startswith("File ")]
        return f"crash|{lines[-1].split(':')[0] if lines else ''}|{where[-1] if where else ''}"
    if outcome == "bad message":
        return "bad message|" + detail.split(":", maxsplit=1)[0]
    if outcome in ("invariant", "divergence", "tampering"):
        first = detail.splitlines()[0] if detail else ""
        first = re.sub(r"\(seed \d+, step \d+\)", "", first)
        return f"{outcome}|" + re.sub(r"\d+", "N", first)[:90]
    return f"{outcome} #{idx}"


MAX_SAVED = 25


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", "-n", type=int, default=10_000, help="number of inputs (default 10000)")
    ap.add_argument("--kind", choices=KINDS, default="mixed", help="what to generate (default mixed)")
    ap.add_argument("--state", action="store_true", help="the state-machine fuzzer (the same as --kind state)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the inputs (Hypothesis seed, or of the state games)")
    ap.add_argument("--jobs", "--workers", "-j", type=int, default=2, dest="jobs", help="worker processes (default 2)")
    ap.add_argument("--timeout", type=float, default=20.0, help="kill an input after this many seconds (a hang)")
    ap.add_argument(
        "--time-bound",
        type=float,
        default=None,
        help=f"an input slower than this is reported as slow (default {fuzzing.TIME_BOUND} s; "
        f"{statefuzz.STATE_TIME_BOUND} s for state games)",
    )
    ap.add_argument(
        "--max-steps",
        type=int,
        default=None,
        help=f"step limit of the games played (default {fuzzing.MAX_STEPS}; "
        f"{statefuzz.STATE_MAX_STEPS} for state games)",
    )
    ap.add_argument("--mem-limit", type=int, default=2048, help="address-space limit per worker, MB (0: none)")
    ap.add_argument(
        "--batch",
        type=int,
        default=BATCH,
        help="inputs drawn per Hypothesis run (default %(default)s; input i is example i %% batch of batch i // batch)",
    )
    ap.add_argument("--out", default="fuzz-crashes", help="folder for failing inputs (default %(default)s)")
    ap.add_argument(
        "--record-files", action="store_true", help="fuzz record files through `recycle replay` (see fuzz_record_files)"
    )
    ap.add_argument(
        "--studio-requests", action="store_true", help="send hostile requests to the studio (see fuzz_studio_requests)"
    )
    ap.add_argument("--campaign-plans", action="store_true", help="fuzz campaign plans (see fuzz_campaign)")
    ap.add_argument(
        "--campaign-databases",
        action="store_true",
        help="fuzz campaign databases through `recycle report` (see fuzz_campaign)",
    )
    args = ap.parse_args(argv)
    if args.studio_requests:
        return fuzz_studio_requests(args.examples, args.seed, Path(args.out))
    if args.record_files:
        return fuzz_record_files(args.examples, args.seed, args.timeout, Path(args.out))
    if args.campaign_plans or args.campaign_databases:
        return fuzz_campaign(
            "plans" if args.campaign_plans else "databases", args.examples, args.seed, args.timeout, Path(args.out)
        )
    kind = "state" if args.state else args.kind
    if args.examples < 0 or args.jobs < 1 or args.jobs > 64 or args.timeout <= 0 or args.batch < 1:
        ap.error("-n must be >= 0, --workers 1..64, --timeout > 0 and --batch >= 1")
    state = kind == "state"
    time_bound = (
        args.time_bound
        if args.time_bound is not None
        else (statefuzz.STATE_TIME_BOUND if state else fuzzing.TIME_BOUND)
    )
    max_steps = (
        args.max_steps if args.max_steps is not None else (statefuzz.STATE_MAX_STEPS if state else fuzzing.MAX_STEPS)
    )

    t0 = time.perf_counter()
    gen_time = [0.0]  # seconds spent drawing inputs (in this process, as the workers ask)
    if state:
        print(
            f"{args.examples} state-machine games (seed {args.seed}), {args.jobs} workers ...",
            file=sys.stderr,
            flush=True,
        )
        source = _timed_source(enumerate(state_inputs(args.examples, args.seed)), gen_time)
        total = args.examples
    else:
        print(
            f"{args.examples} {kind} inputs (seed {args.seed}, drawn {args.batch} at a time), {args.jobs} workers ...",
            file=sys.stderr,
            flush=True,
        )
        source = _timed_source(generate_inputs(args.examples, args.seed, kind, args.batch), gen_time)
        total = args.examples

    ctx = mp.get_context("fork")
    workers = [Worker(ctx, max_steps, args.mem_limit << 20, time_bound) for _ in range(args.jobs)]
    counts: collections.Counter = collections.Counter()
    failures: dict[str, list] = {}
    times: list[float] = []
    out = Path(args.out)
    running: dict[int, tuple] = {}  # the inputs being run (state games are not kept otherwise)
    mem_bound = args.mem_limit or 2048  # MB of peak resident memory a worker may reach
    peak = 0  # the largest peak of any worker, MB
    done = 0
    t1 = time.perf_counter()

    def record(idx, outcome, detail, dt):
        nonlocal done
        done += 1
        desc, ikind, data, extra = running.pop(idx)
        if outcome != "hang":
            times.append(dt)
        if outcome not in FAILURES and dt > time_bound:
            detail = f"took {dt:.1f} s (bound {time_bound} s); outcome {outcome}"
            outcome = "slow"
        counts[outcome] += 1
        if outcome in FAILURES:
            sig = signature(outcome, detail, idx)
            first = sig not in failures
            if outcome in ("hang", "slow", "memory") and sum(k.startswith(outcome) for k in failures) >= MAX_SAVED:
                first = False
            failures.setdefault(sig, []).append(idx)
            if first:
                out.mkdir(parents=True, exist_ok=True)
                k = len(failures)
                raw = data if isinstance(data, bytes) else data.encode("utf-8")
                suffix = {"record": "json", "name": "name"}.get(ikind, "rcy")
                (out / f"{k:03d}.{suffix}").write_bytes(raw)
                again = {
                    "rcy": f"fuzzing.exercise(open('{k:03d}.rcy', 'rb').read())",
                    "record": f"recordfuzz.exercise_record(open('{k:03d}.json', 'rb').read(), {extra!r})",
                    "state": f"statefuzz.exercise_state(open('{k:03d}.rcy').read(), seed={extra})",
                    "name": f"namefuzz.exercise_name(open('{k:03d}.name', 'rb').read())",
                }[ikind]
                drawn = (
                    ""
                    if state
                    else (f"drawn again: tools/fuzz.py input_number({idx}, {args.seed}, {kind!r}, {args.batch})\n")
                )
                (out / f"{k:03d}.txt").write_text(
                    f"input #{idx}: {desc}\noutcome: {outcome} ({dt:.2f} s)\nagain: {again}\n{drawn}\n{detail}\n",
                    encoding="utf-8",
                )
        if done % 1000 == 0:
            el = time.perf_counter() - t1
            print(
                f"  {done}/{total} in {el:.0f} s (peak memory: parent {peak_mb()} MB, workers {peak} MB): "
                + ", ".join(f"{k} {v}" for k, v in counts.most_common()),
                file=sys.stderr,
                flush=True,
            )

    pending = iter(source)
    exhausted = False
    while not exhausted or any(w.job for w in workers):
        for w in workers:
            if w.job is None and not exhausted:
                nxt = next(pending, None)
                if nxt is None:
                    exhausted = True
                    break
                idx, job = nxt
                running[idx] = job
                w.submit(idx, *job[1:])
        conns = [w.conn for w in workers if w.job is not None]
        if not conns:
            continue
        ready = mp.connection.wait(conns, timeout=0.5)
        now = time.perf_counter()
        for w in workers:
            if w.job is None:
                continue
            if w.conn in ready:
                try:
                    idx, outcome, detail, dt, mb = w.conn.recv()
                    peak = max(peak, mb)
                    if mb > mem_bound and outcome not in FAILURES:
                        outcome, detail = "memory", f"the worker's peak memory reached {mb} MB (bound {mem_bound} MB)"
                        w.restart()
                except EOFError:  # the worker died (e.g. killed by the OS or out of memory)
                    code = w.proc.exitcode
                    idx, outcome, detail, dt = w.job[0], "crash", f"worker process died (exit {code})", now - w.since
                    w.restart()
                w.job = None
                record(idx, outcome, detail, dt)
            elif now - w.since > args.timeout:
                idx, dt = w.job[0], now - w.since
                w.restart()
                record(idx, "hang", f"killed after {args.timeout} s", dt)
    for w in workers:
        try:
            w.conn.send(None)
        except OSError:
            pass
        w.proc.join(timeout=5)

    elapsed = time.perf_counter() - t0
    t_gen = gen_time[0]
    print(
        f"{done} {kind} inputs, {elapsed:.0f} s in all ({t_gen:.0f} s of it generating, as the workers "
        f"asked, {len(workers)} workers); slowest input that ended {max(times, default=0):.2f} s; "
        f"peak memory of a worker {peak} MB (bound {mem_bound} MB), of the parent {peak_mb()} MB"
    )
    names = (
        statefuzz.STATE_OUTCOMES
        if state
        else (
            "ok",
            "syntax error",
            "compile error",
            "runtime error",
            "step limit",
            "other RecycleError",
            "refused",
            "error",
            "differs",
            "identical",
        )
    )
    for name in itertools.chain(names, [k for k in counts if k not in names and k not in FAILURES], FAILURES):
        print(f"  {name:20} {counts.get(name, 0):7d}")
    if failures:
        print(f"{len(failures)} distinct failure(s), inputs saved in {out}/:")
        for k, (sig, idxs) in enumerate(failures.items(), 1):
            print(f"  {k:03d}: {sig}  ({len(idxs)} inputs)")
        return 1
    print("no failures")
    return 0


# -- record files through `recycle replay` (--record-files) --------------------------------------


def fuzz_record_files(n: int, seed: int, timeout: float, out: Path) -> int:
    """``--record-files``: ``n`` edited record files replayed through the command line, each in
    a process of its own (``tools/fuzz_records.py``, where the edits and checks are); exit
    status 0 if none failed."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("fuzz_records", Path(__file__).resolve().parent / "fuzz_records.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.run(n, seed, timeout, out)


# -- hostile requests to the studio (--studio-requests) -------------------------------------------


def fuzz_studio_requests(n: int, seed: int, out: Path) -> int:
    """``--studio-requests``: ``n`` hostile requests to the studio's endpoints
    (``tools/fuzz_studio.py``, where the requests and checks are); exit status 0 if none failed."""
    import importlib.util

    try:
        import starlette  # noqa: F401
    except ImportError:
        print("fuzz.py: --studio-requests needs the studio extra: pip install 'recycle[studio]'", file=sys.stderr)
        return 2
    spec = importlib.util.spec_from_file_location("fuzz_studio", Path(__file__).resolve().parent / "fuzz_studio.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.run(n, seed, out)


# -- campaign plans and databases (--campaign-plans, --campaign-databases) ---------------------------


def _campaign_trial(conn, surface: str, i: int, seed: int, folder: str, template: str | None) -> None:
    """One campaign input, in a process of its own: sends ``(outcome, detail)``."""
    import os

    from recycle.study.campaign import hostile

    os.chdir(folder)
    try:
        if surface == "plans":
            outcome = hostile.exercise_plan(hostile.plan_input(i, seed), folder)
        else:
            canary = Path(folder) / "id_rsa"
            canary.write_text(hostile.CANARY + "\n")
            edits, damage = hostile.database_edits(i, seed, canary)
            db = Path(folder) / "c.duckdb"
            hostile.make_database(Path(template), db, edits, damage)
            outcome = hostile.exercise_database(db, html=i % 20 == 0)
        conn.send((outcome, ""))
    except hostile.Leak as exc:
        conn.send(("leak", str(exc)))
    except BaseException:  # noqa: BLE001 - anything else is what the fuzzer looks for
        conn.send(("crash", traceback.format_exc()[-3000:]))


def fuzz_campaign(surface: str, n: int, seed: int, timeout: float, out: Path) -> int:
    """``--campaign-plans`` / ``--campaign-databases``: ``n`` inputs of
    ``recycle.study.campaign.hostile``, each in a forked process killed after ``timeout``
    seconds. Prints the count of each outcome; saves each failure's number and detail in
    ``out``; exit status 0 if none failed."""
    import shutil
    import tempfile

    from recycle.study.campaign import hostile

    ctx = mp.get_context("fork")
    counts: collections.Counter = collections.Counter()
    failures = []
    base = Path(tempfile.mkdtemp(prefix="recycle-fuzz-campaign-"))
    try:
        template = str(hostile.template_database(base)) if surface == "databases" else None
        t0 = time.perf_counter()
        for i in range(n):
            folder = base / f"t{i}"
            folder.mkdir()
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_campaign_trial, args=(child, surface, i, seed, str(folder), template))
            proc.start()
            child.close()
            if parent.poll(timeout):
                try:
                    outcome, detail = parent.recv()
                except EOFError:
                    outcome, detail = "crash", "the process died"
            else:
                outcome, detail = "hang", f"killed after {timeout} s"
                proc.kill()
            proc.join()
            if outcome == "crash" and detail == "the process died":
                detail = f"the process died (exit {proc.exitcode})"
            counts[outcome] += 1
            if outcome not in ("ok", "refused"):
                failures.append((i, outcome, detail))
            shutil.rmtree(folder, ignore_errors=True)
            if (i + 1) % 100 == 0:
                print(
                    f"  {i + 1}/{n} in {time.perf_counter() - t0:.0f} s: "
                    + ", ".join(f"{k} {v}" for k, v in counts.most_common()),
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"{n} campaign {surface} (seed {seed}): " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    if failures:
        out.mkdir(parents=True, exist_ok=True)
        for i, outcome, detail in failures:
            again = (
                f"hostile.plan_input({i}, {seed})"
                if surface == "plans"
                else f"hostile.database_edits({i}, {seed}, CANARY_PATH)"
            )
            (out / f"campaign-{surface}-{i:05d}.txt").write_text(
                f"input #{i}: {outcome}\nagain: {again}\n\n{detail}\n", encoding="utf-8"
            )
            print(f"  #{i}: {outcome}: {detail.strip().splitlines()[-1] if detail.strip() else ''}")
        return 1
    print("no failures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
