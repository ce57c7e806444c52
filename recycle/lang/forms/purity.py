"""Pure forms: which conditions and integers depend only on the cards of a few locations.

A condition or integer whose value depends only on the cards of a few locations (plus
point maps, card attributes and constants) is a function of those card lists. ``analyse``
decides, from the syntax alone and conservatively, whether a form is such a function, and
names the locations and point maps it reads (the native engine caches such values:
recycle/native/forms_exprs.py); ``constant`` whether it reads no state at all. Anything
that reads other state (storages, turn order, card owners) or draws random numbers is not
pure. (The reference interpreter caches nothing: its fast path that did went in issue 41.)
"""

from __future__ import annotations

from .registry import registry
from ..nodes.sexpr import head_of, is_location_form, is_storage_form, kw
from ..syntax.reader import VAR, Atom, SList

# The heads that bind a variable, that are safe (pure), and that are worth caching
# (expensive: caching only pays when the form does real work over its cards) are facts of
# each form, in the form registry (``registry().binders``, ``.safe``, ``.expensive``).
MAX_LOCATIONS = 3


def _nodes(x):
    yield x
    if isinstance(x, SList):
        for i in x.items:
            yield from _nodes(i)


class _Impure(Exception):
    pass


def analyse(x, outer_is_const) -> tuple[list, list] | None:
    """(location forms, point-map forms) that ``x`` reads, or None when it is not cacheable.

    ``outer_is_const(name)`` tells whether a variable bound outside ``x`` is a constant.
    """
    found = reads(x, outer_is_const)
    if found is None:
        return None
    locs, pts = found
    if not any(isinstance(n, SList) and head_of(n) in registry().expensive for n in _nodes(x)):
        return None
    if not locs or len(locs) > MAX_LOCATIONS:
        return None
    return locs, pts


def constant(x, outer_is_const) -> bool:
    """Is ``x`` a function of constants alone (no location, point map, storage, turn or draw)?"""
    return reads(x, outer_is_const) == ([], [])


def reads(x, outer_is_const) -> tuple[list, list] | None:
    """(location forms, point-map forms) that ``x`` reads, or None when it reads anything else
    (storages, the turn order, card owners, variables that are not constants) or draws."""
    locs: dict[str, SList] = {}
    pts: dict[str, SList] = {}
    forms = registry()
    binders, safe = forms.binders, forms.safe

    def address_ok(node, bound) -> None:
        # inside a location or storage address, outer variables and the current player are fine
        # (the key is built from the address's evaluation), variables bound within x are not
        if isinstance(node, Atom):
            if node.kind == VAR and node.value in bound:
                raise _Impure
            return
        for i in node.items:
            address_ok(i, bound)

    def walk(node, bound: frozenset) -> None:
        if isinstance(node, Atom):
            if node.kind == VAR and node.value not in bound and not outer_is_const(node.value):
                raise _Impure
            if kw(node, "team"):
                raise _Impure
            return
        if is_location_form(node):
            address_ok(node.items[0], bound)
            address_ok(node.items[2], bound)
            locs[str(node)] = node
            return
        sort = is_storage_form(node)
        if sort == "points":
            address_ok(node, bound)
            pts[str(node)] = node
            return
        if sort is not None:
            raise _Impure
        h = head_of(node)
        items = node.items
        if h in binders and len(items) == 4 and isinstance(items[2], Atom) and items[2].kind == VAR:
            walk(items[1], bound)
            walk(items[3], bound | {items[2].value})
            return
        if h is None:
            # a name list (A, B) or an index form (0 LOC)
            for i in items:
                walk(i, bound)
            return
        if h not in safe and not h.isupper():
            raise _Impure
        if len(items) == 2 and kw(items[1], "player", "team"):
            raise _Impure  # (current player) etc. outside an address
        for i in items[1:]:
            walk(i, bound)

    try:
        walk(x, frozenset())
    except _Impure:
        return None
    return list(locs.values()), list(pts.values())
