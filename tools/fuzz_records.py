"""Record files fuzzed through ``recycle replay``: ``tools/fuzz.py --record-files``.

A record may come from anyone; replaying it must never end in a traceback, never hang, never
open a file outside the record's folder and never let a control character reach the
terminal. Each input is a genuine record of a Schwimmen game with one to three edits (input
``i`` of seed ``s``: ``edit_record(random.Random((s << 32) + i), ...)``, no Hypothesis): the
game path led out of the folder (absolute, ``..``, symbolic links to a file and a folder
outside, NUL, drives, backslashes, a link loop, devices), the hash (wrong, malformed, and
the hash of the file outside the folder, which must still be refused), control characters
(OSC, CSI, C1, BEL, CR, bidi overrides, line separators, lone surrogates) in every string,
huge and odd numbers (10**400, 2**63, NaN, infinity, 7.0), wrong types. The record is
replayed three ways (plain, ``--text --reveal``, ``--scripted``) through the CLI in a forked
process killed after the timeout; an audit hook reports every ``open`` outside the record's
folder, Python and the repository. Outcomes: ``exit N`` (fine), or a failure: traceback,
outside read, secret shown (a line of the file outside in the output), control character,
hang. Failing records are saved as ``record-I.json`` with ``record-I.txt`` (what was done,
what happened).
"""

from __future__ import annotations

import collections
import json
import multiprocessing as mp
import re
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SECRET = "SECRET-4711 this line is outside the record's folder ("
HOSTILE = [
    "\x1b]0;title\x07",
    "\x1b]8;;http://x.example/\x1b\\",
    "\x1b]52;c;eA==\x07",
    "\x1b[2J",
    "\x9b1m",
    "\r",
    "\x08",
    "\x00",
    "\x7f",
    "\u202e",
    "\u2066",
    "\u2028",
    "\u2029",
    "\ud800",
    "\n",
]
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\udc80-\udcff]")
FAILURES = ("traceback", "outside read", "secret shown", "control character", "hang")


def make_folders(root: Path) -> tuple[Path, Path, dict]:
    """The record's folder (``inside``: the game and links out), the folder it must not
    reach (``outside``: a broken game with a secret line) and a genuine record of the game."""
    from recycle.players import make_players
    import hashlib

    from recycle import load
    from recycle.study.records import play_recorded, write_record

    inside, outside = root / "inside", root / "outside"
    inside.mkdir()
    outside.mkdir()
    game = inside / "game.rcy"
    game.write_text((ROOT / "games" / "schwimmen.rcy").read_text(encoding="utf-8"), encoding="utf-8")
    secret = outside / "secret.rcy"
    secret.write_text(f"(game\n{SECRET}\n", encoding="utf-8")
    (inside / "link.rcy").symlink_to(secret)
    (inside / "sub").symlink_to(outside, target_is_directory=True)
    (inside / "loop.rcy").symlink_to(inside / "loop.rcy")
    g = load(game)
    _, rec = play_recorded(g, make_players("random", g.nplayers), 7, game, ["random"] * g.nplayers)
    write_record(rec, inside / "base.json")
    rec = json.loads((inside / "base.json").read_text(encoding="utf-8"))
    rec["_secret_sha256"] = hashlib.sha256(secret.read_bytes()).hexdigest()
    return inside, outside, rec


