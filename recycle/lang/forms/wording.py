"""A form in words, by the templates its registration gives (``words``, ``role``: registry.py):
``expr`` writes an expression as short text (``top STOCK``, ``SCORE('P) > 'GOAL``), ``action_text``
an action as one line (``move top STOCK → top HAND('P)``). The structure tree (study/structure.py)
and other diagrams read a game's nodes and write each form with these.

The templates address a form's operands by their place in its s-expression, so this reads the
node's ``source`` (issue 41: until the words are facts of the nodes themselves). No form's head
keyword is compared here: a new form declares its words and role instead.
"""

from __future__ import annotations

from functools import cache

from ..nodes.base import Node
from ..syntax.reader import INT, SYMBOL, Atom, SList
from .flow import REGISTRY
from .registry import WORDS_FIELD, Kind
from .shapes import STORAGE_SORTS
from .values import KINDS as LOC_KINDS

INFIX = REGISTRY.operators  # the forms written between their operands: a + b, a == b


def plain(x):
    """The s-expression a node was read from (``source``), or ``x`` itself: the words fill
    templates that address the form's items as written."""
    return x.source if isinstance(x, Node) else x


def _head(x) -> str | None:
    return x.head if isinstance(x, SList) else None


def _kw(x, *values) -> bool:
    return isinstance(x, Atom) and x.kind == SYMBOL and x.value in values


def _roles(x) -> frozenset:
    """The roles of the forms headed as ``x`` is, of any kind."""
    return REGISTRY.roles.get(_head(x), frozenset())


def _role(x, kind: str) -> str:
    """The role of the form of ``kind`` headed as ``x`` is ("" if none)."""
    f = REGISTRY.lookup(kind, _head(x))
    return f.role if f is not None else ""


# -- a form's words: its templates filled with its items ---------------------------------------
@cache
def _template(template: str) -> tuple:
    """``(parts, size, star)``: the literal texts and fields of a template, the number of items
    its fixed fields need, and the item its ``*``/``+`` field starts at and needs (or None)."""
    parts, at, size, star = [], 0, 1, None
    for m in WORDS_FIELD.finditer(template):
        i, how, rep, sep = int(m.group(1)), m.group(2) or "", m.group(3), m.group(4)
        parts += [template[at : m.start()], (i, how, rep, sep)]
        at = m.end()
        if rep:
            star = (i, i + (rep == "+"))
        else:
            size = max(size, i + (2 if how == ":each" else 1))
    parts.append(template[at:])
    return tuple(parts), size, star


def _field(items, i: int, how: str, outer: str | None) -> str | None:
    """Item ``i`` read as a field says, or None when the item does not fit it."""
    x = items[i]
    if not how:
        return expr(x)
    if how == "~":
        return _paren(x, outer or "")
    if how.startswith("="):
        return how[1:] if _kw(x, how[1:]) else None
    read = how[1:]
    if read == "each":
        return _each(x, items[i + 1])
    if read == "action":
        return action_text(x)
    if read == "atom":
        return str(x.value) if isinstance(x, Atom) else None
    if read == "points":
        return expr(x) if isinstance(x, SList) and len(x.items) == 3 and _kw(x.items[1], "points") else None
    if read == "count":
        return str(len(x.items) if isinstance(x, SList) else 0)
    if read in ("cards", "keys") and _head(x) == "deck":  # (deck ...) is a part of create, not a form
        return str(deck_size(x)) if read == "cards" else ", ".join(_deck_keys(x))
    return None


def _words(x, templates) -> str | None:
    """``x`` in words, by the first template whose fields fit its items; None if none does."""
    items = x.items
    for template in templates:
        parts, size, star = _template(template)
        if len(items) < size or (star is None and len(items) != size) or (star and len(items) < star[1]):
            continue
        out = []
        for part in parts:
            if isinstance(part, str):
                out.append(part)
                continue
            i, how, rep, sep = part
            texts = [_field(items, j, how, x.head) for j in (range(i, len(items)) if rep else (i,))]
            if None in texts:
                break
            out.append(sep.join(texts) if rep else texts[0])
        else:
            return "".join(out)
    return None


# -- expressions as short text ---------------------------------------------------------------
def who(x) -> str:
    """An owner, player or team: ``current``, ``next``, ``P2``, ``'P``, ``team of current``."""
    if isinstance(x, Atom):
        return str(x)
    items = x.items
    if len(items) == 2 and _kw(items[1], "player", "team"):
        n = items[0]
        if isinstance(n, Atom) and n.kind == INT:
            return f"{'P' if items[1].value == 'player' else 'T'}{n.value}"
        return str(n) if items[1].value == "player" else f"{n} team"
    return expr(x)


