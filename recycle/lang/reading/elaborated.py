"""A game's nodes for the readings worked out from its text before it is compiled (its
deal, its number of players, its constants): read once, or None when the text does not read
(the compiler then says why, with its positions)."""

from __future__ import annotations

from ...errors import RecycleError
from ..forms import flow  # noqa: F401 - seals the form registry the elaborator reads
from ..nodes import GameNode, elaborate


def game_nodes(source) -> GameNode | None:
    """``source`` (a parsed file, or its nodes already) read into nodes; None when it does not read."""
    if isinstance(source, GameNode):
        return source
    if not getattr(source, "forms", None):
        return None
    try:
        return elaborate(source)
    except RecycleError:
        return None
