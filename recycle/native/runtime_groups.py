"""What a generated native module calls for group lists made of combinations of cards: tuples of
equal score, runs of rising scores, every subset (recycle/lang/forms/form_group_lists.py), and one group of a
group list. A group list is one block of the scratch stack (runtime.SCRATCH): [groups, each group's
view ...], then the groups, each [cards, card ...]; a block too large for the stack stops the game
(CAPACITY: Python plays it), a rule Python enforces breaks it here too (RULE)."""

from __future__ import annotations

from .runtime import CAPACITY, RULE, SP, STATUS, alloc

MAX_TUPLE = 64  # as recycle.lang.forms.shapes.MAX_TUPLE
MAX_GROUPS = 200_000  # as recycle.lang.forms.shapes.MAX_COLLECTION
MAX_SUBSET_CARDS = 16  # as recycle/lang/forms/form_group_lists.py, groups_subsets


def group_at(scratch, ctr, g, i):
    """The view of group ``i`` of the group list ``g`` (-1: its last); none such breaks the
    rule, as in Python (recycle/lang/forms/form_group_lists.py, c_group_pick)."""
    n = scratch[g]
    if i < 0:
        i += n
    if i < 0 or i >= n:
        ctr[STATUS] = RULE
        return 0
    return scratch[g + 1 + i]


def _by_score(scratch, v, out, pts, row):
    """The view ``v``'s cards into ``scratch[out:]`` sorted by score, stably (Python's sorted)."""
    for j in range(scratch[v]):
        c = scratch[v + 1 + j]
        s = pts[row, c]
        i = j
        while i > 0 and pts[row, scratch[out + i - 1]] > s:
            scratch[out + i] = scratch[out + i - 1]
            i -= 1
        scratch[out + i] = c


def _same_score_end(scratch, cards, start, n, pts, row):
    """Past the cards from ``start`` on (sorted) that share its score."""
    end = start
    while end < n and pts[row, scratch[cards + end]] == pts[row, scratch[cards + start]]:
        end += 1
    return end


def _combinations(scratch, g, at, made, cards, m, k, idx):
    """Write every ``k``-combination of the ``m`` cards at ``scratch[cards:]`` as groups of the
    list ``g`` (itertools.combinations order; ``idx``: room for k indexes past the block), from
    its group ``made`` and stack position ``at``; (at, made) after them."""
    if k > m:
        return at, made
    for t in range(k):
        scratch[idx + t] = t
    while True:
        scratch[g + 1 + made] = at
        scratch[at] = k
        for t in range(k):
            scratch[at + 1 + t] = scratch[cards + scratch[idx + t]]
        at += k + 1
        made += 1
        t = k - 1  # the next combination in lexicographic order
        while t >= 0 and scratch[idx + t] == t + m - k:
            t -= 1
        if t < 0:
            return at, made
        scratch[idx + t] += 1
        for u in range(t + 1, k):
            scratch[idx + u] = scratch[idx + u - 1] + 1


def _block(scratch, ctr, groups, cells, extra):
    """Room on the stack for a group list of ``groups`` groups holding ``cells`` cards in all,
    and ``extra`` more; its first index (0 and CAPACITY when it does not fit)."""
    g = ctr[SP]
    if g + 1 + 2 * groups + cells + extra > scratch.shape[0]:
        ctr[STATUS] = CAPACITY
        scratch[0] = 0
        return 0
    scratch[g] = groups
    return g


def tuples_of(scratch, ctr, v, k, pts, row):
    """(tuples K CARDS using POINTS): every K-card combination of cards of one score, scores
    ascending, each score's combinations in the cards' order. A K outside 1..MAX_TUPLE or too
    many groups breaks the rule, as in Python (recycle/lang/forms/form_group_lists.py)."""
    n = scratch[v]
    if k < 1 or k > MAX_TUPLE:
        ctr[STATUS] = RULE
        return 0
    order = alloc(scratch, ctr, n)
    if order == 0:
        return 0
    cards = order + 1
    _by_score(scratch, v, cards, pts, row)
    groups = 0
    start = 0
    while start < n:
        end = _same_score_end(scratch, cards, start, n, pts, row)
        combos = 1
        for t in range(k):  # C(m, k), exactly, one factor at a time (0 when m < k)
            combos = combos * (end - start - t) // (t + 1)
            if combos > MAX_GROUPS:
                break
        groups += max(combos, 0)
        if groups > MAX_GROUPS:
            ctr[STATUS] = RULE
            return 0
        start = end
    g = _block(scratch, ctr, groups, groups * k, k)
    if g == 0:
        return 0
    idx = g + 1 + 2 * groups + groups * k
    at, made = g + 1 + groups, 0
    start = 0
    while start < n:
        end = _same_score_end(scratch, cards, start, n, pts, row)
        at, made = _combinations(scratch, g, at, made, cards + start, end - start, k, idx)
        start = end
    ctr[SP] = at
    return g


