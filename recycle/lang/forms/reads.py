"""The compiler's side of reading a game once (issue 41): every form's method takes the form's
node (``recycle/lang/nodes``, or its own ``form_*.py`` module), with its operands as named child
nodes, and leaves the shape checks to the elaborator; the compiler's entry points (``c_int``,
``c_bool``, ``c_item`` ...) choose by the node's class (``NODE_METHODS``), never by an
s-expression's shape. The compiler is handed nodes only: ``engine/game.py`` elaborates the whole
game first. A mixin of ``FlowCompiler``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes import groups as G
from ..nodes.base import FormNode

# the compile method of each node class: the forms kept whole in their modules add theirs when
# the registry is sealed (``form(node=)``; ``flow.py``); ``test_nodes.py`` checks that every
# registered method has its nodes here
NODE_METHODS: dict = {
    G.Members: "c_members",
}


def reads_node(method: Callable) -> Callable:
    """Mark a form's compile method as reading its node (the registry's check that every form
    has one: ``test_nodes.py``)."""
    method.reads_node = True
    return method


class NodeReading:
    """Compiles a form's node by the method of its class."""

    def form_of(self, x: FormNode, scope, *args):
        """The closure (or Item) of a form's node, by the method its class is compiled by."""
        return getattr(self, NODE_METHODS[type(x)])(x, scope, *args)
