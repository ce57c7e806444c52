"""The fuzzer's hostile shapes and hand-edited game records, briefly (``tools/fuzz.py`` runs
them at scale).

* Games whose work multiplies — nested repeat/all/any/filter, ranges inside any/all/filter/
  sum/size in an end condition, a conditional, a ``set`` value, scoring and a choice, wide
  choices — in their *small* form: each ends or fails cleanly within the time bound.
  TODO(issue 12, section 2): the *big* form (``shaped_inputs(big=True)``: ranges up to
  200,000, four-deep nests, 50,000-option choices) joins the suite once every loop inside an
  expression draws from the work budget; until then ``tools/fuzz.py --kind shapes`` reports
  those inputs as slow or hung, with their text saved.
* Game records edited by hand (missing or mistyped fields, tampered seeds, players, hashes,
  decisions, deals and scores, deep nesting, junk bytes, paths to devices): each is refused,
  stops on a ``RecycleError``, or replays — never a crash, and never "identical" when it
  changed what determines the game.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, example, given, settings

from recycle.study.fuzzing import base_record, exercise, exercise_record, record_inputs, shaped_inputs, tampered_field

SHAPES = settings(max_examples=40, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
RECORDS = settings(max_examples=25, deadline=None, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SHAPES
@given(shaped_inputs(big=False))
def test_small_multiplying_shapes_run_or_fail_cleanly(case):
    desc, text = case
    assert exercise(text) in ("ok", "compile error", "runtime error", "step limit")


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
