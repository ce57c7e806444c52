"""What every generated native module calls: the state's arrays, the generator, moves.

A native state is one tuple ``S`` of NumPy arrays (``make_state``), the same layout as the
Python engine's ``State`` (recycle/lang/layout.py): location ``i`` of the Python engine is
row ``i`` of ``locs`` (its cards bottom first, ``lens[i]`` of them), storage slot ``j`` is
``ints[j]`` / ``strs[j]`` / ``pts[j]``. So a native game's final state compares with the
Python engine's cell by cell. Strings are interned when the game is written (0 is "").

Errors are not raised in native code: a form that breaks a rule, the step limit or the work
budget sets ``ctr[STATUS]`` and the game returns; the caller plays that rollout again on the
Python engine, which gives the exact positioned message (recycle/native/engine.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..streams import GOLDEN, MIX1, MIX2

# the counters of a state: ctr[NAME]
STATUS, STEPS, DECISIONS, OPTIONS, ROUNDS, WORK, PSP, TSP, CHANCE_N, PLAYERS_N, NTEAMS, MAX_STEPS, MAX_WORK, SP = range(14)
NCOUNTERS = 16

# ctr[STATUS]: why a game stopped early (each is played again by the Python engine)
OK, RULE, STEP_LIMIT, WORK_LIMIT, CAPACITY = 0, 1, 2, 3, 4
STATUS_WORDS = {OK: "finished", RULE: "broke a rule", STEP_LIMIT: "hit the step limit",
                WORK_LIMIT: "ran out of work", CAPACITY: "outgrew the native state"}
STACK_DEPTH = 64  # nested stages
SCRATCH = 1 << 16  # cards of snapshots, views and groups: a stack in one array (ctr[SP] its top)

_GOLDEN = np.uint64(GOLDEN)
_MIX1 = np.uint64(MIX1)
_MIX2 = np.uint64(MIX2)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_UNIT = 2.0 ** -53


@njit(cache=True, nogil=True)
def mix64(z):
    """SplitMix64's finalizer on a uint64 (recycle/streams.py, bit for bit)."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, nogil=True)
def stream_keys(seed):
    """The chance and players' stream keys of the game dealt with ``seed`` (0 <= seed < 2**64),
    as ``streams.stream_key(seed, CHANCE)`` and ``(seed, PLAYERS)``."""
    s = np.uint64(seed)
    return mix64(s + _GOLDEN), mix64(s + _GOLDEN + _GOLDEN)


@njit(cache=True, nogil=True, inline='always')
def draw(ctr, keys, which):
    """The next ``random()`` of stream ``which`` (0: chance, 1: the players): a float in [0, 1)."""
    n = ctr[CHANCE_N + which] + 1
    ctr[CHANCE_N + which] = n
    z = mix64(keys[which] + np.uint64(n) * _GOLDEN)
    return float(z >> _S11) * _UNIT


@njit(cache=True, nogil=True, inline='always')
def pick(ctr, keys, which, n):
    """``int(random() * n)``: a choice among n, as the Python engine draws it."""
    return int(draw(ctr, keys, which) * n)


@njit(cache=True, nogil=True)
def shuffle(locs, lens, ctr, keys, loc):
    """Fisher-Yates with ``random()`` floats, as ``recycle.lang.items.shuffle``."""
    n = lens[loc]
    for i in range(n - 1, 0, -1):
        j = int(draw(ctr, keys, 0) * (i + 1))
        t = locs[loc, i]
        locs[loc, i] = locs[loc, j]
        locs[loc, j] = t


@njit(cache=True, nogil=True)
def take(locs, lens, card_loc, c):
    """Take card ``c`` out of the location it is in (the cards above it drop by one)."""
    src = card_loc[c]
    n = lens[src]
    k = n - 1
    while k >= 0 and locs[src, k] != c:
        k -= 1
    for j in range(k, n - 1):
        locs[src, j] = locs[src, j + 1]
    lens[src] = n - 1


@njit(cache=True, nogil=True)
def put(locs, lens, card_loc, ctr, c, dst, where):
    """Put card ``c`` into ``dst``: on top (where -1), at the bottom (0) or at index ``where``
    (clamped as Python's ``list.insert``)."""
    n = lens[dst]
    if n >= locs.shape[1]:
        ctr[STATUS] = CAPACITY
        return
    if where < 0 or where >= n:
        locs[dst, n] = c
    else:
        for j in range(n, where, -1):
            locs[dst, j] = locs[dst, j - 1]
        locs[dst, where] = c
    lens[dst] = n + 1
    card_loc[c] = dst


@njit(cache=True, nogil=True)
def move_card(locs, lens, card_loc, ctr, c, dst, where):
    """(move CARD (top|bottom|INDEX DST)) of a card named by value."""
    if c < 0:
        ctr[STATUS] = RULE
        return
    take(locs, lens, card_loc, c)
    put(locs, lens, card_loc, ctr, c, dst, where)


