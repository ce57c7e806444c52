"""A form as written, as a tree (``recycle tree --raw``): a branch per list, labelled by its
head, and a leaf per token; nothing of what the forms mean."""

from __future__ import annotations

from .reader import Atom


def written_tree(x) -> tuple:
    """``(kind, text, line, children)``: kind ``list`` or ``atom``, the text of the box (``(head …)``
    for a list, the token for an atom), its line, and the branches of a list's items."""
    line = x.span.line if getattr(x, "span", None) else 0
    if isinstance(x, Atom):
        return ("atom", str(x), line, ())
    head = x.head
    return ("list", f"({head} …)" if head else "( … )", line, tuple(written_tree(i) for i in x.items))
