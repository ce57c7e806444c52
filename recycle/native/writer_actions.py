"""What the native writers of the group-list and action forms (``recycle/lang/forms/form_*.py``)
ask of the writer beyond its own dispatch: a storage's slot, a point map's row, the code of a
group list, every node inside one. A module of ``lang/`` may not import the native engine
(``tests/test_layers.py``), so such a writer reaches these through its writer object ``w``
(``ActionsWriterTools``, a base of ``writer.py``'s ``Writer``).

The functions are kept here, not in the modules of native writers that use them too
(``forms_exprs.py``, ``loops.py``, which import them from here): those modules import the
writer, and the writer importing them back would be a cycle.
"""

from __future__ import annotations

from ..lang.forms.writers import GROUPS_T, NativeUnsupported
from ..lang.nodes.base import Const, FormNode, Kind, Storage, Var
from .purity import walk


def storage_slot(w, x, sc) -> tuple[str, str]:
    """(sort, slot code) of ``(OWNER sto|str|points NAME)``."""
    base = w.named_base(x.sort, x.name, sc)
    offset = w.owner_offset(x.holder, sc)
    return x.sort, base if offset == "0" else f"{base} + {offset}"


def points_table(w, x, sc) -> str:
    """The table and row of a point map ``(OWNER points NAME)``, as two arguments."""
    if not isinstance(x, Storage) or x.sort != "points":
        raise NativeUnsupported("a point map other than (OWNER points NAME)", x)
    _, slot = storage_slot(w, x, sc)
    return f"pts, {slot}"  # the table and its row: passed as two arguments (a row slice would be an array)


def is_groups_form(x) -> bool:
    """Is ``x`` a node whose value is a group list (partition, tuples ...)?"""
    return isinstance(x, FormNode) and x.KIND == Kind.GROUPS


def groups_of(w, x, sc) -> str | None:
    """The code of a group list (see runtime.SCRATCH): a group-list form, or a variable
    holding one; None for anything else."""
    if isinstance(x, (Var, Const)):
        v = sc.lookup(x.name)
        return v.name if getattr(v, "type", None) == GROUPS_T else None
    return w.groups(x, sc) if is_groups_form(x) else None


class ActionsWriterTools:
    """The writer's helpers for the native writers of group lists, actions and places (a mixin
    of ``Writer``)."""

    def storage_slot(self, x, sc) -> tuple[str, str]:
        """(sort, slot code) of a storage (``storage_slot``)."""
        return storage_slot(self, x, sc)

    def points_table(self, x, sc) -> str:
        """The table and row of a point map, as two arguments (``points_table``)."""
        return points_table(self, x, sc)

    def groups_of(self, x, sc) -> str | None:
        """The code of a group list, or None for anything else (``groups_of``)."""
        return groups_of(self, x, sc)

    @staticmethod
    def is_groups_form(x) -> bool:
        """Is ``x`` a node whose value is a group list (``is_groups_form``)?"""
        return is_groups_form(x)

    def walk(self, node):
        """``node`` and every node inside it (the native engine's ``purity.walk``)."""
        return walk(node)
