"""What a native *chance module* calls: chance as the rules draw it (recycle/env/chance.py), in
native code stepped from outside (recycle/env/native_rules.py).

A chance module is a game's native module whose shuffles draw nothing (``chance_source``,
recycle/native/chance_module.py): a shuffle puts its location's cards in card order (the
reference's undrawn order, bottom first) and marks them *undrawn*; a card moved off the top of
its location while two or more of its shuffle's cards are undrawn stops the game at a chance
node (``suspend``, as a choice does) whose outcomes are the card moved and the undrawn cards
left; the card chosen takes the moved card's place, and the moved card goes back among the
undrawn ones, which stay in card order (the places a replay of the step with the card drawn
first gives them: recycle/env/chance.py, ``chance_shuffle``). A tie of ``max``/``min`` stops
at a node of its n ties.

The chance state lies in the counters' tail, from ``at`` (the module's CHANCE_AT):
ctr[at] the kind of node waiting (0 none, 1 card, 2 pick), ctr[at + 1] the location drawn
from, ctr[at + 2] the card moved, ctr[at + 3] the depth of dry runs (the options of a block
listed by running its items and putting the state back: the reference draws nothing there, its
events unwatched), ctr[at + 4 + c] 1 while card c is undrawn, then (from at + 4 + the number of
cards) a card node's outcomes in card order.
"""

from __future__ import annotations

from .runtime import CHANCE_N, MISMATCH, RULE, STATUS, kth_scoring, move_all, move_top, scoring, top_score
from .runtime_step import suspend

NODE_CARD, NODE_PICK = 1, 2
DRY = 3  # ctr[at + DRY]: how deep in dry runs of a listing (its moves draw nothing)
MARKS = 4  # ctr[at + MARKS + c]: card c is undrawn
PICK_LOG = 64  # the draws among n remembered (chance_pick)


def chance_shuffle(locs, lens, ver, ctr, at, loc):
    """(shuffle LOC) drawing nothing: its cards in card order, every one undrawn."""
    n = lens[loc]
    ver[loc] += 1
    for i in range(1, n):
        c = locs[loc, i]
        j = i - 1
        while j >= 0 and locs[loc, j] > c:
            locs[loc, j + 1] = locs[loc, j]
            j -= 1
        locs[loc, j + 1] = c
    for k in range(n):
        ctr[at + MARKS + locs[loc, k]] = 1


def place_undrawn(locs, lens, ctr, at, loc, o, c):
    """Card ``c`` takes the place of ``o`` among the undrawn cards of ``loc`` (in card order):
    the undrawn cards between are shifted by one place (O(n), the others in order already)."""
    n = lens[loc]
    k = 0
    while k < n and locs[loc, k] != o:
        k += 1
    if k == n:
        return
    locs[loc, k] = c
    # c moves up past smaller undrawn cards above it, or down past larger ones below it
    j = k + 1
    while j < n:
        x = locs[loc, j]
        if ctr[at + MARKS + x] != 0:
            if x > c:
                break
            locs[loc, k] = x
            locs[loc, j] = c
            k = j
        j += 1
    j = k - 1
    while j >= 0:
        x = locs[loc, j]
        if ctr[at + MARKS + x] != 0:
            if x < c:
                break
            locs[loc, k] = x
            locs[loc, j] = c
            k = j
        j -= 1


