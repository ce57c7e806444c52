"""The integers and conditions that the deal analysis of ``deal_limit`` works out (its table of
readers, ``READ``, is shared: deal_limit.py adds the actions and blocks). A reader returns None
for a value it cannot work out exactly.
"""

from __future__ import annotations

from functools import partial

from ..forms.registry import Kind
from ..forms.shapes import head_of, is_location_form, kw
from ..forms.writers import Writers
from ..syntax.reader import VAR, Atom

MAX_INT = 2**53  # integers beyond it are left unknown (no overflow question arises)


class _Stop(Exception):
    """The analysis cannot follow the game exactly from here on."""


READ = Writers("deal-limit")  # values, conditions, actions and blocks (these, and deal_limit.py's)
TOP = Writers("deal-limit flow")  # the game's own flow, a statement at a time
NOT_MINE = object()
_ARITHMETIC = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}
_COMPARE = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
}


@READ.register(Kind.INT, "+", "-", "*")
def _arithmetic(an, x, env):
    if len(x.items) != 3:
        return None
    a, b = an.integer(x.items[1], env), an.integer(x.items[2], env)
    if a is None or b is None:
        return None
    v = _ARITHMETIC[x.items[0].value](a, b)
    return v if abs(v) < MAX_INT else None


@READ.register(Kind.INT, "size")
def _size(an, x, env):
    if len(x.items) != 2:
        return None
    if kw(x.items[1], "player"):
        return an.n
    count = READ.get(Kind.LOC, head_of(x.items[1]))
    if count is not None:
        return count(an, x.items[1], env)
    if is_location_form(x.items[1]):
        try:
            owner, kind, name = an.location(x.items[1], env)
        except _Stop:
            return None
        return None if owner is None else an.count((owner, kind, name))
    return None


@READ.register(Kind.LOC, "filter")
def _filter_count(an, x, env):
    """How many players ``(filter player 'P CONDITION)`` holds (as the integer ``size`` reads),
    or None: another collection, or a condition not worked out."""
    if not _players_loop(x):
        return None
    held = _each_player(an, x, env)
    return None if None in held else sum(held)


def _junction(an, x, env, decisive: bool):
    return an.decided([an.truth(i, env) for i in x.items[1:]], decisive) if len(x.items) >= 3 else None


@READ.register(Kind.BOOL, "not")
def _not(an, x, env):
    v = an.truth(x.items[1], env) if len(x.items) == 2 else None
    return None if v is None else not v


@READ.register(Kind.BOOL, "==", "!=", "<", ">", "<=", ">=")
def _compare(an, x, env):
    if len(x.items) != 3:
        return None
    a, b = an.integer(x.items[1], env), an.integer(x.items[2], env)
    return None if a is None or b is None else _COMPARE[x.items[0].value](a, b)


def _players_loop(x) -> bool:
    return len(x.items) == 4 and kw(x.items[1], "player") and isinstance(x.items[2], Atom) and x.items[2].kind == VAR


def _each_player(an, x, env) -> list:
    return [an.truth(x.items[3], {**env, x.items[2].value: ("player", p)}) for p in range(an.n)]


def _quantifier(an, x, env, decisive: bool):
    return an.decided(_each_player(an, x, env), decisive) if _players_loop(x) else None


# a true operand decides an or (any), a false one an and (all)
for _head, _read in (
    ("and", partial(_junction, decisive=False)),
    ("or", partial(_junction, decisive=True)),
    ("any", partial(_quantifier, decisive=True)),
    ("all", partial(_quantifier, decisive=False)),
):
    READ.register(Kind.BOOL, _head)(_read)
