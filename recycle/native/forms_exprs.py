"""Native writers of expressions: integers, conditions, strings, cards, players, locations,
views and groups. An expression is written as Python code over the state's arrays; one that
needs a loop (a filter, a union, an any or all over a collection) becomes a small function of
its own, called where the form stands, so that conditions are worked out exactly when (and
only if) the Python engine works them out.
"""

from __future__ import annotations

from ..lang.nodes import places as pl
from ..lang.nodes.base import Const, Everyone, Kind, Loc, Nth, Num, Storage, Turn, Var, Word
from ..lang.nodes.groups import Each, Range
from ..lang.nodes.scalars import CardAtt, Owner, TeamOf
from ..lang.nodes.sexpr import MAX_COLLECTION
from .forms_flow import collection, loop_var, open_loop
from .registry import native
from .writer_actions import groups_of, is_groups_form, points_table, storage_slot
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


@native(Kind.STR, CardAtt)
def str_cardatt(w, x, sc) -> str:
    if not isinstance(x.key, Word):
        raise NativeUnsupported("(cardatt ...) with a computed key", x)
    col = w.column(x.key.value)
    c = w.card(x.card, sc, True)
    if c.isidentifier():
        return f"({col}[{c}] if {c} >= 0 else 0)"
    return f"attr_of({col}, {c})"


# -- cards ---------------------------------------------------------------------------------


@native(Kind.CARD, *VARIABLES)
def card_variable(w, x, sc, optional=False) -> str:
    v = variable(sc, x, CARD_T)
    if not isinstance(v, str):
        raise NativeUnsupported(f"the constant '{x.name} as a card", x)
    return v


@native(Kind.CARD, pl.Top, pl.Bottom)
def card_end(w, x, sc, optional=False) -> str:
    h = "top" if isinstance(x, pl.Top) else "bottom"
    held = groups_of(w, x.location, sc)
    if held is not None:  # a variable holding a group list stands for its first group (Python's)
        t, code = VIEW_T, f"group_at(scratch, ctr, {held}, 0)"
    else:
        t, code = w.loc(x.location, sc)
    if t == LOC_T:
        fn = f"{h}_card" if not optional else f"{h}_or_none"
        return f"{fn}(locs, lens, ctr, {code})"
    fn = f"view_{h}" if not optional else f"view_{h}_or_none"
    return f"{fn}(ctr, scratch, {code})"


@native(Kind.CARD, pl.Highest, pl.Lowest)
def card_best(w, x, sc, optional=False) -> str:
    cards = w.cards(x.location, sc)
    return f"best_card(ctr, keys, scratch, {cards}, {points_table(w, x.points, sc)}, {isinstance(x, pl.Highest)})"


@native(Kind.CARD, pl.Actual)
def card_actual(w, x, sc, optional=False) -> str:
    return w.card(x.card, sc, optional)


@native(Kind.CARD, pl.At)
def card_index(w, x, sc, optional=False) -> str:
    if isinstance(x.index, VARIABLES):
        v = sc.lookup(x.index.name)
        if v is None or getattr(v, "type", None) != INT_T:
            raise NativeUnsupported("an index that is not an integer", x)
        i = v.name
    else:
        i = w.int_(x.index, sc)
    return f"card_at(ctr, scratch, {w.cards(x.location, sc)}, {i}, {optional})"


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


@native(Kind.PLAYER, Owner)
def player_owner(w, x, sc) -> str:
    return f"owner_of(ctr, LOC_PLAYER, card_loc, {w.card(x.card, sc)})"


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


@native(Kind.TEAM, TeamOf)
def team_of_player(w, x, sc) -> str:
    return f"team_of_player(ctr, team_of, {w.player(x.player, sc)})"


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


@native(Kind.LOC, pl.TopN, pl.BottomN)
def first_n(w, x, sc) -> tuple[str, str]:
    """(top|bottom N CARDS): a view of the N topmost cards, the topmost first, or the N
    bottommost, bottom first (recycle/lang/forms/expr_locs.py, first_n); more than it holds is a rule
    broken."""
    top = isinstance(x, pl.TopN)
    params = sc.params()
    with w.function(
        "first_n", params, f"({'top' if top else 'bottom'} N ...) at line {x.span.line}", keeps_scratch=True
    ):
        w.line(f"source = {w.cards(x.location, sc)}")
        w.line(f"k = {w.int_(x.n, sc)}")
        w.line("n = scratch[source]")
        with w.block("if k < 0 or k > n:"):
            w.line("ctr[STATUS] = RULE")
            w.line("return 0")
        w.line("out = alloc(scratch, ctr, k)")
        with w.block("if out == 0:"):
            w.line("return out")
        with w.block("for i in range(k):"):
            w.line(f"scratch[out + 1 + i] = scratch[source + {'n - i' if top else '1 + i'}]")
        w.line("ctr[WORK] += k")
        w.line("return out")
    return VIEW_T, w.fns[-1].call(*params)


@native(Kind.LOC, pl.RunOf)
def loc_run(w, x, sc) -> tuple[str, str]:
    """(run top|bottom N CARDS using POINTS): runtime_cards.run_of."""
    return VIEW_T, (
        f"run_of(scratch, ctr, {w.cards(x.location, sc)}, {w.int_(x.n, sc)}, "
        f"{x.end == 'top'}, {points_table(w, x.points, sc)})"
    )


