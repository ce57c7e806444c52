"""The events a game emits as it runs (a card moved, a storage set), which transcripts,
knowledge, graphs and the invariant checker read (recorded by ``effects.py``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class MoveEvent:
    """One card changed location (move, swap, deal) or was remembered/forgotten.

    ``src``/``dst`` are location indices (``None`` for a card that appears or is forgotten);
    ``chooser`` is the player whose decision caused it, ``None`` for the game's own actions;
    ``whole``: the card moved with its whole location (a swap of two locations), so anyone
    who knew it was there knows where it went.
    """

    step: int
    action: str  # "move", "swap", "remember", "forget", "create"
    card: int
    src: int | None
    dst: int | None
    src_vis: str | None
    dst_vis: str | None
    chooser: int | None
    decision: int
    whole: bool = False


@dataclass(frozen=True, slots=True)
class StorageEvent:
    """An integer or string storage got a new value."""

    step: int
    slot: str
    value: object
    chooser: int | None
    decision: int
