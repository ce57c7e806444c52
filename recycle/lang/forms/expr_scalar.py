"""Compiling RECYCLE's scalar forms into closures ``f(state, env)``: variables, owners,
storages, point maps, strings, and values of any kind (``c_value``).

Each form's method is registered in ``registry`` (``@form``) and found by its head keyword;
nothing on the rollout path looks at the syntax tree again. Variables are resolved at
compile time to slots of the ``env`` list. Integers, conditions, cards, locations, group
lists and collections have their own modules (``expr_int``, ``expr_bool``, ``expr_cards``,
``expr_locs``, ``expr_groups``).
"""

from __future__ import annotations

from collections.abc import Callable

from .reads import plain, reads_node
from ..nodes.base import Var
from ..nodes.scalars import CardAtt
from .registry import Kind, form, mention
from .shapes import (
    MAX_NAMES,
    Const,
    Scope,
    describe_value,
    fail,
    head_of,
    is_atom,
    is_location_form,
    is_storage_form,
    kw,
    literal_names,
    rt_error,
    tag,
)
from ..syntax.reader import INT, SYMBOL, VAR, Atom, SList
from .values import PlayerId, TeamId


class ScalarForms:
    """Variables, storages and strings, and the helpers of every form's compiler (a mixin of
    ``FlowCompiler``)."""

    layout = None  # set by the subclass
    fast = True  # speed special cases on; False compiles the plain path of every form
    forms = None  # the sealed form registry, set by the subclass

    # -- helpers ---------------------------------------------------------------------------
    def arity(self, x: SList, n: int) -> None:
        if len(x.items) != n:
            h = head_of(x) or "form"
            fail(f"({h} ...) takes {n - 1} argument{'s' if n != 2 else ''}, got {len(x.items) - 1}", x, h)

    @staticmethod
    def form_name(x) -> str:
        if isinstance(x, Atom):
            return f"'{x}'" if x.kind != VAR else str(x)
        h = head_of(x)
        if h:
            return f"({h} ...)"
        return "()" if not x.items else "a form " + str(x)[:40]

    def by_head(self, kind: str, x, *args):
        """The closure (or Item) of ``x`` as the registered form of ``kind`` its head names;
        None when no form of that kind has that head."""
        f = self.forms.lookup(kind, head_of(x))
        return None if f is None else f.compile(self, x, *args)

    # -- variables -------------------------------------------------------------------------
    def new_slot(self) -> int:
        self.nslots += 1
        return self.nslots - 1

    def c_var(self, x: Atom, scope: Scope) -> Callable:
        what = scope.lookup(x.value)
        if what is None:
            fail(f"unknown variable '{x.value} (not declared, and not bound by an enclosing any/all/filter/let)", x)
        if isinstance(what, Const):
            v = what.value
            return lambda s, e: v
        slot = what
        return tag(lambda s, e: e[slot], var_slot=slot)

    def const_value(self, x, scope: Scope):
        """The folded value of a literal or declared constant, else None."""
        x = plain(x)
        if isinstance(x, Atom):
            if x.kind == INT:
                return x.value
            if x.kind == VAR:
                what = scope.lookup(x.value)
                if isinstance(what, Const):
                    return what.value
        return None

    # -- storage ---------------------------------------------------------------------------
    def c_owner(self, x, scope: Scope, what: str = "an owner") -> Callable:
        """An owner expression → owner id (0 game, 1+p player, 1+n+t team)."""
        x = plain(x)
        n = self.layout.nplayers
        if kw(x, "game"):
            return lambda s, e: 0
        if isinstance(x, Atom) and x.kind == VAR:
            f = self.c_var(x, scope)
            span, name = x.span, x.value
            if scope.hint(name) == "player":
                slot = scope.lookup(name)
                return lambda s, e: 1 + e[slot]

            def var_owner(s, e):
                v = f(s, e)
                if isinstance(v, PlayerId):
                    return 1 + v
                if isinstance(v, TeamId):
                    return 1 + n + v
                rt_error(f"'{name} holds {describe_value(v)}, not a player or team", span)

            return var_owner
        h = head_of(x)
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "player"):
            p = self.c_player(x, scope)
            if kw(x.items[0], "current"):
                return lambda s, e: 1 + s.pstack[-1][0]
            return lambda s, e: 1 + p(s, e)
        if h in self.forms.only[Kind.PLAYER]:
            p = self.c_player(x, scope)
            return lambda s, e: 1 + p(s, e)
        if (isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "team")) or h in self.forms.only[Kind.TEAM]:
            t = self.c_team(x, scope)
            return lambda s, e: 1 + n + t(s, e)
        fail(f"expected {what}: game, a player, a team or a variable; got {self.form_name(x)}", x)

    def storage_name(self, x, scope: Scope):
        """A storage/location NAME (also a card attribute's KEY): constant str, or a closure
        for a computed name. A variable must hold a name (a string or an integer): one
        known to hold something else is a compile error, else it is checked when used."""
        x = plain(x)
        if isinstance(x, Atom) and x.kind == SYMBOL:
            return x.value
        if isinstance(x, Atom) and x.kind == INT:
            return str(x.value)
        if isinstance(x, Atom) and x.kind == VAR:
            what = scope.lookup(x.value)
            if isinstance(what, Const) and isinstance(what.value, str):
                return what.value
            return self.c_str_var(x, scope, True)
        return self.c_str(x, scope)

    def known_names(self, x, scope: Scope, registered: int) -> list | None:
        """The names a computed NAME can take, when it is a variable bound by any/all/filter
        over a declared list of names (``(declare (A B C) 'NAMES)``) or a literal one
        (``(A, B, C)``); else None. Their locations or storages are registered when the game is
        compiled, in the list's order, so that every engine numbers them alike
        (recycle/native/writer.py, named_base); not when that would pass MAX_NAMES with the
        ``registered`` names (then each on first use, where the limit is a positioned error)."""
        if not is_atom(x, VAR):
            return None
        slot = scope.lookup(x.value)
        coll = self.binder_colls.get(slot) if isinstance(slot, int) else None
        if is_atom(coll, VAR):
            names = getattr(scope.lookup(coll.value), "value", None)
        else:
            names = literal_names(coll)
        if (
            isinstance(names, list)
            and names
            and all(isinstance(v, str) for v in names)
            and registered + len(names) <= MAX_NAMES
        ):
            return names
        return None

    # what a variable bound by an any/all/filter/let is known to hold, when it is not a string
    NOT_A_STRING = {  # noqa: RUF012 - a constant table, never changed
        "cards": "a list of cards",
        "loc": "a location",
        "groups": "a list of groups",
        "list": "a collection",
    }  # (a constant table, never changed)
    NOT_A_NAME = {**NOT_A_STRING, "player": "a player", "card": "a card"}  # noqa: RUF012 - likewise

    def c_str_var(self, x: Atom, scope: Scope, name: bool) -> Callable:
        """A variable used as a string (``name``: as a NAME or KEY)."""
        what = "a name" if name else "a string"
        f = self.c_var(x, scope)
        v = scope.lookup(x.value)
        if isinstance(v, Const):
            if not isinstance(v.value, (str, int)):
                fail(f"'{x.value} is {describe_value(v.value)}, not {what}", x)
            return f
        known = (self.NOT_A_NAME if name else self.NOT_A_STRING).get(scope.hint(x.value))
        if known is not None:
            fail(f"'{x.value} holds {known}, not {what}", x)
        span, var = x.span, x.value
        if name:

            def var_name(s, e):
                v = f(s, e)
                if v.__class__ is str or v.__class__ is int:
                    return v
                rt_error(f"'{var} holds {describe_value(v)}, not a name", span)

            return var_name

        def var_str(s, e):
            v = f(s, e)
            if isinstance(v, (str, int)):
                return v
            rt_error(f"'{var} holds {describe_value(v)}, not a string", span)

        return var_str

    def c_storage_slot(self, sort: str, x: SList, scope: Scope):
        """(HOLDER sort NAME) → (constant slot or None, slot closure)."""
        x = plain(x)
        name = self.storage_name(x.items[2], scope)
        owner = self.c_owner(x.items[0], scope, "a storage holder")
        layout = self.layout
        if isinstance(name, str):
            base = layout.storage_block(sort, name)
            if kw(x.items[0], "game"):
                return base, (lambda s, e: base)
            if (
                isinstance(x.items[0], SList)
                and len(x.items[0].items) == 2
                and kw(x.items[0].items[0], "current")
                and kw(x.items[0].items[1], "player")
            ):
                b1 = base + 1
                return None, (lambda s, e: b1 + s.pstack[-1][0])
            return None, (lambda s, e: base + owner(s, e))
        name_fn = name

        known = self.known_names(x.items[2], scope, len(layout.storage_names(sort))) or ()
        bases: dict = {nm: layout.storage_block(sort, nm) for nm in known}
        width = layout.width
        attr = {"sto": "ints", "str": "strs", "points": "points"}[sort]

        span = x.span

        def dyn_slot(s, e):
            nm = name_fn(s, e)
            b = bases.get(nm)
            if b is None:
                if nm not in layout.storage_names(sort) and layout.storage_count(sort) >= MAX_NAMES * width:
                    rt_error(f"more than {MAX_NAMES} {sort} names (computed names make a new storage each)", span, sort)
                b = bases[nm] = layout.storage_block(sort, nm)
            if b + width > len(getattr(s, attr)):
                s.grow_storage()
            return b + owner(s, e)

        return None, dyn_slot

    def c_storage_get(self, sort: str, x: SList, scope: Scope) -> Callable:
        x = plain(x)
        const, slot = self.c_storage_slot(sort, x, scope)
        attr = {"sto": "ints", "str": "strs", "points": "points"}[sort]
        if const is not None:
            if attr == "ints":
                return tag(lambda s, e: s.ints[const], sto_slot=const)
            if attr == "strs":
                return tag(lambda s, e: s.strs[const], str_slot=const)
            return tag(lambda s, e: s.points[const], points_slot=const)
        if attr == "ints":
            return lambda s, e: s.ints[slot(s, e)]
        if attr == "strs":
            return lambda s, e: s.strs[slot(s, e)]
        return lambda s, e: s.points[slot(s, e)]

    def c_points(self, x, scope: Scope) -> Callable:
        x = plain(x)
        if is_storage_form(x) == "points":
            return self.c_storage_get("points", x, scope)
        if isinstance(x, Atom) and x.kind == VAR:
            return self.c_var(x, scope)
        fail(f"expected a point map (OWNER points NAME), got {self.form_name(x)}", x)

    # -- strings ---------------------------------------------------------------------------
    def c_str(self, x, scope: Scope) -> Callable:
        """A string: a NAME, a variable, an integer literal, ``(HOLDER str NAME)`` or a string form."""
        x = plain(x)
        if isinstance(x, Atom):
            if x.kind == SYMBOL:
                v = x.value
                return lambda s, e: v
            if x.kind == VAR:
                return self.c_str_var(x, scope, False)
            if x.kind == INT:
                v = str(x.value)
                return lambda s, e: v
            fail(f"expected a string (a NAME), got {x}", x)
        if is_storage_form(x) == "str":
            return self.c_storage_get("str", x, scope)
        f = self.by_head(Kind.STR, x, scope)
        if f is not None:
            return f
        fail(f"expected a string expression, got {self.form_name(x)}", x)

    @form("cardatt", "(cardatt KEY CARD)", Kind.STR, pure=True, role="attribute", words="{1} of {2}")
    @reads_node
    def str_cardatt(self, x: CardAtt, scope: Scope) -> Callable:
        """(cardatt KEY CARD)

        The card's value for the attribute KEY: the empty string when the card lacks KEY or
        the reference names no card."""
        key = self.storage_name(x.key, scope)
        card = self.c_card(x.card, scope, optional=True)
        card_table = self.cards
        if isinstance(key, str):
            col = card_table.column(key)
            if (
                getattr(card, "var_slot", None) is not None
                and isinstance(x.card, Var)
                and scope.hint(x.card.name) == "card"
            ):
                # the attribute of a card bound by any/all/filter over a location: never empty
                vs = card.var_slot
                return tag(lambda s, e: col[e[vs]], attr_of_var=(col, vs))
            return lambda s, e: "" if (c := card(s, e)) is None else col[c]
        key_fn = key
        attrs = card_table.attrs  # a computed key is looked up card by card: no column per key
        return lambda s, e: "" if (c := card(s, e)) is None else attrs[c].get(key_fn(s, e), "")

    # -- values of any kind ----------------------------------------------------------------
    def c_value(self, x, scope: Scope) -> Callable:
        """Any value, by the form's shape (for ==, !=, let and declare).

        A head that belongs to one kind only compiles as that kind; the heads shared by
        several kinds (top, bottom, any, all, let ...) are read by the shape of the form."""
        x = plain(x)
        if isinstance(x, Atom):
            if x.kind == INT:
                return self.c_int(x, scope)
            if x.kind == VAR:
                return self.c_var(x, scope)
            if x.kind == SYMBOL:
                if x.value in ("player", "team"):
                    return self.c_coll(x, scope)
                return self.c_str(x, scope)
            fail(f"expected a value, got {x}", x)
        sort = is_storage_form(x)
        if sort == "sto":
            return self.c_int(x, scope)
        if sort == "str":
            return self.c_str(x, scope)
        if sort == "points":
            return self.c_points(x, scope)
        if is_location_form(x):
            return self.c_locval(x, scope)
        h = head_of(x)
        only = self.forms.only
        if h in only[Kind.INT]:
            return self.c_int(x, scope)
        if h in only[Kind.BOOL]:
            return self.c_bool(x, scope)
        if h in only[Kind.STR]:
            return self.c_str(x, scope)
        if h in only[Kind.CARD]:
            return self.c_card(x, scope)
        if h in ("top", "bottom") or (isinstance(x, SList) and x.items and is_atom(x.items[0], INT)):
            if len(x.items) == 2 and kw(x.items[1], "player"):
                return self.c_player(x, scope)
            if len(x.items) == 2 and kw(x.items[1], "team"):
                return self.c_team(x, scope)
            if len(x.items) == 2 and self.is_groups_form(x.items[1]):
                return self.c_group_pick(x, scope)
            if len(x.items) == 3:
                return self.c_locval(x, scope)
            return self.c_card(x, scope)
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "player"):
            return self.c_player(x, scope)
        if isinstance(x, SList) and len(x.items) == 2 and kw(x.items[1], "team"):
            return self.c_team(x, scope)
        if h in only[Kind.PLAYER]:
            return self.c_player(x, scope)
        if h in only[Kind.TEAM]:
            return self.c_team(x, scope)
        if h in ("any", "all"):
            body = x.items[3] if len(x.items) == 4 else None
            if body is not None and (head_of(body) in only[Kind.BOOL] or head_of(body) in ("any", "all")):
                return self.c_bool(x, scope)
            return self.c_coll(x, scope)
        if h in only[Kind.LOC]:
            return self.c_locval(x, scope)
        return self.c_coll(x, scope)


mention(__name__, ("top", "bottom", "any", "all"))
