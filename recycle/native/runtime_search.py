"""What a generated native module calls to run a whole ISMCTS decision in machine code.

``players/lookahead.py``'s ISMCTS samples a world, walks its tree in it, expands one node, plays
the rest at random and backs the rewards up, some hundreds of times per decision. Played from
Python, only the playout was native, and sampling, stepping and the tree cost two thirds of an
iteration at Schwimmen. Here the iterations run in the module's one entry (``games``, search
mode; recycle/native/playouts.py, ``NativePlayouts.search``): each is a playout from a sampled
world (runtime_resume.py) whose choices below the root are made by the tree (``choose_in_tree``).

It is the Python player's search, draw for draw: the world dealt as ``DealRng`` deals it (a
keyed stream per family of cards, ``again`` counting a re-deal), dealt again when it offers
another number of options than the real decision (``RESAMPLE_TRIES``), its future chance
stream and every pick drawn from the player's stream in the same order, the same UCB1 with
availability counts in float64, and option keys standing for ``engine.options.option_key``:
each option's key is a hash of what Python's key holds (the source position of each step and
the values bound where it stands; ``key_options`` of each choice, forms_options.py), so two
options share a key exactly when Python's keys are equal (but for hash collisions, 2**-64 per
pair of options of one decision). What native code cannot follow it declines (``DECLINED``):
the Python player then searches that decision itself, from the same stream.

The work budget is counted in native units, as the native playouts count it: a decision that
runs out of work may stop after another number of iterations than Python's would.
"""

from __future__ import annotations

import math

import numpy as np

from .runtime import (
    CAPACITY,
    DECLINE,
    FORCED_AT,
    MISMATCH,
    OK,
    PLAYERS_N,
    DECISIONS,
    MAX_WORK,
    OPTIONS,
    PSP,
    RESAMPLE,
    RESUMING,
    SEARCHING,
    STATUS,
    STEPPING,
    STEPS,
    WORK,
    WORK_LIMIT,
    _GOLDEN,
    _UNIT,
    mix64,
    pick,
)
from .runtime_resume import (
    R_FUTURE_COUNT,
    R_HEADER,
    R_NFORCED,
    R_NPLACES,
    R_ROOT_CHANCE,
    R_ROOT_WORK,
    R_STAGE,
    choose,
    reach_root,
)
from .runtime_step import block_load, block_resume  # noqa: F401 - a search from a blind start (SEARCHES)

# ctr[SEARCHING]: 0 not searching; 1 on the way to the root; 2 walking down the tree; 3 playing out
MAX_CONSIDERED = 64  # options of a decision a search looks at (players/lookahead.py)
MAX_PATH = 512  # nodes on one iteration's path
_KEY_MULT = np.int64(0x100000001B3)  # FNV-1a's prime: the key hash multiplies by it

# tree (int64): the header, then its parts at the offsets the header holds
(
    T_BUDGET,
    T_DONE,
    T_TRY,
    T_TRIES,
    T_DETERMINIZE,
    T_N,
    T_NLOOKED,
    T_LEFT,
    T_ROOT_WORK,
    T_HAD,
    T_PCOUNT,
    T_DEAL_KEY,
    T_NODES,
    T_NODE,
    T_DEPTH,
    T_STOP,
    T_UNFINISHED,
    T_SCORE_MODE,
    T_HIGHER,
    T_NFAMILIES,
    T_MAX_NODES,
    T_TABLE_SIZE,
    T_VISITS,
    T_AVAIL,
    T_TABLE,
    T_PATH,
    T_KEYS,
    T_LOOKED,
    T_UNTRIED,
    T_PLAN,
    T_CHANCE_KEY,
    T_WHY,
    T_PROBE,
    T_BLIND,
    T_PLAYER_KEY,
    T_HEADER,
) = range(36)
# T_PROBE: a search of one world, no deal, that keys the root's options as it keys those below
# (``NativePlayouts.option_keys``: how the tests compare the keys with Python's)
# T_BLIND: a search from a blind start (recycle/native/blind_search.py): each world is a copy of
# the stopped game's block, not a replay; T_PLAYER_KEY: the player's stream key, set in each copy
STOP_RUNNING, STOP_SPENT, STOP_DECLINED = 0, 1, 2
# treef (float64): [0] the exploration constant, [1 + node] each node's summed reward
F_EXPLORATION, F_REWARD = 0, 1


