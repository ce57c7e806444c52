"""The form ``(indexed OWNER KIND NAME)``: a family of locations as a collection of locations.

A family is the locations ``NAME[0]``, ``NAME[1]`` ... that ``(OWNER KIND NAME INDEX)`` names
(``FamilyForms`` in ``expr_locs.py``; the reader turns a computed INDEX into ``(member NAME
INDEX)``), created as the game runs. ``indexed`` lists them for ``any``, ``all``, ``filter``
and ``size``, each element a location (``PLoc``) that ``(top 'S)``, ``(move C (top 'S))`` and
``(size 'S)`` read as the member itself. This module is the form's one place in the reference
interpreter (its native writer: ``recycle/native/forms_indexed.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.places import Indexed
from .runtime import out_of_work
from .reads import reads_node
from .registry import Kind, form
from .runtime import MAX_NAMES, rt_error
from ..nodes.sexpr import Scope
from .values import PLoc


def family_members(layout, kind: str, name: str) -> list[tuple[int, int]]:
    """(number, first index of its block) of every member of the family ``kind`` ``name`` the
    layout has registered, by number (a member is registered when a game first names it)."""
    prefix = name + "["
    found = []
    for (k, member), base in layout.loc_base.items():
        if k == kind and member.startswith(prefix) and member.endswith("]"):
            digits = member[len(prefix) : -1]
            if digits.isdigit() and str(int(digits)) == digits:
                found.append((int(digits), base))
    found.sort()
    return found


class IndexedForms:
    """``(indexed OWNER KIND NAME)`` in the compiler (a mixin of ``FlowCompiler``)."""

    @form(
        "indexed",
        "(indexed OWNER KIND NAME)",
        Kind.COLL,
        words="{3}[0..] of {1}",
    )
    @reads_node
    def coll_indexed(self, x: Indexed, scope: Scope) -> Callable:
        """(indexed OWNER KIND NAME)

        The family of locations NAME[0], NAME[1] ... of OWNER, in order of their numbers, up to
        the highest-numbered member holding a card (empty members below it included; no member
        when none holds a card): a collection of locations for any, all, filter and size."""
        kind, name = x.kind, x.name
        owner = self.c_owner(x.owner, scope, "a location owner")
        layout = self.layout
        span = x.span
        # the family's members as the layout registered them, worked out again only when the
        # layout has grown (it only grows: a member is registered once, on first use)
        known: list = [-1, []]

        def members(s, e):
            if known[0] != len(layout.loc_base):
                known[1] = family_members(layout, kind, name)
                known[0] = len(layout.loc_base)
            o = owner(s, e)
            locs = s.locs
            s.work -= len(known[1]) + 1
            if s.work < 0:
                out_of_work(s, span, "indexed")
            last = -1
            for number, base in known[1]:
                if base + o < len(locs) and locs[base + o]:
                    last = number
            if last < 0:
                return []
            bases = dict(known[1])
            out = []
            for number in range(last + 1):
                b = bases.get(number)
                if b is None:  # a member below the last one that no game has named yet: empty
                    if len(layout.loc_base) >= MAX_NAMES:
                        rt_error(f"more than {MAX_NAMES} location names (each member of a family is one)", span, kind)
                    b = layout.loc_block(kind, f"{name}[{number}]")
                if b + layout.width > len(locs):
                    s.grow_locs()
                    locs = s.locs
                out.append(PLoc(b + o))
            return out

        return members
