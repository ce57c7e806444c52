"""The native module's text around the game's functions (recycle/native/writer.py writes those):
its header of named constants (locations and storages by name, attribute columns, each choice's
place in the game's text, tables of points) and its one entry, ``games`` (``ENTRY``: random
rollouts, a playout from a sampled world, or a search module's searches).

Outside text reaches the header only through ``ident()`` (names) and ``pytext.embed`` (comments)
and ``repr()`` of numbers and ids, as in the writer.
"""

from __future__ import annotations

import re

from ..lang.python.pytext import embed
from .merge import merge_alike


def ident(name: str) -> str:
    """A name of the game as part of an identifier: letters, digits and _ only."""
    out = re.sub(r"[^A-Za-z0-9_]", "_", str(name))[:40]
    return out if out and not out[0].isdigit() else "_" + out


def setup_teams(game) -> list[list[int]]:
    """Each team's players after the game's setup."""
    s = game.state_after_setup()
    return [[int(p) for p in m] for m in s.team_members[: s.nteams]]


def module_text(self) -> str:
    """The text of the native module ``self`` (a ``Writer`` that wrote the game's functions) has
    written: its header of named constants (locations, storages, columns, tables), the functions,
    and the entry (``ENTRY``, with a search module's searches)."""
    from .runtime import NCOUNTERS

    g = self.game
    out = [
        f'"""Native module of {embed(g.source.filename, "text")}, written by recycle/native/writer.py."""',
        "import numpy as np",
        "from recycle.native.runtime import *  # noqa: F401,F403 - the runtime's helpers and counters",
        "from recycle.native.runtime_dry import *  # noqa: F401,F403 - a dry run's state kept and put back",
        "from recycle.native.runtime_resume import *  # noqa: F401,F403 - look-ahead playouts",
        "from recycle.native.runtime_search import *  # noqa: F401,F403 - look-ahead searches",
        "from recycle.native.runtime_cards import *  # noqa: F401,F403 - mem locations, runs",
        "from recycle.native.runtime_groups import *  # noqa: F401,F403 - tuples, runs, subsets",
        "",
        f"NPLAYERS = {self.nplayers}",
        f"SEARCH = {self.search}  # a search module: choices key their options (runtime_search.py)",
        f"NCARDS = {len(g.card_attrs)}",
        f"NCOUNTERS_FIXED = {NCOUNTERS}",
        f"POINTS_EPOCH = {self.layout.nlocs}  # ver[POINTS_EPOCH] counts the point maps set",
        f"MEMO_SITES = {self.memo_sites}  # conditions remembered by the version of the location they read",
        f"DRY_LEVELS = {self.dry_levels}  # blocks of options kept in dry runs one inside another",
        "OWNER_GAME, OWNER_PLAYER = 0, 1  # a location's index: its block + 0 (the game) or 1 + player",
        "",
    ]
    out.append("# locations: the first index of each block (game, then each player, then each team)")
    for (kind, name), base in sorted(self.layout.loc_base.items(), key=lambda kv: kv[1]):
        out.append(f"LOC_{ident(kind)}_{ident(name)} = {base}  # {embed(kind + ' ' + name, 'text')}")
    for sort in ("sto", "str", "points"):
        names = self.layout.storage_names(sort)
        if names:
            out.append(f"# {sort} storages")
        for name, base in sorted(names.items(), key=lambda kv: kv[1]):
            out.append(f"{sort.upper()}_{ident(name)} = {base}")
    out.append("# what player owns each location (-1: the game or a team)")
    owners = []
    for info in self.layout.infos:
        owners.append(info.owner if info.owner_kind == "player" else -1)
    out.append(f"LOC_PLAYER = np.array({owners!r}, dtype=np.int64)")
    for key, name in self.columns.items():
        col = [self.intern(v) for v in g.card_table.column(key)]
        out.append(f"{name} = np.array({col!r}, dtype=np.int32)  # {embed(key, 'text')}")
    if self.uses_teams:
        members = setup_teams(g)
        width = max([len(m) for m in members] + [1])
        out.append("# each team's players, as setup makes them (no team is made during play natively)")
        out.append(f"TEAM_SIZE = np.array({[len(m) for m in members]!r}, dtype=np.int64)")
        out.append(f"TEAM_MEMBERS = np.array({[list(m) + [0] * (width - len(m)) for m in members]!r}, dtype=np.int64)")
    for names, name in self.name_lists.items():
        out.append(f"{name} = np.array({[self.intern(v) for v in names]!r}, dtype=np.int32)")
    for (kind, names), name in self.named_blocks.items():
        storage = kind in ("sto", "str", "points")
        ids = [self.intern(n) for n in names]
        table = [-1] * (max(ids) + 1)
        for n, k in zip(names, ids):
            table[k] = self.layout.storage_slot(kind, "game", n) if storage else self.layout.loc_base[(kind, n)]
        out.append(
            f"{name} = np.array({table!r}, dtype=np.int64)  # {embed(kind, 'text')} blocks by the id of their name"
        )
    for (kind, family, low, high), name in self.member_blocks.items():
        bases = [self.layout.loc_base.get((kind, f"{family}[{k}]"), -1) for k in range(low, high + 1)]
        out.append(f"{name} = np.array({bases!r}, dtype=np.int64)  # {embed(family, 'text')}[{low}..{high}]")
    for awards, name in self.tables.items():
        out.append(f"{name} = np.array({const_table(self.game, awards)!r}, dtype=np.int64)")
    out.append("# every string of the game by its id (the state's strs and attribute columns hold ids)")
    out.append(f"STRINGS = {dict(self.strings)!r}")
    out.append("# each numbered choice's (line, column) in the game's text (choose_at's site - 1)")
    out.append(f"CHOICE_SITES = {self.choice_sites!r}")
    out.append("")
    sources, merged = merge_alike([fn.source() for fn in self.fns], self.fresh_names)
    if merged:
        out.append("# functions the same as one before them but for their locals, written once:")
        out.extend(f"#   {dropped} is {kept}" for dropped, kept in merged.items())
        out.append("")
    for src in sources:
        out.append(src)
        out.append("")
    searches = ""
    if self.search:
        from .runtime_search import SEARCHES as searches
    out.append(ENTRY.replace("    # (SEARCHES)\n", searches).replace("play(S)", self.play_call))
    return "\n".join(out)


