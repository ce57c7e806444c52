"""Conditions and unions read a location's cards where they lie (recycle/native/forms_exprs.py,
recycle/lang/forms/form_views.py): no snapshot copied to the scratch stack first, which cost
Hearts a tenth of its instructions (docs/performance.md, instruction counts). That they play
the same games is the differential tests' work (test_native.py, tools/native_check.py)."""

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


def test_a_partition_of_a_location_reads_it_in_place():
    source = native_source(recycle.load(GAMES / "schwimmen.rcy"))
    assert source.count("partition_loc(locs, lens, scratch, ctr, ") >= 5
    assert "partition(scratch, ctr, cards_of(" not in source


def test_a_partition_in_place_makes_the_groups_of_the_snapshot_s():
    np = pytest.importorskip("numpy")
    from recycle.native import runtime as rt
    from recycle.native import runtime_groups as rg

    rng = np.random.default_rng(5)
    column = rng.integers(1, 5, 20).astype(np.int32)
    locs = np.zeros((3, 20), np.int32)
    lens = np.array([0, 7, 20], np.int32)
    for loc in range(3):
        locs[loc, : lens[loc]] = rng.permutation(20)[: lens[loc]]

    def groups(scratch, g):
        return [list(scratch[v + 1 : v + 1 + scratch[v]]) for v in scratch[g + 1 : g + 1 + scratch[g]]]

    for loc in range(3):
        a, b = np.zeros(500, np.int32), np.zeros(500, np.int32)
        ca, cb = np.zeros(rt.NCOUNTERS, np.int64), np.zeros(rt.NCOUNTERS, np.int64)
        ca[rt.SP] = cb[rt.SP] = 1
        got = rg.partition_loc(locs, lens, a, ca, loc, column)
        want = rg.partition(b, cb, rt.cards_of(locs, lens, b, cb, loc), column)
        assert groups(a, got) == groups(b, want)
        keys = [column[c] for c in locs[loc, : lens[loc]]]
        assert [column[grp[0]] for grp in groups(a, got)] == list(dict.fromkeys(keys))  # first appearance
    # no room: CAPACITY, the empty view
    small, ctr = np.zeros(30, np.int32), np.zeros(rt.NCOUNTERS, np.int64)
    ctr[rt.SP] = 1
    assert rg.partition_loc(locs, lens, small, ctr, 2, column) == 0 and ctr[rt.STATUS] == rt.CAPACITY
