"""Walking a game's nodes (issue 41): a node's operands (``children``) and every node under one,
itself first (``walk``), in the order of the form's syntax. The readers of a game (lint, the
deal analysis, the study's checks) find the forms they look for by ``match`` on what this yields."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields

from .base import Node


def children(node: Node) -> Iterator[Node]:
    """The nodes ``node`` holds as its operands (inside tuples too), in order; what is not part
    of its meaning (its span, its source, a literal kept beside a folded value) is left out."""
    for f in fields(node):
        if f.compare:
            yield from _nodes_in(getattr(node, f.name))


def _nodes_in(value) -> Iterator[Node]:
    if isinstance(value, Node):
        yield value
    elif isinstance(value, tuple):
        for v in value:
            yield from _nodes_in(v)


def walk(node: Node) -> Iterator[Node]:
    """``node`` and every node under it, depth first, each before its operands."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        todo.extend(reversed(list(children(n))))
