"""The fuzzer's hostile shapes and hand-edited game records, briefly (``tools/fuzz.py`` runs
them at scale).

* Games whose work multiplies — nested repeat/all/any/filter, ranges inside any/all/filter/
  sum/size in an end condition, a conditional, a ``set`` value, a ``let``, a repeat count, a
  move's index, a point map's award, scoring and a choice, wide choices, actions repeated on a
  huge deck — in their *small* form and in their *big* one (``shaped_inputs(big=True)``:
  ranges up to 200,000, four-deep nests, 50,000-option choices, 40,000-card decks), the big
  ones with a work budget of 1,000,000 (a tenth of the default: the same limits strike,
  sooner): each ends or stops with a positioned message, within its time bound.
* Game records edited by hand (missing or mistyped fields, tampered seeds, players, hashes,
  decisions, deals and scores, deep nesting, junk bytes, paths to devices): each is refused,
  stops on a ``RecycleError``, or replays — never a crash, and never "identical" when it
  changed what determines the game.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, example, given, settings

from recycle.study.fuzzing import BIG_ACTIONS, SHAPE_SKELETON, big_deck, exercise, shaped_inputs
from recycle.study.recordfuzz import base_record, exercise_record, record_inputs, tampered_field

from ..helpers import fuzz_tool

SHAPES = settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
RECORDS = settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SHAPES
@given(shaped_inputs(big=False))
def test_small_multiplying_shapes_run_or_fail_cleanly(case):
    _desc, text = case
    assert exercise(text) in ("ok", "compile error", "runtime error", "step limit")


BIG_SHAPES = settings(
    max_examples=12,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
CLEAN = ("ok", "compile error", "runtime error", "step limit")


@BIG_SHAPES
@given(shaped_inputs(big=True))
def test_big_multiplying_shapes_end_or_stop_cleanly(case):
    desc, text = case
    # a generous bound: the suite shares the machine; tools/fuzz.py holds them to 5 s
    assert exercise(text, max_work=1_000_000, time_bound=20) in CLEAN, desc


@pytest.mark.parametrize("action", BIG_ACTIONS)
def test_actions_repeated_on_a_huge_deck_stop_on_the_work_budget(action):
    text = SHAPE_SKELETON.format(
        deck=big_deck(200, 200),
        setup=f"(repeat 100000 {action})",
        end="(== 1 0)",
        body="(do ((turn pass)))",
        scoring="(game sto X)",
    )
    assert exercise(text, max_work=1_000_000, time_bound=20) == "step limit"


@pytest.mark.slow  # (5-6 s: the fast suite must stay under 5 minutes on 2 cores)
def test_the_fuzz_tool_reports_outcomes_and_peak_memory(tmp_path, capsys):
    fuzz = fuzz_tool()
    assert "memory" in fuzz.FAILURES and "hang" in fuzz.FAILURES
    assert (
        fuzz.main(
            [
                "--kind",
                "shapes",
                "-n",
                "3",
                "--seed",
                "1",
                "--workers",
                "1",
                "--timeout",
                "60",
                "--time-bound",
                "30",
                "--out",
                str(tmp_path / "out"),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "3 shapes inputs" in out and "no failures" in out
    assert "peak memory of a worker" in out and "MB (bound 2048 MB), of the parent" in out


class Blob:
    """A stand-in input that counts how many exist in this process."""

    live = 0

    def __init__(self, i):
        self.i = i
        Blob.live += 1

    def __del__(self):
        Blob.live -= 1

    def __reduce__(self):  # sent to a worker as a plain number
        return int, (self.i,)


def test_the_fuzz_tool_draws_inputs_as_the_workers_ask(tmp_path, capsys, monkeypatch):
    """20,000 inputs drawn up front took the parent past 20 GB: it must hold one batch (plus
    the inputs being run) at most, and draw the next batch only when the last is used up."""
    fuzz = fuzz_tool()
    size, n, jobs = 4, 40, 2
    drawn = []  # batch numbers, in the order drawn
    most = [0]  # the most stand-in inputs alive in this process at once

    def fake_batch(b, seed, kind, size):
        drawn.append(b)
        batch = [(f"fake {b * size + k}", "rcy", Blob(b * size + k), None) for k in range(size)]
        most[0] = max(most[0], Blob.live)
        return batch

    submitted = []  # (input number, batches drawn so far)
    real_submit = fuzz.Worker.submit

    def spy_submit(self, idx, kind, data, extra):
        submitted.append((idx, len(drawn)))
        most[0] = max(most[0], Blob.live)
        real_submit(self, idx, kind, data, extra)

    monkeypatch.setattr(fuzz, "generate_batch", fake_batch)
    monkeypatch.setattr(fuzz, "run_one", lambda kind, data, extra, max_steps: "ok")  # forked workers see it
    monkeypatch.setattr(fuzz.Worker, "submit", spy_submit)
    assert (
        fuzz.main(
            [
                "--kind",
                "mutate",
                "-n",
                str(n),
                "--batch",
                str(size),
                "--workers",
                str(jobs),
                "--out",
                str(tmp_path / "out"),
            ]
        )
        == 0
    )
    assert f"{n} mutate inputs" in capsys.readouterr().out
    assert drawn == list(range(n // size))
    assert sorted(idx for idx, _ in submitted) == list(range(n))
    assert submitted[0] == (0, 1)  # the first input runs before a second batch is drawn
    assert all(batches == idx // size + 1 for idx, batches in submitted)
    assert most[0] <= size + jobs

    # the generator on its own: lazy, numbered, and input i drawn again from its number
    drawn.clear()
    gen = fuzz.generate_inputs(10, 0, "mutate", size)
    assert drawn == []
    assert next(gen)[0] == 0 and drawn == [0]
    assert [i for i, _ in gen] == list(range(1, 10)) and drawn == [0, 1, 2]


def test_a_fuzz_input_is_drawn_again_from_its_number():
    fuzz = fuzz_tool()
    inputs = dict(fuzz.generate_inputs(7, 3, "mutate", size=3))
    assert len(inputs) == 7
    for i in (0, 4, 6):
        assert fuzz.input_number(i, 3, "mutate", size=3) == inputs[i]


@RECORDS
@given(record_inputs())
@example(("unchanged", json.dumps(base_record()[1]).encode(), ""))
@example(("nested 100000 deep", b"[" * 100_000 + b"]" * 100_000, ""))
def test_hand_edited_records_are_checked_not_trusted(case):
    desc, raw, tampered = case
    outcome = exercise_record(raw, tampered)
    assert outcome in ("refused", "error", "differs", "identical")
    if desc == "unchanged":
        assert outcome == "identical"


def test_tampering_is_judged_on_the_record_as_read():
    _, rec = base_record()
    assert tampered_field(rec) == ""
    rec["seed"] = -rec["seed"]
    assert tampered_field(rec) == "seed"
    _, rec = base_record()
    rec["players"] = rec["players"][:-1]
    assert tampered_field(rec) == "players"
    assert tampered_field(None) == ""
