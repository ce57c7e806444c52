"""Fuzzing the bytecode cache's entries (``lang/python/codecache.py``): a load must play the same game.

A real entry of a game is damaged in one way per trial and the game loaded from it, as a
new process would (``codecache.forget()``), and played: the transcript must be the
reference's, and a changed entry must never be read (it is compiled again). Trial ``i`` of
seed ``s`` is drawn from ``random.Random(s * 2**32 + i)`` alone, so any trial is made again
from its number (``trial_input``). The kinds:

* ``flip`` — one bit flipped anywhere (most trials);
* ``cut`` / ``extend`` — the entry truncated, or random bytes appended;
* ``random`` / ``header`` — random bytes, with or without the entry header in front;
* ``planted`` — marshalled code of another module under the entry's name: bare, behind the
  header with a made-up tag, or another game's genuine entry (this user's key).

``run`` plays the trials in a child process and starts a new one when a trial kills it (a
segfault in ``marshal.loads`` is how the cache of before issue 25 failed) or makes it hang.
``tools/fuzz.py --cache-entries N`` runs it.
"""

from __future__ import annotations

import collections
import marshal
import multiprocessing as mp
import os
import random
import tempfile
import traceback
from pathlib import Path

from ..engine.game import load
from ..engine.transcript import transcript
from ..lang.python import codecache

GAMES = Path(__file__).resolve().parent.parent.parent / "games"
KINDS = ("flip",) * 12 + ("cut", "cut", "extend", "random", "header", "planted", "planted")
OK = ("recompiled", "read")  # outcomes that are no failure
PLANTED = "raise SystemExit('a planted cache entry ran')"


def played(game, seed: int = 3) -> str:
    """The transcript of one game, as the tests compare them."""
    return "\n".join(transcript(game, game.play(seed=seed, record=True, describe=True)))


def trial_input(i: int, seed: int, original: bytes, other: bytes, filename: str) -> tuple[str, bytes]:
    """Trial ``i``: its description and the bytes put in place of the entry ``original``
    (``other``: another game's genuine entry; ``filename``: what the game compiles as)."""
    rng = random.Random(seed * 2**32 + i)
    kind = rng.choice(KINDS)
    # getattr: the fuzzer also runs against the cache of before issue 25 (no header then)
    header = getattr(codecache, "HEADER", b"")
    if kind == "flip":
        at, bit = rng.randrange(len(original)), rng.randrange(8)
        data = bytearray(original)
        data[at] ^= 1 << bit
        return f"bit {bit} of byte {at} flipped", bytes(data)
    if kind == "cut":
        n = rng.randrange(len(original))
        return f"cut to {n} bytes", original[:n]
    if kind == "extend":
        n = rng.randint(1, 64)
        return f"{n} random bytes appended", original + rng.randbytes(n)
    if kind == "random":
        n = rng.choice([0, 1, 8, 40, 100, len(original)])
        return f"{n} random bytes", rng.randbytes(n)
    if kind == "header":
        n = rng.choice([0, 32, 33, 100, len(original)])
        return f"the header and {n} random bytes", header + rng.randbytes(n)
    evil = marshal.dumps(compile(PLANTED, filename, "exec"))
    how = rng.randrange(3)
    if how == 0:
        return "planted: bare marshalled code", evil
    if how == 1:
        return "planted: the header, a made-up tag, marshalled code", header + rng.randbytes(32) + evil
    return "planted: another game's genuine entry", other


def prepare(game: Path, folder: Path, other_game: Path | None = None) -> dict:
    """Loads ``game`` (and another) into the empty cache ``folder`` (the caller has pointed
    ``RECYCLE_CACHE_DIR`` at it); what the trials need."""
    codecache.forget()
    seen: list = []
    real = codecache._compile
    codecache._compile = lambda src, name: seen.append(name) or real(src, name)
    try:
        reference = played(load(game))
    finally:
        codecache._compile = real
    (entry,) = folder.glob("*.code")
    load(other_game or GAMES / ("war.rcy" if game.name != "war.rcy" else "hearts.rcy"))
    (other,) = set(folder.glob("*.code")) - {entry}
    return {"game": game, "entry": entry, "original": entry.read_bytes(),
            "other": other.read_bytes(), "filename": seen[0], "reference": reference}


