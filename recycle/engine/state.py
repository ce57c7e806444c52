"""The game state: cards, locations with visibility, storages, turn-order cycles, events.

Everything here is plain lists indexed by small integers that the compiler resolved once:
a location is ``state.locs[i]`` (bottom first, top last), an integer storage is
``state.ints[j]``. A card is a ``Card`` (an ``int`` subclass: its id). Player and team
values are ``PlayerId`` / ``TeamId`` (``int`` subclasses) so storage and location
addressing can tell them apart.
"""

from __future__ import annotations

from ..lang.forms.items import DEFAULT_MAX_WORK
from ..lang.forms.values import Suspend
from ..streams import Stream


def _copied(rng):
    """A copy of a generator that is not a plain Stream (a subclass, or a ``random.Random``
    a caller gave ``clone(rng=...)``), at the same point; a Stream subclass copies as a Stream."""
    if isinstance(rng, Stream):
        return rng.copy()
    c = type(rng).__new__(type(rng))  # no seeding from the OS: the state is set at once
    c.setstate(rng.getstate())
    return c


# -- stepping from outside: the OpenSpiel-style API on State --------------------------------


def _copy_value(v, memo: dict):
    """A copy of a variable's value for a cloned state: views and group lists are copied
    (a move out of a view changes it), shared lists stay shared; the rest is immutable."""
    if not isinstance(v, list):
        return v
    got = memo.get(id(v))
    if got is None:
        got = type(v)(_copy_value(x, memo) if isinstance(x, list) else x for x in v)
        memo[id(v)] = got
    return got


def _copy_frame(f, memo: dict):
    if type(f) is tuple:  # a for-each's (snapshot of its collection, position)
        return (_copy_value(f[0], memo), f[1])
    return f


