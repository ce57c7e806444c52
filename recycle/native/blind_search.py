"""A whole ISMCTS decision in machine code from a blind start: a native table's look-ahead seat.

On the reference engine an ISMCTS decision runs whole in the game's search module
(runtime_search.py): each world is the game replayed from its start with the real game's
chance stream and choices, its cards put in place at the decision. A seat of a native table
(``OutsideState``) holds no such path to the game: its blind copy carries a blind start
(recycle/native/blind.py), the table's native block stopped at the decision, made blind. Here
each world of the search is a copy of that block, in one native call for the whole decision:

* the table is stepped by the game's search module (``choose.start_play``), so the block is
  one its search can run: every choice of a search module lists its options in a loop, and a
  stopped choice resumed with ``RELIST`` takes back what it counted and lists them again
  (form_choice.py, ``runtime_search.relisted``), the world's cards put in place first
  (``arrive``), as a replay reaches the decision;
* the search loop runs in the module's entry (``SEARCHES``, ``T_BLIND``) on the caller's stack:
  for each world, ``block_load`` copies the block into the runner's arrays (those its frames
  point into: the arrays up to the search's own, the scratch stack, the C stack and registers;
  recycle/native/c/harness.py), ``next_world`` deals it, ``from_blind`` sets the player's stream
  and the world's counters, and ``block_resume`` runs it to its end; ``world_done`` backs up.

The runner's search arrays (resume, tree, treef) are as large as a search of ``stepping.SEARCH_BUDGET``
iterations needs, laid out after everything a block keeps (stepping.py), so that the frames of
every stopped game point at them and no block copies them. It is the replay search, draw for
draw: the same deals, the same choices, the same tree (tests/players/test_native_blind.py).
"""

from __future__ import annotations


def run(start, resume, tree, treef, max_steps: int) -> bool:
    """Search from the blind start ``start`` (a ``BlindStart``): ``resume``, ``tree`` and
    ``treef`` prepared as for a replay search (playouts.py, ``NativePlayouts.search``), copied
    into the runner's arrays, searched, and copied back. False (nothing changed) where the start
    cannot be searched here: no runner, not a search module, or a tree larger than the runner's."""
    import ctypes

    from .runtime import DECISIONS
    from .runtime_resume import R_ROOT_DECISIONS
    from .runtime_search import T_HEADER, T_KEYS
    from .stepping import runner_of_lib

    r = runner_of_lib(start.lib)
    if r is None or not r.ng.searches:
        return False
    a = r.state
    if resume.size > a[15].size or tree.size > a[16].size or treef.size > a[17].size:
        return False
    block = start.block
    lib = r.lib
    with r.lock:
        if r.resident is not None and r.resident._final is None:
            r.resident._block = r.save()
        r.resident = None
        resume[R_ROOT_DECISIONS] = r.views(block)[8][DECISIONS]
        a[15][: resume.size] = resume
        a[16][: tree.size] = tree
        a[17][: treef.size] = treef
        f = lib.rc_block_set
        f.restype = None
        f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong] * 2 + [ctypes.c_void_p, ctypes.c_longlong]
        scratch = a[r.scratch_at]
        f(
            r.pool.ctypes.data,
            block.pool.ctypes.data,
            r.world_bytes,
            scratch.ctypes.data,
            block.scratch.ctypes.data,
            block.scratch.nbytes,
            block.raw.ctypes.data,
            block.raw.size,
        )
        ptrs, shapes, numbers = _arguments(r)
        numbers[1] = max_steps
        lib.rc_games(ptrs, shapes, numbers)
        resume[...] = a[15][: resume.size]
        tree[...] = a[16][: tree.size]
        treef[...] = a[17][: treef.size]
        # the stepping part of the tree as a stepped game finds it (a block loaded restores it)
        a[16][: T_HEADER + 1] = 0
        a[16][T_KEYS] = T_HEADER
        a[15][...] = 0
    return True


def _arguments(r) -> tuple:
    """``rc_games``'s arguments for a search on the runner ``r``'s own arrays (those its
    stopped games' frames point into), with an ``out`` array (a look-ahead call), made once."""
    got = getattr(r, "_search_call", None)
    if got is None:
        import ctypes

        import numpy as np

        ng = r.ng
        out = np.zeros(7 + ng.game.nplayers, np.int64)
        arrays = (*ng.initial, *r.state, r.keys, r.scores, r.counts, r.where, out)
        ptrs = (ctypes.c_void_p * len(arrays))(*[x.ctypes.data if x.size else None for x in arrays])
        dims = []
        for x in arrays:
            dims += list(x.shape) + [0] * (3 - x.ndim)
        shapes = (ctypes.c_longlong * len(dims))(*dims)
        numbers = (ctypes.c_longlong * 4)(ng.nteams, 0, 0, 0)
        f = r.lib.rc_games
        f.restype, f.argtypes = None, [ctypes.c_void_p] * 3
        got = r._search_call = (ptrs, shapes, numbers, arrays)
    return got[:3]
