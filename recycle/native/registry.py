"""The native writers of RECYCLE's forms, registered beside the form they write.

``@native(kind, head)`` registers the function writing the form ``head`` of that kind (as the
form registry of recycle/lang/forms/registry.py names it); structural forms that have no head keyword
(a location ``(OWNER KIND NAME)``, a storage, a literal, a variable, a conditional, ``(current
player)``) are registered under a label in angle brackets and found by their shape here, in
``shape_of``: the only place that looks at a form's shape to find its writer. ``seal()``
checks that every head registered names a form of recycle's registry, of the same kind.

A writer is ``f(writer, node, native_scope, *args)``: an expression writer returns the code of
the value (a location writer ``(type, code)``), a flow or action writer emits statements.
"""

from __future__ import annotations

from ..lang.forms.registry import Kind
from ..lang.forms.shapes import head_of, is_location_form, is_storage_form, kw
from ..lang.syntax.reader import INT, SYMBOL, VAR, Atom, SList


class NativeUnsupported(Exception):
    """The game uses a form (or a use of one) the native writer does not write."""

    def __init__(self, what: str, node=None):
        super().__init__(what)
        self.what = what
        self.node = node

    def where(self) -> str:
        span = getattr(self.node, "span", None)
        return f"line {span.line}" if span is not None and getattr(span, "line", None) else ""


_WRITERS: dict[tuple[str, str], object] = {}

LITERAL, NAME, VARIABLE, LOCATION, STORAGE, WHO, CONDITIONAL, INDEXED = (
    "<literal>",
    "<name>",
    "<variable>",
    "<location>",
    "<storage>",
    "<who>",
    "<conditional>",
    "<index>",
)
STRUCTURAL = {LITERAL, NAME, VARIABLE, LOCATION, STORAGE, WHO, CONDITIONAL, INDEXED}


def native(kind: str, *heads: str):
    """Register a native writer for the forms ``heads`` of ``kind``."""

    def register(fn):
        for h in heads:
            if (kind, h) in _WRITERS:
                raise ValueError(f"two native writers for ({h} ...) as {kind}")
            _WRITERS[(kind, h)] = fn
        return fn

    return register


def shape_of(x) -> str | None:
    """The structural label of a form that has no head keyword of its own."""
    if isinstance(x, Atom):
        return {INT: LITERAL, SYMBOL: NAME, VAR: VARIABLE}.get(x.kind)
    if not isinstance(x, SList) or not x.items:
        return None
    if is_location_form(x):
        return LOCATION
    if is_storage_form(x):
        return STORAGE
    if len(x.items) == 2 and kw(x.items[1], "player", "team") and not kw(x.items[0], "other"):
        return WHO
    first = x.items[0]
    if isinstance(first, SList) and len(x.items) == 2:
        return CONDITIONAL
    if len(x.items) == 2 and (isinstance(first, Atom) and first.kind in (INT, VAR)):
        return INDEXED
    return None


def writer_for(kind: str, x, sc):
    """The writer of ``x`` read as ``kind`` (None: no native writer)."""
    label = shape_of(x)
    if label in (LOCATION, STORAGE, WHO, CONDITIONAL, INDEXED, LITERAL, NAME, VARIABLE):
        w = _WRITERS.get((kind, label))
        if w is not None:
            return w
    h = head_of(x)
    if h is None:
        return None
    w = _WRITERS.get((kind, h))
    if w is None and kind == Kind.FLOW:
        w = _WRITERS.get((Kind.ACTION, h))
    if w is None and kind == Kind.LOC:  # a collection of locations, written as a view (forms_indexed.py)
        w = _WRITERS.get((Kind.COLL, h))
    return w


_TYPE_OF_KIND = {
    Kind.INT: "int",
    Kind.STR: "str",
    Kind.CARD: "card",
    Kind.PLAYER: "player",
    Kind.TEAM: "team",
    Kind.BOOL: "bool",
}


def typed_value(w, x, sc) -> tuple[str, str]:
    """(type, code) of an operand of == or !=: its kind read off the form."""
    if isinstance(x, Atom):
        if x.kind == INT:
            return "int", str(int(x.value))
        if x.kind == SYMBOL:
            return "str", w.str_(x, sc)
        if x.kind == VAR:
            v = sc.lookup(x.value)
            if v is None:
                raise NativeUnsupported(f"the variable '{x.value}", x)
            if hasattr(v, "type"):
                return v.type, v.name
            if isinstance(v.value, list):
                raise NativeUnsupported(f"the constant '{x.value}", x)
            val = v.value
            if isinstance(val, bool) or not isinstance(val, (int, str)):
                raise NativeUnsupported(f"the constant '{x.value}", x)
            return ("int", str(val)) if isinstance(val, int) else ("str", w.str_(x, sc))
    if is_location_form(x):
        return w.loc(x, sc)
    sort = is_storage_form(x)
    if sort == "sto":
        return "int", w.int_(x, sc)
    if sort == "str":
        return "str", w.str_(x, sc)
    label = shape_of(x)
    if label == WHO:
        return (x.items[1].value, w.player(x, sc) if x.items[1].value == "player" else w.team(x, sc))
    h = head_of(x)
    for kind in (Kind.INT, Kind.STR, Kind.CARD, Kind.PLAYER, Kind.TEAM):
        if h is not None and (kind, h) in _WRITERS:
            return _TYPE_OF_KIND[kind], w.write(kind, x, sc)
    if h is not None and ((Kind.LOC, h) in _WRITERS or (Kind.COLL, h) in _WRITERS):
        return w.loc(x, sc)  # a view (let-bound), or a view of locations (indexed)
    if h is not None and (Kind.GROUPS, h) in _WRITERS:
        return "groups", w.groups(x, sc)
    raise NativeUnsupported(f"({h} ...) compared" if h else "a value compared", x)


def seal() -> None:
    """Check that every head registered names a form of recycle's registry, of that kind."""
    from ..lang.forms.flow import REGISTRY

    for kind, h in _WRITERS:
        if h in STRUCTURAL:
            continue
        if REGISTRY.lookup(kind, h) is None and not (kind == Kind.FLOW and REGISTRY.lookup(Kind.ACTION, h)):
            raise ValueError(f"a native writer for ({h} ...) as {kind}, which recycle's registry does not have")


def written() -> list[tuple[str, str]]:
    """Every (kind, head or label) that has a native writer."""
    return sorted(_WRITERS)
