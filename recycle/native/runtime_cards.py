"""What a generated native module calls for mem locations (references to cards, which stay
where they lie: recycle/lang/forms/form_moves.py, remember and forget), cards moved out of views, runs
of cards, and integers checked against the reference's 64-bit range (add_ck, sub_ck, mul_ck)."""

from __future__ import annotations

from .runtime import CAPACITY, INT_LIMIT, RULE, STATUS, WORK, alloc


def put_reference(locs, lens, ver, ctr, c, dst, where):
    """(remember CARD ...): card ``c`` put into the mem location ``dst`` on top (-1) or at the
    bottom (0) as a reference: the card stays where it lies (``card_loc`` unchanged)."""
    n = lens[dst]
    if n >= locs.shape[1]:
        ctr[STATUS] = CAPACITY
        return
    ver[dst] += 1
    if where < 0:
        locs[dst, n] = c
    else:
        for j in range(n, 0, -1):
            locs[dst, j] = locs[dst, j - 1]
        locs[dst, 0] = c
    lens[dst] = n + 1


def drop_entry(locs, lens, ver, ctr, loc, top):
    """(forget (top|bottom MEMLOCATION)): the entry dropped; a rule broken when there is none."""
    n = lens[loc]
    if n == 0:
        ctr[STATUS] = RULE
        return
    ver[loc] += 1
    if not top:
        for j in range(n - 1):
            locs[loc, j] = locs[loc, j + 1]
    lens[loc] = n - 1


def run_of(scratch, ctr, v, low, from_top, pts, row):
    """(run top|bottom N CARDS using POINTS) of the view ``v`` (recycle/lang/forms/form_views.py,
    loc_run): the largest k >= max(N, 1) such that the k topmost (bottommost) cards, sorted by
    score (stably), have scores rising by exactly 1: a view of those cards, sorted; empty when
    no k works."""
    n = scratch[v]
    low = max(low, 1)
    if low <= n:
        ctr[WORK] += (n + low) * (n - low + 1) // 2
    out = alloc(scratch, ctr, n)
    if out == 0:
        return 0
    best = 0
    for k in range(low, n + 1):
        _sorted_chunk(scratch, v, out, k, from_top, pts, row)
        ok = True
        for i in range(k - 1):
            if pts[row, scratch[out + 2 + i]] - pts[row, scratch[out + 1 + i]] != 1:
                ok = False
                break
        if ok:
            best = k
    _sorted_chunk(scratch, v, out, best, from_top, pts, row)
    scratch[out] = best
    return out


def _sorted_chunk(scratch, v, out, k, from_top, pts, row):
    """The k topmost (bottommost) cards of view ``v``, in their order, sorted by score stably
    (insertion sort, as Python's ``sorted``), into ``out``'s cards."""
    n = scratch[v]
    start = n - k if from_top else 0
    for i in range(k):
        c = scratch[v + 1 + start + i]
        j = i
        while j > 0 and pts[row, scratch[out + j]] > pts[row, c]:  # (position j - 1 lies at out + j)
            scratch[out + 1 + j] = scratch[out + j]
            j -= 1
        scratch[out + 1 + j] = c


def drop_picked(scratch, v, top):
    """A card moved out of view ``v`` by its top (bottom) leaves the view too, as a move out of
    a view drops the entry picked (recycle/lang/forms/form_moves.py, a_move)."""
    n = scratch[v]
    if n == 0:
        return
    if not top:
        for k in range(n - 1):
            scratch[v + 1 + k] = scratch[v + 2 + k]
    scratch[v] = n - 1


# The reference's integers are within +-(2**63 - 1), an error beyond (form_arithmetic.py); the
# C wraps (-fwrapv). A sum, difference or product that may leave that range sets CAPACITY: the
# reference interpreter plays the game again, which says whether it did (a chain's parts are
# checked one by one, where the reference checks the total: a false alarm is only replayed).
NEAR_LIMIT = 9.1e18  # a float product below it is certainly within the range


def add_ck(ctr, a, b):
    """a + b, CAPACITY where it leaves the reference's range."""
    r = a + b
    if ((a >= 0) == (b >= 0) and (r >= 0) != (a >= 0)) or r < -INT_LIMIT:
        ctr[STATUS] = CAPACITY
    return r


def sub_ck(ctr, a, b):
    """a - b, CAPACITY where it leaves the reference's range."""
    r = a - b
    if ((a >= 0) != (b >= 0) and (r >= 0) != (a >= 0)) or r < -INT_LIMIT:
        ctr[STATUS] = CAPACITY
    return r


def mul_ck(ctr, a, b):
    """a * b, CAPACITY where it may leave the reference's range."""
    f = float(a) * float(b)
    if f > NEAR_LIMIT or f < -NEAR_LIMIT:
        ctr[STATUS] = CAPACITY
    return a * b