def tree_layout(budget: int, nlooked: int, plan_size: int) -> tuple[dict, int]:
    """The offsets of a tree for ``budget`` iterations (a node per iteration at most, and the
    root), and the int64 size of the whole array."""
    nodes = budget + 1
    table = 1
    while table < 4 * nodes:
        table *= 2
    at = T_HEADER
    where = {}
    for name, size in (
        (T_VISITS, nodes),
        (T_AVAIL, nodes),
        (T_TABLE, 3 * table),
        (T_PATH, 2 * MAX_PATH),
        (T_KEYS, MAX_CONSIDERED),
        (T_LOOKED, max(nlooked, 1)),
        (T_UNTRIED, 2 * MAX_CONSIDERED),
        (T_PLAN, max(plan_size, 1)),
    ):
        where[name] = at
        at += size
    where[T_MAX_NODES] = nodes
    where[T_TABLE_SIZE] = table
    return where, at


# the search loop of a search module's entry (writer.py, ``games``: it replaces "# (SEARCHES)")
SEARCHES = """    if out.shape[0] > 0 and tree[T_BUDGET] > 0 and tree[T_BLIND] == 0:
        while next_world(tree, keys, resume):
            begin(initial, state, nteams, max_steps, 1 << 62)
            ctr[RESUMING] = 1
            ctr[SEARCHING] = 2 if tree[T_PROBE] else 1  # (a probe keys the root's options: below)
            ctr[PLAYERS_N] = tree[T_PCOUNT]
            resume[R_STAGE] = 0
            play(S)
            world_done(ctr, resume, tree, treef, ctr[MAX_WORK], ctr[WORK], NPLAYERS, NCOUNTERS_FIXED)
        return
    if out.shape[0] > 0 and tree[T_BUDGET] > 0:
        while block_load() and from_blind(ctr, keys, resume, tree) and next_world(tree, keys, resume):
            ctr[PLAYERS_N] = tree[T_PCOUNT]
            if block_resume(RELIST) == 0:  # (it stopped at a choice again: native code cannot follow)
                ctr[STATUS] = DECLINE
            world_done(ctr, resume, tree, treef, ctr[MAX_WORK], ctr[WORK], NPLAYERS, NCOUNTERS_FIXED)
        return
"""


RELIST = -1  # the option a blind search resumes a stopped choice with: list the options again


def from_blind(ctr, keys, resume, tree):
    """A world of a search from a blind start (T_BLIND; recycle/native/blind_search.py), its
    copy of the stopped game's block just loaded (before ``next_world`` draws from the player's
    stream): it goes on as a replay would reach the root, its cards put in place (``arrive``)
    when the decision is listed again (``relisted``). True."""
    keys[1] = np.uint64(tree[T_PLAYER_KEY])
    ctr[RESUMING] = 1
    ctr[STEPPING] = 0
    ctr[SEARCHING] = 1
    ctr[FORCED_AT] = 0
    ctr[MAX_WORK] = 1 << 62  # (a replay's budget until the root: reach_root sets the world's)
    resume[R_STAGE] = 0
    return True


def relisted(ctr, n):
    """A stopped choice of ``n`` options resumed with RELIST lists its options again (in a
    search module's choice: form_choice.py): its step, decision, options and work, counted when
    it was listed first, are taken back, to be counted again as a replay counts them."""
    ctr[STEPS] -= 1
    ctr[DECISIONS] -= 1
    ctr[OPTIONS] -= n
    ctr[WORK] -= n


KEY_SEED = np.int64(0x2545F4914F6CDD1D)  # the hash of an option's key before its first step


def key_step(h, line, column):
    """The key ``h`` followed by a step of the option: its item's source position."""
    return key_add(h ^ np.int64(0x5DEECE66D), line * 65536 + column)


def key_add(h, v):
    """The hash ``h`` followed by the value ``v`` (an int64: a card, player, team, location,
    string id, integer or truth bound where the step stands)."""
    h = (h ^ np.int64(v)) * _KEY_MULT
    return h ^ (h >> np.int64(29))


