"""The compiler's side of reading a game once (issue 41): a form's method marked ``reads_node``
takes the form's node (``recycle/lang/nodes``), with its operands as named child nodes, instead
of the s-expression, and leaves the shape checks to the elaborator.

While some forms are still compiled from their s-expression, a marked method may be reached
from one of them with an s-expression: ``NodeReading.node_of`` then finds the node the
elaborator read it as (or reads it now, with the compiler's scope), and the compiler's entry
points given a node of a form not yet converted compile its ``source``. A mixin of
``FlowCompiler``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ...errors import RecycleError
from ..nodes.base import Node
from ..nodes.flow import Elaborator

ON_THE_FLY_ERRORS = 1 << 30  # errors the compiler's own elaborator keeps: the compiler reports them


def reads_node(method: Callable) -> Callable:
    """Mark a form's compile method as reading its node: called with the form's s-expression,
    it is given the node that s-expression was read as."""
    name = method.__name__

    @functools.wraps(method)
    def compile_node(self, x, scope, *args, **kwargs):
        if not isinstance(x, Node):
            x = self.node_of(x, name, scope)
        return method(self, x, scope, *args, **kwargs)

    compile_node.reads_node = True
    return compile_node


def plain(x):
    """The s-expression of ``x`` for the compiler's parts that still read forms: a node's
    ``source``, or ``x`` itself."""
    return x.source if isinstance(x, Node) else x


class NodeReading:
    """Finds the node of an s-expression for the methods reading nodes."""

    _reader = None

    @property
    def reader(self) -> Elaborator:
        """The elaborator whose nodes this compile reads (one per compile: its ``made`` is the
        table of the nodes read so far, by s-expression and method)."""
        if self._reader is None:
            self._reader = Elaborator(self.forms)
            self._reader.max_errors = ON_THE_FLY_ERRORS
        return self._reader

    def node_of(self, x, method: str, scope):
        """The node ``x`` was read as for ``method`` (read now, with ``scope``, if not yet)."""
        reader = self.reader
        n = reader.made.get((id(x), method))
        if n is None or n.source is not x:
            kept = len(reader.errors)
            try:
                n = reader.read_as(method, x, scope)
            except RecycleError:
                raise
            except Exception:
                # the reading tripped over what an error it kept left (as the compiler may):
                # those errors are the file's, reported as the compiler's own
                self.errors.extend(reader.errors[kept:])
                raise
        return n