@njit(cache=True, nogil=True)
def move_top(locs, lens, card_loc, ctr, src, dst):
    """(move (top SRC) (top DST)): an error when SRC is empty."""
    n = lens[src]
    if n == 0:
        ctr[STATUS] = RULE
        return
    c = locs[src, n - 1]
    lens[src] = n - 1
    put(locs, lens, card_loc, ctr, c, dst, -1)


@njit(cache=True, nogil=True)
def move_all(locs, lens, card_loc, ctr, src, dst):
    """(repeat all (move (top SRC) (top DST))): the cards land in reverse order."""
    n = lens[src]
    if src == dst:
        return
    for k in range(n - 1, -1, -1):
        put(locs, lens, card_loc, ctr, locs[src, k], dst, -1)
        lens[src] = k


@njit(cache=True, nogil=True)
def swap_locs(locs, lens, card_loc, a, b):
    """(swap LOCATION LOCATION): exchange the two locations' contents."""
    if a == b:
        return
    na, nb = lens[a], lens[b]
    m = max(na, nb)
    for k in range(m):
        t = locs[a, k]
        locs[a, k] = locs[b, k]
        locs[b, k] = t
    lens[a], lens[b] = nb, na
    for k in range(nb):
        card_loc[locs[a, k]] = a
    for k in range(na):
        card_loc[locs[b, k]] = b


@njit(cache=True, nogil=True)
def index_in(locs, lens, loc, c):
    """The position of card ``c`` in location ``loc`` (-1 when it is not there)."""
    for k in range(lens[loc]):
        if locs[loc, k] == c:
            return k
    return -1


@njit(cache=True, nogil=True)
def swap_cards(locs, lens, card_loc, ctr, a, b):
    """(swap CARD CARD): the two cards exchange places."""
    if a < 0 or b < 0:
        ctr[STATUS] = RULE
        return
    la, lb = card_loc[a], card_loc[b]
    ia, ib = index_in(locs, lens, la, a), index_in(locs, lens, lb, b)
    locs[la, ia] = b
    locs[lb, ib] = a
    card_loc[a], card_loc[b] = lb, la


@njit(cache=True, nogil=True, inline='always')
def alloc(scratch, ctr, n):
    """Room for n cards on the scratch stack (freed when the function that made it returns,
    or at the next turn of the stage around it). Past the stack's end: a fresh array, and the
    rollout is played again by Python (CAPACITY)."""
    sp = ctr[SP]
    if sp + n > scratch.shape[0]:
        # the rollout is wrong from here on and will be played again; every writer stops at
        # the end of the room it got, so nothing is written outside the stack
        ctr[STATUS] = CAPACITY
        sp = 0
        n = min(n, scratch.shape[0])
    ctr[SP] = sp + n
    return scratch[sp:sp + n]


@njit(cache=True, nogil=True, inline='always')
def cards_of(locs, lens, scratch, ctr, loc):
    """A copy of a location's cards, bottom first (a snapshot to loop over)."""
    out = alloc(scratch, ctr, lens[loc])
    for k in range(out.shape[0]):
        out[k] = locs[loc, k]
    return out


@njit(cache=True, nogil=True, inline='always')
def top_card(locs, lens, ctr, loc):
    """The top card (-1 and a rule error when empty)."""
    n = lens[loc]
    if n == 0:
        ctr[STATUS] = RULE
        return -1
    return locs[loc, n - 1]


@njit(cache=True, nogil=True, inline='always')
def bottom_card(locs, lens, ctr, loc):
    """The bottom card (-1 and a rule error when empty)."""
    if lens[loc] == 0:
        ctr[STATUS] = RULE
        return -1
    return locs[loc, 0]


@njit(cache=True, nogil=True, inline='always')
def view_top(ctr, view):
    """The top (last) card of a view (-1 and a rule error when empty)."""
    n = view.shape[0]
    if n == 0:
        ctr[STATUS] = RULE
        return -1
    return view[n - 1]


@njit(cache=True, nogil=True, inline='always')
def view_bottom(ctr, view):
    """The bottom (first) card of a view (-1 and a rule error when empty)."""
    if view.shape[0] == 0:
        ctr[STATUS] = RULE
        return -1
    return view[0]


@njit(cache=True, nogil=True)
def partition(scratch, ctr, cards, column):
    """(partition KEY CARDS): groups of equal ``column[card]``, in order of first appearance,
    each in the cards' order. Returns the cards grouped and the groups' offsets."""
    n = cards.shape[0]
    keys = alloc(scratch, ctr, n)
    out = alloc(scratch, ctr, n)
    if ctr[STATUS] == CAPACITY:
        return out[:0], out[:1]
    nk = 0
    for c in cards:
        v = column[c]
        seen = False
        for j in range(nk):
            if keys[j] == v:
                seen = True
                break
        if not seen:
            keys[nk] = v
            nk += 1
    offs = alloc(scratch, ctr, nk + 1)
    if ctr[STATUS] == CAPACITY:
        return out[:0], offs[:1]
    m = 0
    for j in range(nk):
        offs[j] = m
        for c in cards:
            if column[c] == keys[j]:
                out[m] = c
                m += 1
    offs[nk] = m
    return out, offs


