"""A dry run's state kept and put back (recycle/native/runtime.py, ``dry_state``): only what the
run changed is put back and given a new version; what it did not change keeps its version (and
so the answers remembered for it); a keep of a state no location of which changed since the
last put-back copies no location again. The runtime is plain Python on NumPy arrays, so it is
run here as Python; that the translated C plays the same games is the differential tests' work
(test_native.py, tools/native_check.py)."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

from recycle.native import runtime as rt  # noqa: E402
from recycle.native import runtime_dry as rd  # noqa: E402

NLOCS, NCARDS = 6, 8


def _state():
    locs = np.zeros((NLOCS, NCARDS), np.int32)
    lens = np.zeros(NLOCS, np.int32)
    card_loc = np.zeros(NCARDS, np.int32)
    for c in range(NCARDS):  # cards 0..4 in location 0, 5..7 in location 1
        loc = 0 if c < 5 else 1
        locs[loc, lens[loc]] = c
        lens[loc] += 1
        card_loc[c] = loc
    ints = np.arange(3, dtype=np.int64)
    strs = np.zeros(1, np.int32)
    pts = np.arange(2 * NCARDS, dtype=np.int64).reshape(2, NCARDS)
    pst = np.zeros((4, 2), np.int64)
    tst = np.zeros((4, 2), np.int64)
    ctr = np.zeros(rt.NCOUNTERS, np.int64)
    ver = np.ones(NLOCS + 1, np.int64)  # (the last: the point maps')
    dry = np.zeros((2, rd.dry_size(NLOCS, NCARDS, ints.size, strs.size, pts.size)), np.int64)
    return locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry


def _cards(locs, lens):
    return [list(locs[i, : lens[i]]) for i in range(NLOCS)]


def test_only_what_the_dry_run_changed_is_put_back_under_a_new_version():
    locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry = _state()
    state = (locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver)
    before = (_cards(locs, lens), card_loc.copy(), ints.copy(), pts.copy())
    rd.dry_state(*state, dry[0], False)
    rt.move_top(locs, lens, ver, card_loc, ctr, 0, 2)  # the run: a card from 0 to 2, a storage set
    ints[1] = 99
    moved = ver.copy()
    rd.dry_state(*state, dry[0], True)
    assert (_cards(locs, lens), list(card_loc), list(ints), pts.tolist()) == (
        before[0],
        list(before[1]),
        list(before[2]),
        before[3].tolist(),
    )
    # locations 0 and 2 changed: new versions, past the run's; the others and the point maps keep theirs
    assert ver[0] > moved[0] and ver[2] > moved[2]
    assert [int(ver[i]) for i in (1, 3, 4, 5, NLOCS)] == [1, 1, 1, 1, 1]
    assert ctr[rt.STATUS] == 0


def test_a_point_map_set_by_the_run_is_put_back_and_versioned():
    locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry = _state()
    state = (locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver)
    kept = pts.copy()
    rd.dry_state(*state, dry[0], False)
    rt.set_row(pts, 1, np.full(NCARDS, 7, np.int64))
    ver[NLOCS] += 1  # as the writer's (set (game points ...)) does
    rd.dry_state(*state, dry[0], True)
    assert pts.tolist() == kept.tolist() and ver[NLOCS] == 3
    # a run that sets no point map: the maps are neither copied nor versioned again
    pts[0, 0] = -5  # (a change no version counts: never made by a game; shows nothing is copied back)
    rd.dry_state(*state, dry[0], False)
    rd.dry_state(*state, dry[0], True)
    assert pts[0, 0] == -5 and ver[NLOCS] == 3


def test_nested_dry_runs_put_back_each_level():
    locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry = _state()
    state = (locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver)
    before = _cards(locs, lens)
    rd.dry_state(*state, dry[0], False)
    rt.move_top(locs, lens, ver, card_loc, ctr, 0, 3)
    middle, middle_places = _cards(locs, lens), card_loc.copy()
    rd.dry_state(*state, dry[1], False)
    rt.move_all(locs, lens, ver, card_loc, ctr, 3, 4)
    rt.move_top(locs, lens, ver, card_loc, ctr, 1, 5)
    rd.dry_state(*state, dry[1], True)
    assert _cards(locs, lens) == middle and list(card_loc) == list(middle_places)
    rd.dry_state(*state, dry[0], True)
    assert _cards(locs, lens) == before
    assert [int(card_loc[c]) for c in range(NCARDS)] == [0] * 5 + [1] * 3


def test_a_keep_after_a_put_back_copies_no_location_again():
    locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry = _state()
    state = (locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver)
    rd.dry_state(*state, dry[0], False)
    rt.move_top(locs, lens, ver, card_loc, ctr, 0, 2)
    rd.dry_state(*state, dry[0], True)
    # the area is the state's again: a keep of the unchanged state leaves its cards' copy alone
    # (marked here to show it), and the put-back after a run restores from it
    area = dry[0].copy()
    rd.dry_state(*state, dry[0], False)
    assert dry[0].tolist() == area.tolist()
    rt.move_top(locs, lens, ver, card_loc, ctr, 1, 2)
    rd.dry_state(*state, dry[0], True)
    assert _cards(locs, lens)[:3] == [[0, 1, 2, 3, 4], [5, 6, 7], []]
    # a location changed for real before the next keep: the locations are copied again
    rt.move_top(locs, lens, ver, card_loc, ctr, 0, 5)
    rd.dry_state(*state, dry[0], False)
    rt.move_top(locs, lens, ver, card_loc, ctr, 5, 4)
    rd.dry_state(*state, dry[0], True)
    assert _cards(locs, lens)[4:] == [[], [4]] and card_loc[4] == 5


def test_a_state_too_large_to_keep_stops_the_rollout_and_puts_nothing_back():
    locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry = _state()
    state = (locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver)
    small = dry[0][: rd.dry_size(NLOCS, NCARDS, ints.size, strs.size, pts.size) - NCARDS - 1]
    rd.dry_state(*state, small, False)
    assert ctr[rt.STATUS] == rt.CAPACITY
    rt.move_top(locs, lens, ver, card_loc, ctr, 0, 2)
    rd.dry_state(*state, small, True)  # nothing kept whole: nothing put back (Python plays the rollout)
    assert lens[2] == 1
