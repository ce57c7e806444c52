"""The native writers of RECYCLE's forms, registered by the class of the node they write.

The native writer reads the game's nodes (``recycle/lang/nodes``, made once by the elaborator:
each form a frozen node whose class says which form it is, its operands named fields).
``@native(kind, NodeClass, ...)`` registers the function writing those nodes when read as
``kind``; a class read as several kinds (a variable, a storage, a position of the turn order)
is registered once per kind. ``writer_for`` finds the writer by the node's class alone: no
form's shape or head is looked at. ``seal()`` checks that every class registered is a node
class of recycle's language.

A writer is ``f(writer, node, native_scope, *args)``: an expression writer returns the code of
the value (a location writer ``(type, code)``), a flow or action writer emits statements.
"""

from __future__ import annotations

from ..lang.forms.writers import NATIVE_WRITERS, NativeUnsupported, native
from ..lang.nodes.base import Const, FormNode, Kind, Loc, Node, Nth, Num, Storage, Turn, Var, Word

__all__ = ["NativeUnsupported", "native", "writer_for", "typed_value", "form_label", "seal", "written"]


# the table and its decorator are the language's (``lang/forms/writers.py``), so that a form
# kept whole in one module registers its native writer there; this module reads them
_WRITERS = NATIVE_WRITERS


def writer_for(kind: str, x):
    """The writer of the node ``x`` read as ``kind`` (None: no native writer). An action stands
    as a flow item; a collection of locations (indexed) is written as a view of them."""
    cls = type(x)
    w = _WRITERS.get((kind, cls))
    if w is None and kind == Kind.FLOW:
        w = _WRITERS.get((Kind.ACTION, cls))
    if w is None and kind == Kind.LOC:  # a collection of locations, written as a view (lang/forms/form_indexed.py)
        w = _WRITERS.get((Kind.COLL, cls))
    return w


def form_label(x) -> str:
    """How a message names the node ``x``: ``(HEAD ...)``, a variable or name as written, the
    syntax its class's docstring opens with (``(INDEX LOCATION)``), else its class."""
    head = getattr(type(x), "HEAD", None)
    if head:
        return f"({head} ...)"
    if isinstance(x, (Var, Const)):
        return f"'{x.name}"
    if isinstance(x, (Word, Num)):
        return str(x.value)
    syntax = (type(x).__doc__ or "").split(":")[0].replace("``", "").strip()
    return syntax if syntax.startswith("(") else type(x).__name__.lower()


_TYPE_OF_KIND = {
    Kind.INT: "int",
    Kind.STR: "str",
    Kind.CARD: "card",
    Kind.PLAYER: "player",
    Kind.TEAM: "team",
    Kind.BOOL: "bool",
}


def typed_value(w, x, sc) -> tuple[str, str]:
    """(type, code) of a value whose type its node tells (an operand of == or !=, a let's value)."""
    if isinstance(x, Num):
        return "int", str(int(x.value))
    if isinstance(x, Word):
        return "str", w.str_(x, sc)
    if isinstance(x, (Var, Const)):
        v = sc.lookup(x.name)
        if v is None:
            raise NativeUnsupported(f"the variable '{x.name}", x)
        if hasattr(v, "type"):
            return v.type, v.name
        val = v.value
        if isinstance(val, bool) or not isinstance(val, (int, str)):
            raise NativeUnsupported(f"the constant '{x.name}", x)
        return ("int", str(val)) if isinstance(val, int) else ("str", w.str_(x, sc))
    if isinstance(x, Loc):
        return w.loc(x, sc)
    if isinstance(x, Storage):
        if x.sort == "sto":
            return "int", w.int_(x, sc)
        if x.sort == "str":
            return "str", w.str_(x, sc)
        raise NativeUnsupported("a point map compared", x)
    if isinstance(x, (Turn, Nth)):
        return x.what, w.player(x, sc) if x.what == "player" else w.team(x, sc)
    for kind in (Kind.INT, Kind.STR, Kind.CARD, Kind.PLAYER, Kind.TEAM):
        if (kind, type(x)) in _WRITERS:
            return _TYPE_OF_KIND[kind], w.write(kind, x, sc)
    if (Kind.LOC, type(x)) in _WRITERS or (Kind.COLL, type(x)) in _WRITERS:
        return w.loc(x, sc)  # a view (let-bound), or a view of locations (indexed)
    if (Kind.GROUPS, type(x)) in _WRITERS:
        return "groups", w.groups(x, sc)
    raise NativeUnsupported(f"{form_label(x)} compared" if isinstance(x, FormNode) else "a value compared", x)


def seal() -> None:
    """Check that every class registered is a node class of recycle's language."""
    for kind, cls in _WRITERS:
        if not (isinstance(cls, type) and issubclass(cls, Node)):
            raise ValueError(f"a native writer for {cls!r} as {kind}, which is not a node of recycle's language")


def written() -> list[tuple[str, str]]:
    """Every (kind, node class name) that has a native writer."""
    return sorted((kind, cls.__name__) for kind, cls in _WRITERS)
