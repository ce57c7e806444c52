"""What actions do to a state's cards: a card placed in a location, a location shuffled, and the
events that record card moves and storage changes (for transcripts, knowledge, graphs and the
invariant checker) within their memory bound.
"""

from __future__ import annotations

from ...errors import StepLimitExceeded
from .runtime import SCAN, charge, n_cards, rt_error
from .events import MoveEvent, StorageEvent

# events a game may emit while they are recorded or tracked (about 150 bytes each)
MAX_EVENTS = 1_000_000


def too_many_events(s):
    """Stop a game whose recorded (or tracked) events would no longer fit in memory."""
    raise StepLimitExceeded(
        f"the game emitted more than {MAX_EVENTS:,} events (moves and storage changes) while "
        f"they were recorded, by step {s.steps} and decision {s.decisions}"
    )


def shuffle(lst: list, random) -> None:
    """Fisher-Yates with ``random()`` floats: uniform to within 2**-53, and much faster in
    CPython than ``Random.shuffle``'s integer draws. A game's Stream draws a long shuffle's
    floats in one go (``Stream.randoms``): the same numbers, without a Python call each."""
    n = len(lst)
    stream = getattr(random, "__self__", None)
    # a chance-driven generator (recycle/env/chance.py) draws a shuffle's cards when they matter
    lazy = getattr(stream, "chance_shuffle", None)
    if lazy is not None:
        lazy(lst)
        return
    if n > 16 and type(stream).__name__ == "Stream" and getattr(random, "__name__", "") == "random":
        draws = stream.randoms(n - 1)
        for k, i in enumerate(range(n - 1, 0, -1)):
            j = int(draws[k] * (i + 1))
            lst[i], lst[j] = lst[j], lst[i]
        return
    for i in range(n - 1, 0, -1):
        j = int(random() * (i + 1))
        lst[i], lst[j] = lst[j], lst[i]


def place(s, d: int, c, pos, e, span, memory: bool = False) -> None:
    """Insert card ``c`` into location ``d`` at ``pos`` (top, bottom or an index); below the
    top of a location of more than SCAN cards, the cards above it shifting cost work."""
    lst = s.locs[d]
    if pos == "top":
        lst.append(c)
    elif pos == "bottom":
        if len(lst) > SCAN:
            charge(s, len(lst) >> 8, span, "remember" if memory else "move")
        lst.insert(0, c)
    else:
        i = pos(s, e)
        if not 0 <= i <= len(lst):
            rt_error(f"index {i} out of range for a location of {n_cards(len(lst))}", span, "move")
        if len(lst) - i > SCAN:
            charge(s, len(lst) >> 8, span, "remember" if memory else "move")
        lst.insert(i, c)
    if not memory:
        s.card_loc[c] = d


def record_move(s, infos, action: str, c, src, dst, whole: bool = False) -> None:
    """Emit the move of card ``c`` from ``src`` to ``dst`` (``infos``: the layout's, for their
    visibility)."""
    s.nevents += 1
    if s.nevents > MAX_EVENTS:
        too_many_events(s)
    s.events.append(
        MoveEvent(
            s.steps,
            action,
            int(c),
            src,
            dst,
            infos[src].visibility if src is not None else None,
            infos[dst].visibility if dst is not None else None,
            s.chooser,
            s.decisions,
            whole,
        )
    )


def record_storage(s, label: str, value) -> None:
    s.nevents += 1
    if s.nevents > MAX_EVENTS:
        too_many_events(s)
    s.events.append(StorageEvent(s.steps, label, value, s.chooser, s.decisions))
