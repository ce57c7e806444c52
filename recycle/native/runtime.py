"""What every generated native module calls: the state's arrays, the generator, moves.

A native state is one tuple ``S`` of NumPy arrays (``make_state``), the same layout as the
Python engine's ``State`` (recycle/lang/forms/layout.py): location ``i`` of the Python engine is
row ``i`` of ``locs`` (its cards bottom first, ``lens[i]`` of them), storage slot ``j`` is
``ints[j]`` / ``strs[j]`` / ``pts[j]``. So a native game's final state compares with the
Python engine's cell by cell. Strings are interned when the game is written (0 is "").

Errors are not raised in native code: a form that breaks a rule, the step limit or the work
budget sets ``ctr[STATUS]`` and the game returns; the caller plays that rollout again on the
Python engine, which gives the exact positioned message (recycle/native/engine.py).
"""

from __future__ import annotations

import numpy as np

from ..streams import GOLDEN, MIX1, MIX2
from .runtime_cells import copy_cells, copy_cells_at, same_cells  # noqa: F401 - (the last two: for the modules importing the runtime whole)


# the counters of a state: ctr[NAME]
(
    STATUS,
    STEPS,
    DECISIONS,
    OPTIONS,
    ROUNDS,
    WORK,
    PSP,
    TSP,
    CHANCE_N,
    PLAYERS_N,
    NTEAMS,
    MAX_STEPS,
    MAX_WORK,
    SP,
    RESUMING,
    FORCED_AT,
    SEARCHING,
    STEPPING,
) = range(18)
NCOUNTERS = 18

# ctr[STATUS]: why a game stopped early (each is played again by the Python engine)
OK, RULE, STEP_LIMIT, WORK_LIMIT, CAPACITY, MISMATCH = 0, 1, 2, 3, 4, 5
# ... and why a look-ahead search stopped a world (runtime_search.py)
DECLINE, RESAMPLE = 6, 7
STATUS_WORDS = {
    OK: "finished",
    RULE: "broke a rule",
    STEP_LIMIT: "hit the step limit",
    WORK_LIMIT: "ran out of work",
    CAPACITY: "outgrew the native state",
    MISMATCH: "did not replay to the decision it was sent to",
    DECLINE: "reached what a native search cannot follow",
    RESAMPLE: "dealt a world to deal again",
}

STACK_DEPTH = 64  # nested stages
# ver[i]: a count of the changes of location i (ver[-1]: of the point maps), never reset between
# a state's rollouts; a condition that reads one location is remembered under its version
SCRATCH = 1 << 18  # snapshots, views and group lists: a stack in one array (ctr[SP] its top)
# A view is an int v into the scratch stack: scratch[v] cards, scratch[v + 1 ...] the cards,
# bottom first. A group list is an int g: scratch[g] groups, scratch[g + 1 + i] group i's view.
# No array object is made while a game plays: the C (recycle/native/c/) allocates nothing.

_GOLDEN = np.uint64(GOLDEN)
_MIX1 = np.uint64(MIX1)
_MIX2 = np.uint64(MIX2)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_UNIT = 2.0**-53


