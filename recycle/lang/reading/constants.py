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
from ..nodes.base import Names, Num, Word
from ..syntax.edits import is_one_list, point_map_awards
from ..syntax.reader import SourceFile, parse_text
from .elaborated import game_nodes
from .player_count import _offset

NAME = re.compile(r"[A-Z][A-Z0-9_]*\Z")
MAX_VALUE = 2**62
_KINDS = {Num: "int", Word: "name", Names: "names"}


def declared(source: SourceFile) -> dict[str, str]:
    """The game's declared constants and the kind of value each holds: ``int``, ``name``
    (a NAME like ``HEARTS``), ``names`` (a list of NAMEs) or ``computed``."""
    return _kinds(_declares(source))


def _kinds(declares) -> dict[str, str]:
    return {d.name: _KINDS.get(type(d.literal), "computed") for d in declares}


def _declares(source: SourceFile) -> tuple:
    game = game_nodes(source)
    return () if game is None else game.declares


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
    declares = _declares(source)
    kinds = _kinds(declares)
    edits = []
    for name, value in values.items():
        if name not in kinds:
            known = ", ".join(sorted(kinds)) or "none"
            raise ValueError(f"{source.filename} declares no constant '{name} (it declares: {known})")
        new = value_text(value, kinds[name], name)
        for d in declares:
            if d.name == name:
                edits.append(((d.literal or d.value).span, new))
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
    if not is_one_list(parsed):
        raise ValueError(f"the awards of the point map {name} are one parenthesised list (((KEY : VALUE) POINTS) ...)")
    edits = [(span, awards.strip()) for span in point_map_awards(source, name)]
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
