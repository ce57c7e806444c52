"""Reading variables, owners, players, teams, names, storages, strings and values of any kind
into nodes; the elaborator's helpers every family uses (``ScalarReading``, a mixin of
``flow.Elaborator``). Each reading mirrors the compiler's entry point of the same kind
(``lang/forms/expr_scalar.py``, ``expr_cards.py``) and raises its messages. The readings of
``owner``, ``team``, ``cardatt`` and ``member`` are their modules' (``lang/forms/form_attributes.py``,
``form_member.py``), with the forms."""

from __future__ import annotations

from ...errors import RecycleBug

from .sexpr import Const as Folded, Scope, fail, head_of, is_atom, is_location_form, is_storage_form, kw
from .sexpr import literal_names
from ..syntax.reader import INT, SYMBOL, VAR, Atom, SList
from .base import (
    Binding,
    Const,
    Everyone,
    Kind,
    GameOwner,
    Names,
    Nth,
    Num,
    Storage,
    Turn,
    Var,
    Word,
    form_node,
)

Owner = form_node("Owner", "card", Kind.PLAYER, "owner", "(owner CARD): the player holding the card.")
TeamOf = form_node("TeamOf", "player", Kind.TEAM, "team", "(team PLAYER): the player's team.")
Member = form_node("Member", "family index", Kind.STR, "member", "(member NAME INDEX): NAME[INDEX] of a family.")
CardAtt = form_node("CardAtt", "key card", Kind.STR, "cardatt", "(cardatt KEY CARD): a card's attribute.")

POSITIONS = ("current", "next", "previous")