def edit_record(rng, rec: dict, outside: Path) -> tuple[str, bytes]:
    """(what was done, the bytes of the record): one to three edits of ``rec``."""
    rec = json.loads(json.dumps(rec))
    secret_hash = rec.pop("_secret_sha256")
    done = []
    ops = [
        rng.choice(["path", "path", "hash", "control", "control", "number", "type"]) for _ in range(rng.randint(1, 3))
    ]
    # a wrong type last: the other edits expect the record's own shape (a list of players...)
    ops.sort(key=lambda op: op == "type")
    for op in ops:
        if op == "path":
            rec["game"] = rng.choice(
                [
                    "/etc/passwd",
                    "../outside/secret.rcy",
                    str(outside / "secret.rcy"),
                    "link.rcy",
                    "sub/secret.rcy",
                    "./sub/../link.rcy",
                    "..",
                    ".",
                    "",
                    "/",
                    "game.rcy\x00",
                    "./game.rcy",
                    "a/../game.rcy",
                    "..\\outside\\secret.rcy",
                    "C:\\outside\\secret.rcy",
                    "C:secret.rcy",
                    "\\\\srv\\share\\x.rcy",
                    "//etc/passwd",
                    "game.rcy/",
                    "x" * 5000,
                    "/dev/zero",
                    "/proc/self/mem",
                    "loop.rcy",
                    "sub",
                    "game.rcy" + rng.choice(HOSTILE),
                    "sub/../../outside/secret.rcy",
                    "~/secret.rcy",
                    "file:///etc/passwd",
                    "%2e%2e/outside/secret.rcy",
                    "game.rcy\u202e",
                ]
            )
            if rng.random() < 0.5:  # the hash of the file out of the folder: the path must still be refused
                rec["source_sha256"] = secret_hash
            done.append(f"game={rec['game'][:40]!r}")
        elif op == "hash":
            rec["source_sha256"] = rng.choice(
                [
                    secret_hash,
                    "0" * 64,
                    "F" * 64,
                    "",
                    "0" * 63,
                    "g" * 64,
                    rec["source_sha256"].upper(),
                    rec["source_sha256"] + "\n",
                ]
            )
            done.append("sha")
        elif op == "control":
            bad = "".join(rng.choice(HOSTILE) for _ in range(rng.randint(1, 4)))
            where = rng.choice(
                ["game_name", "recycle", "players", "description", "revealed", "deal key", "deal card", "game"]
            )
            if where == "players":
                k = rng.randrange(len(rec["players"]))
                rec["players"][k] = rng.choice(["human", "random", rec["players"][k]]) + bad
            elif where in ("description", "revealed"):
                d = rng.choice(rec["decisions"])
                d[where] = bad + d[where] + bad
            elif where == "deal key":
                rec["deal"] = {k + bad: v for k, v in rec["deal"].items()}
            elif where == "deal card":
                rec["deal"] = {k: [c + bad for c in v] for k, v in rec["deal"].items()}
            elif isinstance(rec.get(where), str):
                rec[where] = rec[where] + bad
            else:  # an earlier edit of this input gave the field another type (or removed it)
                rec[where] = bad
            done.append(f"control in {where}")
        elif op == "number":
            key = rng.choice(
                ["seed", "max_steps", "max_work", "steps", "total_decisions", "decision", "version", "score"]
            )
            value = rng.choice(
                [10**400, 2**63, -(2**63), 2**64 + 7, -1, 0, 1e308, float("inf"), float("nan"), 7.0, 10**6]
            )
            if key == "decision":
                d = rng.choice(rec["decisions"])
                d[rng.choice(["index", "player", "chosen", "options"])] = value
            elif key == "score":
                rec["scores"][0] = value
            else:
                rec[key] = value
            done.append(f"{key}={str(value)[:12]}")
        else:
            key = rng.choice(sorted(rec))
            rec[key] = rng.choice([None, True, "7", [], {}, [1, "x"], {"a": None}, "", 7.0])
            done.append(f"{key}: wrong type")
    return ", ".join(done), json.dumps(rec).encode("utf-8")