def mix64(z):
    """SplitMix64's finalizer on a uint64 (recycle/streams.py, bit for bit)."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


def stream_keys(seed):
    """The chance and players' stream keys of the game dealt with ``seed`` (0 <= seed < 2**64),
    as ``streams.stream_key(seed, CHANCE)`` and ``(seed, PLAYERS)``."""
    s = np.uint64(seed)
    return mix64(s + _GOLDEN), mix64(s + _GOLDEN + _GOLDEN)


def draw(ctr, keys, which):
    """The next ``random()`` of stream ``which`` (0: chance, 1: the players): a float in [0, 1)."""
    n = ctr[CHANCE_N + which] + 1
    ctr[CHANCE_N + which] = n
    z = mix64(keys[which] + np.uint64(n) * _GOLDEN)
    return float(z >> _S11) * _UNIT


def pick(ctr, keys, which, n):
    """``int(random() * n)``: a choice among n, as the Python engine draws it."""
    return int(draw(ctr, keys, which) * n)


def shuffle(locs, lens, ver, ctr, keys, loc):
    """Fisher-Yates with ``random()`` floats, as ``recycle.lang.forms.items.shuffle``."""
    n = lens[loc]
    ver[loc] += 1
    for i in range(n - 1, 0, -1):
        j = int(draw(ctr, keys, 0) * (i + 1))
        t = locs[loc, i]
        locs[loc, i] = locs[loc, j]
        locs[loc, j] = t


def take(locs, lens, ver, card_loc, c):
    """Take card ``c`` out of the location it is in (the cards above it drop by one)."""
    src = card_loc[c]
    ver[src] += 1
    n = lens[src]
    k = n - 1
    while k >= 0 and locs[src, k] != c:
        k -= 1
    for j in range(k, n - 1):
        locs[src, j] = locs[src, j + 1]
    lens[src] = n - 1


def put(locs, lens, ver, card_loc, ctr, c, dst, where):
    """Put card ``c`` into ``dst``: on top (where -1), at the bottom (0) or at index ``where``
    (clamped as Python's ``list.insert``)."""
    n = lens[dst]
    if n >= locs.shape[1]:
        ctr[STATUS] = CAPACITY
        return
    ver[dst] += 1
    if where < 0 or where >= n:
        locs[dst, n] = c
    else:
        for j in range(n, where, -1):
            locs[dst, j] = locs[dst, j - 1]
        locs[dst, where] = c
    lens[dst] = n + 1
    card_loc[c] = dst


def move_card(locs, lens, ver, card_loc, ctr, c, dst, where):
    """(move CARD (top|bottom|INDEX DST)) of a card named by value."""
    if c < 0:
        ctr[STATUS] = RULE
        return
    take(locs, lens, ver, card_loc, c)
    put(locs, lens, ver, card_loc, ctr, c, dst, where)


def move_top(locs, lens, ver, card_loc, ctr, src, dst):
    """(move (top SRC) (top DST)): an error when SRC is empty."""
    n = lens[src]
    if n == 0:
        ctr[STATUS] = RULE
        return
    c = locs[src, n - 1]
    lens[src] = n - 1
    ver[src] += 1
    put(locs, lens, ver, card_loc, ctr, c, dst, -1)


def move_all(locs, lens, ver, card_loc, ctr, src, dst):
    """(repeat all (move (top SRC) (top DST))): the cards land in reverse order."""
    n = lens[src]
    if src == dst:
        return
    ver[src] += 1
    for k in range(n - 1, -1, -1):
        put(locs, lens, ver, card_loc, ctr, locs[src, k], dst, -1)
        lens[src] = k


def swap_locs(locs, lens, ver, card_loc, a, b):
    """(swap LOCATION LOCATION): exchange the two locations' contents."""
    if a == b:
        return
    ver[a] += 1
    ver[b] += 1
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


def index_in(locs, lens, loc, c):
    """The position of card ``c`` in location ``loc`` (-1 when it is not there)."""
    for k in range(lens[loc]):
        if locs[loc, k] == c:
            return k
    return -1


def swap_cards(locs, lens, ver, card_loc, ctr, a, b):
    """(swap CARD CARD): the two cards exchange places."""
    if a < 0 or b < 0:
        ctr[STATUS] = RULE
        return
    la, lb = card_loc[a], card_loc[b]
    ver[la] += 1
    ver[lb] += 1
    ia, ib = index_in(locs, lens, la, a), index_in(locs, lens, lb, b)
    locs[la, ia] = b
    locs[lb, ib] = a
    card_loc[a], card_loc[b] = lb, la


def alloc(scratch, ctr, n):
    """A view with room for n cards on the scratch stack (freed when the function that made it
    returns, or at the next turn of the stage around it); its count is set to n. Past the
    stack's end: the empty view 0 and CAPACITY (the rollout is played again by Python); the
    caller writes nothing then."""
    sp = ctr[SP]
    if sp + n + 1 > scratch.shape[0]:
        ctr[STATUS] = CAPACITY
        scratch[0] = 0
        return 0
    ctr[SP] = sp + n + 1
    scratch[sp] = n
    return sp


def cards_of(locs, lens, scratch, ctr, loc):
    """A view of a location's cards, bottom first (a snapshot: later moves do not change it)."""
    n = lens[loc]
    v = alloc(scratch, ctr, n)
    if v:
        for k in range(n):
            scratch[v + 1 + k] = locs[loc, k]
    return v


def top_card(locs, lens, ctr, loc):
    """The top card (-1 and a rule error when empty)."""
    n = lens[loc]
    if n == 0:
        ctr[STATUS] = RULE
        return -1
    return locs[loc, n - 1]


def bottom_card(locs, lens, ctr, loc):
    """The bottom card (-1 and a rule error when empty)."""
    if lens[loc] == 0:
        ctr[STATUS] = RULE
        return -1
    return locs[loc, 0]


def view_top(ctr, scratch, v):
    """The top (last) card of a view (-1 and a rule error when empty)."""
    n = scratch[v]
    if n == 0:
        ctr[STATUS] = RULE
        return -1
    return scratch[v + n]


def view_bottom(ctr, scratch, v):
    """The bottom (first) card of a view (-1 and a rule error when empty)."""
    if scratch[v] == 0:
        ctr[STATUS] = RULE
        return -1
    return scratch[v + 1]


INT_LIMIT = 9223372036854775807  # the reference's integers: within +-INT_LIMIT (runtime_cards.add_ck)


def score_sum_loc_plain(ctr, locs, lens, loc, pts, row):
    """(sum LOCATION using POINTS) where no sum of the game's point maps can leave 64 bits
    (``NumbersWriterTools.sums_fit``): unchecked."""
    t = 0
    for k in range(lens[loc]):
        t += pts[row, locs[loc, k]]
    return t


def score_sum_plain(ctr, scratch, v, pts, row):
    """(sum CARDS using POINTS) of a view, unchecked (as ``score_sum_loc_plain``)."""
    t = 0
    for k in range(scratch[v]):
        t += pts[row, scratch[v + 1 + k]]
    return t


def score_sum_loc(ctr, locs, lens, loc, pts, row):
    """(sum LOCATION using POINTS) read in place (``pts[row]``: the point map's scores);
    CAPACITY where it may leave 64 bits (``add_ck``: a wide map's, the reference decides)."""
    t = 0
    for k in range(lens[loc]):
        x = pts[row, locs[loc, k]]
        s = t + x
        if (t >= 0) == (x >= 0) and (s >= 0) != (t >= 0):
            ctr[STATUS] = CAPACITY
        t = s
    if t < -INT_LIMIT:
        ctr[STATUS] = CAPACITY
    return t


def score_sum(ctr, scratch, v, pts, row):
    """(sum CARDS using POINTS) of a view (checked as ``score_sum_loc``)."""
    t = 0
    for k in range(scratch[v]):
        x = pts[row, scratch[v + 1 + k]]
        s = t + x
        if (t >= 0) == (x >= 0) and (s >= 0) != (t >= 0):
            ctr[STATUS] = CAPACITY
        t = s
    if t < -INT_LIMIT:
        ctr[STATUS] = CAPACITY
    return t


def card_score(pts, row, c):
    """(score CARD using POINTS)."""
    return pts[row, c]


def best_card(ctr, keys, scratch, v, pts, row, highest):
    """(max|min CARDS using POINTS): ties broken by ``int(random() * ties)`` on the chance
    stream (drawn only when two or more tie), as the Python engine breaks them."""
    if scratch[v] == 0:
        ctr[STATUS] = RULE
        return -1
    best = top_score(scratch, v, pts, row, highest)
    ties = scoring(scratch, v, pts, row, best)
    k = 0
    if ties > 1:
        k = int(draw(ctr, keys, 0) * ties)
    return kth_scoring(scratch, v, pts, row, best, k)


def top_score(scratch, v, pts, row, highest):
    """The highest (lowest) score of view v's cards (one card at least) under the map's row."""
    best = pts[row, scratch[v + 1]]
    for i in range(scratch[v]):
        score = pts[row, scratch[v + 1 + i]]
        if (score > best) if highest else (score < best):
            best = score
    return best


def scoring(scratch, v, pts, row, best):
    """How many of view v's cards score ``best``."""
    ties = 0
    for i in range(scratch[v]):
        if pts[row, scratch[v + 1 + i]] == best:
            ties += 1
    return ties


def kth_scoring(scratch, v, pts, row, best, k):
    """The card of view v that is the k-th (from 0) to score ``best``, in the view's order."""
    for i in range(scratch[v]):
        c = scratch[v + 1 + i]
        if pts[row, c] == best:
            if k == 0:
                return c
            k -= 1
    return -1


def append_to(scratch, out, m, v):
    """Copy view v's cards into view out from position m; the position after them."""
    for k in range(scratch[v]):
        scratch[out + 1 + m] = scratch[v + 1 + k]
        m += 1
    return m


def append_loc(locs, lens, scratch, out, m, loc):
    """Copy location loc's cards, bottom first, into view out from position m; the position
    after them."""
    for k in range(lens[loc]):
        scratch[out + 1 + m] = locs[loc, k]
        m += 1
    return m


def member_block(table, i, ctr):
    """The first index of the block of the ``i``-th member of a family (``table``: the members
    the game's compile registered, -1 where it did not): another member stops the game."""
    if i < 0 or i >= table.shape[0] or table[i] < 0:
        ctr[STATUS] = CAPACITY
        return 0
    return table[i]


MAX_REPEAT = 100_000  # as recycle.lang.forms.items.MAX_REPEAT


def top_or_none(locs, lens, ctr, loc):
    """The top card, or -1 when the location is empty (no error: (cardatt KEY (top L)))."""
    n = lens[loc]
    return locs[loc, n - 1] if n > 0 else -1


def bottom_or_none(locs, lens, ctr, loc):
    return locs[loc, 0] if lens[loc] > 0 else -1


def view_top_or_none(ctr, scratch, v):
    n = scratch[v]
    return scratch[v + n] if n > 0 else -1


def view_bottom_or_none(ctr, scratch, v):
    return scratch[v + 1] if scratch[v] > 0 else -1


def attr_of(column, c):
    """A card's value of an attribute ("" for no card)."""
    return column[c] if c >= 0 else 0


def nth_player(ctr, nplayers, k):
    """(N player): an error beyond the players."""
    if 0 <= k < nplayers:
        return k
    ctr[STATUS] = RULE
    return 0


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


def team_of_player(ctr, team_of, p):
    t = team_of[p]
    if t < 0:
        ctr[STATUS] = RULE
        return 0
    return t


def groups_count(scratch, g):
    return scratch[g]


def card_at(ctr, scratch, v, i, optional):
    """(INDEX LOCATION): counted from the bottom; an error (or -1 when optional) beyond."""
    if 0 <= i < scratch[v]:
        return scratch[v + 1 + i]
    if not optional:
        ctr[STATUS] = RULE
    return -1


def set_row(table, row, values):
    """table[row, :] = values, written as a loop (the native subset has no slices)."""
    for c in range(values.shape[0]):
        table[row, c] = values[c]


def copy_into(dst, src):
    """dst[:] = src for arrays of one dimension and dtype."""
    copy_cells(dst, src, src.shape[0])


def copy_table(dst, src):
    """dst[:, :] = src for tables (two dimensions) of one shape and dtype, both C-ordered."""
    copy_cells(dst, src, src.shape[0] * src.shape[1])


def copy_locations(locs, lens, locs0, lens0):
    """The locations as dealt (``locs0``, ``lens0``): only the cards each holds are copied,
    since nothing reads a row past its length."""
    copy_cells(lens, lens0, lens0.shape[0])
    for i in range(lens0.shape[0]):
        if lens0[i] > 0:
            copy_cells(locs[i], locs0[i], lens0[i])


def keys_of(seeds):
    """Each seed's (chance, players) stream keys (seeds as uint64, each below 2**64), as
    ``stream_keys`` makes them, worked out by NumPy on the whole array (called from Python)."""
    out = np.empty((seeds.shape[0], 2), np.uint64)
    with np.errstate(over="ignore"):
        s = seeds.astype(np.uint64) + _GOLDEN
        out[:, 0] = _mix64_array(s)
        out[:, 1] = _mix64_array(s + _GOLDEN)
    return out


def _mix64_array(z):
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


def c_div(ctr, p, q):
    """(// A B): truncating toward zero, as C#; by zero a rule error."""
    if q == 0:
        ctr[STATUS] = RULE
        return 0
    r = abs(p) // abs(q)
    return r if (p >= 0) == (q > 0) else -r


def c_mod(ctr, p, q):
    """(% A B): the remainder of (// A B), with the sign of A; by zero a rule error."""
    return p - q * c_div(ctr, p, q)


def move_all_from_bottom(locs, lens, ver, card_loc, ctr, src, dst):
    """(repeat all (move (bottom SRC) (top DST))): the cards keep their order."""
    n = lens[src]
    if src == dst or n == 0:
        return
    ver[src] += 1
    for k in range(n):
        put(locs, lens, ver, card_loc, ctr, locs[src, k], dst, -1)
    lens[src] = 0


def best_score(ctr, scratch, v, pts, row, highest):
    """(scoremax|scoremin CARDS using POINTS): an error when there are no cards."""
    n = scratch[v]
    if n == 0:
        ctr[STATUS] = RULE
        return 0
    best = pts[row, scratch[v + 1]]
    for i in range(1, n):
        score = pts[row, scratch[v + 1 + i]]
        if (score > best) if highest else (score < best):
            best = score
    return best


def family_view(lens, scratch, ctr, table, offset):
    """(indexed OWNER KIND NAME): a view of the location indices of the family's members 0, 1 ...
    (``table``: the first index of each member's block, -1 for a member the compile did not
    register; ``offset``: the owner's), up to the highest holding a card. A member below it
    that is not in the table stops the rollout (CAPACITY: Python plays it)."""
    last = -1
    for i in range(table.shape[0]):
        if table[i] >= 0 and lens[table[i] + offset] > 0:
            last = i
    out = alloc(scratch, ctr, last + 1)
    if out == 0:
        return out
    for i in range(last + 1):
        if table[i] < 0:
            ctr[STATUS] = CAPACITY
            scratch[out] = 0
            return out
        scratch[out + 1 + i] = table[i] + offset
    return out