class _Stepping:
    """The stepping methods of ``State`` (``legal_options``, ``apply``, ``clone``, ...)."""

    __slots__ = ()

    def current_player(self) -> int:
        """The player to move (at a decision), or the current player of the turn order."""
        return self.pstack[-1][0]

    def is_terminal(self) -> bool:
        """True once the game has ended (its scores are set)."""
        return self.frames is None

    def legal_options(self) -> list:
        """The options of the waiting decision, as ``Option`` objects (empty at the end)."""
        from .options import Option

        if self.frames is None:
            return []
        opts = self._raw_options()
        p = self.pstack[-1][0]
        return [Option(i, opts[i], self, p) for i in range(len(opts))]

    def _raw_options(self):
        opts = self.options
        if opts is None:
            # a copy lists the options again: the original paid for them when it listed them
            # (the listing still stops when the budget left could not pay for it)
            work = self.work
            opts = self.waiting.expand(self, self.env)
            self.work = work
            if opts:
                self.options = opts
            else:
                # a copy whose hidden cards were re-dealt may offer nothing here
                from ..errors import RecycleRuntimeError

                raise RecycleRuntimeError("a choice with no legal option", self.waiting.span, form="choice")
        return opts

    def num_options(self) -> int:
        """How many options the waiting decision has (0 at the end)."""
        return 0 if self.frames is None else len(self._raw_options())

    def apply(self, option) -> None:
        """Play ``option`` (an ``Option`` of ``legal_options()`` or its index) and run the
        game on to the next decision or to its end."""
        if self.frames is None:
            raise ValueError("the game is over: no option to apply")
        i = option if isinstance(option, int) else option.index
        n = len(self._raw_options())
        if not 0 <= i < n:
            raise ValueError(f"option {i} of a decision with {n} options")
        if n > 1:
            self.history.append(i)
        self.chosen = i
        frames = self.frames
        flow = self.game._flow
        self._advance(lambda: flow.resume(self, self.env, frames, len(frames) - 1))

    def play_randomly(self, draw) -> None:
        """Finish the game with every player picking ``int(draw() * n)`` among n options
        (drawing only when n > 1), without stopping at decisions: the rollout hot path."""
        if self.frames is None:
            return
        n = len(self._raw_options())
        i = int(draw() * n) if n > 1 else 0
        if n > 1:
            self.history.append(i)
        self.play_inline(draw)
        try:
            self.chosen = i
            frames = self.frames
            flow = self.game._flow
            self._advance(lambda: flow.resume(self, self.env, frames, len(frames) - 1))
        finally:
            self.decide = None

    def play_inline(self, draw) -> None:
        """From now on, choices are made inline by ``int(draw() * n)`` among n options (only
        when n > 1, as the random player does) and kept in ``history``, without stopping."""
        history = self.history

        def decide(opts):
            k = int(draw() * len(opts))
            history.append(k)
            return k

        self.decide = decide

    def _advance(self, run) -> None:
        try:
            self._run_on(run)
        except BaseException as exc:
            # stopped half-way through a step: replaying its decisions would not stop there
            self.unsaved = f"it was stopped by {type(exc).__name__} in the middle of a step"
            raise

    def _run_on(self, run) -> None:
        from ..errors import RecycleBug, RecycleError, RecycleRuntimeError

        try:
            run()
        except Suspend as sus:
            self.frames = sus.frames
            return
        except RecycleError as exc:
            exc.source = self.game.source.text
            raise
        except RecursionError:
            raise RecycleRuntimeError("the game nests too deeply to run") from None
        except MemoryError:
            raise
        except Exception as exc:  # anything else escaping the compiled game is our bug
            where = f"{self.game.source.filename}, seed {self.seed}, decision {self.decisions}, step {self.steps}"
            raise RecycleBug(f"{type(exc).__name__}: {exc}", where) from exc
        self.frames = self.waiting = self.options = None
        try:
            self.scores = self.game.final_scores(self, self.env)
        except RecycleError as exc:
            exc.source = self.game.source.text
            raise

    def returns(self) -> list[int]:
        """Each player's final score (the game's ``scoring`` expression); at the end only."""
        if self.frames is not None:
            raise ValueError("the game is not over: returns() needs a terminal state")
        return list(self.scores)

    def winners(self) -> list[int]:
        """The players tied for the best final score."""
        sc = self.returns()
        best = max(sc) if self.game.scoring_max else min(sc)
        return [p for p, v in enumerate(sc) if v == best]

    def observation(self, player: int):
        """What ``player`` may know now (an ``Observation``): its cards, public cards,
        counts, storages, and the cards whose whereabouts it has observed."""
        from .view import Observation

        return Observation(self, player)

    def clone(self, track: bool = False, rng: Stream | None = None):
        """An independent copy of this state, waiting at the same decision.

        Its cost depends on the size of the state (cards, storages, loop positions), not
        on how long the game has run. Events are not copied; ``track`` keeps tracking
        what each player has observed (when this state tracks it). ``rng`` becomes the
        copy's generator (its future shuffles and random picks); by default the copy's is
        a copy of this state's, at the same point."""
        c = State.__new__(State)
        c.game = self.game
        c.locs = [loc[:] for loc in self.locs]
        c.card_loc = self.card_loc[:]
        c.ints = self.ints[:]
        c.strs = self.strs[:]
        c.points = self.points[:]
        c.pstack = [x[:] for x in self.pstack]
        c.tstack = [x[:] for x in self.tstack]
        self_rng_copy = None
        if rng is None:
            rng = self_rng_copy = self.rng.copy() if type(self.rng) is Stream else _copied(self.rng)
        c.rng = rng
        c.steps, c.decisions, c.options_total = self.steps, self.decisions, self.options_total
        c.rounds = self.rounds
        c.max_steps, c.work, c.max_work, c.chooser = self.max_steps, self.work, self.max_work, None
        c.nevents = self.nevents
        c.team_members = [m[:] for m in self.team_members]
        c.team_of = self.team_of[:]
        c.nteams = self.nteams
        c.scores = None if self.scores is None else self.scores[:]
        c.decide = None
        c.seed = self.seed
        c.history = self.history[:]
        memo: dict = {}
        c.env = [_copy_value(v, memo) if isinstance(v, list) else v for v in self.env] if self.env is not None else None
        c.frames = None if self.frames is None else [_copy_frame(f, memo) for f in self.frames]
        c.waiting = self.waiting
        c.options = None
        c.chosen = None
        c.knowledge = None
        c.events = None
        # a copy given another generator is no longer the game of its seed (pickling refuses it)
        c.unsaved = self.unsaved
        if rng is not self_rng_copy:
            c.unsaved = "its hidden cards or future randomness were changed (clone(rng=...), Observation.sample_world)"
        if track and self.knowledge is not None:
            from .knowledge import KnowledgeSink

            c.knowledge = [k.copy() for k in self.knowledge]
            c.events = KnowledgeSink(c, None)
        return c

    def known_locations(self, player: int) -> dict[int, int]:
        """Cards ``player`` knows the location of (card -> location index), from all it has
        observed since the deal; empty when this state does not track observations."""
        if self.knowledge is None:
            return {}
        return dict(self.knowledge[player])

    def __reduce__(self):
        """Pickled as its game's text, its seed and the decisions applied: unpickling plays
        them again (recycle/engine/serial.py). Unpickle only what you trust."""
        from .serial import state_reduce

        return state_reduce(self)


