"""What a generated native module calls for mem locations (references to cards, which stay
where they lie: recycle/lang/actions.py, remember and forget), cards moved out of views, and runs
of cards."""

from __future__ import annotations

from numba import njit

from .runtime import CAPACITY, RULE, SP, STATUS, WORK, alloc


@njit(cache=True, nogil=True, _nrt=False)
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


@njit(cache=True, nogil=True, _nrt=False)
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


@njit(cache=True, nogil=True, _nrt=False)
def run_of(scratch, ctr, v, low, from_top, pts, row):
    """(run top|bottom N CARDS using POINTS) of the view ``v`` (recycle/lang/expr_locs.py,
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


@njit(cache=True, nogil=True, _nrt=False)
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


@njit(cache=True, nogil=True, _nrt=False)
def drop_picked(scratch, v, top):
    """A card moved out of view ``v`` by its top (bottom) leaves the view too, as a move out of
    a view drops the entry picked (recycle/lang/actions.py, a_move)."""
    n = scratch[v]
    if n == 0:
        return
    if not top:
        for k in range(n - 1):
            scratch[v + 1 + k] = scratch[v + 2 + k]
    scratch[v] = n - 1


MAX_TUPLE = 64  # as recycle.lang.shapes.MAX_TUPLE
MAX_GROUPS = 200_000  # as recycle.lang.shapes.MAX_COLLECTION


@njit(cache=True, nogil=True, _nrt=False)
def tuples_of(scratch, ctr, v, k, pts, row):
    """(tuples K CARDS using POINTS): every K-card combination of cards of one score, scores
    ascending, each score's combinations in the cards' order (itertools.combinations), as a
    group list (see runtime.SCRATCH) made in one block of the stack. A K outside 1..MAX_TUPLE
    or too many groups breaks the rule, as in Python (recycle/lang/expr_groups.py)."""
    n = scratch[v]
    if k < 1 or k > MAX_TUPLE:
        ctr[STATUS] = RULE
        return 0
    # the distinct scores, ascending, and how many groups each makes: C(m, k)
    order = alloc(scratch, ctr, n)  # the cards sorted by score, stable (insertion sort)
    if order == 0:
        return 0
    for j in range(n):
        c = scratch[v + 1 + j]
        s = pts[row, c]
        i = j
        while i > 0 and pts[row, scratch[order + i]] > s:
            scratch[order + 1 + i] = scratch[order + i]
            i -= 1
        scratch[order + 1 + i] = c
    groups = 0
    start = 0
    while start < n:
        end = start
        while end < n and pts[row, scratch[order + 1 + end]] == pts[row, scratch[order + 1 + start]]:
            end += 1
        m = end - start
        if m >= k:
            combos = 1
            for t in range(k):  # C(m, k), exactly, one factor at a time
                combos = combos * (m - t) // (t + 1)
                if combos > MAX_GROUPS:
                    break
            groups += combos
            if groups > MAX_GROUPS:
                ctr[STATUS] = RULE
                return 0
        start = end
    g = ctr[SP]
    size = 1 + groups + groups * (k + 1) + k
    if g + size > scratch.shape[0]:
        ctr[STATUS] = CAPACITY
        scratch[0] = 0
        return 0
    idx = g + size - k  # the current combination's indexes, past the block's groups
    scratch[g] = groups
    at = g + 1 + groups
    made = 0
    start = 0
    while start < n:
        end = start
        while end < n and pts[row, scratch[order + 1 + end]] == pts[row, scratch[order + 1 + start]]:
            end += 1
        m = end - start
        if m >= k:
            for t in range(k):
                scratch[idx + t] = t
            while True:
                scratch[g + 1 + made] = at
                scratch[at] = k
                for t in range(k):
                    scratch[at + 1 + t] = scratch[order + 1 + start + scratch[idx + t]]
                at += k + 1
                made += 1
                # the next combination in lexicographic order, as itertools.combinations
                t = k - 1
                while t >= 0 and scratch[idx + t] == t + m - k:
                    t -= 1
                if t < 0:
                    break
                scratch[idx + t] += 1
                for u in range(t + 1, k):
                    scratch[idx + u] = scratch[idx + u - 1] + 1
        start = end
    ctr[SP] = at
    return g


@njit(cache=True, nogil=True, _nrt=False)
def group_at(scratch, ctr, g, i):
    """The view of group ``i`` of the group list ``g`` (-1: its last); none such breaks the
    rule, as in Python (recycle/lang/expr_groups.py, c_group_pick)."""
    n = scratch[g]
    if i < 0:
        i += n
    if i < 0 or i >= n:
        ctr[STATUS] = RULE
        return 0
    return scratch[g + 1 + i]


@njit(cache=True, nogil=True, _nrt=False)
def runs_groups(scratch, ctr, v, nmin, largest, pts, row):
    """(runs largest|all N CARDS using POINTS): the runs of at least N cards whose scores rise
    by exactly 1 (each maximal run, or every run: by length, then by first score), one group per
    choice among cards of equal score (itertools.product order), as a group list made in one
    block of the stack (recycle/lang/shapes.py, find_runs). Too many groups break the rule."""
    n = scratch[v]
    if nmin < 1:
        nmin = 1
    tmp = alloc(scratch, ctr, 4 * n)
    if tmp == 0:
        return 0
    order, vstart = tmp + 1, tmp + 1 + n  # the cards by score (stable); each score's first
    vcount, odo = tmp + 1 + 2 * n, tmp + 1 + 3 * n  # how many share it; the product's counter
    for j in range(n):
        c = scratch[v + 1 + j]
        s = pts[row, c]
        i = j
        while i > 0 and pts[row, scratch[order + i - 1]] > s:
            scratch[order + i] = scratch[order + i - 1]
            i -= 1
        scratch[order + i] = c
    nv = 0
    j = 0
    while j < n:
        e = j
        while e < n and pts[row, scratch[order + e]] == pts[row, scratch[order + j]]:
            e += 1
        scratch[vstart + nv] = j
        scratch[vcount + nv] = e - j
        nv += 1
        j = e
    groups = 0
    cells = 0
    g = 0
    at = 0
    made = 0
    for writing in range(2):  # count the groups, then write them
        if writing:
            g = ctr[SP]
            if g + 1 + groups + cells + groups > scratch.shape[0]:
                ctr[STATUS] = CAPACITY
                scratch[0] = 0
                return 0
            scratch[g] = groups
            at = g + 1 + groups
        i = 0
        while i < nv:
            last = i
            while last + 1 < nv and pts[row, scratch[order + scratch[vstart + last + 1]]] \
                    == pts[row, scratch[order + scratch[vstart + last]]] + 1:
                last += 1
            size = last - i + 1
            low = size if largest else nmin
            for k in range(low, size + 1):
                if k < nmin:
                    continue
                for a in range(size - k + 1):
                    first = i + a
                    prod = 1
                    for t in range(k):
                        prod *= scratch[vcount + first + t]
                    if not writing:
                        groups += prod
                        cells += prod * k
                        if groups > MAX_GROUPS:
                            ctr[STATUS] = RULE
                            return 0
                        continue
                    for t in range(k):
                        scratch[odo + t] = 0
                    for _ in range(prod):
                        scratch[g + 1 + made] = at
                        scratch[at] = k
                        for t in range(k):
                            scratch[at + 1 + t] = scratch[order + scratch[vstart + first + t] + scratch[odo + t]]
                        at += k + 1
                        made += 1
                        t = k - 1  # the next choice: the last score's card varies fastest
                        while t >= 0:
                            scratch[odo + t] += 1
                            if scratch[odo + t] < scratch[vcount + first + t]:
                                break
                            scratch[odo + t] = 0
                            t -= 1
            i = last + 1
    ctr[SP] = at
    return g


MAX_SUBSET_CARDS = 16  # as recycle/lang/expr_groups.py, groups_subsets


@njit(cache=True, nogil=True, _nrt=False)
def subsets_of(scratch, ctr, v):
    """(subsets CARDS): every subset of the cards, by size (the empty one first), each size's
    in itertools.combinations order, as a group list made in one block of the stack; more than
    MAX_SUBSET_CARDS cards break the rule, as in Python (recycle/lang/expr_groups.py)."""
    n = scratch[v]
    if n > MAX_SUBSET_CARDS:
        ctr[STATUS] = RULE
        return 0
    groups = 1 << n
    g = ctr[SP]
    size = 1 + groups + groups + n * (groups >> 1) + n  # the views, the groups, then room for indexes
    if g + size > scratch.shape[0]:
        ctr[STATUS] = CAPACITY
        scratch[0] = 0
        return 0
    idx = g + size - n
    scratch[g] = groups
    at = g + 1 + groups
    made = 0
    for k in range(n + 1):
        for t in range(k):
            scratch[idx + t] = t
        while True:
            scratch[g + 1 + made] = at
            scratch[at] = k
            for t in range(k):
                scratch[at + 1 + t] = scratch[v + 1 + scratch[idx + t]]
            at += k + 1
            made += 1
            t = k - 1  # the next combination in lexicographic order
            while t >= 0 and scratch[idx + t] == t + n - k:
                t -= 1
            if t < 0:
                break
            scratch[idx + t] += 1
            for u in range(t + 1, k):
                scratch[idx + u] = scratch[idx + u - 1] + 1
    ctr[SP] = at
    return g
