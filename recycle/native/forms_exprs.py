"""Native writers of expressions: integers, conditions, strings, cards, players, locations,
views and groups. An expression is written as Python code over the state's arrays; one that
needs a loop (a filter, a union, an any or all over a collection) becomes a small function of
its own, called where the form stands, so that conditions are worked out exactly when (and
only if) the Python engine works them out.
"""

from __future__ import annotations

from ..lang.nodes import numbers as n
from ..lang.nodes.base import Const, Everyone, Kind, Loc, Nth, Num, Storage, Turn, Var, Word
from ..lang.nodes.groups import Partition, Pick, Runs, Subsets, Tuples
from .forms_actions import storage_slot
from .forms_flow import collection, groups_of, loop_var, open_loop
from .purity import analyse, canonical, walk
from .registry import native
from .writer import (
    CARD_T,
    INT_T,
    LOC_T,
    LOCS_T,
    NUMBERS_T,
    PLAYER_T,
    PLAYERS_T,
    STR_T,
    TEAM_T,
    TEAMS_T,
    VIEW_T,
    NativeUnsupported,
    is_constant,
)


VARIABLES = (Var, Const)  # a variable, or a declared constant (folded)


def variable(sc, x, *types):
    v = sc.lookup(x.name)
    if v is None:
        raise NativeUnsupported(f"the variable '{x.name}", x)
    if hasattr(v, "type"):
        if v.type not in types:
            raise NativeUnsupported(f"'{x.name} used as {types[0]} while it holds a {v.type}", x)
        return v.name
    return v  # a declared constant


# -- integers ------------------------------------------------------------------------------


@native(Kind.INT, Num)
def int_literal(w, x, sc) -> str:
    return str(int(x.value))


@native(Kind.INT, *VARIABLES)
def int_variable(w, x, sc) -> str:
    v = variable(sc, x, INT_T)
    if isinstance(v, str):
        return v
    if isinstance(v.value, int) and not isinstance(v.value, bool):
        return str(v.value)
    raise NativeUnsupported(f"the constant '{x.name} as an integer", x)


@native(Kind.INT, Storage)
def int_storage(w, x, sc) -> str:
    sort, slot = storage_slot(w, x, sc)
    if sort != "sto":
        raise NativeUnsupported(f"a {sort} storage as an integer", x)
    return f"ints[{slot}]"


@native(Kind.INT, n.Size)
def int_size(w, x, sc) -> str:
    coll = x.collection
    if isinstance(coll, Everyone):
        return "NPLAYERS" if coll.what == "player" else "ctr[NTEAMS]"
    groups = groups_of(w, coll, sc)
    if groups is not None:
        return f"scratch[{groups}]"  # how many groups
    t, code = w.loc(coll, sc)
    return f"lens[{code}]" if t == LOC_T else f"scratch[{code}]"


def points_table(w, x, sc) -> str:
    return w.points_table(x, sc)  # (writer_places.py: the place forms' writers need it too)


@native(Kind.INT, n.Sum)
def int_sum(w, x, sc) -> str:
    t, code = w.loc(x.location, sc)
    table = points_table(w, x.points, sc)
    return f"score_sum_loc(locs, lens, {code}, {table})" if t == LOC_T else f"score_sum(scratch, {code}, {table})"


@native(Kind.INT, n.ScoreMax, n.ScoreMin)
def int_score_extreme(w, x, sc) -> str:
    return (
        f"best_score(ctr, scratch, {w.cards(x.collection, sc)}, {points_table(w, x.points, sc)}, "
        f"{isinstance(x, n.ScoreMax)})"
    )


@native(Kind.INT, n.Score)
def int_score(w, x, sc) -> str:
    return f"card_score({points_table(w, x.points, sc)}, {w.card(x.card, sc)})"


@native(Kind.INT, n.Add, n.Mul)
def int_add_mul(w, x, sc) -> str:
    op = " + " if isinstance(x, n.Add) else " * "
    return "(" + op.join(w.int_(i, sc) for i in x.operands) + ")"


@native(Kind.INT, n.Sub)
def int_sub(w, x, sc) -> str:
    return f"({w.int_(x.a, sc)} - {w.int_(x.b, sc)})"


@native(Kind.INT, n.Pid)
def int_pid(w, x, sc) -> str:
    return f"({w.player(x.player, sc)})"


# -- conditions ----------------------------------------------------------------------------


@native(Kind.BOOL, n.Equal, n.NotEqual)
def equal(w, x, sc) -> str:
    (ta, a), (tb, b) = w.value(x.a, sc), w.value(x.b, sc)
    if ta != tb:
        raise NativeUnsupported(f"a {ta} compared with a {tb}", x)
    if ta in (LOC_T, VIEW_T, "groups", "bool"):
        raise NativeUnsupported(f"{ta}s compared", x)
    return f"({a} {'==' if isinstance(x, n.Equal) else '!='} {b})"


