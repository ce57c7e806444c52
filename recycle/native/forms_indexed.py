"""The native writer of ``(indexed OWNER KIND NAME)`` (recycle/lang/forms/indexed.py): the members of a
family of locations, up to the highest-numbered one holding a card, as a view of location
indices (``LOCS_T``) on the scratch stack, which any, all, filter and size read as they read a
view of player numbers.

The members are those the game's compile registered (``PreparedGame.compiled_blocks``, numbered
alike in every process: writer.named_base); a member beyond them, or a gap among them below
the highest one holding a card, stops the rollout natively (``family_view``: CAPACITY) and
Python plays it, registering the member on first use as the reference interpreter does.
"""

from __future__ import annotations

import re

from ..lang.nodes.base import Kind
from ..lang.nodes.places import Indexed
from .forms_actions import owner_offset
from .registry import NativeUnsupported, native
from .writer import LOCS_T


@native(Kind.COLL, Indexed)
def coll_indexed(w, x, sc) -> tuple[str, str]:
    owner, kind, family = x.owner, x.kind, x.name
    members = sorted(
        int(m.group(1))
        for k, n in w.game.compiled_blocks
        if k == kind
        for m in [re.fullmatch(re.escape(family) + r"\[(\d+)\]", n)]
        if m
    )
    if not members:
        raise NativeUnsupported(f"(indexed ...) of the family {family}, none of whose members the game names", x)
    key = (kind, family, 0, members[-1])
    table = w.member_blocks.get(key)
    if table is None:
        table = w.member_blocks[key] = f"LOCS_MEMBER_{len(w.member_blocks) + 1}"
    return LOCS_T, f"family_view(lens, scratch, ctr, {table}, {owner_offset(w, owner, sc)})"
