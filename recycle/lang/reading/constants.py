"""Variants of a game: other values of its declared constants and of its point maps.

A game declares its constants with ``(declare VALUE 'NAME)`` (Hearts' ``'GOAL``, the number
of players of Crazy Eights' ``'NUMP``). ``with_constants`` gives the game's source with
other values in those places, and ``with_points`` with another award list for a point map
``(set (OWNER points NAME) AWARDS)``; the rewritten text is read again, so the variant is a
game like any other (worker processes compile that text and play the same game). The number
of players is ``player_count.with_player_count``.
"""

from __future__ import annotations

import re

from ...errors import RecycleCompileError
from .player_count import _offset
from ..forms.shapes import literal_names
from ..syntax.reader import INT, SYMBOL, VAR, Atom, SList, SourceFile, parse_text

NAME = re.compile(r"[A-Z][A-Z0-9_]*\Z")
MAX_VALUE = 2**62


def _head(x) -> str | None:
    return x.head if isinstance(x, SList) else None


def declared(source: SourceFile) -> dict[str, str]:
    """The game's declared constants and the kind of value each holds: ``int``, ``name``
    (a NAME like ``HEARTS``), ``names`` (a list of NAMEs) or ``computed``."""
    out = {}
    for d in _declares(source):
        value, name = d.items[1], d.items[2].value
        if isinstance(value, Atom) and value.kind == INT:
            out[name] = "int"
        elif isinstance(value, Atom) and value.kind == SYMBOL and not value.value.islower():
            out[name] = "name"
        elif literal_names(value) is not None:
            out[name] = "names"
        else:
            out[name] = "computed"
    return out


def _declares(source: SourceFile) -> list[SList]:
    game = source.forms[0] if source.forms else None
    if _head(game) != "game":
        return []
    return [
        x
        for x in game.items[1:]
        if _head(x) == "declare" and len(x.items) == 3 and isinstance(x.items[2], Atom) and x.items[2].kind == VAR
    ]


def value_text(value, kind: str, name: str) -> str:
    """The RECYCLE text of a constant's new ``value``; ValueError when it does not fit ``kind``."""
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_VALUE:
            raise ValueError(f"'{name} is declared as an integer: give an integer, not {value!r}")
        return str(value)
    if kind == "name":
        if not isinstance(value, str) or not NAME.match(value):
            raise ValueError(f"'{name} is declared as a NAME: give one in capitals (like HEARTS), not {value!r}")
        return value
    if kind == "names":
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and NAME.match(v) for v in value):
            raise ValueError(f"'{name} is declared as a list of NAMEs: give a list of names in capitals, not {value!r}")
        return "(" + ", ".join(value) + ")"
    raise ValueError(f"'{name} is computed by the game ((declare EXPRESSION 'X)); only a literal can be varied")


def with_constants(source: SourceFile, values: dict) -> SourceFile:
    """``source`` with its declared constants set to ``values`` (``{"GOAL": 50}``); a
    ``ValueError`` names a constant the game does not declare or a value of the wrong kind."""
    kinds = declared(source)
    edits = []
    for name, value in values.items():
        if name not in kinds:
            known = ", ".join(sorted(kinds)) or "none"
            raise ValueError(f"{source.filename} declares no constant '{name} (it declares: {known})")
        new = value_text(value, kinds[name], name)
        for d in _declares(source):
            if d.items[2].value == name:
                edits.append((d.items[1].span, new))
    return _rewrite(source, edits)


def with_points(source: SourceFile, name: str, awards: str) -> SourceFile:
    """``source`` with every ``(set (OWNER points NAME) ...)`` awarding ``awards`` (RECYCLE text
    like ``(((SUIT : HEARTS) 1) ((RANK : Q) (SUIT : SPADES) 10))``) instead."""
    if not NAME.match(name):
        raise ValueError(f"a point map is named in capitals, not {name!r}")
    try:
        parsed = parse_text(awards, "<awards>").forms
    except Exception as exc:  # noqa: BLE001 - a syntax error in the plan's text
        raise ValueError(f"the awards given for the point map {name} do not read: {exc}") from None
    if len(parsed) != 1 or not isinstance(parsed[0], SList):
        raise ValueError(f"the awards of the point map {name} are one parenthesised list (((KEY : VALUE) POINTS) ...)")
    edits = []
    todo = list(source.forms)
    while todo:
        x = todo.pop()
        if not isinstance(x, SList):
            continue
        target = x.items[1] if _head(x) == "set" and len(x.items) == 3 else None
        if (
            isinstance(target, SList)
            and len(target.items) == 3
            and isinstance(target.items[1], Atom)
            and target.items[1].value == "points"
            and isinstance(target.items[2], Atom)
            and target.items[2].value == name
        ):
            edits.append((x.items[2].span, awards.strip()))
        todo.extend(x.items)
    if not edits:
        raise ValueError(f"{source.filename} sets no point map {name} ((set (OWNER points {name}) ...))")
    return _rewrite(source, edits)


def _rewrite(source: SourceFile, edits: list) -> SourceFile:
    text = source.text
    spans = []
    for span, new in edits:
        start = _offset(text, span.line, span.column)
        end = _offset(text, span.end_line, span.end_column)
        spans.append((start, end, new))
    for start, end, new in sorted(spans, reverse=True):  # from the end: earlier offsets stay right
        text = text[:start] + new + text[end:]
    if text == source.text:
        return source
    try:
        return parse_text(text, source.filename)
    except Exception as exc:  # noqa: BLE001
        raise RecycleCompileError(f"the variant of {source.filename} does not read: {exc}") from None