@njit(cache=True, nogil=True, inline='always')
def score_sum(cards, table):
    """(sum CARDS using POINTS)."""
    t = 0
    for c in cards:
        t += table[c]
    return t


@njit(cache=True, nogil=True)
def best_card(ctr, keys, cards, table, highest):
    """(max|min CARDS using POINTS): ties broken by ``int(random() * ties)`` on the chance
    stream (drawn only when two or more tie), as the Python engine breaks them."""
    n = cards.shape[0]
    if n == 0:
        ctr[STATUS] = RULE
        return -1
    best = table[cards[0]]
    for c in cards:
        v = table[c]
        if (v > best) if highest else (v < best):
            best = v
    ties = 0
    for c in cards:
        if table[c] == best:
            ties += 1
    k = 0
    if ties > 1:
        k = int(draw(ctr, keys, 0) * ties)
    for c in cards:
        if table[c] == best:
            if k == 0:
                return c
            k -= 1
    return -1


@njit(cache=True, nogil=True)
def append_to(out, m, cards):
    """Copy cards into out from position m (as many as fit); the position after them."""
    for c in cards:
        if m < out.shape[0]:
            out[m] = c
        m += 1
    return m


MAX_REPEAT = 100_000  # as recycle.lang.items.MAX_REPEAT


@njit(cache=True, nogil=True, inline='always')
def top_or_none(locs, lens, ctr, loc):
    """The top card, or -1 when the location is empty (no error: (cardatt KEY (top L)))."""
    n = lens[loc]
    return locs[loc, n - 1] if n > 0 else -1


@njit(cache=True, nogil=True, inline='always')
def bottom_or_none(locs, lens, ctr, loc):
    return locs[loc, 0] if lens[loc] > 0 else -1


@njit(cache=True, nogil=True, inline='always')
def view_top_or_none(ctr, view):
    n = view.shape[0]
    return view[n - 1] if n > 0 else -1


@njit(cache=True, nogil=True, inline='always')
def view_bottom_or_none(ctr, view):
    return view[0] if view.shape[0] > 0 else -1


@njit(cache=True, nogil=True, inline='always')
def attr_of(column, c):
    """A card's value of an attribute ("" for no card)."""
    return column[c] if c >= 0 else 0


@njit(cache=True, nogil=True)
def nth_player(ctr, nplayers, k):
    """(N player): an error beyond the players."""
    if 0 <= k < nplayers:
        return k
    ctr[STATUS] = RULE
    return 0


@njit(cache=True, nogil=True)
def owner_of(ctr, loc_player, card_loc, c):
    """(owner CARD): the player owning the card's location (an error when none does)."""
    if c < 0:
        ctr[STATUS] = RULE
        return 0
    p = loc_player[card_loc[c]]
    if p < 0:
        ctr[STATUS] = RULE
        return 0
    return p


@njit(cache=True, nogil=True)
def team_of_player(ctr, team_of, p):
    t = team_of[p]
    if t < 0:
        ctr[STATUS] = RULE
        return 0
    return t


@njit(cache=True, nogil=True)
def groups_count(groups):
    return groups[1].shape[0] - 1


@njit(cache=True, nogil=True)
def card_at(ctr, cards, i, optional):
    """(INDEX LOCATION): counted from the bottom; an error (or -1 when optional) beyond."""
    if 0 <= i < cards.shape[0]:
        return cards[i]
    if not optional:
        ctr[STATUS] = RULE
    return -1


@njit(cache=True, nogil=True)
def set_row(table, row, values):
    """table[row, :] = values, written as a loop (Numba's slice assignment is slow to compile)."""
    for c in range(values.shape[0]):
        table[row, c] = values[c]


@njit(cache=True, nogil=True)
def copy_into(dst, src):
    """dst[...] = src for arrays of one or two dimensions of the same shape, as a loop."""
    a = dst.reshape(-1)
    b = src.reshape(-1)
    for k in range(b.shape[0]):
        a[k] = b[k]


@njit(cache=True, nogil=True)
def keys_of(seeds):
    """Each seed's (chance, players) stream keys (seeds as uint64, each below 2**64)."""
    out = np.empty((seeds.shape[0], 2), np.uint64)
    for i in range(seeds.shape[0]):
        a, b = stream_keys(seeds[i])
        out[i, 0] = a
        out[i, 1] = b
    return out


@njit(cache=True, nogil=True, inline='always')
def c_div(ctr, p, q):
    """(// A B): truncating toward zero, as C#; by zero a rule error."""
    if q == 0:
        ctr[STATUS] = RULE
        return 0
    r = abs(p) // abs(q)
    return r if (p >= 0) == (q > 0) else -r


@njit(cache=True, nogil=True, inline='always')
def c_mod(ctr, p, q):
    """(% A B): the remainder of (// A B), with the sign of A; by zero a rule error."""
    return p - q * c_div(ctr, p, q)
