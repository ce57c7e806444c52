"""Going on after a compile error, so that ``recycle check`` reports a file's independent
errors together: an action or block with an error is kept in ``errors`` and stands as doing
nothing while the rest is compiled; ``raise_errors`` then reports them (the one error itself,
or ``RecycleCompileErrors``). A mixin of ``FlowCompiler``.
"""

from __future__ import annotations

from ..nodes.base import Broken
from ...errors import RecycleCompileError, RecycleCompileErrors
from .items import Item
from ..nodes.sexpr import Scope
from ..nodes.sexpr import KeptErrors


class ErrorKeeping(KeptErrors):
    """``c_item`` with error recovery; ``errors`` is the list of errors found so far."""

    def c_item(self, x, scope: Scope) -> Item:
        """An action, block, conditional, stage or choice. A compile error in it is kept
        (``errors``) and the item stands as doing nothing, so that the search goes on to the
        file's other, independent errors (``raise_errors`` reports them together)."""
        if isinstance(x, Broken):  # the elaborator kept its error
            self.keep_error(x.error)
            return Item(x, scope, run=lambda s, e: None, static=True)
        try:
            return self.c_item_of(x, scope)
        except RecycleCompileErrors:
            raise
        except RecycleCompileError as exc:
            self.keep_error(exc)
            return Item(x, scope, run=lambda s, e: None, static=True)
