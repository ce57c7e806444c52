"""The places of a game's text that its variants rewrite (``recycle evolve``'s mutations, a plan's
point maps): found in the s-expression, because a variant edits the text as the author wrote
it (comments, layout and the forms around it kept), not the game as it is understood.

Each place is ``Written``: its span and its text as the reader prints it; an integer's value
too. What a place means is not asked here beyond its shape: the readers of a game's meaning
read its nodes (``recycle/lang/nodes``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import Span
from .reader import INT, Atom, SList

COMPARISONS = ("==", "!=", "<", ">", "<=", ">=")


@dataclass(frozen=True)
class Written:
    """A form or atom as written: where (``span``), its text as printed, and its value when
    it is an integer."""

    span: Span
    text: str
    value: int | None = None

    def __str__(self) -> str:
        return self.text


def _written(x) -> Written:
    value = x.value if isinstance(x, Atom) and x.kind == INT else None
    return Written(x.span, str(x), value)


def _walk(node):
    """Every list of ``node``, itself first, in the order written."""
    todo = [node]
    while todo:
        x = todo.pop()
        if isinstance(x, SList):
            yield x
            todo.extend(reversed(x.items))


def _is_int(x) -> bool:
    return isinstance(x, Atom) and x.kind == INT


def declared_integers(source) -> list[tuple[Written, str]]:
    """``(declare N 'NAME)`` forms: (the integer N, the name as written)."""
    return [
        (_written(f.items[1]), str(f.items[2]))
        for f in _walk(source.forms[0])
        if f.head == "declare" and len(f.items) == 3 and _is_int(f.items[1])
    ]


def is_one_list(forms) -> bool:
    """Are ``forms`` (a text read) one parenthesised list?"""
    return len(forms) == 1 and isinstance(forms[0], SList)


def _point_maps(source, name: str | None = None):
    """``(set (OWNER points NAME) AWARDS)`` forms (of the map ``name``, or any): (NAME, AWARDS)."""
    for f in _walk(source.forms[0]):
        if f.head != "set" or len(f.items) != 3 or not isinstance(f.items[1], SList):
            continue
        target = f.items[1].items
        if len(target) < 3 or getattr(target[1], "value", None) != "points":
            continue
        if name is None or (isinstance(target[2], Atom) and target[2].value == name and len(target) == 3):
            yield target[2], f.items[2]


def point_values(source) -> list[tuple[Written, str, str]]:
    """The integer of every entry of every point map: (the integer, the map's name, the
    entry's conditions as written)."""
    out = []
    for map_name, awards in _point_maps(source):
        if not isinstance(awards, SList):
            continue
        for entry in awards.items:
            if isinstance(entry, SList) and len(entry.items) >= 2 and _is_int(entry.items[-1]):
                out.append((_written(entry.items[-1]), str(map_name), " ".join(str(x) for x in entry.items[:-1])))
    return out


def point_map_awards(source, name: str) -> list[Span]:
    """Where the awards of every ``(set (OWNER points NAME) AWARDS)`` of the map ``name`` are written."""
    return [awards.span for _, awards in _point_maps(source, name)]


def end_thresholds(source) -> list[tuple[Written, str]]:
    """Integers compared in end conditions ``(end ...)``: (the integer, the comparison as written)."""
    out = []
    for f in _walk(source.forms[0]):
        if f.head != "end":
            continue
        for c in _walk(f):
            if c.head in COMPARISONS and len(c.items) == 3:
                out.extend((_written(x), str(c)) for x in c.items[1:] if _is_int(x))
    return out


def choice_options(source, least: int) -> list[tuple[Written, ...]]:
    """The options of every ``(choice (OPTION ...))`` with at least ``least`` of them."""
    return [
        tuple(_written(o) for o in f.items[1].items)
        for f in _walk(source.forms[0])
        if f.head == "choice" and len(f.items) == 2 and isinstance(f.items[1], SList) and len(f.items[1].items) >= least
    ]
