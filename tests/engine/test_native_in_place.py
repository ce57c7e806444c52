"""Conditions and unions read a location's cards where they lie (recycle/native/forms_exprs.py):
no snapshot copied to the scratch stack first, which cost Hearts a tenth of its instructions
(docs/performance.md, instruction counts). That they play the same games is the differential
tests' work (test_native.py, tools/native_check.py)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

import recycle
from recycle.native.engine import native_source

from ..conftest import GAMES


def _functions(source: str, *prefixes: str) -> dict[str, str]:
    pattern = rf"\ndef ((?:{'|'.join(prefixes)})_\d+)\(.*?(?=\ndef |\Z)"
    return {m.group(1): m.group(0) for m in re.finditer(pattern, source, re.S)}


def test_filters_any_all_and_unions_copy_no_location():
    source = native_source(recycle.load(GAMES / "hearts.rcy"))
    fns = _functions(source, "filter", "union", "any_of", "all_of")
    assert len(fns) >= 10
    assert [name for name, body in fns.items() if "cards_of(" in body] == []
    # some read a hand in place, and the unions append the tricks' cards from where they lie
    assert sum("locs[" in body for name, body in fns.items() if name.startswith("filter")) >= 3
    assert all("append_loc(" in body for name, body in fns.items() if name.startswith("union"))