def key_view(h, scratch, v):
    """The key ``h`` followed by a list of cards (a view bound where the step stands): its
    first 16 cards in order, as ``option_key`` keeps a list (``_canon``)."""
    n = min(scratch[v], 16)
    h = key_add(h, -1 - n)  # (a list, and how many of its cards follow)
    for t in range(n):
        h = key_add(h, scratch[v + 1 + t])
    return h


def key_groups(h, scratch, g):
    """The key ``h`` followed by a group list: its first 16 groups, each as ``key_view``."""
    n = min(scratch[g], 16)
    h = key_add(h, -1 - n)
    for t in range(n):
        h = key_view(h, scratch, scratch[g + 1 + t])
    return h


def keys_stepped(ctr, tree, n, decisions):
    """A choice of a game stepped from outside has keyed its ``n`` options (recycle/native/
    stepping.py): after the keys, ``n`` and the decision's count, or -1 when native code does
    not key them (the game goes on: the keys only are missing)."""
    at = tree[T_KEYS] + MAX_CONSIDERED
    if ctr[STATUS] == DECLINE:
        ctr[STATUS] = OK
        tree[at] = -1
    else:
        tree[at] = n
    tree[at + 1] = decisions


def put_key(tree, j, h):
    """Option ``j``'s key ``h``, kept (a search looks at MAX_CONSIDERED options at most)."""
    if j < MAX_CONSIDERED:
        tree[tree[T_KEYS] + j] = h
    return j + 1


def _next64(key, count):
    """Draw number ``count`` of the stream ``key``, all 64 bits (``Stream.next64``)."""
    return mix64(np.uint64(key) + np.uint64(count) * _GOLDEN)


def _player_draw(tree, keys):
    """The player's stream's next 64 bits (``getrandbits(64)``), its count kept in the tree."""
    n = tree[T_PCOUNT] + 1
    tree[T_PCOUNT] = n
    return _next64(keys[1], n)


def deal(tree, resume):
    """The sampled world's cards, into ``resume``'s places: each family of the plan shuffled
    as ``DealRng.shuffle`` shuffles it (its cards sorted; a stream keyed by the deal's key,
    the family's lowest card and size, and the tries so far)."""
    at = tree[T_PLAN]
    base = R_HEADER + resume[R_NFORCED]
    j = 0
    again = np.uint64(tree[T_TRY])
    for _ in range(tree[T_NFAMILIES]):
        m = tree[at]
        slots = at + 1
        cards = at + 1 + 2 * m
        low = np.uint64(tree[cards])
        family = mix64((low << np.uint64(32)) + np.uint64(m))
        key = mix64(mix64(np.uint64(tree[T_DEAL_KEY]) ^ family) ^ again)
        # Fisher-Yates with random() floats on the family's own stream (items.shuffle)
        for t in range(m):
            resume[base + 3 * (j + t) + 2] = tree[cards + t]
        count = 0
        for i in range(m - 1, 0, -1):
            count += 1  # noqa: SIM113 - the draw's counter on the stream, as items.shuffle counts
            z = _next64(key, count)
            r = float(z >> np.uint64(11)) * _UNIT
            k = int(r * (i + 1))
            a = base + 3 * (j + i) + 2
            b = base + 3 * (j + k) + 2
            t = resume[a]
            resume[a] = resume[b]
            resume[b] = t
        for t in range(m):
            resume[base + 3 * (j + t)] = tree[slots + 2 * t]
            resume[base + 3 * (j + t) + 1] = tree[slots + 2 * t + 1]
        j += m
        at = cards + m
    resume[R_NPLACES] = j


