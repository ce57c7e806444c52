"""The form ``(indexed OWNER KIND NAME)``: a family of locations as a collection of locations.

A family is the locations ``NAME[0]``, ``NAME[1]`` ... that ``(OWNER KIND NAME INDEX)`` names
(``FamilyForms`` in ``form_member.py``; the reader turns a computed INDEX into ``(member NAME
INDEX)``), created as the game runs. ``indexed`` lists them for ``any``, ``all``, ``filter``
and ``size``, each element a location (``PLoc``) that ``(top 'S)``, ``(move C (top 'S))`` and
``(size 'S)`` read as the member itself.

The form is kept whole in this one module, registered together as it is imported
(``flow.py`` imports every ``form_*.py``): its node (``Indexed``), its reading of the
s-expression (``read_indexed``: the shape checks and positioned errors), its meaning in the
reference interpreter (``IndexedForms.coll_indexed``), its facts and words (the ``@form``
record) and its native writer (``write_indexed``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..nodes.base import Kind, form_node
from ..nodes.sexpr import LOCATION_KINDS, Scope, fail, is_atom
from ..syntax.reader import SYMBOL, SList
from .registry import family, form
from .runtime import MAX_NAMES, out_of_work, rt_error
from .values import PLoc
from .writers import LOCS_T, NativeUnsupported, native

Indexed = form_node("Indexed", "owner kind name", Kind.COLL, "indexed", "(indexed OWNER KIND NAME): a family.")


def read_indexed(e, x: SList, scope: Scope) -> Indexed:
    """The node of ``(indexed OWNER KIND NAME)``, read by the elaborator ``e``: KIND a location
    kind, NAME a family's name (upper case, no index), OWNER any owner."""
    items = x.items
    if len(items) != 4 or not is_atom(items[2], SYMBOL) or items[2].value not in LOCATION_KINDS:
        fail("expected (indexed OWNER KIND NAME), as in (indexed game vloc RUN)", x, "indexed")
    name = items[3]
    if not is_atom(name, SYMBOL) or name.value.islower() or "[" in name.value:
        fail(f"expected the NAME of a family of locations, got {e.form_name(name)}", name, "indexed")
    owner = e.owner(items[1], scope, "a location owner")
    return Indexed(owner, items[2].value, name.value, span=x.span, source=x)


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


@family
class IndexedForms:
    """``(indexed OWNER KIND NAME)`` in the reference interpreter (a mixin of ``FlowCompiler``)."""

    @form(
        "indexed",
        "(indexed OWNER KIND NAME)",
        Kind.COLL,
        words="{3}[0..] of {1}",
        node=Indexed,
        reads=read_indexed,
    )
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


@native(Kind.COLL, Indexed)
def write_indexed(w, x: Indexed, sc) -> tuple[str, str]:
    """The native code of ``(indexed ...)``: the members up to the highest-numbered one holding a
    card, as a view of location indices (``LOCS_T``) on the scratch stack, which any, all,
    filter and size read as they read a view of player numbers.

    The members are those the game's compile registered (the writer's ``compiled_blocks``,
    numbered alike in every process: the writer's ``named_base``); a member beyond them, or a
    gap among them below the highest one holding a card, stops the rollout natively
    (``family_view`` in ``native/runtime.py``: CAPACITY) and the reference interpreter plays
    it, registering the member on first use."""
    owner, kind, name = x.owner, x.kind, x.name
    members = sorted(
        int(m.group(1))
        for k, n in w.compiled_blocks
        if k == kind
        for m in [re.fullmatch(re.escape(name) + r"\[(\d+)\]", n)]
        if m
    )
    if not members:
        raise NativeUnsupported(f"(indexed ...) of the family {name}, none of whose members the game names", x)
    key = (kind, name, 0, members[-1])
    table = w.member_blocks.get(key)
    if table is None:
        table = w.member_blocks[key] = f"LOCS_MEMBER_{len(w.member_blocks) + 1}"
    return LOCS_T, f"family_view(lens, scratch, ctr, {table}, {w.owner_offset(owner, sc)})"
