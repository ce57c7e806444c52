"""Static checks for ``recycle check``: likely mistakes that still compile.

Each finding is a warning with a position: a location that is used but never receives
cards (often a misspelt name), or a storage that is read but never set.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import Span
from .flow import REGISTRY
from .shapes import head_of, is_location_form, is_storage_form
from .syntax import SYMBOL, Atom, SList

@dataclass(frozen=True)
class Warning_:
    span: Span
    message: str

    def __str__(self) -> str:
        return f"{self.span}: warning: {self.message}"


def _loc_key(node: SList):
    kind, name = node.items[1], node.items[2]
    if isinstance(name, Atom) and name.kind == SYMBOL:
        return (kind.value, name.value)
    return None  # computed names are not checked


def _walk(node):
    yield node
    if isinstance(node, SList):
        for item in node.items:
            yield from _walk(item)


def lint(game_form: SList) -> list[Warning_]:
    """Warnings for the ``(game ...)`` form."""
    written: set = set()
    read: dict = {}
    sto_set: set = set()
    sto_read: dict = {}
    warnings: list[Warning_] = []
    dynamic_names = False
    puts, sets = REGISTRY.puts, REGISTRY.sets

    for node in _walk(game_form):
        if not isinstance(node, SList):
            continue
        h = head_of(node)
        if is_location_form(node):
            key = _loc_key(node)
            if key is None:
                dynamic_names = True
            elif key not in read:
                read[key] = node.span
        sort = is_storage_form(node)
        if sort in ("sto", "str") and isinstance(node.items[2], Atom) and node.items[2].kind == SYMBOL:
            sto_read.setdefault((sort, node.items[2].value), node.span)
        # the actions whose forms put cards into a location (move, swap, remember, create)
        for i in puts.get(h, ()):
            if i < len(node.items):
                for sub in _walk(node.items[i]):
                    if isinstance(sub, SList) and is_location_form(sub) and _loc_key(sub):
                        written.add(_loc_key(sub))
        # and those that set a storage (set, inc, dec)
        i = sets.get(h)
        if i is not None and i < len(node.items):
            target = node.items[i]
            tsort = is_storage_form(target)
            if tsort in ("sto", "str") and isinstance(target.items[2], Atom):
                sto_set.add((tsort, target.items[2].value))
    if not dynamic_names:
        for key, span in sorted(read.items(), key=lambda kv: (kv[1].line, kv[1].column)):
            if key not in written:
                warnings.append(Warning_(span, f"{key[0]} {key[1]} never receives cards (no move, swap or deck "
                                               "puts cards there): a misspelt name?"))
    for (sort, name), span in sorted(sto_read.items(), key=lambda kv: (kv[1].line, kv[1].column)):
        if (sort, name) not in sto_set:
            default = "0" if sort == "sto" else "the empty string"
            warnings.append(Warning_(span, f"{sort} {name} is read but never set (always {default})"))
    return warnings