def chance_drawn(locs, lens, ver, card_loc, ctr, at, src, dst, c):
    """Card ``c`` (undrawn) was just moved from the top of ``src`` to the top of ``dst``: a
    chance node of it and the undrawn cards left (none left: it was the last, no draw)."""
    ctr[at + MARKS + c] = 0
    left = 0
    for k in range(lens[src]):
        if ctr[at + MARKS + locs[src, k]] != 0:
            left += 1
    if left == 0:
        return
    ctr[at] = NODE_CARD
    ctr[at + 1] = src
    ctr[at + 2] = c
    # the outcomes in card order, after the marks (the undrawn places hold them in card order)
    out = at + MARKS + card_loc.shape[0]
    m = 0
    placed = 0
    for k in range(lens[src]):
        x = locs[src, k]
        if ctr[at + MARKS + x] != 0:
            if placed == 0 and c < x:
                ctr[out + m] = c
                m += 1
                placed = 1
            ctr[out + m] = x
            m += 1
    if placed == 0:
        ctr[out + m] = c
    o = suspend(left + 1)
    ctr[at] = 0
    if o == c:
        return
    if o < 0 or o >= card_loc.shape[0] or ctr[at + MARKS + o] == 0 or card_loc[o] != src:
        ctr[STATUS] = MISMATCH  # (the caller checks the outcome first: never)
        return
    # the card drawn takes c's place on top of dst; c goes back among the undrawn cards
    locs[dst, lens[dst] - 1] = o
    card_loc[o] = dst
    card_loc[c] = src
    ctr[at + MARKS + o] = 0
    ctr[at + MARKS + c] = 1
    place_undrawn(locs, lens, ctr, at, src, o, c)
    ver[src] += 1
    ver[dst] += 1


def chance_move_top(locs, lens, ver, card_loc, ctr, at, src, dst):
    """(move (top SRC) (top DST)): an undrawn card moved is drawn (``chance_drawn``)."""
    n = lens[src]
    if n == 0:
        ctr[STATUS] = RULE
        return
    c = locs[src, n - 1]
    move_top(locs, lens, ver, card_loc, ctr, src, dst)
    if ctr[STATUS] == 0 and ctr[at + MARKS + c] != 0 and ctr[at + DRY] == 0:
        chance_drawn(locs, lens, ver, card_loc, ctr, at, src, dst, c)


def chance_move_all(locs, lens, ver, card_loc, ctr, at, src, dst):
    """(repeat all (move (top SRC) (top DST))): card by card while undrawn cards are moved."""
    marked = 0
    if ctr[at + DRY] != 0:
        move_all(locs, lens, ver, card_loc, ctr, src, dst)
        return
    for k in range(lens[src]):
        if ctr[at + MARKS + locs[src, k]] != 0:
            marked += 1
    if marked == 0:
        move_all(locs, lens, ver, card_loc, ctr, src, dst)
        return
    if src == dst:
        ctr[STATUS] = MISMATCH  # (the reference interpreter plays it)
        return
    n = lens[src]
    for _ in range(n):
        chance_move_top(locs, lens, ver, card_loc, ctr, at, src, dst)
        if ctr[STATUS] != 0:
            return


def chance_pick(ctr, at, picks, n):
    """Draw number ctr[CHANCE_N] among ``n`` (n >= 2): a chance node of n outcomes, unless it
    was drawn already. A listing of options rewinds the count (``dry_state``, as the reference
    rewinds its generator) and the option chosen draws again: the reference gives a rewound
    draw the outcome chosen for it before, kept here for the last PICK_LOG draws (from ``picks``:
    per slot, 1 + the draw's number and its outcome)."""
    k = ctr[CHANCE_N]
    ctr[CHANCE_N] = k + 1
    slot = picks + 2 * (k % PICK_LOG)
    if ctr[slot] == k + 1:
        o = ctr[slot + 1]
        if o >= n:
            ctr[STATUS] = MISMATCH
            return 0
        return o
    ctr[at] = NODE_PICK
    o = suspend(n)
    ctr[at] = 0
    if o < 0 or o >= n:
        ctr[STATUS] = MISMATCH
        return 0
    ctr[slot] = k + 1
    ctr[slot + 1] = o
    return o


def chance_best_card(ctr, at, picks, scratch, v, pts, row, highest):
    """(max|min CARDS using POINTS) with a tie as a chance node (``runtime.best_card``)."""
    if scratch[v] == 0:
        ctr[STATUS] = RULE
        return -1
    best = top_score(scratch, v, pts, row, highest)
    ties = scoring(scratch, v, pts, row, best)
    k = 0
    if ties > 1:
        k = chance_pick(ctr, at, picks, ties)
    return kth_scoring(scratch, v, pts, row, best, k)


def chance_dry(ctr, at, depth):
    """A dry run begins (``depth`` 1) or ends (-1)."""
    ctr[at + DRY] += depth
