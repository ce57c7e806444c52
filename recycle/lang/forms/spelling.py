"""A node written back as the s-expression it stands for, ``(move (top (game vloc STOCK)) ...)``,
each variable by what ``name_text`` says of it: a transcript writes an option whose effects say
nothing (a pass, a move of nothing) as its form with the variables' values
(engine/transcript.py). The items of a form are laid out from its node by its registered
syntax, as its words are (``wording.items_of``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields

from ..nodes.base import (
    Binding,
    Const,
    Everyone,
    FormNode,
    GameOwner,
    Loc,
    Names,
    Nth,
    Num,
    Storage,
    Turn,
    Var,
    Word,
    written,
)
from .wording import Items, Keyword, items_of


def spelled(node, name_text: Callable[[str], str | None] = lambda name: None) -> str:
    """``node`` as its s-expression, a variable or constant ``'V`` as ``name_text("V")`` when
    that is not None."""

    def spell(x) -> str:
        match x:
            case Keyword():
                return str(x)
            case str() | int():
                return str(x)
            case Word(value=value) | Num(value=value):
                return str(value)
            case Var(name=name) | Const(name=name) | Binding(name=name):
                text = name_text(name)
                return f"'{name}" if text is None else text
            case GameOwner():
                return "game"
            case Everyone(what=what):
                return what
            case Loc(owner=owner, kind=sort, name=name) | Storage(holder=owner, sort=sort, name=name):
                return f"({spell(owner)} {sort} {spell(name)})"
            case Turn(position=position, bare=True):
                return position
            case Turn(position=position, what=what) | Nth(index=position, what=what):
                return f"({spell(position)} {what})"
            case Items() | tuple():
                return "(" + " ".join(spell(i) for i in x) + ")"
            case Names(values=values):
                return "(" + " , ".join(values) + ")"
        if not isinstance(x, FormNode):
            return written(x)
        if x.HEAD is not None:
            items = items_of(x)
            return "(" + " ".join(spell(i) for i in items) + ")" if items is not None else written(x)
        values = [getattr(x, f.name) for f in fields(x) if f.compare]
        names = [f.name for f in fields(x) if f.compare]
        if names == ["members"]:  # a team as created: (0 , 2)
            return "(" + " , ".join(str(m) for m in values[0]) + ")"
        if names == ["conditions", "points"]:  # a point map's award: ((KEY : VALUE) ... POINTS)
            conds = " ".join("(" + " : ".join(spell(v) for v in c) + ")" for c in values[0])
            return f"({conds} {spell(values[1])})"
        if len(values) == 1:  # a team's players: the team
            return spell(values[0])
        return "(" + " ".join(spell(v) for v in values) + ")"  # (top X), (2 X), ((CONDITION) ITEM)

    return spell(node)
