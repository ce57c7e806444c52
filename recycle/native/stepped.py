"""A native game started from a seed, to be stepped from outside (recycle/native/stepping.py)."""

from __future__ import annotations


def start(
    game, seed: int, max_steps: int | None = None, max_work: int | None = None, keys: bool = False, trace: bool = False
):
    """The game dealt with ``seed`` (its chance stream as the reference interpreter's
    ``new_state(seed)``), run natively to its first choice: a ``NativeState``. Raises
    ``NativeUnsupported`` for a game native code cannot step. ``keys``: played by the game's
    search module, whose choices key their options (``NativeState.option_keys``). ``trace``: the
    scoring worked out at every stop too (``stepping.start_keys``; recycle/study/trace_native.py)."""
    from ..streams import CHANCE, PLAYERS, stream_key
    from .engine import native_game
    from .stepping import start_keys

    # (one seed's keys in Python: NumPy's arrays cost more than the keying for one)
    chance, players = stream_key(seed, CHANCE), stream_key(seed, PLAYERS)
    st = start_keys(native_game(game, search=keys), chance, players, max_steps, max_work, trace)
    st.seed = seed
    return st
