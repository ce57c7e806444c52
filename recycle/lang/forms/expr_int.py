"""Compiling RECYCLE's integers into closures ``f(state, env)``: literals, variables, integer
storages, and the size of a collection (``c_size``, which ``size`` and the actions that count
cards read). The integer forms are each kept whole in a module of their own: arithmetic, tri,
fib and random in ``form_arithmetic.py``; size, sum, score, scoremax and scoremin in
``form_counting.py``; pid in ``form_pid.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.base import Const, FormNode, Loc, Num, Storage, Var, Word
from .runtime import describe_value, rt_error, tag
from ..nodes.sexpr import Scope, fail
from .values import Card


class IntForms:
    """Integers in the compiler: its entry point ``c_int`` and ``c_size`` (a mixin of
    ``FlowCompiler``)."""

    def c_int(self, x, scope: Scope) -> Callable:
        """An integer: a number, a constant, a variable, ``(HOLDER sto NAME)`` or an integer form."""
        match x:
            case Num(value=v):
                return lambda s, e: v
            case Const():
                v = scope.lookup(x.name).value
                return lambda s, e: v
            case Var():
                f = self.c_var(x, scope)
                span, name = x.span, x.name
                if scope.hint(name) == "int":
                    return f

                def var_int(s, e):
                    v = f(s, e)
                    if v.__class__ is int or (isinstance(v, int) and not isinstance(v, Card)):
                        return v
                    rt_error(f"'{name} holds {describe_value(v)}, not an integer", span)

                return var_int
            case Storage(sort="sto"):
                return self.c_storage_get("sto", x, scope)
            case FormNode():
                return self.form_of(x, scope)
        fail(f"expected an integer expression, got {self.form_name(x)}", x)

    def c_size(self, x, scope: Scope) -> Callable:
        """The size of a collection; a location's is fused into one closure where it can be."""
        if isinstance(x, Loc):
            idx = self.static_loc_index(x, scope)
            if idx is not None:
                return tag(lambda s, e: len(s.locs[idx]), size_loc=idx)
            o, name = x.owner, x.name
            if isinstance(o, Var) and scope.hint(o.name) == "player" and isinstance(name, Word):
                b1 = self.layout.loc_block(x.kind, name.value) + 1
                slot = scope.lookup(o.name)
                return tag(lambda s, e: len(s.locs[b1 + e[slot]]), size_player=(b1, slot))
            cards = self.c_cards(x, scope)
            return lambda s, e: len(cards(s, e))
        if isinstance(x, Var) and scope.hint(x.name) == "cards":
            slot = scope.lookup(x.name)
            return lambda s, e: len(e[slot])
        coll = self.c_coll(x, scope)
        return lambda s, e: len(coll(s, e))