def subsets_of(scratch, ctr, v):
    """(subsets CARDS): every subset of the cards, by size (the empty one first), each size's
    in itertools.combinations order; more than MAX_SUBSET_CARDS cards break the rule, as in
    Python (recycle/lang/forms/form_group_lists.py)."""
    n = scratch[v]
    if n > MAX_SUBSET_CARDS:
        ctr[STATUS] = RULE
        return 0
    groups = 1 << n
    g = _block(scratch, ctr, groups, n * (groups >> 1), n)
    if g == 0:
        return 0
    idx = g + 1 + 2 * groups + n * (groups >> 1)
    at, made = g + 1 + groups, 0
    for k in range(n + 1):
        at, made = _combinations(scratch, g, at, made, v + 1, n, k, idx)
    ctr[SP] = at
    return g


def runs_groups(scratch, ctr, v, nmin, largest, pts, row):
    """(runs largest|all N CARDS using POINTS): the runs of at least N cards whose scores rise
    by exactly 1 (each maximal run, or every run: by length, then by first score), one group per
    choice among cards of equal score (itertools.product order: recycle/lang/forms/shapes.py,
    find_runs). Too many groups break the rule."""
    n = scratch[v]
    nmin = max(nmin, 1)
    tmp = alloc(scratch, ctr, 4 * n)
    if tmp == 0:
        return 0
    cards, vstart = tmp + 1, tmp + 1 + n  # the cards by score; each score's first
    vcount, odo = tmp + 1 + 2 * n, tmp + 1 + 3 * n  # how many share it; the product's counter
    _by_score(scratch, v, cards, pts, row)
    nv = 0
    start = 0
    while start < n:
        end = _same_score_end(scratch, cards, start, n, pts, row)
        scratch[vstart + nv] = start
        scratch[vcount + nv] = end - start
        nv += 1
        start = end
    groups = cells = g = at = made = 0
    for writing in range(2):  # count the groups, then write them
        if writing:
            g = _block(scratch, ctr, groups, cells, 0)
            if g == 0:
                return 0
            at = g + 1 + groups
        i = 0
        while i < nv:
            last = i
            while (
                last + 1 < nv
                and pts[row, scratch[cards + scratch[vstart + last + 1]]]
                == pts[row, scratch[cards + scratch[vstart + last]]] + 1
            ):
                last += 1
            size = last - i + 1
            for k in range(size if largest else nmin, size + 1):
                if k < nmin:
                    continue
                for first in range(i, i + size - k + 1):
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
                            scratch[at + 1 + t] = scratch[cards + scratch[vstart + first + t] + scratch[odo + t]]
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


def partition(scratch, ctr, v, column):
    """(partition KEY CARDS) of a view: groups of equal ``column[card]``, in order of first
    appearance, each in the cards' order: a group list (see SCRATCH), made in one block of the
    stack."""
    n = scratch[v]
    g = ctr[SP]
    # the block: [groups, group 0's view, ...] (room for n groups), then the groups, each
    # [cards, card...]; while it is made, each group's first card and each card's group lie
    # past its end
    size = 1 + n + n + n
    if g + size + n + n > scratch.shape[0]:
        ctr[STATUS] = CAPACITY
        scratch[0] = 0
        return 0
    first = g + size  # first[j]: group j's key (its first card's; one load where three were)
    which = first + n  # which[k]: the group of card k
    nk = 0
    for k in range(n):
        value = column[scratch[v + 1 + k]]
        j = 0
        while j < nk and scratch[first + j] != value:
            j += 1
        if j == nk:
            scratch[first + nk] = value
            nk += 1
        scratch[which + k] = j
    scratch[g] = nk
    at = g + 1 + nk
    for j in range(nk):
        scratch[g + 1 + j] = at
        m = 0
        for k in range(n):
            if scratch[which + k] == j:
                m += 1
                scratch[at + m] = scratch[v + 1 + k]
        scratch[at] = m
        at += m + 1
    ctr[SP] = at
    return g


def partition_loc(locs, lens, scratch, ctr, loc, column):
    """``partition`` of a location's cards read where they lie (no snapshot copied first)."""
    n = lens[loc]
    g = ctr[SP]
    size = 1 + n + n + n
    if g + size + n + n > scratch.shape[0]:
        ctr[STATUS] = CAPACITY
        scratch[0] = 0
        return 0
    first = g + size
    which = first + n
    nk = 0
    for k in range(n):
        value = column[locs[loc, k]]
        j = 0
        while j < nk and scratch[first + j] != value:
            j += 1
        if j == nk:
            scratch[first + nk] = value
            nk += 1
        scratch[which + k] = j
    scratch[g] = nk
    at = g + 1 + nk
    for j in range(nk):
        scratch[g + 1 + j] = at
        m = 0
        for k in range(n):
            if scratch[which + k] == j:
                m += 1
                scratch[at + m] = locs[loc, k]
        scratch[at] = m
        at += m + 1
    ctr[SP] = at
    return g