ORDERS = {n.Less: "<", n.AtMost: "<=", n.Greater: ">", n.AtLeast: ">="}


@native(Kind.BOOL, *ORDERS)
def compare(w, x, sc) -> str:
    return f"({w.int_(x.a, sc)} {ORDERS[type(x)]} {w.int_(x.b, sc)})"


@native(Kind.BOOL, n.And, n.Or)
def and_or(w, x, sc) -> str:
    op = " and " if isinstance(x, n.And) else " or "
    return "(" + op.join(w.bool_(i, sc) for i in x.conditions) + ")"


@native(Kind.BOOL, n.Not)
def bool_not(w, x, sc) -> str:
    return f"(not {w.bool_(x.condition, sc)})"


@native(Kind.BOOL, n.Exists, n.ForAll)
def bool_any_all(w, x, sc) -> str:
    """A function of its own: the loop over the collection, stopping at the first answer."""
    name = loop_var(x)
    exists = isinstance(x, n.Exists)
    word = type(x).HEAD
    params = sc.params()
    with w.function(f"{word}_of", params, f"({word} ...) at line {x.span.line}"):
        var = w.local(name)
        loop = collection(w, x.collection, sc, var, in_place=True)
        depth = w.fn.depth
        open_loop(w, loop)
        cond = w.bool_(x.condition, sc.bind(name, var, loop.type))
        with w.block(f"if {'' if exists else 'not '}{cond}:"):
            w.line(f"return {exists}")
        w.fn.depth = depth
        w.line(f"return {not exists}")
    compute = w.fns[-1].call(*params)
    return remembered(w, x, sc, compute) or compute


def remembered(w, x, sc, compute: str) -> str | None:
    """A call of ``compute`` that answers again from memory while the one location the form
    reads, and the point maps, are unchanged (recycle/lang/forms/purity.py decides, from the syntax,
    that the form is such a function of that location's cards). None when it is not."""
    found = analyse(x, lambda name: is_constant(sc.lookup(name)))
    if found is None or len(found[0]) != 1:
        return None
    # Two conditions alike but for the variable naming the location answer alike for the same
    # cards: they share a site (Schwimmen's two stages end on the same test of every hand)
    here = canonical(found[0][0])
    consts = sorted(
        {
            (a.name, repr(sc.lookup(a.name).value))
            for a in walk(x)
            if isinstance(a, VARIABLES) and is_constant(sc.lookup(a.name))
        }
    )
    key = (canonical(x, here), tuple(consts))
    site = w.memo_keys.get(key)
    if site is None:
        site = w.memo_keys[key] = w.memo_sites
        w.memo_sites += 1
    params = sc.params()
    with w.function(
        "remembered",
        params,
        f"({type(x).HEAD} ...) at line {x.span.line}, remembered by the version of the location it reads",
    ):
        w.line(f"where = {w.phys(found[0][0], sc)}")
        with w.block(f"if memo[{site}, where, 0] == ver[where] and memo[{site}, where, 1] == ver[POINTS_EPOCH]:"):
            w.line(f"return memo[{site}, where, 2] != 0")
        w.line(f"answer = {compute}")
        with w.block("if ctr[STATUS] == 0:"):
            w.line(f"memo[{site}, where, 0] = ver[where]")
            w.line(f"memo[{site}, where, 1] = ver[POINTS_EPOCH]")
            w.line(f"memo[{site}, where, 2] = 1 if answer else 0")
        w.line("return answer")
    return w.fns[-1].call(*params)


# -- strings -------------------------------------------------------------------------------


@native(Kind.STR, Word)
def str_name(w, x, sc) -> str:
    return str(w.intern(x.value))


@native(Kind.STR, Num)
def str_literal(w, x, sc) -> str:
    return str(w.intern(str(x.value)))


@native(Kind.STR, *VARIABLES)
def str_variable(w, x, sc) -> str:
    v = variable(sc, x, STR_T)
    if isinstance(v, str):
        return v
    if isinstance(v.value, str):
        return str(w.intern(v.value))
    raise NativeUnsupported(f"the constant '{x.name} as a string", x)


@native(Kind.STR, Storage)
def str_storage(w, x, sc) -> str:
    sort, slot = storage_slot(w, x, sc)
    if sort != "str":
        raise NativeUnsupported(f"a {sort} storage as a string", x)
    return f"strs[{slot}]"


# -- cards ---------------------------------------------------------------------------------


@native(Kind.CARD, *VARIABLES)
def card_variable(w, x, sc, optional=False) -> str:
    v = variable(sc, x, CARD_T)
    if not isinstance(v, str):
        raise NativeUnsupported(f"the constant '{x.name} as a card", x)
    return v


# -- players and teams ---------------------------------------------------------------------


@native(Kind.PLAYER, *VARIABLES)
def player_variable(w, x, sc) -> str:
    v = variable(sc, x, PLAYER_T)
    if not isinstance(v, str):
        raise NativeUnsupported(f"the constant '{x.name} as a player", x)
    return v