def next_world(tree, keys, resume):
    """Make the next world to play, or False when the search is over: a new iteration draws
    the deal's key from the player's stream (and counts the options listed again), each try
    deals the world and draws its future chance stream's key from the deal's stream."""
    if tree[T_STOP] != STOP_RUNNING:
        return False
    if tree[T_TRY] == 0:
        if tree[T_DONE] >= tree[T_BUDGET]:
            return False
        tree[T_DEAL_KEY] = np.int64(_player_draw(tree, keys))
    if tree[T_DETERMINIZE]:
        deal(tree, resume)
    # the world's future chance stream: the deal's own stream's next draw (``DealRng`` is a
    # ``Stream`` keyed by the deal's key; only its shuffles use streams of their own)
    keys[2] = _next64(np.uint64(tree[T_DEAL_KEY]), tree[T_TRY] + 1)
    keys[0] = np.uint64(tree[T_CHANCE_KEY])  # the real game's chance stream, replayed to the root
    if tree[T_PROBE]:  # a probe keys the real decision: the real chance stream goes on
        keys[2] = keys[0]
        resume[R_FUTURE_COUNT] = resume[R_ROOT_CHANCE]
    if tree[T_TRY] == 0:
        tree[T_LEFT] -= tree[T_N]  # listing the options again in that world
        tree[T_HAD] = min(tree[T_ROOT_WORK], tree[T_LEFT])
    resume[R_ROOT_WORK] = tree[T_HAD] // 4
    tree[T_NODE] = 0
    tree[T_DEPTH] = 0
    return True


def _find(tree, parent, key):
    """The table slot of the child ``key`` of ``parent``: where it is, or the empty slot it goes."""
    size = tree[T_TABLE_SIZE]
    h = key_add(key_add(np.int64(parent), key), 0) & (size - 1)
    at = tree[T_TABLE]
    while True:
        slot = at + 3 * h
        if tree[slot] == 0 or (tree[slot] == parent + 1 and tree[slot + 1] == key):
            return slot
        h = (h + 1) & (size - 1)


def child(tree, parent, key):
    """The child of ``parent`` reached by the option ``key``, or -1."""
    slot = _find(tree, parent, key)
    return tree[slot + 2] if tree[slot] != 0 else -1


def choose_in_tree(ctr, keys, pst, tree, treef, n, at_root):
    """The option a search takes among ``n``: at the root among the options looked at (by
    index), below it among the options' keys (written by the choice's ``key_options``); UCB1
    with availability counts over the children tried, or a random untried one, which becomes a
    new node (the playout then goes on at random)."""
    if ctr[STATUS] != OK:
        return 0
    if not at_root and n > MAX_CONSIDERED:
        ctr[STATUS] = DECLINE  # the Python player samples the options looked at
        return 0
    node = tree[T_NODE]
    m = tree[T_NLOOKED] if at_root else n
    untried = tree[T_UNTRIED]
    nuntried = 0
    best_i = -1
    best_child = -1
    best_ucb = -1.0
    c = treef[F_EXPLORATION]
    avail = tree[T_AVAIL]
    visits = tree[T_VISITS]
    for j in range(m):
        if at_root:
            i = tree[tree[T_LOOKED] + j]
            key = i
        else:
            i = j
            key = tree[tree[T_KEYS] + j]
            seen = False
            for jj in range(j):
                if tree[tree[T_KEYS] + jj] == key:
                    seen = True
                    break
            if seen:
                continue
        ch = child(tree, node, key)
        if ch < 0:
            tree[untried + 2 * nuntried] = i
            tree[untried + 2 * nuntried + 1] = key
            nuntried += 1
            continue
        tree[avail + ch] += 1
        if nuntried == 0:
            v = tree[visits + ch]
            if v:
                ucb = treef[F_REWARD + ch] / v + c * math.sqrt(math.log(tree[avail + ch]) / v)
            else:
                ucb = math.inf
            if ucb > best_ucb:
                best_i = i
                best_child = ch
                best_ucb = ucb
    depth = tree[T_DEPTH]
    if depth >= MAX_PATH:
        ctr[STATUS] = DECLINE
        return 0
    p = pst[ctr[PSP], 0]
    if nuntried:
        u = pick(ctr, keys, 1, nuntried)  # (the player's stream: Python's rng.random())
        i = tree[untried + 2 * u]
        key = tree[untried + 2 * u + 1]
        ch = tree[T_NODES]
        if ch >= tree[T_MAX_NODES]:
            ctr[STATUS] = CAPACITY
            return 0
        tree[T_NODES] = ch + 1
        slot = _find(tree, node, key)
        tree[slot] = node + 1
        tree[slot + 1] = key
        tree[slot + 2] = ch
        tree[visits + ch] = 0
        tree[avail + ch] = 1
        treef[F_REWARD + ch] = 0.0
        tree[tree[T_PATH] + 2 * depth] = ch
        tree[tree[T_PATH] + 2 * depth + 1] = p
        tree[T_DEPTH] = depth + 1
        ctr[SEARCHING] = 3
        return i
    tree[tree[T_PATH] + 2 * depth] = best_child
    tree[tree[T_PATH] + 2 * depth + 1] = p
    tree[T_DEPTH] = depth + 1
    tree[T_NODE] = best_child
    ctr[SEARCHING] = 2
    return best_i