class ScalarReading:
    """Variables, owners, players, teams, names, storages, strings and values."""

    forms = None  # the sealed registry, set by the elaborator

    # -- helpers ---------------------------------------------------------------------------
    @staticmethod
    def form_name(x) -> str:
        if isinstance(x, Atom):
            return f"'{x}'" if x.kind != VAR else str(x)
        h = head_of(x)
        if h:
            return f"({h} ...)"
        return "()" if not x.items else "a form " + str(x)[:40]

    def arity(self, x: SList, n: int) -> None:
        if len(x.items) != n:
            h = head_of(x) or "form"
            fail(f"({h} ...) takes {n - 1} argument{'s' if n != 2 else ''}, got {len(x.items) - 1}", x, h)

    def by_head(self, kind: str, x, scope: Scope):
        """The node of ``x`` as the registered form of ``kind`` its head names, else None."""
        f = self.forms.lookup(kind, head_of(x))
        return None if f is None else self.read_as(f.method, x, scope)

    def read_as(self, method: str, x, scope: Scope):
        """``x`` read as the form the compiler's ``method`` compiles: by the elaborator's method
        ``e_<method>``, or by the reading a form kept whole in its own module registered with it
        (``form(reads=)``: ``reads(elaborator, x, scope)``). Every registered form has one
        (``seal``'s check, ``test_nodes.py``): the compiler is handed nodes only."""
        reader = getattr(self, "e_" + method, None)
        if reader is not None:
            return reader(x, scope)
        reading = self.forms.readings.get(method)
        if reading is None:
            raise RecycleBug(f"the form compiled by {method} has no reading (register one with form(reads=))")
        return reading(self, x, scope)

    def node(self, cls, x, *operands):
        return cls(*operands, span=x.span, source=x)

    # -- variables -------------------------------------------------------------------------
    def var(self, x: Atom, scope: Scope):
        """A variable: its binding, or the constant it was declared as (folded)."""
        what = scope.lookup(x.value)
        if what is None:
            fail(f"unknown variable '{x.value} (not declared, and not bound by an enclosing any/all/filter/let)", x)
        if isinstance(what, Folded):
            value = what.value
            return Const(x.value, tuple(value) if isinstance(value, list) else value, span=x.span, source=x)
        return Var(x.value, what, span=x.span, source=x)

    @staticmethod
    def bind(scope: Scope, name: Atom, binder: str, hint: str | None, at) -> Scope:
        return scope.bind(name.value, Binding(name.value, binder, hint, at), hint)

    # -- owners, players, teams ------------------------------------------------------------
    def turn_of(self, x, what: str, scope: Scope):
        """``(current|next|previous|N player|team)``."""
        which = x.items[0]
        if kw(which, *POSITIONS):
            return Turn(which.value, what, span=x.span, source=x)
        return Nth(self.int_(which, scope), what, span=x.span, source=x)

    def owner(self, x, scope: Scope, what: str = "an owner"):
        if kw(x, "game"):
            return GameOwner(span=x.span, source=x)
        if is_atom(x, VAR):
            return self.var(x, scope)
        h = head_of(x)
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "player"):
            return self.turn_of(x, "player", scope)
        if h in self.forms.only[Kind.PLAYER]:
            return self.player(x, scope)
        if (isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "team")) or h in self.forms.only[Kind.TEAM]:
            return self.team(x, scope)
        fail(f"expected {what}: game, a player, a team or a variable; got {self.form_name(x)}", x)

    def player(self, x, scope: Scope):
        if is_atom(x, VAR):
            return self.var(x, scope)
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "player"):
            return self.turn_of(x, "player", scope)
        f = self.by_head(Kind.PLAYER, x, scope)
        if f is not None:
            return f
        fail(f"expected a player, got {self.form_name(x)}", x)

    def team(self, x, scope: Scope):
        if is_atom(x, VAR):
            return self.var(x, scope)
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "team"):
            return self.turn_of(x, "team", scope)
        f = self.by_head(Kind.TEAM, x, scope)
        if f is not None:
            return f
        fail(f"expected a team, got {self.form_name(x)}", x)

    # -- names and storages ----------------------------------------------------------------
    def name(self, x, scope: Scope):
        """A NAME or KEY: a ``Word`` written out (or folded), else a string expression."""
        if isinstance(x, Atom) and x.kind == SYMBOL:
            return Word(x.value, span=x.span, source=x)
        if isinstance(x, Atom) and x.kind == INT:
            return Word(str(x.value), span=x.span, source=x)
        if is_atom(x, VAR):
            v = self.var(x, scope)
            if isinstance(v, Const) and isinstance(v.value, str):
                return Word(v.value, span=x.span, source=x)
            return v
        return self.str_(x, scope)

    def storage(self, sort: str, x: SList, scope: Scope):
        name = self.name(x.items[2], scope)
        holder = self.owner(x.items[0], scope, "a storage holder")
        return Storage(holder, sort, name, span=x.span, source=x)

    def points(self, x, scope: Scope):
        if is_storage_form(x) == "points":
            return self.storage("points", x, scope)
        if is_atom(x, VAR):
            return self.var(x, scope)
        fail(f"expected a point map (OWNER points NAME), got {self.form_name(x)}", x)

    def str_(self, x, scope: Scope):
        if isinstance(x, Atom):
            if x.kind == SYMBOL:
                return Word(x.value, span=x.span, source=x)
            if x.kind == VAR:
                return self.var(x, scope)
            if x.kind == INT:
                return Word(str(x.value), span=x.span, source=x)
            fail(f"expected a string (a NAME), got {x}", x)
        if is_storage_form(x) == "str":
            return self.storage("str", x, scope)
        f = self.by_head(Kind.STR, x, scope)
        if f is not None:
            return f
        fail(f"expected a string expression, got {self.form_name(x)}", x)

    # -- values of any kind ----------------------------------------------------------------
    def value(self, x, scope: Scope):
        """Any value, by the form's shape (``FlowCompiler.c_value``'s reading)."""
        if isinstance(x, Atom):
            if x.kind == INT:
                return Num(x.value, span=x.span, source=x)
            if x.kind == VAR:
                return self.var(x, scope)
            if x.kind == SYMBOL:
                if x.value in ("player", "team"):
                    return Everyone(x.value, span=x.span, source=x)
                return Word(x.value, span=x.span, source=x)
            fail(f"expected a value, got {x}", x)
        sort = is_storage_form(x)
        if sort is not None:
            return self.storage(sort, x, scope)
        if is_location_form(x):
            return self.loc(x, scope)
        h = head_of(x)
        only = self.forms.only
        for kind, read in ((Kind.INT, self.int_), (Kind.BOOL, self.bool_), (Kind.STR, self.str_)):
            if h in only[kind]:
                return read(x, scope)
        if h in only[Kind.CARD]:
            return self.card(x, scope)
        if h in ("top", "bottom") or (isinstance(x, SList) and x.items and is_atom(x.items[0], INT)):
            if len(x.items) == 2 and kw(x.items[1], "player"):
                return self.player(x, scope)
            if len(x.items) == 2 and kw(x.items[1], "team"):
                return self.team(x, scope)
            if len(x.items) == 2 and self.is_groups_form(x.items[1]):
                return self.read_as("c_group_pick", x, scope)
            if len(x.items) == 3:
                return self.cards(x, scope)
            return self.card(x, scope)
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "player"):
            return self.player(x, scope)
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "team"):
            return self.team(x, scope)
        if h in only[Kind.PLAYER]:
            return self.player(x, scope)
        if h in only[Kind.TEAM]:
            return self.team(x, scope)
        if h in ("any", "all"):
            body = x.items[3] if len(x.items) == 4 else None
            if body is not None and (head_of(body) in only[Kind.BOOL] or head_of(body) in ("any", "all")):
                return self.bool_(x, scope)
            return self.coll(x, scope)
        if h in only[Kind.LOC]:
            return self.cards(x, scope)
        return self.coll(x, scope)

    @staticmethod
    def names(x):
        """A literal list of names as a node, else None."""
        values = literal_names(x)
        return None if values is None else Names(tuple(values), span=x.span, source=x)
