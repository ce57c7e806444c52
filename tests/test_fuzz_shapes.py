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

from recycle.study.fuzzing import (BIG_ACTIONS, SHAPE_SKELETON, base_record, big_deck, exercise, exercise_record,
                                   record_inputs, shaped_inputs, tampered_field)

SHAPES = settings(max_examples=40, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
RECORDS = settings(max_examples=25, deadline=None, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SHAPES
@given(shaped_inputs(big=False))
def test_small_multiplying_shapes_run_or_fail_cleanly(case):
    desc, text = case
    assert exercise(text) in ("ok", "compile error", "runtime error", "step limit")


BIG_SHAPES = settings(max_examples=12, deadline=None, database=None,
                      suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
CLEAN = ("ok", "compile error", "runtime error", "step limit")


@BIG_SHAPES
@given(shaped_inputs(big=True))
def test_big_multiplying_shapes_end_or_stop_cleanly(case):
    desc, text = case
    # a generous bound: the suite shares the machine; tools/fuzz.py holds them to 5 s
    assert exercise(text, max_work=1_000_000, time_bound=20) in CLEAN, desc


@pytest.mark.parametrize("action", BIG_ACTIONS)
def test_actions_repeated_on_a_huge_deck_stop_on_the_work_budget(action):
    text = SHAPE_SKELETON.format(deck=big_deck(200, 200), setup=f"(repeat 100000 {action})", end="(== 1 0)",
                                 body="(do ((turn pass)))", scoring="(game sto X)")
    assert exercise(text, max_work=1_000_000, time_bound=20) == "step limit"


def test_the_fuzz_tool_reports_outcomes_and_peak_memory(tmp_path, capsys):
    import importlib.util

    from .conftest import ROOT

    spec = importlib.util.spec_from_file_location("tool_fuzz", ROOT / "tools" / "fuzz.py")
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    assert "memory" in fuzz.FAILURES and "hang" in fuzz.FAILURES
    assert fuzz.main(["--kind", "shapes", "-n", "3", "--seed", "1", "--workers", "1", "--timeout", "60",
                      "--time-bound", "30", "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "3 shapes inputs" in out and "no failures" in out
    assert "peak memory of a worker" in out and "MB (bound 2048 MB)" in out


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