@native(Kind.LOC, pl.Filter)
def loc_filter(w, x, sc) -> tuple[str, str]:
    name = loop_var(x)
    coll = x.collection
    if isinstance(coll, Everyone):
        return filter_players(w, x, sc, name, coll.what)
    if isinstance(coll, Range):
        return filter_range(w, x, sc, name, coll)
    if is_groups_form(coll) or groups_of(w, coll, sc) is not None:
        raise NativeUnsupported("a filter of groups", x)
    params = sc.params()
    with w.function(
        "filter", params, f"(filter ...) at line {x.span.line}: the cards for which it holds", keeps_scratch=True
    ):
        t, code = w.loc(coll, sc)
        # a view of cards, or of locations (indexed: forms_indexed.py), whose elements it binds
        element, result = (LOC_T, LOCS_T) if t == LOCS_T else (CARD_T, VIEW_T)
        if t in (PLAYERS_T, TEAMS_T, NUMBERS_T):
            raise NativeUnsupported(f"{t} where cards are needed", coll)
        # a location is read in place (a condition moves no card): no snapshot to copy first
        w.line(f"source = {code}")
        w.line(f"n = {'lens[source]' if t == LOC_T else 'scratch[source]'}")
        w.line("out = alloc(scratch, ctr, n)")
        with w.block("if out == 0:"):
            w.line("return out")
        w.line("m = 0")
        var = w.local(name)
        with w.block("for k in range(n):"):
            w.line(f"{var} = {'locs[source, k]' if t == LOC_T else 'scratch[source + 1 + k]'}")
            with w.block(f"if {w.bool_(x.condition, sc.bind(name, var, element))}:"):
                w.line(f"scratch[out + 1 + m] = {var}")
                w.line("m += 1")
        w.line("scratch[out] = m")
        w.line("return out")
    return result, w.fns[-1].call(*params)


def filter_players(w, x, sc, name: str, which: str) -> tuple[str, str]:
    """(filter player|team 'P CONDITION): the players (teams) for which it holds, in order: a
    view of their numbers."""
    n_ = "NPLAYERS" if which == "player" else "ctr[NTEAMS]"
    return filter_numbers(
        w,
        x,
        sc,
        name,
        f"(filter {which} ...)",
        [f"low, high = 0, {n_} - 1"],
        PLAYER_T if which == "player" else TEAM_T,
        PLAYERS_T if which == "player" else TEAMS_T,
    )


def filter_range(w, x, sc, name: str, coll) -> tuple[str, str]:
    """(filter (range A..B) 'N CONDITION): the integers A to B for which it holds, in order: a
    view of numbers. A range longer than Python's bound is its error, and numbers beyond 32
    bits do not fit the stack: both stop the rollout, which Python then plays."""
    return filter_numbers(
        w,
        x,
        sc,
        name,
        "(filter (range ...) ...)",
        [
            f"low = {w.int_(coll.low, sc)}",
            f"high = {w.int_(coll.high, sc)}",
            f"if high - low > {MAX_COLLECTION}: ctr[STATUS] = RULE; return 0",
            "if low < -2147483648 or high > 2147483647: ctr[STATUS] = CAPACITY; return 0",
        ],
        INT_T,
        NUMBERS_T,
    )


def filter_numbers(w, x, sc, name: str, what: str, bounds: list, element: str, result: str) -> tuple[str, str]:
    """The numbers ``low`` to ``high`` (set by the lines ``bounds``) for which the filter's
    condition holds, in order: a view of numbers of type ``result``."""
    params = sc.params()
    with w.function("filter", params, f"{what} at line {x.span.line}", keeps_scratch=True):
        for line in bounds:
            w.line(line)
        w.line("out = alloc(scratch, ctr, max(0, high - low + 1))")
        with w.block("if out == 0:"):
            w.line("return out")
        w.line("m = 0")
        var = w.local(name)
        with w.block(f"for {var} in range(low, high + 1):"):
            with w.block(f"if {w.bool_(x.condition, sc.bind(name, var, element))}:"):
                w.line(f"scratch[out + 1 + m] = {var}")
                w.line("m += 1")
        w.line("scratch[out] = m")
        w.line("return out")
    return result, w.fns[-1].call(*params)


@native(Kind.LOC, pl.Union)
def loc_union(w, x, sc) -> tuple[str, str]:
    params = sc.params()
    parts = x.parts if isinstance(x.parts, tuple) else (x.parts,)
    with w.function(
        "union", params, f"(union ...) at line {x.span.line}: the cards of every location in turn", keeps_scratch=True
    ):
        for counting in (True, False):
            if counting:
                w.line("total = 0")
            else:
                w.line("out = alloc(scratch, ctr, total)")
                with w.block("if out == 0:"):
                    w.line("return out")
                w.line("m = 0")
            for p in parts:
                depth = w.fn.depth
                inner_sc = sc
                if isinstance(p, Each):
                    name = loop_var(p)
                    var = w.local(name)
                    loop = collection(w, p.collection, sc, var)
                    open_loop(w, loop)
                    inner_sc = sc.bind(name, var, loop.type)
                    p = p.location
                t, code = w.loc(p, inner_sc)
                if t == LOC_T:  # a location's cards counted and copied where they lie (no snapshot)
                    w.line(
                        f"total += lens[{code}]" if counting else f"m = append_loc(locs, lens, scratch, out, m, {code})"
                    )
                elif t in (PLAYERS_T, TEAMS_T, NUMBERS_T, LOCS_T):
                    raise NativeUnsupported(f"{t} where cards are needed", p)
                else:
                    w.line(f"total += scratch[{code}]" if counting else f"m = append_to(scratch, out, m, {code})")
                w.fn.depth = depth
        w.line("return out")
    return VIEW_T, w.fns[-1].call(*params)
