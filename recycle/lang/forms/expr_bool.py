"""Compiling RECYCLE's conditions into closures ``f(state, env) -> bool``, and the binder shape
any and all share with filter (``c_binder``). The boolean forms are each kept whole in a module
of their own: and, or, not in ``form_logic.py``; the comparisons in ``form_comparison.py``;
any and all in ``form_quantifiers.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.base import FormNode
from ..nodes.sexpr import Scope, fail


class BoolForms:
    """Conditions in the compiler: its entry point ``c_bool`` and the binder (a mixin of
    ``FlowCompiler``)."""

    def c_bool(self, x, scope: Scope) -> Callable:
        """A condition: a boolean form (there are no boolean literals or storages)."""
        if isinstance(x, FormNode):
            return self.form_of(x, scope)
        fail(f"expected a condition, got {self.form_name(x)}", x)

    def c_binder(self, x, scope: Scope, body_compiler):
        """(any|all|filter COLL 'V BODY) → (collection closure, slot, body closure)."""
        coll = self.c_coll(x.collection, scope)
        slot = self.new_slot()
        self.binder_colls[slot] = x.collection  # (families of locations: the members it may name)
        self.fresh_groups(x, slot)
        body = x.condition if hasattr(x, "condition") else x.location
        inner = body_compiler(body, scope.bind(x.variable.name, slot, x.variable.hint))
        return coll, slot, inner
