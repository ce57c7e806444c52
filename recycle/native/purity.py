"""What the native writer needs to know of a node and the nodes inside it: its children, whether
it draws random numbers, whether it is a function of the cards of one location (so that its
answer can be remembered by that location's version) or of constants alone, and a canonical
form of it for telling alike conditions apart.

These read the typed nodes (``recycle/lang/nodes``) as ``lang/forms/purity.py`` and
``lang/forms/items.py`` (``uses_rng``) read the s-expressions, with the same answers: a form
draws when it holds a form the registry marks as drawing; a form is remembered when it reads
only locations, point maps and constants, through forms the registry marks safe.
"""

from __future__ import annotations

from dataclasses import fields

from ..lang.forms.registry import registry
from ..lang.nodes.base import Const, Everyone, FormNode, Loc, Node, Nth, Storage, Turn, Var
from ..lang.nodes.groups import Members

MAX_LOCATIONS = 1  # a remembered condition reads one location (its version keys the answer)


def children(node) -> list:
    """The nodes directly inside ``node`` (its fields, and the nodes of tuples among them)."""
    out = []
    for f in fields(node):
        if f.name in ("span", "source"):
            continue
        _gather(getattr(node, f.name), out)
    return out


def _gather(value, out: list) -> None:
    if isinstance(value, Node):
        out.append(value)
    elif isinstance(value, tuple):
        for v in value:
            _gather(v, out)


def walk(node):
    """``node`` and every node inside it, depth first."""
    yield node
    for c in children(node):
        yield from walk(c)


def draws(node) -> bool:
    """Does the node hold a form that draws random numbers (random, shuffle, ties of max/min)?"""
    drawing = registry().drawing
    return any(isinstance(n, FormNode) and type(n).HEAD in drawing for n in walk(node))


def binder_parts(node):
    """(collection or value, variable's name, body) of a binding form (any, all, filter,
    let ...), else None."""
    names = [f.name for f in fields(node)]
    if "variable" not in names:
        return None
    first = getattr(node, "collection", None) if "collection" in names else getattr(node, "value", None)
    body = next(getattr(node, n) for n in ("item", "condition", "location", "body") if n in names)
    return first, node.variable.name, body


class _Impure(Exception):
    pass


def reads(x, outer_is_const) -> tuple[list, list] | None:
    """(location nodes, point-map nodes) that ``x`` reads, or None when it reads anything else
    (storages, the turn order, card owners, variables that are not constants) or draws."""
    locs: dict = {}
    pts: dict = {}
    safe = registry().safe

    def address_ok(node, bound) -> None:
        # inside a location or storage address, outer variables and the current player are fine
        # (the key is built from the address's evaluation), variables bound within x are not
        for n in walk(node):
            if isinstance(n, Var) and n.name in bound:
                raise _Impure

    def visit(node, bound: frozenset) -> None:
        if isinstance(node, Var):
            if node.name not in bound and not outer_is_const(node.name):
                raise _Impure
            return
        if isinstance(node, Const):
            return
        if isinstance(node, Loc):
            address_ok(node.owner, bound)
            address_ok(node.name, bound)
            locs.setdefault(canonical(node), node)
            return
        if isinstance(node, Storage):
            if node.sort != "points":
                raise _Impure
            address_ok(node, bound)
            pts.setdefault(canonical(node), node)
            return
        if isinstance(node, (Turn, Members)) or (isinstance(node, (Everyone, Nth)) and node.what == "team"):
            raise _Impure  # the turn order, a team, outside an address
        parts = binder_parts(node)
        if parts is not None and type(node).HEAD in safe:
            visit(parts[0], bound)
            visit(parts[2], bound | {parts[1]})
            return
        if isinstance(node, FormNode) and type(node).HEAD is not None and type(node).HEAD not in safe:
            raise _Impure
        for c in children(node):
            visit(c, bound)

    try:
        visit(x, frozenset())
    except _Impure:
        return None
    return list(locs.values()), list(pts.values())


def analyse(x, outer_is_const) -> tuple[list, list] | None:
    """(location nodes, point-map nodes) that ``x`` reads, or None when it is not worth
    remembering (it reads more than one location, or does no work a loop costs)."""
    found = reads(x, outer_is_const)
    if found is None:
        return None
    expensive = registry().expensive
    if not any(isinstance(n, FormNode) and type(n).HEAD in expensive for n in walk(x)):
        return None
    locs, pts = found
    if not locs or len(locs) > MAX_LOCATIONS:
        return None
    return locs, pts


def constant(x, outer_is_const) -> bool:
    """Is ``x`` a function of constants alone (no location, point map, storage, turn or draw)?"""
    return reads(x, outer_is_const) == ([], [])


def canonical(node, hole=None):
    """A hashable form of ``node`` that says what it is written as, not where (a variable by its
    name, not its binder): two nodes written alike have the same; ``hole``'s form is left out."""
    if hole is not None and canonical(node) == hole:
        return "\0"
    if isinstance(node, (Var, Const)):
        return ("var", node.name)
    out = [type(node).__name__]
    for f in fields(node):
        if f.name in ("span", "source"):
            continue
        out.append(_canon_value(getattr(node, f.name), hole))
    return tuple(out)


def _canon_value(value, hole):
    if isinstance(value, Node):
        return canonical(value, hole)
    if isinstance(value, tuple):
        return tuple(_canon_value(v, hole) for v in value)
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    return getattr(value, "name", repr(value))  # a Binding: its variable's name