def replay_in_child(conn, inside: Path, outside: Path, data: bytes) -> None:
    """Run ``replay`` on the record ``data`` (in ``inside``) in this process, watching every
    ``open``; send back (outcome, detail)."""
    import os as _os

    from typer.testing import CliRunner

    from recycle.cli import app

    path = inside / "record.json"
    path.write_bytes(data)
    allowed = [
        str(inside.resolve()),
        *{
            str(Path(p).resolve())
            for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, ROOT, _os.environ.get("RECYCLE_CACHE_DIR", ROOT))
        },
    ]
    opened: list[str] = []

    def watch(event, args):
        if event == "open" and args and isinstance(args[0], (str, bytes, _os.PathLike)):
            where = _os.path.realpath(_os.fsdecode(args[0]))
            if not any(where == a or where.startswith(a + _os.sep) for a in allowed):
                opened.append(where)

    sys.addaudithook(watch)
    runner = CliRunner()
    for extra in ([], ["--text", "--reveal"], ["--scripted"]):
        r = runner.invoke(app, ["replay", str(path), *extra])
        out, err = r.stdout, r.stderr
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            detail = "".join(traceback.format_exception(r.exception))
            conn.send(("traceback", f"replay {' '.join(extra)}:\n{detail}"))
            return
        if "Traceback" in out + err:
            conn.send(("traceback", f"replay {' '.join(extra)}:\n{err[-3000:]}"))
            return
        if opened:
            conn.send(("outside read", f"replay {' '.join(extra)} opened {opened[:5]}"))
            return
        if SECRET in out + err or "root:" in out + err:
            conn.send(("secret shown", f"replay {' '.join(extra)}:\n{(out + err)[-2000:]}"))
            return
        bad = FORBIDDEN.search(out + err)
        if bad:
            conn.send(("control character", f"replay {' '.join(extra)}: {bad.group()!r} in\n{(out + err)[-2000:]!r}"))
            return
    conn.send((f"exit {r.exit_code}", ""))


def run(n: int, seed: int, timeout: float, out: Path) -> int:
    """``n`` edited record files replayed through the command line (see the module
    docstring); prints the count of each outcome and each failure, saves failing records in
    ``out``. Exit status 0 if none failed."""
    import random
    import tempfile

    ctx = mp.get_context("fork")
    counts: collections.Counter = collections.Counter()
    failures: dict[str, int] = {}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="recycle-fuzz-records-") as tmp:
        import os as _os

        _os.environ.setdefault("RECYCLE_CACHE_DIR", str(Path(tmp) / "cache"))
        inside, outside, base = make_folders(Path(tmp))
        import recycle.cli  # noqa: F401 - imported once here, not in every child

        print(f"{n} record files through `recycle replay` (seed {seed}) ...", file=sys.stderr, flush=True)
        for i in range(n):
            what, data = edit_record(random.Random((seed << 32) + i), base, outside)
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=replay_in_child, args=(child, inside, outside, data), daemon=True)
            proc.start()
            child.close()
            if parent.poll(timeout):
                try:
                    outcome, detail = parent.recv()
                except EOFError:
                    outcome, detail = "traceback", f"the process died (exit {proc.exitcode})"
            else:
                outcome, detail = "hang", f"killed after {timeout} s"
                proc.kill()
            proc.join()
            counts[outcome] += 1
            if outcome in FAILURES:
                sig = f"{outcome}|{re.sub(r'[0-9]+', 'N', detail.strip().splitlines()[-1] if detail.strip() else '')[:80]}"
                if sig not in failures:
                    failures[sig] = i
                    out.mkdir(parents=True, exist_ok=True)
                    (out / f"record-{i}.json").write_bytes(data)
                    (out / f"record-{i}.txt").write_text(
                        f"input {i} (seed {seed}): {what}\noutcome: {outcome}\n\n{detail}\n",
                        encoding="utf-8",
                        errors="backslashreplace",
                    )
            if (i + 1) % 100 == 0:
                print(
                    f"  {i + 1}/{n}: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()),
                    file=sys.stderr,
                    flush=True,
                )
    print(f"{n} record files in {time.perf_counter() - t0:.0f} s")
    for name, count in sorted(counts.items()):
        print(f"  {name:20} {count:7d}")
    if failures:
        print(f"{len(failures)} distinct failure(s), records saved in {out}/:")
        for sig, i in failures.items():
            print(f"  record-{i}: {sig}")
        return 1
    print("no failures")
    return 0
