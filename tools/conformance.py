#!/usr/bin/env python3
"""Run every RECYCLE game of a folder: parse, compile, random rollouts; print a table.

    python tools/conformance.py [DIR] [--rollouts 200] [--max-steps 20000] [--seed 0]
                                [--check] [--json] [--jobs N] [--only NAME ...] [--timeout 300]
    python tools/conformance.py --cardstock [DIR] [-n 1000] [--seconds 70] [--jobs N] [--only NAME ...]

DIR defaults to ``../shared/corpus/cardstock`` (beside the repository), where the developers
keep a share of the CardStock corpus; the corpus itself is not part of this repository: it comes
from github.com/mgoadric/cardstock (folder ``CardStock/games``). For each ``.rcy``:
parsed?, rollouts finished, step-limit hits, errors, mean decisions and mean options per
decision (over finished rollouts), rollouts per second, and the first error (the first line
of the RecycleError, ``file:line:column: ...``). ``--check`` also verifies card conservation
and every player's view after every event/decision (``recycle/study/invariants.py``; slower).
``--timeout`` (on by default: 300 s per game; ``inf`` for none) starts no rollout of a game
after that time: the game's figures are those of the rollouts played, and the table says so.

``--cardstock`` compares with CardStock's own engine instead (``../shared/cardstock/cardstock.exe``
under Mono; ``tools/cardstock_compare.py``): both play N random games of every game (``-n``,
CardStock for at most ``--seconds`` per game, default 70), and the table gives choices per game
with standard errors, win rates and mean scores per seat, z-scores, and whether a difference
beyond 3 standard errors is explained (a documented reference bug) or not. Without Mono it says
so and exits 0 (a skip); exit status 1 if some difference is unexplained.

Exit status 0 if every game parsed and no rollout raised an error other than the step limit
(and, with ``--check``, no invariant broke); 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = ROOT.parent / "shared" / "corpus" / "cardstock"
CARDSTOCK_EXE = ROOT.parent / "shared" / "cardstock" / "cardstock.exe"
CORPUS_HINT = (
    "conformance: the CardStock corpus is not part of this repository (it is GPL-3 game data); "
    "get it from its public repository, github.com/mgoadric/cardstock (the .rcy files of its "
    "folder CardStock/games), and give that folder as DIR: python tools/conformance.py DIR"
)
sys.path.insert(0, str(ROOT))

import recycle  # noqa: E402
from recycle.study.invariants import DEFAULT_TIMEOUT, run_rollouts  # noqa: E402


def run_game(
    path: str, rollouts: int, seed: int, max_steps: int, check: bool, timeout: float | None = DEFAULT_TIMEOUT
) -> dict:
    """Conformance figures for one game file (a JSON-able dict)."""
    path = Path(path)
    row = {
        "game": path.stem,
        "file": str(path),
        "parsed": False,
        "players": None,
        "rollouts": rollouts,
        "played": 0,
        "finished": 0,
        "step_limit_hits": 0,
        "errors": 0,
        "crashes": 0,
        "mean_decisions": None,
        "mean_options": None,
        "rollouts_per_second": None,
        "seconds": 0.0,
        "first_error": None,
        "first_error_seed": None,
        "stopped_by_time_limit": False,
        "warnings": [],
    }
    t0 = time.perf_counter()
    try:
        game = recycle.load(path)
    except recycle.RecycleError as exc:
        row["first_error"] = exc.format().splitlines()[0]
        return row
    except Exception as exc:  # noqa: BLE001 - an interpreter crash while loading
        row["crashes"] = 1
        row["first_error"] = f"crash: {type(exc).__name__}: {exc}".splitlines()[0]
        return row
    row["parsed"] = True
    row["players"] = game.nplayers
    row["warnings"] = list(game.warnings)
    t1 = time.perf_counter()
    out = run_rollouts(game, rollouts, seed=seed, max_steps=max_steps, check=check, timeout=timeout)
    dt = time.perf_counter() - t1
    row.update(
        played=out["played"],
        finished=out["finished"],
        step_limit_hits=out["step_limit_hits"],
        errors=out["errors"],
        crashes=out["crashes"],
        first_error=out["first_error"],
        first_error_seed=out["first_error_seed"],
        stopped_by_time_limit=out["stopped_by_time_limit"],
    )
    if out["stopped_by_time_limit"] and row["first_error"] is None:
        row["first_error"] = f"time limit: {out['played']} of {rollouts} rollouts played in {timeout:g} s"
    if out["finished"]:
        row["mean_decisions"] = out["decisions"] / out["finished"]
        row["mean_options"] = out["options"] / out["decisions"] if out["decisions"] else 0.0
    row["rollouts_per_second"] = out["played"] / dt if dt > 0 else None
    row["seconds"] = time.perf_counter() - t0
    return row


def row_ok(row: dict) -> bool:
    """A game passes if it parsed and no rollout raised anything but the step limit."""
    return row["parsed"] and row["errors"] == 0 and row["crashes"] == 0


def _fmt(v, spec: str) -> str:
    return "-" if v is None else format(v, spec)


def table(rows: list[dict], width: int = 100) -> list[str]:
    """The human-readable table (Markdown)."""
    head = [
        "game",
        "parsed",
        "finished",
        "step limit",
        "errors",
        "mean decisions",
        "options/decision",
        "rollouts/s",
        "first error",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        err = r["first_error"] or ""
        if len(err) > width:
            err = err[: width - 1] + "…"
        cells = [
            r["game"],
            "yes" if r["parsed"] else "NO",
            f"{r['finished']}/{r['rollouts']}",
            str(r["step_limit_hits"]),
            str(r["errors"]),
            _fmt(r["mean_decisions"], ".1f"),
            _fmt(r["mean_options"], ".2f"),
            _fmt(r["rollouts_per_second"], ".0f"),
            err.replace("|", "\\|"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def summary(rows: list[dict]) -> str:
    parsed = sum(r["parsed"] for r in rows)
    clean = sum(row_ok(r) and r["step_limit_hits"] == 0 and not r.get("stopped_by_time_limit") for r in rows)
    limit = [r["game"] for r in rows if row_ok(r) and r["step_limit_hits"]]
    bad = [r["game"] for r in rows if not row_ok(r)]
    timed = [r["game"] for r in rows if r.get("stopped_by_time_limit")]
    total = sum(r["rollouts"] for r in rows if r["parsed"])
    done = sum(r["finished"] for r in rows)
    text = (
        f"{len(rows)} games: {parsed} parsed, {clean} ran every rollout to the end, "
        f"{len(limit)} hit the step limit in some rollouts, {len(bad)} with errors; "
        f"{done}/{total} rollouts finished"
    )
    if limit:
        text += f"\nstep limit hit (no error): {', '.join(limit)}"
    if bad:
        text += f"\nerrors: {', '.join(bad)}"
    if timed:
        text += f"\nstopped by the time limit (the rollouts played are counted): {', '.join(timed)}"
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", default=str(DEFAULT_DIR), help="folder of .rcy files (default: %(default)s)")
    ap.add_argument("--rollouts", "-n", type=int, default=200, help="random rollouts per game (default 200)")
    ap.add_argument("--max-steps", type=int, default=20_000, help="step limit per rollout (default 20000)")
    ap.add_argument("--seed", type=int, default=0, help="base seed; rollout i uses rollout_seed(seed, i)")
    ap.add_argument("--check", action="store_true", help="verify conservation and visibility invariants (slower)")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    ap.add_argument("--jobs", "-j", type=int, default=1, help="games run in parallel processes (default 1)")
    ap.add_argument("--only", nargs="*", default=None, metavar="NAME", help="only these games (file stems)")
    ap.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="start no rollout of a game after this many seconds (default %(default)g; inf: none)",
    )
    ap.add_argument(
        "--cardstock",
        action="store_true",
        help="compare with CardStock's own engine (Mono): choices, win rates, scores, z-scores",
    )
    ap.add_argument(
        "--cardstock-exe",
        default=str(CARDSTOCK_EXE),
        metavar="PATH",
        help="CardStock's console driver (default: %(default)s)",
    )
    ap.add_argument(
        "--seconds",
        type=float,
        default=70.0,
        help="with --cardstock: CardStock plays a game for at most this many seconds (default 70)",
    )
    ap.add_argument(
        "--from-json",
        nargs="+",
        default=None,
        metavar="FILE",
        help="with --cardstock: print the table of saved --json outputs instead of running "
        "(a game in a later file replaces its row from an earlier one)",
    )
    args = ap.parse_args(argv)
    if not args.timeout >= 0:
        ap.error("--timeout must be at least 0")

    folder = Path(args.dir)
    if not folder.is_dir():
        print(f"conformance: no such folder: {folder}", file=sys.stderr)
        print(CORPUS_HINT, file=sys.stderr)
        return 2
    files = sorted(folder.glob("*.rcy"))
    if args.only:
        wanted = set(args.only)
        files = [f for f in files if f.stem in wanted]
    if not files:
        print(f"conformance: no .rcy files in {folder}", file=sys.stderr)
        return 2

    if args.cardstock and args.from_json:
        return table_from_json(args.from_json)
    if args.cardstock:
        return main_cardstock(args, folder, files)
    t0 = time.perf_counter()
    timeout = None if args.timeout == float("inf") else args.timeout
    call = (args.rollouts, args.seed, args.max_steps, args.check, timeout)
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(run_game, [str(f) for f in files], *[[c] * len(files) for c in call]))
    else:
        rows = []
        for f in files:
            rows.append(run_game(str(f), *call))
            if not args.json:
                print(f"  {f.stem}: {rows[-1]['seconds']:.1f} s", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - t0
    ok = all(row_ok(r) for r in rows)
    if args.json:
        print(
            json.dumps(
                {
                    "dir": str(folder),
                    "rollouts": args.rollouts,
                    "max_steps": args.max_steps,
                    "seed": args.seed,
                    "check": args.check,
                    "timeout": timeout,
                    "seconds": elapsed,
                    "ok": ok,
                    "games": rows,
                },
                indent=1,
                ensure_ascii=False,
            )
        )
    else:
        print("\n".join(table(rows)))
        print()
        print(summary(rows))
        print(
            f"{args.rollouts} rollouts per game, max {args.max_steps} steps, seed {args.seed}"
            f"{', invariants checked' if args.check else ''}"
            f"{f', at most {timeout:g} s per game' if timeout is not None else ''}; {elapsed:.1f} s"
        )
    return 0 if ok else 1


def _cardstock_module():
    if str(ROOT / "tools") not in sys.path:  # also when this file is loaded by path (the tests)
        sys.path.insert(0, str(ROOT / "tools"))
    import cardstock_compare

    return cardstock_compare


def table_from_json(paths: list[str]) -> int:
    """``--cardstock --from-json``: the table of saved runs, the verdicts worked out again."""
    cc = _cardstock_module()
    rows: dict[str, dict] = {}
    notes = []
    for p in paths:
        try:
            d = json.loads(Path(p).read_text(encoding="utf-8"))
            got = d["rows"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            from recycle.errors import printable

            print(
                f"conformance: {printable(p)}: not a --cardstock --json output ({printable(str(exc))})", file=sys.stderr
            )
            return 2
        for row in got:
            rows[row["game"]] = cc.judge(row)
        notes.append(f"{Path(p).name}: {d.get('games')} games per engine, {len(got)} games")
    ordered = [rows[k] for k in sorted(rows)]
    print("\n".join(cc.table(ordered)))
    print()
    print(cc.summary(ordered))
    print("; ".join(notes))
    return 0 if all(r["verdict"] != "DIFFERS" for r in ordered) else 1


def main_cardstock(args, folder: Path, files: list[Path]) -> int:
    """``--cardstock``: recycle against CardStock's engine on every game (a skip without Mono)."""
    cc = _cardstock_module()
    mono = cc.find_mono()
    exe = Path(args.cardstock_exe)
    if mono is None or not exe.is_file():
        why = "Mono is not installed (apt-get install mono-runtime)" if mono is None else f"no {exe}"
        print(f"conformance: skipped the CardStock comparison: {why}", file=sys.stderr)
        return 0
    t0 = time.perf_counter()
    call = (args.rollouts, args.seed, args.max_steps, args.seconds, str(exe), mono)
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            rows = list(pool.map(cc.compare_game, [str(f) for f in files], *[[c] * len(files) for c in call]))
    else:
        rows = []
        for f in files:
            rows.append(cc.compare_game(str(f), *call))
            if not args.json:
                print(f"  {f.stem}: {rows[-1]['verdict']} ({rows[-1]['seconds']:.0f} s)", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - t0
    ok = all(r["verdict"] != "DIFFERS" for r in rows)
    if args.json:
        print(
            json.dumps(
                {
                    "dir": str(folder),
                    "games": args.rollouts,
                    "seed": args.seed,
                    "seconds": elapsed,
                    "z_limit": cc.Z_LIMIT,
                    "ok": ok,
                    "rows": rows,
                },
                indent=1,
                ensure_ascii=False,
                default=lambda v: None,
            )
        )
    else:
        print("\n".join(cc.table(rows)))
        print()
        print(cc.summary(rows))
        print(
            f"{args.rollouts} games per engine and game (CardStock: at most {args.seconds:g} s), recycle seed "
            f"{args.seed}; {elapsed:.0f} s"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
