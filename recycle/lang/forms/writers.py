"""An engine's writers of RECYCLE's forms, registered by the form they write.

A ``Writers`` is a table of functions by the kind and head of the form they handle in
recycle's registry (``registry.py``), each registered beside its code with
``@TABLE.register(kind, head, ...)`` and found by ``get(kind, head)``: there is no chain of
comparisons of head strings. ``seal()`` checks that every head registered names a form of
recycle's registry of that kind (an action may be registered as a flow item too). The
deal-limit analysis (``reading/deal_limit.py``) and the native engine's options
(``recycle/native/forms_options.py``) keep theirs this way, and
the native engine's own writers have a table of their own, by the class of the node they
write (``native``, below, read by ``recycle/native/registry.py``): here, so that a form kept
whole in one module (``form_indexed.py``) registers its native writer beside its meaning.
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


class NativeUnsupported(Exception):
    """The game uses a form (or a use of one) the native writer does not write."""

    def __init__(self, what: str, node=None):
        super().__init__(what)
        self.what = what
        self.node = node

    def where(self) -> str:
        span = getattr(self.node, "span", None)
        return f"line {span.line}" if span is not None and getattr(span, "line", None) else ""


# the native writers by (kind, node class): ``f(writer, node, native_scope, *args)``, an
# expression writer returning the code of the value (a location writer ``(type, code)``), a
# flow or action writer emitting statements (``recycle/native/writer.py``'s ``Writer``)
NATIVE_WRITERS: dict[tuple[str, type], Callable] = {}


def native(kind: str, *classes: type):
    """Register a native writer for the nodes of ``classes`` read as ``kind``."""

    def register(fn):
        for cls in classes:
            if (kind, cls) in NATIVE_WRITERS:
                raise ValueError(f"two native writers for {cls.__name__} as {kind}")
            NATIVE_WRITERS[(kind, cls)] = fn
        return fn

    return register


# the value types of native expressions: what a native writer returns with its code
INT_T, BOOL_T, STR_T, CARD_T, PLAYER_T, TEAM_T, LOC_T, VIEW_T, GROUPS_T = (
    "int",
    "bool",
    "str",
    "card",
    "player",
    "team",
    "loc",
    "view",
    "groups",
)
PLAYERS_T, TEAMS_T = "players", "teams"  # views holding player (team) numbers: (filter player ...)
NUMBERS_T = "numbers"  # a view holding integers: (filter (range A..B) ...)
LOCS_T = "locs"  # a view holding location indices: (indexed OWNER KIND NAME), form_indexed.py
