"""The nodes of a game read once (issue 41): frozen, positioned, typed values, one class per
form, made by the elaborator (``elaborate``) from the reader's s-expressions.

Every node carries the ``span`` of the text it was read from (line, column, end); spans do not
take part in equality, so two nodes are equal when they say the same thing, wherever they are
written, and every node is hashable (a purity or cost fact can be cached by node). A form's node
holds its operands as child nodes, already read as the kind the form needs (``(top X)`` is a
card or a place, decided once here), its variables bound to their binder and its declared
constants folded.

This module holds the leaves and the pieces shared by every family of forms: numbers, names,
variables and their bindings, folded constants, owners and players, locations and storages. The
forms' nodes live with their families (``numbers``, ``scalars``, ``places``, ``groups``,
``actions``, ``flow``), each beside the elaboration that makes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, make_dataclass
from typing import Any, ClassVar

from ...errors import Span


@dataclass(frozen=True, slots=True)
class Node:
    """A piece of a game read once; ``span`` is where it is written (not part of equality)."""

    span: Span | None = field(default=None, kw_only=True, compare=False, repr=False)
    # the s-expression it was read from: read only by ``written`` (a form as written, for
    # messages); never part of equality
    source: Any = field(default=None, kw_only=True, compare=False, repr=False)


def written(node) -> str:
    """A node's form as written in the game, for messages."""
    return str(node.source) if node.source is not None else repr(node)


def form_node(name: str, fields: str, kind: str, head: str | None, doc: str, written: str = "") -> type:
    """A frozen node class for one form: ``fields`` are its operands' names, in the order of
    the form's syntax; ``kind`` and ``head`` name the registered form it stands for;
    ``written`` names facts of how it is written, not of what it means (keyword-only, not
    part of equality: ``bare``, a list of one item written without its parentheses)."""
    facts = [(f, Any, field(default=False, kw_only=True, compare=False, repr=False)) for f in written.split()]
    cls = make_dataclass(
        name,
        [(f, Any) for f in fields.split()] + facts,
        bases=(FormNode,),
        frozen=True,
        slots=True,
        namespace={"KIND": kind, "HEAD": head, "__doc__": doc, "__module__": _caller_module()},
    )
    return cls


def _caller_module() -> str:
    import sys

    return sys._getframe(2).f_globals.get("__name__", __name__)


# the sealed form registry (``lang/forms/registry.py``, ``seal``): which forms there are, read
# by the elaborator at run time, so that this room needs nothing of the rooms after it
_REGISTRY: list = []


def use_registry(registry) -> None:
    """Make ``registry`` the one the elaborator reads forms by (called by ``seal``)."""
    _REGISTRY[:] = [registry]


def sealed_registry():
    """The sealed form registry (``recycle.lang.forms.flow`` imported)."""
    if not _REGISTRY:
        from ...errors import RecycleBug

        raise RecycleBug("the elaborator is used before the form registry is sealed (import recycle.lang.forms.flow)")
    return _REGISTRY[0]


@dataclass(frozen=True, slots=True)
class FormNode(Node):
    """A node standing for a registered form: ``KIND`` and ``HEAD`` are its registry key."""

    KIND: ClassVar[str] = ""
    HEAD: ClassVar[str | None] = None


class Kind:
    """What a form produces; a compiler entry point per kind reads the forms of that kind."""

    ACTION = "action"  # a primitive action (an Item)
    FLOW = "flow"  # a block, loop, choice or stage (an Item)
    BOOL = "boolean"
    INT = "integer"
    STR = "string"
    CARD = "card"
    LOC = "location"  # a location or a view: a list of cards
    GROUPS = "groups"  # a list of groups of cards
    COLL = "collection"  # anything any/all/filter/size can range over
    PLAYER = "player"
    TEAM = "team"

    ITEMS = (ACTION, FLOW)
    EXPRESSIONS = (BOOL, INT, STR, CARD, LOC, GROUPS, COLL, PLAYER, TEAM)
    ALL = ITEMS + EXPRESSIONS


# -- leaves ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Num(Node):
    """An integer written out."""

    value: int


@dataclass(frozen=True, slots=True)
class Word(Node):
    """A NAME (a location's, a storage's, an attribute's or its value), used as a string."""

    value: str


@dataclass(frozen=True, slots=True)
class Names(Node):
    """A literal list of names, ``(FIRST, SECOND, THIRD)``."""

    values: tuple


@dataclass(frozen=True, slots=True)
class Binding:
    """Where a variable is bound: its name, the binder (a form's head, or ``declare``), what
    the binder says it holds (``hint``: player, card, cards, int, loc ...) and the binder's
    position (part of equality: two binders of one name are two variables)."""

    name: str
    binder: str
    hint: str | None
    at: Span | None


@dataclass(frozen=True, slots=True)
class Var(Node):
    """A variable, resolved to its binding."""

    name: str
    binding: Binding


@dataclass(frozen=True, slots=True)
class Const(Node):
    """A declared constant, folded: ``value`` is an int, a NAME or a tuple of NAMEs."""

    name: str
    value: Any


@dataclass(frozen=True, slots=True)
class Everyone(Node):
    """``player`` or ``team`` as a collection: every player, or every team."""

    what: str


# -- owners and players ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GameOwner(Node):
    """``game``, the owner of the game's own locations and storages."""


@dataclass(frozen=True, slots=True)
class Turn(Node):
    """``(current|next|previous player|team)``: a position of the turn order; ``bare`` when
    written as the word alone (``(cycle next current)``; not part of equality)."""

    position: str
    what: str
    bare: bool = field(default=False, kw_only=True, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Nth(Node):
    """``(N player|team)``: the player (team) numbered N (from 0)."""

    index: Node
    what: str


# -- locations and storages --------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Loc(Node):
    """``(OWNER KIND NAME)``: one physical location. ``name`` is a ``Word`` (a name written
    out), a ``Member`` of a family (``(OWNER KIND NAME INDEX)``) or a string expression (a
    computed name)."""

    owner: Node
    kind: str
    name: Node

    @property
    def is_mem(self) -> bool:
        return self.kind == "mem"


@dataclass(frozen=True, slots=True)
class Storage(Node):
    """``(HOLDER sto|str|points NAME)``: one storage of a holder."""

    holder: Node
    sort: str
    name: Node


@dataclass(frozen=True, slots=True)
class Broken(Node):
    """An item with a compile error, standing as doing nothing while the rest is read (the
    errors are reported together: ``recycle check``); ``error`` is that error (not part of
    equality), for a compiler handed the node."""

    error: Any = field(default=None, compare=False, repr=False)
