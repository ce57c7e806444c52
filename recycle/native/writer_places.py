"""The native writer's tools for the writers of the card, place and view forms kept whole in
their modules (``recycle/lang/forms/form_card_picks.py``, ``form_views.py``,
``form_filter.py``): a module of ``lang`` does not import the native engine, so what such a
writer needs of it is a method of the writer object it is handed (a mixin of ``Writer``)."""

from __future__ import annotations

from ..lang.nodes.base import Storage
from .registry import NativeUnsupported


class PlacesWriterTools:
    """Group lists, loops over collections and point maps, for the place forms' writers."""

    def groups_of(self, x, sc) -> str | None:
        """The code of a group list: a group-list form, or a variable holding one; else None
        (``forms_flow.groups_of``)."""
        from .forms_flow import groups_of

        return groups_of(self, x, sc)

    @staticmethod
    def is_groups_form(x) -> bool:
        """Is ``x`` a node whose value is a group list (``forms_flow.is_groups_form``)?"""
        from .forms_flow import is_groups_form

        return is_groups_form(x)

    def collection(self, coll, sc, var: str, in_place: bool = False):
        """The loop over a snapshot of a collection, binding ``var`` (``forms_flow.collection``)."""
        from .forms_flow import collection

        return collection(self, coll, sc, var, in_place)

    def open_loop(self, loop) -> None:
        """Emit a loop's snapshot and header, and bind its element (``forms_flow.open_loop``)."""
        from .forms_flow import open_loop

        open_loop(self, loop)

    def points_table(self, x, sc) -> str:
        """The code of a point map ``(OWNER points NAME)``: its table and row, passed as two
        arguments (a row slice would be an array)."""
        if not isinstance(x, Storage) or x.sort != "points":
            raise NativeUnsupported("a point map other than (OWNER points NAME)", x)
        base = self.named_base(x.sort, x.name, sc)
        offset = self.owner_offset(x.holder, sc)
        return f"pts, {base if offset == '0' else f'{base} + {offset}'}"
