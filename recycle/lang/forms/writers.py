"""An engine's writers of RECYCLE's forms, registered by the form they write.

A ``Writers`` is a table of functions by the kind and head of the form they handle in
recycle's registry (``registry.py``), each registered beside its code with
``@TABLE.register(kind, head, ...)`` and found by ``get(kind, head)``: there is no chain of
comparisons of head strings. ``seal()`` checks that every head registered names a form of
recycle's registry of that kind (an action may be registered as a flow item too). The
deal-limit analysis (``reading/deal_limit.py``) and the native engine's options
(``recycle/native/forms_options.py``) keep theirs this way, and
the native engine's own writers have a table of their own (``recycle/native/registry.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from .registry import Kind


class Writers:
    """One engine's writers: ``(kind, head) -> function``."""

    def __init__(self, engine: str):
        self.engine = engine
        self.table: dict[tuple[str, str], Callable] = {}

    def register(self, kind: str, *heads: str):
        """Register the decorated function as the writer of the forms ``heads`` of ``kind``."""

        def add(fn):
            for h in heads:
                if (kind, h) in self.table:
                    raise ValueError(f"two {self.engine} writers for ({h} ...) as {kind}")
                self.table[(kind, h)] = fn
            return fn

        return add

    def get(self, kind: str, head: str | None):
        """The writer of the form ``head`` read as ``kind``, or None."""
        return None if head is None else self.table.get((kind, head))

    def seal(self) -> None:
        """Raise ValueError for a head registered that recycle's registry does not have."""
        from .flow import REGISTRY

        for kind, h in self.table:
            if REGISTRY.lookup(kind, h) is None and not (
                kind in Kind.ITEMS and any(REGISTRY.lookup(k, h) for k in Kind.ITEMS)
            ):
                raise ValueError(
                    f"a {self.engine} writer for ({h} ...) as {kind}, which recycle's registry does not have"
                )

    def heads(self) -> list[tuple[str, str]]:
        """Every (kind, head) written."""
        return sorted(self.table)
