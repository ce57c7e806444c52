#!/usr/bin/env python3
"""Long fuzzing runs: the mutation strategy of tests/test_fuzz.py over many inputs.

    python tools/fuzz.py [--examples 10000] [--jobs 2] [--seed 0] [--timeout 30]
                         [--out fuzz-crashes] [--max-steps 2000] [--time-bound 5]

Inputs come from ``recycle/study/fuzzing.py``'s Hypothesis strategy (mutated corpus games and
``games/*.rcy``: token/parenthesis deletion, duplication and swaps, random bytes and text,
deep nesting, huge integers, truncation, empty files, non-UTF-8 bytes). Each input is loaded
and, if it compiles, one random game is played with ``--max-steps`` steps, in worker
processes that are killed after ``--timeout`` seconds (a hang). Prints counts of outcomes:
ok, syntax/compile/runtime error, step limit, and failures — crashes (a Python exception
that is not a RecycleError), bad messages (no ``file:line:column:``), slow inputs (over
``--time-bound`` s) and hangs. Each distinct failure is saved in ``--out`` as
``NNN.rcy`` (the exact input bytes) and ``NNN.txt`` (what happened, with the traceback).

Exit status 0 if no input failed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import collections
import gc
import multiprocessing as mp
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from recycle.study import fuzzing  # noqa: E402


def generate(n: int, seed: int) -> list[tuple[str, str | bytes]]:
    """``n`` inputs drawn from ``fuzzing.mutated_inputs()`` (reproducible for a seed)."""
    from hypothesis import HealthCheck, Phase, given, seed as hseed, settings

    inputs: list = []

    @hseed(seed)
    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(fuzzing.mutated_inputs())
    def collect(example):
        inputs.append(example)

    collect()
    return inputs


def _worker(conn, max_steps: int, mem_limit: int, slow: float) -> None:
    if mem_limit:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))
    while True:
        job = conn.recv()
        if job is None:
            return
        idx, data = job
        t0 = time.perf_counter()
        try:
            outcome, detail = fuzzing.exercise(data, max_steps=max_steps, time_bound=None), ""
            if time.perf_counter() - t0 > slow:
                # again, after freeing what earlier inputs left behind, to time this input alone
                gc.collect()
                t0 = time.perf_counter()
                fuzzing.exercise(data, max_steps=max_steps, time_bound=None)
        except fuzzing.FuzzFailure as exc:
            cause = exc.__cause__
            if cause is not None:
                outcome = "crash"
                detail = "".join(traceback.format_exception(cause))
            else:
                outcome = "bad message"
                detail = str(exc)
        except BaseException as exc:  # noqa: BLE001 - e.g. MemoryError escaping somewhere odd
            outcome = "crash"
            detail = "".join(traceback.format_exception(exc))
        conn.send((idx, outcome, detail, time.perf_counter() - t0))


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

    def submit(self, idx, data):
        self.job = (idx, data)
        self.since = time.perf_counter()
        self.conn.send(self.job)

    def restart(self):
        self.proc.kill()
        self.proc.join()
        self.start()


def signature(outcome: str, detail: str, idx: int) -> str:
    """Failures with the same signature are the same bug (saved once); every hang and slow
    input is saved (up to ``MAX_SAVED`` of each), as nothing tells them apart."""
    if outcome == "crash":
        lines = [l for l in detail.strip().splitlines() if l.strip()]
        where = [l.strip() for l in lines if l.strip().startswith("File ")]
        return f"crash|{lines[-1].split(':')[0] if lines else ''}|{where[-1] if where else ''}"
    if outcome == "bad message":
        return "bad message|" + detail.split(":")[0]
    return f"{outcome} #{idx}"


MAX_SAVED = 25


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", "-n", type=int, default=10_000, help="number of inputs (default 10000)")
    ap.add_argument("--seed", type=int, default=0, help="Hypothesis seed for the inputs")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--timeout", type=float, default=20.0, help="kill an input after this many seconds (a hang)")
    ap.add_argument("--time-bound", type=float, default=fuzzing.TIME_BOUND,
                    help="an input slower than this is reported as slow (default %(default)s s)")
    ap.add_argument("--max-steps", type=int, default=fuzzing.MAX_STEPS, help="step limit of the one game played")
    ap.add_argument("--mem-limit", type=int, default=2048, help="address-space limit per worker, MB (0: none)")
    ap.add_argument("--out", default="fuzz-crashes", help="folder for failing inputs (default %(default)s)")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    print(f"generating {args.examples} inputs (seed {args.seed}) from {len(fuzzing.SEEDS)} seed games ...",
          file=sys.stderr, flush=True)
    inputs = generate(args.examples, args.seed)
    t_gen = time.perf_counter() - t0
    print(f"  {len(inputs)} inputs in {t_gen:.1f} s; running ...", file=sys.stderr, flush=True)

    ctx = mp.get_context("fork")
    workers = [Worker(ctx, args.max_steps, args.mem_limit << 20, args.time_bound) for _ in range(max(1, args.jobs))]
    counts: collections.Counter = collections.Counter()
    failures: dict[str, list] = {}
    times: list[float] = []
    out = Path(args.out)
    pending = [(i, data) for i, (_, data) in enumerate(inputs)][::-1]
    done = 0
    t1 = time.perf_counter()

    def record(idx, outcome, detail, dt):
        nonlocal done
        done += 1
        if outcome != "hang":
            times.append(dt)
        if outcome not in ("crash", "bad message", "hang") and dt > args.time_bound:
            detail = f"took {dt:.1f} s (bound {args.time_bound} s); outcome {outcome}"
            outcome = "slow"
        counts[outcome] += 1
        if outcome in ("crash", "bad message", "hang", "slow"):
            sig = signature(outcome, detail, idx)
            first = sig not in failures
            if outcome in ("hang", "slow") and sum(k.startswith(outcome) for k in failures) >= MAX_SAVED:
                first = False
            failures.setdefault(sig, []).append(idx)
            if first:
                out.mkdir(parents=True, exist_ok=True)
                k = len(failures)
                desc, data = inputs[idx]
                raw = data if isinstance(data, bytes) else data.encode("utf-8")
                (out / f"{k:03d}.rcy").write_bytes(raw)
                (out / f"{k:03d}.txt").write_text(f"input #{idx}: {desc}\noutcome: {outcome} ({dt:.2f} s)\n\n{detail}\n",
                                                  encoding="utf-8")
        if done % 1000 == 0:
            el = time.perf_counter() - t1
            print(f"  {done}/{len(inputs)} in {el:.0f} s: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()),
                  file=sys.stderr, flush=True)

    while pending or any(w.job for w in workers):
        for w in workers:
            if w.job is None and pending:
                w.submit(*pending.pop())
        conns = [w.conn for w in workers if w.job is not None]
        ready = mp.connection.wait(conns, timeout=0.5)
        now = time.perf_counter()
        for w in workers:
            if w.job is None:
                continue
            if w.conn in ready:
                try:
                    idx, outcome, detail, dt = w.conn.recv()
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

    total = time.perf_counter() - t0
    print(f"{len(inputs)} inputs, {total:.0f} s in all ({t_gen:.0f} s generating, "
          f"{total - t_gen:.0f} s running with {len(workers)} workers); "
          f"slowest input that ended {max(times, default=0):.2f} s")
    for name in (*fuzzing.OUTCOMES, "other RecycleError", "crash", "bad message", "slow", "hang"):
        print(f"  {name:20} {counts.get(name, 0):7d}")
    if failures:
        print(f"{len(failures)} distinct failure(s), inputs saved in {out}/:")
        for k, (sig, idxs) in enumerate(failures.items(), 1):
            print(f"  {k:03d}: {sig}  ({len(idxs)} inputs)")
        return 1
    print("no failures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
