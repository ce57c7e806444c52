"""A native game stepped from outside: ``NativeState``, the State API over machine code.

``stepped.start(game, seed)`` deals the game natively and runs it to its first choice; a
``NativeState`` then lists that choice's options (``num_options``), applies one (``apply``:
native code goes on to the next choice), is copied (``clone``) and gives the scores at the end
(``returns``). The game never replays from its start: it stops at each choice on a C stack of
its own (recycle/native/c/harness.py says how and why) and a state that is not running is a
block of memory: the native arrays, the used part of that stack and the saved registers.

Every loaded library has one *runner*: the arrays and the stack a stopped game's frames point
into, which must not move. The state last run stays in them (stepping one game on costs no
copy); running another state copies the one in place out and the other in.

Declines (``NativeUnsupported``) a game the writer does not write. A simultaneous stage stops
at each player's pick, as the reference State does; where a later player's options changed
with an earlier pick native code stops (``NativeStopped`` from ``returns``).
"""

from __future__ import annotations

import threading

from .runtime import PSP  # (numpy: a native state needs it anyway; imported here, not at each call)


class NativeStopped(Exception):
    """Native code stopped where only the reference interpreter gives the outcome (a rule
    broken, the step limit, the work budget, a capacity): ``status`` says which."""

    def __init__(self, status: int):
        from .runtime import STATUS_WORDS

        super().__init__(f"the native game {STATUS_WORDS.get(status, status)}")
        self.status = status


class Block:
    """A stopped game that is not in place: its arrays' pool, its scratch stack up to the top,
    its C stack's used part and registers (``_Runner.save``)."""

    __slots__ = ("pool", "scratch", "raw", "views")

    def __init__(self, pool, scratch, raw):
        self.pool, self.scratch, self.raw, self.views = pool, scratch, raw, None

    def copy(self) -> Block:
        return Block(self.pool.copy(), self.scratch.copy(), self.raw.copy())