PLAYER_AT = {
    "current": "pst[ctr[PSP], 0]",
    "next": "(pst[ctr[PSP], 1] if pst[ctr[PSP], 1] >= 0 else (pst[ctr[PSP], 0] + 1) % NPLAYERS)",
    "previous": "((pst[ctr[PSP], 0] - 1) % NPLAYERS)",
}
TEAM_AT = {
    "current": "tst[ctr[TSP], 0]",
    "next": "(tst[ctr[TSP], 1] if tst[ctr[TSP], 1] >= 0 else (tst[ctr[TSP], 0] + 1) % ctr[NTEAMS])",
}


@native(Kind.PLAYER, Turn, Nth)
def player_who(w, x, sc) -> str:
    if x.what != "player":
        raise NativeUnsupported("a team as a player", x)
    if isinstance(x, Turn):
        return PLAYER_AT[x.position]
    return f"nth_player(ctr, NPLAYERS, {w.int_(x.index, sc)})"


@native(Kind.TEAM, *VARIABLES)
def team_variable(w, x, sc) -> str:
    v = variable(sc, x, TEAM_T)
    if not isinstance(v, str):
        raise NativeUnsupported(f"the constant '{x.name} as a team", x)
    return v


@native(Kind.TEAM, Turn, Nth)
def team_who(w, x, sc) -> str:
    if x.what != "team" or not isinstance(x, Turn) or x.position not in TEAM_AT:
        raise NativeUnsupported("this team", x)
    return TEAM_AT[x.position]


# -- locations, views and groups -----------------------------------------------------------


@native(Kind.LOC, Loc)
def location(w, x, sc) -> tuple[str, str]:
    # (a mem location is a row like any other: its entries are cards, which lie elsewhere;
    # moves into or out of one are refused by the moves, remember and forget write it)
    base = w.named_base(x.kind, x.name, sc)
    offset = w.owner_offset(x.owner, sc)
    return LOC_T, base if offset == "0" else f"{base} + {offset}"


@native(Kind.LOC, *VARIABLES)
def loc_variable(w, x, sc) -> tuple[str, str]:
    v = variable(sc, x, VIEW_T, LOC_T, PLAYERS_T, TEAMS_T, NUMBERS_T, LOCS_T)
    if not isinstance(v, str):
        raise NativeUnsupported(f"the constant '{x.name} as a location", x)
    return sc.lookup(x.name).type, v


@native(Kind.LOC, Pick)
def group_pick(w, x, sc) -> tuple[str, str]:
    """(top|bottom GROUPS): the first or last group (the opposite ends from a location's)."""
    groups = groups_of(w, x.groups, sc) if x.index in ("top", "bottom") else None
    if groups is None:
        raise NativeUnsupported("(top ...) of this shape as a location", x)
    return VIEW_T, f"group_at(scratch, ctr, {groups}, {0 if x.index == 'top' else -1})"


@native(Kind.GROUPS, Tuples)
def groups_tuples(w, x, sc) -> str:
    """(tuples N CARDS using POINTS): runtime_groups.tuples_of."""
    return f"tuples_of(scratch, ctr, {w.cards(x.location, sc)}, {w.int_(x.n, sc)}, {points_table(w, x.points, sc)})"


@native(Kind.GROUPS, Runs)
def groups_runs(w, x, sc) -> str:
    """(runs largest|all N CARDS using POINTS): runtime_groups.runs_groups."""
    return (
        f"runs_groups(scratch, ctr, {w.cards(x.location, sc)}, {w.int_(x.n, sc)}, "
        f"{bool(x.largest)}, {points_table(w, x.points, sc)})"
    )


@native(Kind.GROUPS, Subsets)
def groups_subsets(w, x, sc) -> str:
    """(subsets CARDS): runtime_groups.subsets_of."""
    return f"subsets_of(scratch, ctr, {w.cards(x.location, sc)})"


@native(Kind.GROUPS, Partition)
def groups_partition(w, x, sc) -> str:
    if not isinstance(x.key, Word):
        raise NativeUnsupported("a partition of an unexpected shape", x)
    if not isinstance(x.parts, tuple) or len(x.parts) != 1:
        raise NativeUnsupported("a partition of several locations", x)
    t, code = w.loc(x.parts[0], sc)
    if t == LOC_T:  # a location's cards read where they lie: no snapshot copied first
        return f"partition_loc(locs, lens, scratch, ctr, {code}, {w.column(x.key.value)})"
    return f"partition(scratch, ctr, {w.cards(x.parts[0], sc)}, {w.column(x.key.value)})"


@native(Kind.INT, n.Div, n.Mod)
def int_div_mod(w, x, sc) -> str:
    """C#'s division and remainder (recycle/lang/forms/expr_int.py); by zero, the rollout is
    played again by Python for the message."""
    fn = "c_div" if isinstance(x, n.Div) else "c_mod"
    return f"{fn}(ctr, {w.int_(x.a, sc)}, {w.int_(x.b, sc)})"
