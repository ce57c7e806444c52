"""The compiler's entry points for scalars, closures ``f(state, env)``: variables, owners,
storages, point maps, strings, and values of any kind (``c_value``); and the helpers every
form's compiler uses.

Nothing on the rollout path looks at the syntax tree again. Variables are resolved at
compile time to slots of the ``env`` list. Integers, conditions, cards, locations, group
lists and collections have their own modules (``expr_int``, ``expr_bool``, ``expr_cards``,
``expr_locs``, ``expr_groups``); a form kept whole in one module is a ``form_*.py`` (the
attribute of a card, ``cardatt``: ``form_attributes.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.base import (
    Const,
    Everyone,
    FormNode,
    GameOwner,
    Loc,
    Names,
    Nth,
    Num,
    Storage,
    Turn,
    Var,
    Word,
    written,
)
from ..nodes.groups import Members
from .registry import Kind
from .runtime import MAX_NAMES, describe_value, rt_error, tag
from ..nodes.sexpr import Scope, fail
from ..nodes.sexpr import Const as Folded
from .values import PlayerId, TeamId

CURRENT_PLAYER = Turn("current", "player")  # (current player), as a node (spans are not compared)


class ScalarForms:
    """Variables, storages and strings, and the helpers of every form's compiler (a mixin of
    ``FlowCompiler``)."""

    layout = None  # set by the subclass
    fast = True  # speed special cases on; False compiles the plain path of every form
    forms = None  # the sealed form registry, set by the subclass

    # -- helpers ---------------------------------------------------------------------------
    @staticmethod
    def form_name(x) -> str:
        """A node as the messages name it: ``(HEAD ...)``, or as written."""
        head = getattr(x, "HEAD", None)
        return f"({head} ...)" if head else written(x)

    # -- variables -------------------------------------------------------------------------
    def new_slot(self) -> int:
        self.nslots += 1
        return self.nslots - 1

    def c_var(self, x: Var | Const, scope: Scope) -> Callable:
        """A variable or a declared constant, by its name in the compiler's scope."""
        what = scope.lookup(x.name)
        if isinstance(what, Folded):
            v = what.value
            return lambda s, e: v
        slot = what
        return tag(lambda s, e: e[slot], var_slot=slot)

    @staticmethod
    def const_value(x, scope: Scope):
        """The folded value of a number or declared constant, else None."""
        if isinstance(x, Num):
            return x.value
        if isinstance(x, Const):
            return scope.lookup(x.name).value
        return None

    # -- storage ---------------------------------------------------------------------------
    def c_owner(self, x, scope: Scope, what: str = "an owner") -> Callable:
        """An owner → owner id (0 game, 1+p player, 1+n+t team)."""
        n = self.layout.nplayers
        match x:
            case GameOwner():
                return lambda s, e: 0
            case Var() | Const():
                f = self.c_var(x, scope)
                span, name = x.span, x.name
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
            case Turn(position="current", what="player"):
                return lambda s, e: 1 + s.pstack[-1][0]
            case Turn(what="player") | Nth(what="player") | FormNode(KIND=Kind.PLAYER):
                p = self.c_player(x, scope)
                return lambda s, e: 1 + p(s, e)
            case Turn(what="team") | Nth(what="team") | FormNode(KIND=Kind.TEAM):
                t = self.c_team(x, scope)
                return lambda s, e: 1 + n + t(s, e)
        fail(f"expected {what}: game, a player, a team or a variable; got {self.form_name(x)}", x)

    def storage_name(self, x, scope: Scope):
        """A storage/location NAME (also a card attribute's KEY): constant str, or a closure
        for a computed name. A variable must hold a name (a string or an integer): one
        known to hold something else is a compile error, else it is checked when used."""
        match x:
            case Word(value=v):
                return v
            case Const():
                v = scope.lookup(x.name).value
                if isinstance(v, str):
                    return v
                return self.c_str_var(x, scope, True)
            case Var():
                return self.c_str_var(x, scope, True)
        return self.c_str(x, scope)

    def known_names(self, x, scope: Scope, registered: int) -> list | None:
        """The names a computed NAME can take, when it is a variable bound by any/all/filter
        over a declared list of names (``(declare (A B C) 'NAMES)``) or a literal one
        (``(A, B, C)``); else None. Their locations or storages are registered when the game is
        compiled, in the list's order, so that every engine numbers them alike
        (recycle/native/writer.py, named_base); not when that would pass MAX_NAMES with the
        ``registered`` names (then each on first use, where the limit is a positioned error)."""
        if not isinstance(x, Var):
            return None
        slot = scope.lookup(x.name)
        coll = self.binder_colls.get(slot) if isinstance(slot, int) else None
        if isinstance(coll, (Var, Const)):
            names = getattr(scope.lookup(coll.name), "value", None)
        else:
            names = list(coll.values) if isinstance(coll, Names) else None
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

    def c_str_var(self, x: Var | Const, scope: Scope, name: bool) -> Callable:
        """A variable used as a string (``name``: as a NAME or KEY)."""
        what = "a name" if name else "a string"
        f = self.c_var(x, scope)
        v = scope.lookup(x.name)
        if isinstance(v, Folded):
            if not isinstance(v.value, (str, int)):
                fail(f"'{x.name} is {describe_value(v.value)}, not {what}", x)
            return f
        known = (self.NOT_A_NAME if name else self.NOT_A_STRING).get(scope.hint(x.name))
        if known is not None:
            fail(f"'{x.name} holds {known}, not {what}", x)
        span, var = x.span, x.name
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

    def c_storage_slot(self, sort: str, x: Storage, scope: Scope):
        """(HOLDER sort NAME) → (constant slot or None, slot closure)."""
        name = self.storage_name(x.name, scope)
        owner = self.c_owner(x.holder, scope, "a storage holder")
        layout = self.layout
        if isinstance(name, str):
            base = layout.storage_block(sort, name)
            if isinstance(x.holder, GameOwner):
                return base, (lambda s, e: base)
            if x.holder == CURRENT_PLAYER:
                b1 = base + 1
                return None, (lambda s, e: b1 + s.pstack[-1][0])
            return None, (lambda s, e: base + owner(s, e))
        name_fn = name

        known = self.known_names(x.name, scope, len(layout.storage_names(sort))) or ()
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

    def c_storage_get(self, sort: str, x: Storage, scope: Scope) -> Callable:
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
        """A point map: ``(OWNER points NAME)`` or a variable holding one."""
        match x:
            case Storage(sort="points"):
                return self.c_storage_get("points", x, scope)
            case Var() | Const():
                return self.c_var(x, scope)
        fail(f"expected a point map (OWNER points NAME), got {self.form_name(x)}", x)

    # -- strings ---------------------------------------------------------------------------
    def c_str(self, x, scope: Scope) -> Callable:
        """A string: a NAME, a variable, ``(HOLDER str NAME)`` or a string form."""
        match x:
            case Word(value=v):
                return lambda s, e: v
            case Var() | Const():
                return self.c_str_var(x, scope, False)
            case Storage(sort="str"):
                return self.c_storage_get("str", x, scope)
            case FormNode():
                return self.form_of(x, scope)
        fail(f"expected a string expression, got {self.form_name(x)}", x)

    # -- values of any kind ----------------------------------------------------------------
    def c_value(self, x, scope: Scope) -> Callable:
        """Any value, by its node (for ==, !=, let and declare): the elaborator decided the
        kind of the forms whose head several kinds share (top, bottom, any, all, let ...)."""
        match x:
            case Num():
                return self.c_int(x, scope)
            case Var() | Const():
                return self.c_var(x, scope)
            case Everyone() | Names() | Members():
                return self.c_coll(x, scope)
            case Word():
                return self.c_str(x, scope)
            case Storage(sort="sto"):
                return self.c_int(x, scope)
            case Storage(sort="str"):
                return self.c_str(x, scope)
            case Storage(sort="points"):
                return self.c_points(x, scope)
            case Loc():
                return self.c_locval(x, scope)
            case Turn(what="player") | Nth(what="player"):
                return self.c_player(x, scope)
            case Turn(what="team") | Nth(what="team"):
                return self.c_team(x, scope)
            case FormNode():
                return self.form_of(x, scope)
        fail(f"expected a value, got {self.form_name(x)}", x)
