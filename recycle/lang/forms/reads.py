"""The compiler's side of reading a game once (issue 41): every form's method takes the form's
node (``recycle/lang/nodes``), with its operands as named child nodes, and leaves the shape
checks to the elaborator; the compiler's entry points (``c_int``, ``c_bool``, ``c_item`` ...)
choose by the node's class (``NODE_METHODS``), never by an s-expression's shape.

A game still handed over as s-expressions (``engine/game.py``'s sections, until it elaborates
the whole game first) is read into nodes at the entry point that receives it (``entry``), with
the compiler's scope, once per section. A mixin of ``FlowCompiler``.
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import RecycleError
from ..nodes import groups as G
from ..nodes.base import FormNode, Node, Unread
from ..nodes.flow import Elaborator

ON_THE_FLY_ERRORS = 1 << 30  # errors the compiler's own elaborator keeps: the compiler reports them

# the compile method of each form's node (its form in the registry: ``test_nodes.py`` checks
# that every registered method has its nodes here)
NODE_METHODS: dict = {
    G.Members: "c_members",
}


def reads_node(method: Callable) -> Callable:
    """Mark a form's compile method as reading its node (the registry's check that every form
    has one: ``test_nodes.py``)."""
    method.reads_node = True
    return method


class NodeReading:
    """Compiles a form's node by its method; reads the s-expressions a caller still hands over."""

    _reader = None

    def form_of(self, x: FormNode | Unread, scope, *args):
        """The closure (or Item) of a form's node, by the method its class is compiled by. A
        form registered without a reading in the elaborator (``Unread``: a form being added)
        is compiled by its method from what is written."""
        if isinstance(x, Unread):
            return getattr(self, x.method)(x.source, scope, *args)
        return getattr(self, NODE_METHODS[type(x)])(x, scope, *args)

    @property
    def reader(self) -> Elaborator:
        """The elaborator reading the s-expressions handed to the compiler's entry points."""
        if self._reader is None:
            self._reader = Elaborator(self.forms)
            self._reader.max_errors = ON_THE_FLY_ERRORS
        return self._reader

    def entry(self, x, reading: str, scope, *args):
        """``x`` as a node: itself, or an s-expression read now by the elaborator's ``reading``
        (``item``, ``int_``, ``value`` ...) with the compiler's scope."""
        if x is None or isinstance(x, Node):
            return x
        reader = self.reader
        kept = len(reader.errors)
        try:
            return getattr(reader, reading)(x, scope, *args)
        except RecycleError:
            raise
        except Exception:
            # the reading tripped over what an error it kept left (as the compiler may):
            # those errors are the file's, reported as the compiler's own
            self.errors.extend(reader.errors[kept:])
            raise