class _Runner:
    """One loaded library's stepping harness, and the arrays its stopped games point into."""

    def __init__(self, ng, lib):
        import ctypes

        import numpy as np

        self.ng, self.lib = ng, lib
        for name, args in (
            ("rc_step_start", [ctypes.c_void_p] * 3),
            ("rc_step_apply", [ctypes.c_longlong]),
            ("rc_step_size", []),
            ("rc_step_save", [ctypes.c_void_p]),
            ("rc_step_load", [ctypes.c_void_p, ctypes.c_longlong]),
            ("rc_step_site", []),
            ("rc_step_trace", [ctypes.c_longlong]),
        ):
            f = getattr(lib, name)
            f.restype = None if name in ("rc_step_save", "rc_step_load") else ctypes.c_longlong
            f.argtypes = args
        self.state = ng.new_arrays()
        stepping_tree = None
        if ng.searches:
            # a search module keys each choice's options (runtime_search.keys_stepped) in the
            # tree's first part; the rest of the tree, the float tree and the resume array are as
            # large as a search from a blind start may need (recycle/native/blind_search.py):
            # never saved in a block, their pages untouched (no memory) until a search uses them
            from .runtime_search import MAX_CONSIDERED, T_HEADER

            stepping_tree = T_HEADER + MAX_CONSIDERED + 2
            self.state = (*self.state[:15], *_search_arrays(ng), *self.state[18:])
        from .runtime import SP

        self.scratch_at, self.sp = 11, SP  # state[11] is the scratch stack, ctr[SP] its top
        self.keys = np.zeros((1, 2), np.uint64)
        self.scores = np.zeros((1, ng.game.nplayers), np.int64)
        self.counts = np.zeros((1, 5), np.int64)
        self.where = np.zeros((1, ng.ncards), np.int32)
        # what a block keeps: every array but the scratch stack lies in one pool (one copy
        # saves them), the scratch stack is kept up to its top
        kept = [*self.state, self.scores, self.counts, self.where]
        self.layout, at = [], 0
        # the search's arrays (resume 15, tree 16, treef 17) last: a block keeps the pool up to
        # the tree's stepping part (``saved`` bytes), a blind search's world loads it up to resume
        order = [i for i in range(len(kept)) if i not in (self.scratch_at, 15, 16, 17)] + [15, 16, 17]
        for i in order:
            a = kept[i]
            if i == 15:
                self.world_bytes = at
            if i == 16:
                self.saved = at + (a.nbytes if stepping_tree is None else 8 * stepping_tree)
            self.layout.append((i, at, a.shape, a.dtype))
            at += -(-a.nbytes // 64) * 64
        if stepping_tree is None:
            self.saved = at
        # each array's bytes (views: asked at every copy a playout reads, np.prod costs microseconds)
        self.sizes = [int(np.prod(shape)) * dtype.itemsize for _, _, shape, dtype in self.layout]
        self.pool = np.zeros(max(at, 1), np.uint8)
        for i, off, shape, dtype in self.layout:
            v = np.ndarray(shape, dtype, buffer=self.pool, offset=off)
            if stepping_tree is None or i not in (15, 16, 17):  # (a search's arrays: zeros, untouched)
                v[...] = kept[i]
            kept[i] = v
        if stepping_tree is not None:
            from .runtime_search import T_HEADER, T_KEYS

            kept[16][T_KEYS] = T_HEADER
        self.state = tuple(kept[: len(self.state)])
        self.pst, self.ctr = self.state[6], self.state[8]  # (the player to move: pst[ctr[PSP], 0])
        self.scores, self.counts, self.where = kept[len(self.state) :]
        arrays = (*ng.initial, *self.state, self.keys, self.scores, self.counts, self.where, np.zeros(0, np.int64))
        self._held = arrays
        self.ptrs = (ctypes.c_void_p * len(arrays))(*[a.ctypes.data if a.size else None for a in arrays])
        shapes = []
        for a in arrays:
            shapes += list(a.shape) + [0] * (3 - a.ndim)
        self.shapes = (ctypes.c_longlong * len(shapes))(*shapes)
        self.numbers = (ctypes.c_longlong * 4)()
        self.resident = None  # the NativeState whose game is in the arrays and on the stack
        self.lock = threading.RLock()

    def save(self) -> Block:
        """The block of the game in place: its arrays (the scratch stack up to its top) and the
        C stack's used part with the registers."""
        import numpy as np

        top = int(self.state[8][self.sp])
        raw = np.empty(self.lib.rc_step_size(), np.uint8)  # (a ctypes buffer's bytes cost 10x the copy)
        self.lib.rc_step_save(raw.ctypes.data)
        return Block(self.pool[: self.saved].copy(), self.state[self.scratch_at][:top].copy(), raw)

    def load(self, block: Block) -> None:
        self.pool[: block.pool.shape[0]] = block.pool
        self.state[self.scratch_at][: block.scratch.shape[0]] = block.scratch
        self.lib.rc_step_load(block.raw.ctypes.data, block.raw.size)

    def views(self, block: Block) -> tuple:
        """The state's arrays as they are in ``block`` (views of its pool: changing them changes it)."""
        import numpy as np

        if block.views is None:
            out = [None] * (len(self.state) + 3)
            held = block.pool.shape[0]
            for (i, off, shape, dtype), nbytes in zip(self.layout, self.sizes):
                if off + nbytes > held:  # (a search's array: its kept part)
                    shape = (max(0, (held - off) // dtype.itemsize),)
                out[i] = np.ndarray(shape, dtype, buffer=block.pool, offset=min(off, held))
            out[self.scratch_at] = block.scratch
            block.views = tuple(out[: len(self.state)])
        return block.views

    def take(self, st) -> None:
        """Put ``st``'s game in place (the one there saved into its own state first)."""
        if self.resident is st:
            return
        if self.resident is not None and self.resident._final is None:  # (a finished game keeps its answers)
            self.resident._block = self.save()
        self.load(st._block)
        st._block = None
        self.resident = st


class NativeState:
    """A native game stopped at a choice or ended (see the module's docstring). Made by
    ``stepped.start`` or ``start_keys``; ``clone`` copies it."""

    def __init__(self, runner, nopts: int):
        self._runner = runner
        self._block = None
        self._nopts = nopts
        self.seed = None  # the seed it was dealt with (stepped.start), for ``reference_state``
        self.history: list[int] = []  # every option applied (of one option too)
        self._status = 0
        self._final = None  # (scores, counters, card places, ..., final arrays) once the game ended
        if nopts < 0:
            self._finish()

    def _finish(self) -> None:
        r = self._runner
        from .runtime import PSP

        ctr = r.state[8]
        player = int(r.state[6][ctr[PSP], 0])
        # all a finished game answers: its block is never saved (runner.take)
        st = r.state  # (and the final cards, teams and storages: what an observation of the end reads)
        cards = (
            st[0].copy(),
            st[1].copy(),
            None,
            st[3].copy(),
            st[4].copy(),
            None,
            None,
            None,
            None,
            None,
            st[10].copy(),
        )
        self._final = (r.scores[0].tolist(), r.counts[0].tolist(), r.where[0].tolist(), ctr.copy(), player, cards)
        self._status = self._final[1][0]

    def _arrays(self):
        r = self._runner
        return r.state if r.resident is self else r.views(self._block)

    def current_player(self) -> int:
        """The player to move (the current player of the turn order)."""
        if self._final is not None:
            return self._final[4]
        r = self._runner
        if r.resident is self:  # (asked at every step: read without making NumPy scalars)
            return r.pst.item(r.ctr.item(PSP), 0)
        a = r.views(self._block)
        return int(a[6][a[8][PSP], 0])

    def is_terminal(self) -> bool:
        return self._nopts < 0

    def choice_site(self) -> int:
        """The waiting choice's number in the module's ``CHOICE_SITES`` (1 for its first), 0 at
        the end or at a choice the module did not number (a search module's)."""
        if self._nopts < 0:
            return 0
        r = self._runner
        if r.resident is self:
            return r.lib.rc_step_site()
        return int(self._block.raw[:8].view("int64")[0])  # (the site is the saved block's first field)

    def num_options(self) -> int:
        """How many options the waiting choice has (0 at the end)."""
        return max(self._nopts, 0)

    def legal_options(self) -> list[int]:
        """The waiting choice's options, by index (empty at the end)."""
        return list(range(self.num_options()))

    def apply(self, option: int) -> None:
        """Play option ``option`` and run natively on to the next choice or to the end."""
        if self._nopts < 0:
            raise ValueError("the game is over: no option to apply")
        if not 0 <= option < self._nopts:
            raise ValueError(f"option {option} of a decision with {self._nopts} options")
        r = self._runner
        self.history.append(option)
        with r.lock:
            r.take(self)
            self._nopts = r.lib.rc_step_apply(option)
            if self._nopts < 0:
                self._finish()

    def step(self, option: int) -> tuple[int, int]:
        """``apply`` for a caller that checked ``option`` already and keeps the options applied
        itself (``OutsideState``; not kept in ``history``): the next choice's options (-1 at
        the end) and the player to move."""
        r = self._runner
        with r.lock:
            if r.resident is not self:
                r.take(self)
            n = self._nopts = r.lib.rc_step_apply(option)
            if n < 0:
                self._finish()
                return n, self._final[4]
            return n, r.pst.item(r.ctr.item(PSP), 0)

    def reference_state(self):
        """The reference interpreter's State dealt with the same seed and given the same
        options (a replay: what to hand a game native code stopped, ``NativeStopped``, for its
        exact outcome or message). Raises ValueError for a state not started from a seed."""
        if self.seed is None:
            raise ValueError("a native state started from stream keys has no seed to replay")
        game = self._runner.ng.game
        s = game.new_state(self.seed, max_steps=self._max_steps, max_work=self._max_work)
        for k in self.history:
            s.apply(k)
        return s

    def finish(self, option: int) -> None:
        """Play ``option`` and the rest of the game at random in one native call (the players'
        stream is the state's keys[1] from its count ctr[PLAYERS_N]), stopping at no choice."""
        from .runtime import SEARCHING, STEPPING

        r = self._runner
        with r.lock:
            r.take(self)
            r.state[8][STEPPING] = 0
            r.state[8][SEARCHING] = 0  # (a search module's: no keys, no tree from here on)
        self.apply(option)

    def arrays(self):
        """The native arrays of this state (the tuple the module plays on), to read or to change
        before it goes on (a look-ahead playout puts a sampled world's cards in place)."""
        return self._arrays()

    def release(self) -> None:
        """This state will not be used again: its block is not saved when another runs."""
        r = self._runner
        with r.lock:
            if r.resident is self:
                r.resident = None
        self._nopts, self._block = -1, None

    def clone(self) -> NativeState:
        """A copy of this state (a copy of its block): stepping one leaves the other as it is."""
        r = self._runner
        c = NativeState(r, self._nopts)
        c._final, c._status = self._final, self._status
        c.seed, c.history = self.seed, list(self.history)
        c._max_steps, c._max_work = self._max_steps, self._max_work
        with r.lock:
            if self._final is not None:
                pass  # a finished game: its answers are all it has
            elif r.resident is self:
                c._block = r.save()
            else:
                c._block = self._block.copy()
        return c

    def option_keys(self) -> list[int] | None:
        """The waiting choice's options' keys as native code hashes them (a state of the
        game's search module: ``native_game(game, search=True)``): two options' keys are equal
        exactly when ``engine.options.option_key`` gives them equal keys. None where there are
        none: a plain module, one option or more than 64, a shape native keys do not follow."""
        from .runtime import DECISIONS
        from .runtime_search import MAX_CONSIDERED, T_HEADER

        if self._nopts < 2 or not self._runner.ng.searches:
            return None
        a = self._arrays()
        tree = a[16]
        at = T_HEADER + MAX_CONSIDERED
        if tree[at] != self._nopts or tree[at + 1] != a[8][DECISIONS]:
            return None
        return tree[T_HEADER : T_HEADER + self._nopts].tolist()

    def counters(self) -> dict:
        """steps, decisions (every choice, of one option too), options, rounds so far."""
        from .runtime import DECISIONS, OPTIONS, ROUNDS, STEPS

        ctr = self._final[3] if self._final is not None else self._arrays()[8]
        return {
            "steps": int(ctr[STEPS]),
            "decisions": int(ctr[DECISIONS]),
            "options": int(ctr[OPTIONS]),
            "rounds": int(ctr[ROUNDS]),
        }

    def card_places(self) -> list[int]:
        """Every card's location (row of the reference interpreter's layout), now."""
        if self._final is not None:
            return list(self._final[2])
        return [int(x) for x in self._arrays()[2]]

    def returns(self) -> list[int]:
        """Each player's final score; at the end only. Raises ``NativeStopped`` when native code
        stopped where only the reference interpreter gives the outcome."""
        if self._nopts >= 0:
            raise ValueError("the game is not over: returns() needs a terminal state")
        if self._status:
            raise NativeStopped(self._status)
        return list(self._final[0])


# the iterations a search from a blind start holds at most (recycle/native/blind_search.py; players/lookahead.py's MAX_BUDGET)
SEARCH_BUDGET = 100_000


def _search_arrays(ng) -> tuple:
    """(resume, tree, treef) of a search module's runner: their shapes (stepping.py lays them
    out in its pool, zeroed, without copying these)."""
    import numpy as np

    from .runtime_resume import R_HEADER
    from .runtime_search import MAX_CONSIDERED, T_MAX_NODES, tree_layout

    where, size = tree_layout(SEARCH_BUDGET, MAX_CONSIDERED, 4 * ng.ncards + 1)
    shape = np.lib.stride_tricks.as_strided  # (shapes only: no memory for arrays never filled)
    zero = np.zeros(1, np.int64)
    return (
        shape(zero, (R_HEADER + 3 * ng.ncards,), (0,)),
        shape(zero, (size,), (0,)),
        shape(np.zeros(1, np.float64), (1 + where[T_MAX_NODES],), (0,)),
    )


_RUNNERS: dict = {}
_RUNNERS_LOCK = threading.Lock()


def _runner(ng):
    lib = ng.module.games.lib
    with _RUNNERS_LOCK:
        got = _RUNNERS.get(id(lib))
        if got is None or got.lib is not lib:
            got = _RUNNERS[id(lib)] = _Runner(ng, lib)
        return got


def runner_of_lib(lib):
    """The runner of the loaded library ``lib`` (the one its stopped games' blocks load into),
    or None when it has none (recycle/native/blind.py)."""
    with _RUNNERS_LOCK:
        got = _RUNNERS.get(id(lib))
    return got if got is not None and got.lib is lib else None


def start_keys(
    ng, chance: int, players: int, max_steps: int | None = None, max_work: int | None = None, trace: bool = False
):
    """A game of the NativeGame ``ng`` dealt from the chance and players' stream keys, run
    natively to its first choice (``recycle.native.stepped.start``: from a seed). ``trace``:
    at every stop the scoring is worked out too, into the counters' tail (writer.score_now)."""
    from ..engine.game import DEFAULT_MAX_STEPS

    game = ng.game
    r = _runner(ng)
    with r.lock:
        if r.resident is not None and r.resident._final is None:
            r.resident._block = r.save()
        r.resident = None
        r.keys[0, 0], r.keys[0, 1] = chance, players
        r.numbers[0] = ng.nteams
        r.numbers[1] = DEFAULT_MAX_STEPS if max_steps is None else max_steps
        # the native work count is coarser than Python's: a quarter of the budget, as rollouts
        r.numbers[2] = (game.max_work if max_work is None else max_work) // 4
        r.numbers[3] = 1
        st = NativeState.__new__(NativeState)
        st._runner, st._block, st._status, st._final = r, None, 0, None
        st.seed, st.history = None, []
        st._max_steps, st._max_work = int(r.numbers[1]), max_work
        r.resident = st
        if trace:
            r.lib.rc_step_trace(1)  # (read once, as the game begins)
        try:
            st._nopts = r.lib.rc_step_start(r.ptrs, r.shapes, r.numbers)
        finally:
            if trace:
                r.lib.rc_step_trace(0)
        if st._nopts < 0:
            st._finish()
        return st