def _reward(ctr, tree, nplayers, base, p):
    """Player ``p``'s reward for the final scores ctr[base:] (players/lookahead.py, ``rewards``)."""
    higher = tree[T_HIGHER] != 0
    best = ctr[base]
    worst = ctr[base]
    for q in range(1, nplayers):
        v = ctr[base + q]
        if (v > best) if higher else (v < best):
            best = v
        if (v < worst) if higher else (v > worst):
            worst = v
    v = ctr[base + p]
    if tree[T_SCORE_MODE] == 0:
        k = 0
        for q in range(nplayers):
            if ctr[base + q] == best:
                k += 1
        return 1.0 / k if v == best else 0.0
    if best == worst:
        return 0.5
    return float(v - worst) / float(best - worst)


def world_done(ctr, resume, tree, treef, max_work, work, nplayers, base):
    """After a world was played: back the rewards up its path, or deal it again (another
    number of options than the real decision), or leave it (an impossible world, the step
    limit, the work budget), or stop the search where native code cannot follow."""
    status = ctr[STATUS]
    at_root = resume[R_STAGE] == 1
    if status == DECLINE or status == CAPACITY or status == MISMATCH or (status == OK and resume[R_STAGE] != 2):
        tree[T_STOP] = STOP_DECLINED
        tree[T_WHY] = status if status != OK else MISMATCH
        return
    if status == RESAMPLE or (at_root and status != OK and tree[T_DETERMINIZE]):
        if tree[T_TRY] + 1 < tree[T_TRIES]:
            tree[T_TRY] += 1
            return
        if status == RESAMPLE:  # the last world keeps another number of options: Python's to walk
            tree[T_STOP] = STOP_DECLINED
            tree[T_WHY] = RESAMPLE
            return
    tree[T_TRY] = 0
    tree[T_DONE] += 1
    tree[T_PCOUNT] = ctr[PLAYERS_N]
    had = tree[T_HAD]
    used = had if status == WORK_LIMIT else resume[R_ROOT_WORK] - (max_work - work)
    if resume[R_STAGE] != 2:
        used = 0  # (no work was counted before the root)
    tree[T_LEFT] -= used
    if status == OK:
        for d in range(tree[T_DEPTH]):
            ch = tree[tree[T_PATH] + 2 * d]
            p = tree[tree[T_PATH] + 2 * d + 1]
            tree[tree[T_VISITS] + ch] += 1
            treef[F_REWARD + ch] += _reward(ctr, tree, nplayers, base, p)
    else:
        tree[T_UNFINISHED] += used
    if tree[T_LEFT] <= 0:
        tree[T_STOP] = STOP_SPENT


def choose_searching(ctr, keys, resume, pst, tree, treef, n):
    """``runtime_resume.choose`` in a search module: in a search (ctr[SEARCHING]) the tree
    chooses from the root on, until it expands a node."""
    if ctr[STEPPING]:  # stepped from outside (recycle/native/stepping.py): the caller chooses
        return choose(ctr, keys, resume, n)
    if ctr[SEARCHING] == 1 and resume[R_STAGE] == 1:  # the root
        if n != tree[T_N]:  # this world offers another number of options: deal it again
            ctr[STATUS] = RESAMPLE
            return 0
        reach_root(ctr, resume)
        return choose_in_tree(ctr, keys, pst, tree, treef, n, True)
    if ctr[SEARCHING] == 2 and resume[R_STAGE] != 0 and n > 1 and ctr[FORCED_AT] >= resume[R_NFORCED]:
        if resume[R_STAGE] == 1:  # (a probe: the root's options keyed as those below it)
            reach_root(ctr, resume)
        return choose_in_tree(ctr, keys, pst, tree, treef, n, False)
    return choose(ctr, keys, resume, n)