def exercise_entry(setup: dict, data: bytes) -> tuple[str, str]:
    """Puts ``data`` in place of the entry, loads the game anew and plays it: ``recompiled``
    or ``read`` (only the untouched entry), else a failure and what happened."""
    setup["entry"].write_bytes(data)
    codecache.forget()
    try:
        game = load(setup["game"])
        text = played(game)
    except BaseException as exc:  # noqa: BLE001 - SystemExit of planted code included
        return "crash", "".join(traceback.format_exception(exc))
    if text != setup["reference"]:
        return "divergence", "the game played differently"
    if game.bytecode_from_cache and data != setup["original"]:
        return "tampering", "a changed entry was read"
    return ("read" if game.bytecode_from_cache else "recompiled"), ""


def _child(conn, setup: dict, start: int, n: int, seed: int) -> None:
    for i in range(start, n):
        what, data = trial_input(i, seed, setup["original"], setup["other"], setup["filename"])
        conn.send(("start", i))
        outcome, detail = exercise_entry(setup, data)
        conn.send(("done", i, what, outcome, detail))
    conn.send(("end",))


def run(n: int, seed: int = 0, game: Path | None = None, timeout: float = 30.0, say=print) -> int:
    """Runs ``n`` trials on ``game`` (default games/schwimmen.rcy) in a child process,
    started again after a trial that killed it or hung; prints the count of each outcome
    and every failure. Returns 0 when every load played the reference game, else 1."""
    game = Path(game or GAMES / "schwimmen.rcy")
    counts: collections.Counter = collections.Counter()
    failures: list[str] = []
    saved = {k: os.environ.get(k) for k in ("RECYCLE_CACHE_DIR", "RECYCLE_NO_CACHE")}
    with tempfile.TemporaryDirectory(prefix="recycle-cachefuzz-") as tmp:
        os.environ["RECYCLE_CACHE_DIR"] = tmp  # a folder of its own, never the user's
        os.environ.pop("RECYCLE_NO_CACHE", None)
        try:
            setup = prepare(game, Path(tmp))
            _trials(setup, n, seed, timeout, counts, failures, say)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            codecache.forget()
    say(", ".join(f"{k} {v}" for k, v in counts.most_common()))
    for line in failures:
        say("  " + line)
    say(f"{len(failures)} failure(s)" if failures else "no failures")
    return 1 if failures else 0


def _trials(setup: dict, n: int, seed: int, timeout: float, counts, failures: list, say) -> None:
    """Trials ``0..n-1`` in a child process, a new one after each trial that killed or hung it."""
    say(f"{n} damaged entries of {setup['game'].name} ({len(setup['original'])} bytes), seed {seed} ...")
    ctx = mp.get_context("fork")
    start = 0
    while start < n:
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_child, args=(child, setup, start, n, seed), daemon=True)
        proc.start()
        child.close()
        current, ended = start, False  # the trial under way (or next, between trials)
        while True:
            if not parent.poll(timeout):
                proc.kill()
                outcome, detail = "hang", f"no answer in {timeout} s"
                break
            try:
                msg = parent.recv()
            except EOFError:
                proc.join()
                outcome, detail = "crash", f"the process died (exit {proc.exitcode})"
                break
            if msg[0] == "start":
                current = msg[1]
            elif msg[0] == "done":
                _, i, what, outcome, detail = msg
                counts[outcome] += 1
                if outcome not in OK:
                    failures.append(f"trial {i} ({what}): {outcome}: {detail.strip().splitlines()[-1]}")
                current = i + 1
            else:
                ended = True
                break
        proc.join()
        parent.close()
        if ended:
            return
        what, _ = trial_input(current, seed, setup["original"], setup["other"], setup["filename"])
        counts[outcome] += 1
        failures.append(f"trial {current} ({what}): {outcome}: {detail}")
        start = current + 1


__all__ = ["exercise_entry", "prepare", "run", "trial_input"]
