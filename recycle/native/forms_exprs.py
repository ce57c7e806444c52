"""Native writers of expressions: integers, conditions, strings, cards, players, locations,
views and groups. An expression is written as Python code over the state's arrays; one that
needs a loop (a filter, a union, an any or all over a collection) becomes a small function of
its own, called where the form stands, so that conditions are worked out exactly when (and
only if) the Python engine works them out.
"""

from __future__ import annotations

from ..lang.nodes.base import Const, Kind, Loc, Nth, Num, Storage, Turn, Var, Word
from .registry import native
from .writer_actions import storage_slot
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
