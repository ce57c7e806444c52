"""The integers, conditions, owners and locations that the deal analysis of ``deal_limit`` works
out, read from a game's nodes (``recycle/lang/nodes``). A value it cannot work out exactly is
None; a form it does not follow at all raises ``_Stop``. ``an`` is the analysis (its number of
players ``n``, its current player, and the counts and storages so far).
"""

from __future__ import annotations

import operator

from ..nodes.base import Const, Everyone, GameOwner, Loc, Num, Nth, Storage, Turn, Var, Word
from ..nodes.numbers import Add, And, AtLeast, AtMost, Equal, Exists, ForAll, Greater, Less, Mul, Not, NotEqual, Or
from ..nodes.numbers import Size, Sub
from ..nodes.places import Filter
from ..nodes.scalars import Owner, TeamOf

MAX_INT = 2**53  # integers beyond it are left unknown (no overflow question arises)


class _Stop(Exception):
    """The analysis cannot follow the game exactly from here on."""


_ARITHMETIC = {Add: operator.add, Sub: operator.sub, Mul: operator.mul}
_COMPARE = {
    Equal: operator.eq,
    NotEqual: operator.ne,
    Less: operator.lt,
    Greater: operator.gt,
    AtMost: operator.le,
    AtLeast: operator.ge,
}


def owner(an, x, env):
    """'game', ('player', i), or None (not known); _Stop for a form not followed."""
    match x:
        case GameOwner():
            return "game"
        case Var(name=name) | Const(name=name):
            v = env.get(name)
            return v if isinstance(v, tuple) and v[0] == "player" else None
        case Turn(position="current", what="player"):
            return None if an.current is None else ("player", an.current)
        case Nth(index=Num(value=i), what="player"):
            return ("player", i) if 0 <= i < an.n else None
        case Turn() | Nth() | Owner() | TeamOf():
            return None  # another player or a team: not worked out
    raise _Stop


def location(an, x, env):
    """(owner or None, kind, name) of a physical location written with its name; _Stop for
    anything else."""
    match x:
        case Loc(owner=who, kind=kind, name=Word(value=name)):
            return owner(an, who, env), kind, name
    raise _Stop


def integer(an, x, env) -> int | None:
    """The integer ``x`` holds, or None."""
    match x:
        case Num(value=v):
            return v
        case Var(name=name) | Const(name=name):
            v = env.get(name)
            return v if isinstance(v, int) else None
        case Add(operands=(a, b)) | Mul(operands=(a, b)) | Sub(a=a, b=b):
            a, b = integer(an, a, env), integer(an, b, env)
            if a is None or b is None:
                return None
            v = _ARITHMETIC[type(x)](a, b)
            return v if abs(v) < MAX_INT else None
        case Size(collection=Everyone(what="player")):
            return an.n
        case Size(collection=Filter() as f):
            return _filter_count(an, f, env)
        case Size(collection=Loc() as where):
            try:
                key = location(an, where, env)
            except _Stop:
                return None
            return None if key[0] is None else an.count(key)
        case Storage(holder=holder, sort="sto", name=Word(value=name)):
            try:
                who = owner(an, holder, env)
            except _Stop:
                return None
            if who is None or name in an.unknown_sto:
                return None
            return an.sto.get((who, name), 0)
    return None


def _filter_count(an, x, env):
    """How many players ``(filter player 'P CONDITION)`` holds (as the integer ``size`` reads),
    or None: another collection, or a condition not worked out."""
    if not players_loop(x):
        return None
    held = _each_player(an, x, x.condition, env)
    return None if None in held else sum(held)


def truth(an, x, env) -> bool | None:
    """Whether the condition ``x`` holds, or None."""
    match x:
        case Not(condition=c):
            v = truth(an, c, env)
            return None if v is None else not v
        case Equal(a=a, b=b) | NotEqual(a=a, b=b) | Less(a=a, b=b) | Greater(a=a, b=b):
            return _compare(an, x, a, b, env)
        case AtMost(a=a, b=b) | AtLeast(a=a, b=b):
            return _compare(an, x, a, b, env)
        case And(conditions=cs) | Or(conditions=cs) if len(cs) >= 2:
            # a false operand decides an and, a true one an or
            return decided([truth(an, c, env) for c in cs], isinstance(x, Or))
        case Exists() | ForAll() if players_loop(x):
            return decided(_each_player(an, x, x.condition, env), isinstance(x, Exists))
    return None


def _compare(an, x, a, b, env):
    a, b = integer(an, a, env), integer(an, b, env)
    return None if a is None or b is None else _COMPARE[type(x)](a, b)


def decided(values: list, decisive: bool) -> bool | None:
    """An and/or (any/all) of ``values``: ``decisive`` (True for or/any) decides it."""
    if decisive in values:
        return decisive
    return None if None in values else not decisive


def players_loop(x) -> bool:
    """Does the binder ``x`` (any, all, filter) range over the players?"""
    return isinstance(x.collection, Everyone) and x.collection.what == "player"


def _each_player(an, x, body, env) -> list:
    return [truth(an, body, {**env, x.variable.name: ("player", p)}) for p in range(an.n)]