class State(_Stepping):
    """The mutable state of one game in progress. Created by ``PreparedGame.new_state``.

    Stepped from outside like an OpenSpiel state: ``current_player()``, ``legal_options()``,
    ``apply(option)``, ``clone()``, ``observation(p)``, ``is_terminal()``, ``returns()``.
    """

    __slots__ = (
        "game",
        "locs",
        "card_loc",
        "ints",
        "strs",
        "points",
        "pstack",
        "tstack",
        "rng",
        "events",
        "steps",
        "rounds",
        "decisions",
        "options_total",
        "max_steps",
        "chooser",
        "team_members",
        "team_of",
        "nteams",
        "scores",
        "decide",
        "seed",
        "history",
        "work",
        "max_work",
        "nevents",
        "env",
        "frames",
        "waiting",
        "options",
        "chosen",
        "knowledge",
        "unsaved",
    )

    def __init__(self, game, rng: Stream, record: bool, max_steps: int, max_work: int = DEFAULT_MAX_WORK):
        self.game = game
        layout = game.layout
        self.locs = [[] for _ in range(layout.nlocs)]
        self.card_loc: list[int] = []
        self.ints = [0] * layout.nints
        self.strs = [""] * layout.nstrs
        self.points = [game.card_table.empty_points] * layout.npoints
        self.pstack = [[0, None]]
        self.tstack = [[0, None]]
        self.rng = rng
        self.events = [] if record else None
        self.steps = 0
        self.rounds = 0  # passes of the outermost (stage player ...): a game's rounds
        self.decisions = 0
        self.options_total = 0
        self.max_steps = max_steps
        # the work budget left (recycle/lang/forms/items.py, DEFAULT_MAX_WORK): steps only advance at
        # choices and stage rounds, so the loops and expressions inside one step need a
        # budget of their own
        self.max_work = max_work
        self.work = max_work
        # events emitted while recorded or tracked (at most items.MAX_EVENTS)
        self.nevents = 0
        self.chooser = None
        n = layout.nplayers
        self.team_members = [[p] for p in range(n)]
        self.team_of = list(range(n))
        self.nteams = n
        self.scores = None
        # None while the state is stepped from outside (a choice waits for apply());
        # random rollouts set decide(options) -> index to play through without stopping
        self.decide = None
        # the seed and the choices made at decisions with 2+ options: enough to replay the game
        self.seed = None
        self.history: list[int] = []
        # the game's top-level environment (its declared variables and bound variables)
        self.env = None
        # where the flow waits: the frames of the elements around the waiting choice
        # (see compile_flow.Suspend), the choice, its options, and the option chosen
        self.frames = None
        self.waiting = None
        self.options = None
        self.chosen = None
        # per player, the cards whose location it knows (card -> location), when tracked
        self.knowledge = None
        # why this state is not the game its seed and decisions replay, so that it cannot be
        # pickled ("" when it is): its cards or generator changed (clone(rng=...)), or an error
        # stopped it in the middle of a step
        self.unsaved = ""

    def grow_locs(self) -> None:
        """Make room for locations registered after this state was made (computed names)."""
        missing = self.game.layout.nlocs - len(self.locs)
        if missing > 0:
            self.locs.extend([] for _ in range(missing))

    def grow_storage(self) -> None:
        """Make room for storages registered after this state was made (computed names)."""
        layout = self.game.layout
        self.ints.extend([0] * (layout.nints - len(self.ints)))
        self.strs.extend([""] * (layout.nstrs - len(self.strs)))
        self.points.extend([self.game.card_table.empty_points] * (layout.npoints - len(self.points)))

    # -- snapshots, used when working out options that need the state mid-option --------
    def snapshot(self):
        """A copy of everything an action can change (not the RNG or counters)."""
        return (
            [loc[:] for loc in self.locs],
            self.card_loc[:],
            self.ints[:],
            self.strs[:],
            self.points[:],
            [c[:] for c in self.pstack],
            [c[:] for c in self.tstack],
            [m[:] for m in self.team_members],
            self.team_of[:],
            self.nteams,
        )

    def restore(self, snap, keep: bool = False) -> None:
        """Undo everything since ``snapshot()``; ``keep``: the snapshot may be restored again.

        Lists are restored in place: running stages hold their cycle entries, and bound
        variables may hold location lists, so the objects must stay the same.
        """
        locs, card_loc, ints, strs, points, pstack, tstack, members, team_of, nteams = snap
        if keep:
            card_loc, ints, strs, points = card_loc[:], ints[:], strs[:], points[:]
            members, team_of = [m[:] for m in members], team_of[:]
        for lst, saved in zip(self.locs, locs):
            if lst != saved:
                lst[:] = saved
        del self.locs[len(locs) :]
        self.card_loc, self.ints, self.strs, self.points = card_loc, ints, strs, points
        for stack, saved_stack in ((self.pstack, pstack), (self.tstack, tstack)):
            if len(stack) != len(saved_stack):
                raise RuntimeError("a stage began or ended while working out options")
            for entry, saved in zip(stack, saved_stack):
                entry[:] = saved
        self.team_members, self.team_of, self.nteams = members, team_of, nteams

    # -- convenience for tests, transcripts and players -----------------------------------
    def location(self, owner: str | int, kind: str, name: str) -> list:
        """The cards (as ids, bottom first) of a location, e.g. ``state.location(0, 'iloc', 'HAND')``.

        ``owner`` is ``"game"`` or a player index.
        """
        return [int(c) for c in self.locs[self.game.layout.find(owner, kind, name)]]

    def sto(self, owner: str | int, name: str) -> int:
        """An integer storage's value; ``owner`` is ``"game"`` or a player index."""
        return self.ints[self.game.layout.storage_slot("sto", owner, name)]

    def view(self, player: int):
        """What ``player`` may know of this state (see ``recycle.view.View``)."""
        from .view import View

        return View(self, player)