def const_table(game, awards) -> list[int]:
    """Each card's points under ``awards`` ((conditions, points) pairs): a constant point map's table."""
    table = [0] * len(game.card_attrs)
    for conds, pts in awards:
        for c, attrs in enumerate(game.card_attrs):
            if all(attrs.get(k, "") == v for k, v in conds):
                table[c] += pts
    return table


# the module's one entry, after the game's functions (``play(S)``: the game's ``play`` call; a
# search module's searches where ``# (SEARCHES)`` stands)
ENTRY = '''
def begin(initial, state, nteams, max_steps, max_work):
    """``state`` made the state after setup again (``initial``), its counters zero."""
    locs0, lens0, card_loc0, ints0, strs0, pts0, team_of0 = initial
    locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, keys, team_of, scratch, ver, memo, dry, resume, tree, treef = state
    copy_locations(locs, lens, locs0, lens0)
    copy_into(card_loc, card_loc0)
    copy_into(ints, ints0)
    copy_into(strs, strs0)
    copy_table(pts, pts0)
    copy_into(team_of, team_of0)
    for j in range(ctr.shape[0]):
        ctr[j] = 0
    ctr[SP] = 1  # view 0 is the empty view a failed alloc gives
    for j in range(ver.shape[0]):
        ver[j] += 1  # every location (and the point maps) changed: no answer remembered holds
    ctr[MAX_STEPS] = max_steps
    ctr[MAX_WORK] = max_work
    ctr[NTEAMS] = nteams
    pst[0, 0] = 0
    pst[0, 1] = -1
    tst[0, 0] = 0
    tst[0, 1] = -1


def games(initial, state, nteams, all_keys, max_steps, max_work, scores, counts, where, places, out):
    """The module's one entry (one entry links and compiles ``play`` once).

    Rollouts, when ``out`` is empty: one game per row of keys (its chance and players' stream
    keys), each from the state after setup (``initial``), played on ``state`` (the arrays a
    caller made: native code makes none): scores, counters (status, steps, decisions, options,
    rounds), card places.

    Else one playout from a sampled world (recycle/native/playouts.py): played from its start
    with the choices ``resume`` forces, the world put in place at its decision, on at random.
    The caller set ``keys`` (the real game's chance stream, the world's, the players') and
    ctr[PLAYERS_N] is taken from ``out[5]``. out: status, steps, decisions, options, rounds, the
    players' stream's count, the work left, then the scores.

    In a search module (``SEARCH``), when ``tree`` has a budget: a look-ahead search
    (runtime_search.py), worlds sampled and played, their choices from the root on made by the
    tree, until the budget is spent."""
    locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, keys, team_of, scratch, ver, memo, dry, resume, tree, treef = state
    # (SEARCHES)
    playout = out.shape[0] > 0
    n = 1 if playout else all_keys.shape[0]
    for i in range(n):
        if playout:
            begin(initial, state, nteams, max_steps, 1 << 62)
            ctr[RESUMING] = 1
            ctr[PLAYERS_N] = out[5]
            resume[R_STAGE] = 0
        else:
            begin(initial, state, nteams, max_steps, max_work)
            ctr[STEPPING] = stepping_wanted()  # stopping at each choice (recycle/native/stepping.py)
            if ctr[STEPPING] and tree.shape[0] > T_HEADER:  # a search module's choices key their options
                ctr[SEARCHING] = 2
                resume[R_STAGE] = 2
            keys[0] = all_keys[i, 0]
            keys[1] = all_keys[i, 1]
        play(S)
        if playout:
            out[0] = ctr[STATUS]
            if ctr[STATUS] == 0 and resume[R_STAGE] != 2:
                out[0] = MISMATCH  # the game ended before the decision it was sent to
            out[1] = ctr[STEPS]
            out[2] = ctr[DECISIONS]
            out[3] = ctr[OPTIONS]
            out[4] = ctr[ROUNDS]
            out[5] = ctr[PLAYERS_N]
            out[6] = ctr[MAX_WORK] - ctr[WORK]
            if out[0] == 0:
                for p in range(NPLAYERS):
                    out[7 + p] = ctr[NCOUNTERS_FIXED + p]
            return
        counts[i, 0] = ctr[STATUS]
        counts[i, 1] = ctr[STEPS]
        counts[i, 2] = ctr[DECISIONS]
        counts[i, 3] = ctr[OPTIONS]
        counts[i, 4] = ctr[ROUNDS]
        if ctr[STATUS] == 0:
            for p in range(NPLAYERS):
                scores[i, p] = ctr[NCOUNTERS_FIXED + p]
        if places:
            for c in range(where.shape[1]):
                where[i, c] = card_loc[c]
'''