def _place(x) -> str | None:
    """``(OWNER KIND NAME)`` / ``(HOLDER sto NAME)`` as ``NAME`` or ``NAME(owner)`` (``KIND 'V`` for a
    name held by a variable ``'V``); else None."""
    if not (isinstance(x, SList) and len(x.items) == 3 and _kw(x.items[1], *LOC_KINDS, *STORAGE_SORTS)):
        return None
    owner, name = x.items[0], expr(x.items[2])
    if not (isinstance(x.items[2], Atom) and x.items[2].kind == SYMBOL):
        # a place named by a variable or a computed name: ``vloc 'S``, not ``'S`` (the variable's value)
        name = f"{x.items[1].value} {name}"
    if _kw(owner, "game"):
        return name
    return f"{name}({who(owner)})"


def _paren(x, outer: str = "") -> str:
    """``x`` as text, in parentheses where a reader could otherwise group it wrongly."""
    text = expr(x)
    h, roles = _head(x), _roles(x)
    if "junction" in roles and h != outer:
        return f"({text})"
    if h in INFIX and outer in INFIX:
        return f"({text})"
    if "quantifier" in roles and outer:
        return f"({text})"  # "any X 'V: body" runs to the end of the line
    return text


def expr(x) -> str:
    """A RECYCLE expression (location, card, integer, boolean, collection; a node or the form
    as written) as short text."""
    x = plain(x)
    if isinstance(x, Atom):
        return str(x)
    items = x.items
    if not items:
        return "()"
    place = _place(x)
    if place is not None:
        return place
    h = _head(x)
    args = items[1:]
    if len(items) == 2 and _kw(items[1], "player", "team"):
        return who(x)
    if h in INFIX and len(args) == 2:
        return f"{_paren(args[0], h)} {h} {_paren(args[1], h)}"
    text = _words(x, REGISTRY.words.get(h, ()))
    if text is not None:
        return text
    if isinstance(items[0], Atom) and items[0].kind == INT and len(args) == 1:
        return f"card {items[0].value} of {expr(args[0])}"
    if all(isinstance(i, Atom) for i in items) and any(i.kind == "comma" for i in items):
        return "(" + " ".join(str(i) for i in items).replace(" ,", ",") + ")"
    return "(" + " ".join(expr(i) for i in items) + ")"


def _each(coll, var) -> str:
    """``player 'P`` for the player/team collections, else ``'V in COLLECTION``."""
    if _kw(coll, "player", "team"):
        return f"{coll.value} {expr(var)}"
    return f"{expr(var)} in {expr(coll)}"


def deck_size(deck) -> int:
    """How many cards a ``(deck ATTR...)`` form makes (the product of its attribute counts)."""

    def attr(a) -> int:
        if not isinstance(a, SList) or len(a.items) < 2:
            return 1
        rest = a.items[1:]
        if len(rest) == 1 and isinstance(rest[0], SList) and all(isinstance(i, Atom) for i in rest[0].items):
            return sum(1 for i in rest[0].items if i.kind == SYMBOL)  # leaf: (NAME (V1, V2, ...))
        total = 0
        for value in rest:  # (NAME (V1 sub...) (V2 sub...))
            n = 1
            for sub in value.items[1:] if isinstance(value, SList) else ():
                n *= attr(sub)
            total += n
        return total

    n = 1
    for a in deck.items[1:]:
        n *= attr(a)
    return n


def _deck_keys(deck) -> list[str]:
    keys: list[str] = []

    def walk(a):
        if isinstance(a, SList) and a.items and isinstance(a.items[0], Atom):
            if a.items[0].value not in keys:
                keys.append(a.items[0].value)
            for value in a.items[1:]:
                if isinstance(value, SList):
                    for sub in value.items[1:]:
                        walk(sub)

    for a in deck.items[1:]:
        walk(a)
    return keys


def action_text(x) -> str:
    """One action (a node or the form as written) as a line: ``move top STOCK → top HAND('P)``,
    ``PASS := 0``, ``pass``."""
    x = plain(x)
    f = REGISTRY.lookup(Kind.ACTION, _head(x))
    text = _words(x, f.words) if f is not None else None
    return text if text is not None else expr(x)
