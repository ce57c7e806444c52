"""A dry run's state kept and put back (``dry_state``), for the native runtime
(recycle/native/runtime.py): a block of items whose options are worked out on the state itself
(recycle/native/forms_blocks.py) keeps what the run may change and puts it back, and only what
it changed; each level of nesting has an area of its own (``dry_size``: engine.py makes them)."""

from __future__ import annotations

from .runtime import CAPACITY, CHANCE_N, PSP, STATUS, TSP
from .runtime_cells import copy_cells_at, same_cells


# dry_state's area of one level (dry[level]): a header; the point maps as they were when last
# kept (kept again only when their version changed since: a game sets them seldom); the
# storages, the card places, each location's version, where each one's cards start (and where
# the last one's end), then the cards. After a dry run is put back the area is the state's
# again, versions and all: the next keep of a state no location of which changed since (the
# next option's dry run) copies only the storages and the turn.
(
    D_PTS_KEPT,  # the version of the point maps the copy holds, plus one (0: no copy)
    D_PTS_VER,  # the point maps' version when the state was kept
    D_KEPT,  # 1 when the locations and card places are the state's as of their versions
    D_PSP,
    D_TSP,
    D_CHANCE,
    D_PST0,
    D_PST1,
    D_TST0,
    D_TST1,
) = range(10)
D_HEADER = 10


def dry_size(nlocs, ncards, nints, nstrs, npts):
    """The room of one level of ``dry_state`` (called from Python: engine.py): the header, the
    point maps, the storages and card places, each location's version and start, and the cards
    (a mem location holds references: room for every card twice)."""
    return D_HEADER + npts + nints + nstrs + ncards + 2 * nlocs + 1 + 2 * ncards


def dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry, back):
    """A dry run's state kept and put back. The options of a block of items are worked out on
    the state itself (recycle/lang/forms/items.py, compose): ``back=False`` keeps in ``dry`` what
    the run may change (locations, card places, storages, point maps, the turn, the chance
    stream's count: its draws are drawn again for real, as Python rewinds them), ``back=True``
    puts it back. Every change of a location counts in ``ver`` (and of the point maps in its
    last cell), so only what the run changed is put back, and given a new version, so that no
    answer remembered during the run is taken for the state's; what it did not change keeps
    its version and the answers remembered for it."""
    if back:
        _dry_back(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry)
    else:
        _dry_keep(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry)


def _dry_keep(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry):
    pv = ver[ver.shape[0] - 1]
    dry[D_PTS_VER] = pv
    if dry[D_PTS_KEPT] != pv + 1:  # the point maps changed since they were last kept here
        k = D_HEADER
        for r in range(pts.shape[0]):
            for c in range(pts.shape[1]):
                dry[k] = pts[r, c]
                k += 1
        dry[D_PTS_KEPT] = pv + 1
    k = D_HEADER + pts.shape[0] * pts.shape[1]
    copy_cells_at(dry, k, ints, 0, ints.shape[0])
    k += ints.shape[0]
    for j in range(strs.shape[0]):
        dry[k + j] = strs[j]
    k += strs.shape[0]
    dry[D_PSP], dry[D_TSP], dry[D_CHANCE] = ctr[PSP], ctr[TSP], ctr[CHANCE_N]
    dry[D_PST0], dry[D_PST1] = pst[ctr[PSP], 0], pst[ctr[PSP], 1]
    dry[D_TST0], dry[D_TST1] = tst[ctr[TSP], 0], tst[ctr[TSP], 1]
    nl = lens.shape[0]
    vers = k + card_loc.shape[0]
    if dry[D_KEPT] == 1 and same_cells(ver, 0, dry, vers, nl):
        return  # no location changed since the area was the state's: nor did a card's place
    dry[D_KEPT] = 0
    for j in range(card_loc.shape[0]):
        dry[k + j] = card_loc[j]
    starts = vers + nl
    at = starts + nl + 1
    for i in range(nl):
        dry[vers + i] = ver[i]
        dry[starts + i] = at
        at += lens[i]
    dry[starts + nl] = at
    if at > dry.shape[0]:
        ctr[STATUS] = CAPACITY  # Python plays the rollout
        return
    for i in range(nl):
        at = dry[starts + i]
        for j in range(lens[i]):
            dry[at + j] = locs[i, j]
    dry[D_KEPT] = 1


def _dry_back(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry):
    if dry[D_KEPT] == 0:  # not kept whole (CAPACITY): the rollout stops, nothing to put back
        return
    last = ver.shape[0] - 1
    if ver[last] != dry[D_PTS_VER]:  # the run set a point map
        k = D_HEADER
        for r in range(pts.shape[0]):
            for c in range(pts.shape[1]):
                pts[r, c] = dry[k]
                k += 1
        ver[last] += 1
        dry[D_PTS_KEPT] = ver[last] + 1
    k = D_HEADER + pts.shape[0] * pts.shape[1]
    copy_cells_at(ints, 0, dry, k, ints.shape[0])
    k += ints.shape[0]
    for j in range(strs.shape[0]):
        strs[j] = dry[k + j]
    k += strs.shape[0]
    ctr[PSP], ctr[TSP], ctr[CHANCE_N] = dry[D_PSP], dry[D_TSP], dry[D_CHANCE]
    pst[ctr[PSP], 0], pst[ctr[PSP], 1] = dry[D_PST0], dry[D_PST1]
    tst[ctr[TSP], 0], tst[ctr[TSP], 1] = dry[D_TST0], dry[D_TST1]
    nl = lens.shape[0]
    vers = k + card_loc.shape[0]
    starts = vers + nl
    for b in range(0, nl, SCAN):  # (a block of locations none of which changed is passed at once)
        m = SCAN if b + SCAN <= nl else nl - b
        if same_cells(ver, b, dry, vers + b, m):
            continue
        for i in range(b, b + m):
            if ver[i] != dry[vers + i]:  # changed by the run: put back, under a new version
                at = dry[starts + i]
                n = dry[starts + i + 1] - at
                lens[i] = n
                for j in range(n):
                    c = dry[at + j]
                    locs[i, j] = c
                    # a card whose place the run changed left a location it changed: the
                    # place kept is put back (a mem location's entries keep theirs)
                    card_loc[c] = dry[k + c]
                ver[i] += 1
                dry[vers + i] = ver[i]


SCAN = 8  # locations compared at once (same_cells) when looking for those a dry run changed
