"""Bad input never gives a Python traceback (Hypothesis fuzzing of mutated games).

Mutations of the corpus games (when ``../shared/corpus/cardstock`` exists) and of
``games/*.rcy`` — see ``recycle/study/fuzzing.py`` — are loaded and, when they compile, played once
with a small step limit. Each must end cleanly or with a ``RecycleError`` whose first line
starts with ``file:line:column:``, within ``fuzzing.TIME_BOUND`` seconds; through the CLI, with
exit status 0 or 1 and no traceback. The suite runs about 150 inputs; ``tools/fuzz.py
--examples 10000`` runs the same strategy for long runs.
"""

from __future__ import annotations

import signal
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from typer.testing import CliRunner

from recycle.cli import app

from recycle.study.fuzzing import FILENAME, TIME_BOUND, FuzzFailure, exercise, mutated_inputs

FUZZ = settings(
    max_examples=110, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
CLI_FUZZ = settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
HANG = 4 * TIME_BOUND  # a watchdog: an input still running after this is a hang


@contextmanager
def watchdog(seconds: float):
    """Turn a hang into a test failure (SIGALRM; the tests run in the main thread)."""

    def hang(signum, frame):
        raise FuzzFailure(f"hang: still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, hang)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


HUGE = "99999999999999999999"
SMALL = """(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 (do ((shuffle (game iloc STOCK)) (all player 'P (repeat 3 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))))
 (stage player (end (== (size ((current player) iloc HAND)) 0))
  (choice ((any ((current player) iloc HAND) 'C (move 'C (top (game vloc PILE)))))))
 (scoring max (size ((current player) iloc HAND))))"""

CRAFTED = {
    "empty text": "",
    "empty bytes": b"",
    "only a BOM": b"\xef\xbb\xbf",
    "only a comment": ";; nothing here",
    "whitespace": " \n\t\r\n ",
    "not UTF-8 at the start": b"\xff\xfe" + SMALL.encode(),
    "not UTF-8 in the middle": SMALL.encode().replace(b"STOCK", b"ST\xc3OCK", 1),
    "a NUL byte": SMALL.replace("PILE", "PI\x00LE", 1),
    "deep nesting 5000": "(" * 5000 + ")" * 5000,
    "deep nesting inside the game": SMALL.replace("(scoring", "(do (" + "(" * 190 + ")" * 190 + ")) (scoring", 1),
    "unclosed": SMALL[:-3],
    "stray close": ")" + SMALL,
    "huge player count": SMALL.replace("(create players 2)", f"(create players {HUGE})"),
    "huge repeat": SMALL.replace("(repeat 3", f"(repeat {HUGE}", 1),
    "huge index": SMALL.replace("(top (game iloc STOCK))", f"({HUGE} (game iloc STOCK))", 1),
    "huge comparison": SMALL.replace("(== (size ((current player) iloc HAND)) 0)", f"(== 0 {HUGE})", 1),
    "negative repeat": SMALL.replace("(repeat 3", "(repeat -5", 1),
    "a game of no forms": "(game)",
    "two games": SMALL + SMALL,
    "just an atom": "game",
    "unicode names": SMALL.replace("STOCK", "ST\u00d6CK\u2660"),
}


@pytest.mark.parametrize("data", list(CRAFTED.values()), ids=list(CRAFTED))
def test_crafted_bad_inputs(data):
    with watchdog(HANG):
        exercise(data)


@FUZZ
@given(mutated_inputs())
@example(("<empty>", ""))
@example(("<empty>", b"\x80"))
@example(("<bytes>", SMALL.encode() + b"\xed\xa0\x80"))
def test_mutated_games_load_and_run_or_fail_cleanly(case):
    _desc, data = case
    with watchdog(HANG):
        exercise(data)


def _cli(runner: CliRunner, args: list[str]):
    result = runner.invoke(app, args)
    out = result.output + (result.stderr if result.stderr_bytes is not None else "")
    return result, out


def assert_cli_agrees(path: Path, expected: str) -> None:
    """``recycle check`` and ``recycle run`` on ``path``: exit status 1 exactly when the library
    fails (check: only load errors), a positioned message, never a traceback."""
    runner = CliRunner()
    load_error = expected in ("syntax error", "compile error")
    for args, fails in (
        (["check", str(path)], load_error),
        (["run", str(path), "--max-steps", "2000"], expected != "ok"),
    ):
        r, out = _cli(runner, args)
        assert "Traceback" not in out, (args, out)
        assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
        assert r.exit_code == (1 if fails else 0), (args, expected, out)
        if fails:
            assert any(line.startswith(f"{path}:") for line in out.splitlines()), (args, out)


@CLI_FUZZ
@given(mutated_inputs())
@pytest.mark.slow  # (5-7 s: the fast suite stays under 5 minutes on 2 cores)
def test_cli_check_and_run_exit_status_and_no_traceback(case):
    _desc, data = case
    raw = data if isinstance(data, bytes) else data.encode("utf-8")
    with tempfile.TemporaryDirectory(prefix="recycle-fuzz-") as tmp, watchdog(HANG):
        path = Path(tmp) / FILENAME
        path.write_bytes(raw)
        assert_cli_agrees(path, exercise(raw))


@pytest.mark.parametrize(
    "name",
    [
        "not UTF-8 in the middle",
        "unclosed",
        "huge player count",
        "huge repeat",
        "huge index",
        "deep nesting 5000",
        "empty text",
        "only a BOM",
    ],
)
def test_cli_on_crafted_bad_files(tmp_path, name):
    data = CRAFTED[name]
    path = tmp_path / "bad.rcy"
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    expected = exercise(path.read_bytes())
    assert expected != "ok"
    assert_cli_agrees(path, expected)
