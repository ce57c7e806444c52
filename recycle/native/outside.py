"""A native game behind the whole ``State`` API, for callers that step a game from outside
(the OpenSpiel and PettingZoo environments): ``OutsideState``.

The hot calls (``current_player``, ``num_options``, ``apply``, ``is_terminal``, ``returns``,
``observation``, ``clone``) are answered by a ``NativeState`` (recycle/native/stepping.py).
What only the reference interpreter holds is asked of a *twin*: a reference ``State`` dealt
with the same seed, made when first wanted and brought up to date by applying the options
played since (never replayed from the start twice): the options as ``Option`` objects (their
words), the events a caller records, what each player has observed (``track``), the waiting
``(choice ...)`` form, and the exact outcome of a game native code stopped (a rule broken,
the step limit, the work budget, a shape it cannot hold: ``NativeStopped``). From such a stop
on the twin plays alone (``engine`` says which is playing).

An observation (``observation(p)``) is worked out from the native arrays: an
``engine.view.Observation`` over a plain copy of what player ``p`` may be told (``Seen``), equal
to the reference State's (tests/engine/test_native_outside.py). It holds no path to the native
state, its generator or its seed, and deals no world; a look-ahead player receives
``player_observation(p)``, which deals worlds from a blind copy of the twin
(recycle/native/worlds.py) and plays them out natively from a blind copy of this state's block
(recycle/native/blind.py).
"""

from __future__ import annotations

__all__ = ["OutsideState", "Seen", "start_outside"]


class Seen:
    """What an ``Observation`` of a native state reads, copied out of the native arrays:
    the cards of every location (bottom first), the teams, the storages, the player to move
    and the decisions so far. No path to the native state, its generator or its seed."""

    __slots__ = (
        "game",
        "locs",
        "team_of",
        "ints",
        "strs",
        "pstack",
        "history",
        "_known",
        "steps",
        "decisions",
        "nevents",
    )

    def __init__(self, game, locs, team_of, ints, strs, player, history, known, counters):
        self.game = game
        self.locs, self.team_of, self.ints, self.strs = locs, team_of, ints, strs
        self.pstack = [[player, None]]
        self.history = history
        self._known = known
        self.steps, self.decisions = counters
        self.nevents = 0

    def known_locations(self, player: int) -> dict[int, int]:
        """As ``State.known_locations``: what ``player`` observed (copied from the twin when the
        state tracks it; empty otherwise)."""
        return dict(self._known[player]) if self._known is not None else {}

    def num_options(self) -> int:
        raise TypeError("an observation of a native state deals no world: ask the state's own observation")

    def clone(self, *args, **kwargs):
        raise TypeError("an observation of a native state deals no world: ask the state's own observation")


class Place:
    """Where a choice form stands in the game's text (as a span's ``line`` and ``column``)."""

    __slots__ = ("line", "column")

    def __init__(self, line: int, column: int):
        self.line, self.column = line, column


class ChoiceAt:
    """The choice a native game waits at, by its form's place (``span``)."""

    __slots__ = ("span",)

    def __init__(self, span: Place):
        self.span = span


class OutsideState:
    """A game stepped from outside on the native engine, with the reference State's API (see
    the module's docstring). Made by ``start_outside``."""

    def __init__(self, game, seed: int, ns, max_steps: int, max_work, record, track: bool, log_decisions: bool):
        self.game = game
        self.seed = seed
        self._ns = ns  # None once the twin plays alone
        self._twin = None
        self._pending: list[int] = []  # options applied natively, not yet to the twin
        self._max_steps, self._max_work = max_steps, max_work
        self._record, self._track, self._log_decisions = record, track, log_decisions
        self.history: list[int] = []  # the options of decisions with 2+ options, as State's
        self._strings = None
        self._player = ns.current_player() if ns is not None else 0
        # the blind copies lent to look-ahead seats at this decision, with their work then: what
        # their simulations that never ended spent is charged to the game at the next apply
        self._lent: list = []

    # -- which engine plays -----------------------------------------------------------------
    @property
    def engine(self) -> str:
        """ "native" while native code plays, "reference" once the twin plays alone."""
        return "native" if self._ns is not None else "reference"

    def twin(self):
        """The reference State at this decision (made, or brought up to date, now)."""
        t = self._twin
        if t is None:
            t = self._twin = self.game.new_state(
                self.seed, record=self._record, max_steps=self._max_steps, track=self._track, max_work=self._max_work
            )
        if self._pending:
            pending, self._pending = self._pending, []
            log = self._record if self._log_decisions else None
            for k, i in enumerate(pending):
                if log is not None:
                    log.append(("d", t.current_player(), i))
                try:
                    t.apply(i)
                except BaseException:
                    self._pending = pending[k + 1 :]
                    raise
        return t

    def _hand_over(self) -> None:
        """Native code stopped where only the reference interpreter goes on (or says why):
        the twin, brought up to date, plays alone from here (raising what it raises)."""
        self._ns = None
        self.twin()

    def __getattr__(self, name: str):
        """Any other attribute of the State API (``decisions``, ``steps``, ``work``, ``strs``,
        ``location``, ``sto`` ...) is the twin's: exact, at the cost of bringing it up to date."""
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.twin(), name)

    # the counters a game's result gives (``PreparedGame.play``): the twin's when it is up to
    # date (a watched game's, at each decision), else native code's (the same at the end:
    # tests/engine/test_differential.py)
    def _counter(self, name: str, key: str) -> int:
        t = self._twin
        if self._ns is None or (t is not None and not self._pending):
            return getattr(t, name)
        return self._ns.counters()[key]

    @property
    def decisions(self) -> int:
        return self._counter("decisions", "decisions")

    @property
    def steps(self) -> int:
        return self._counter("steps", "steps")

    @property
    def options_total(self) -> int:
        return self._counter("options_total", "options")

    def __reduce__(self):
        """Pickled as the reference State is (its game, seed and decisions): it loads as one."""
        return self.twin().__reduce__()

    # -- the State API ----------------------------------------------------------------------
    def current_player(self) -> int:
        # (asked several times a decision by OpenSpiel: kept from the last apply)
        if self._ns is not None:
            return self._player
        return self._twin.current_player()

    def is_terminal(self) -> bool:
        ns = self._ns
        return ns._nopts < 0 if ns is not None else self._twin.is_terminal()

    def num_options(self) -> int:
        ns = self._ns
        if ns is not None:
            return ns._nopts if ns._nopts > 0 else 0
        return self._twin.num_options()

    def legal_options(self) -> list:
        """The waiting decision's options as ``Option`` objects (of the twin: their words)."""
        return self.twin().legal_options()

    def apply(self, option) -> None:
        """Play ``option`` (an index or an ``Option``) and run on to the next decision."""
        if self._lent:
            self._charge()
        ns = self._ns
        if ns is None:
            t = self._twin
            if self._log_decisions and self._record is not None and not t.is_terminal():
                self._record.append(("d", t.current_player(), option if isinstance(option, int) else option.index))
            t.apply(option)
            self.history = t.history
            return
        i = option if type(option) is int else (option if isinstance(option, int) else option.index)
        n = ns._nopts
        if not 0 <= i < n:
            ns.apply(i)  # (raises the ValueError of State.apply)
        if n > 1:
            self.history.append(i)
        self._pending.append(i)
        m, self._player = ns.step(i)
        if m < 0 and ns._status:
            self._hand_over()

    def _charge(self) -> None:
        """Take from the game's work budget what the look-ahead seats' simulations that never
        ended spent at this decision (``Observation.spend_work`` on their blind copies), as the
        reference State's live observation takes it: the twin's, and native code's (its count is a
        quarter of the units), so that a game that never ends stops where the reference stops."""
        spent = sum(work - copy.work for copy, work, _live in self._lent)
        copies = sum(work - copy.work for copy, work, live in self._lent if not live)
        self._lent = []
        if spent <= 0:
            return
        if copies > 0:  # (a live observation of the twin charged the twin already)
            self.twin().work -= copies
        if self._ns is not None:
            from .runtime import MAX_WORK

            with self._ns._runner.lock:
                ctr = self._ns.arrays()[8]
                ctr[MAX_WORK] -= spent // 4

    def returns(self) -> list[int]:
        ns = self._ns
        if ns is None:
            return self._twin.returns()
        return ns.returns()

    def winners(self) -> list[int]:
        """The players tied for the best final score."""
        sc = self.returns()
        best = max(sc) if self.game.scoring_max else min(sc)
        return [p for p, v in enumerate(sc) if v == best]

    def clone(self, track: bool = False, record=None) -> OutsideState:
        """A copy (stepping one leaves the other as it is), as ``State.clone``: events are not
        copied; ``track`` keeps tracking what each player observed (when this state tracks
        it); ``record``: the list the copy logs into from now on (as ``start_outside``'s). A
        twin made already is copied with it."""
        c = OutsideState.__new__(OutsideState)
        c.game, c.seed = self.game, self.seed
        c._max_steps, c._max_work = self._max_steps, self._max_work
        c._track = track and self._track
        c._record, c._log_decisions = record, self._log_decisions and record is not None
        c.history = self.history[:]
        c._strings = self._strings
        c._ns = None if self._ns is None else self._ns.clone()
        c._player = self._player
        c._twin = None if self._twin is None else self._twin.clone(track=c._track)
        if c._twin is not None and record is not None:
            from ..engine.knowledge import KnowledgeSink

            c._twin.events = KnowledgeSink(c._twin, record) if c._track else record
        c._pending = self._pending[:]
        c._lent = []  # (what was lent to this state's seats is charged to this state only)
        return c

    def observation(self, player: int):
        """What ``player`` may know now, worked out from the native arrays (see ``Seen``)."""
        from ..engine.view import Observation

        ns = self._ns
        if ns is None:
            return self._twin.observation(player)
        return Observation(self._seen(ns), player)

    def player_observation(self, player: int, deduce: bool = False, true_cards: bool = False):
        """What a player of the package's own (``engine.runner.privileged``) receives: an
        ``Observation`` that also deals worlds (``sample_world``), over a blind copy of the
        twin holding no path to this state, the twin, the generator or the seed
        (recycle/native/worlds.py); its worlds are played out natively from a blind copy of
        this state's block (recycle/native/blind.py). ``deduce``: for a deduction-aware player,
        the copy keeps the others' earlier choices, made blind (recycle/native/blind_past.py).
        ``true_cards``: for a cheating player (``engine.runner.sees_true_cards``: the omniscient
        one, one seeing a location), which the reference engine hands the live state, the live
        observation of the twin, as the reference engine's (its worlds then start from the twin)."""
        if true_cards:
            t = self.twin()
            self._lent.append((t, t.work, True))  # (its spend_work charges the twin itself)
            return t.observation(player)
        from .worlds import blind_observation

        obs = blind_observation(self.twin(), player, self._ns, deduce)
        self._lent.append((obs._state, obs._state.work, False))
        return obs

    @staticmethod
    def _native_arrays(ns):
        return ns.arrays() if ns._final is None else ns._final[5]  # (a finished game's final arrays)

    @staticmethod
    def _cards(a) -> list[list[int]]:
        """Every location's cards, bottom first, from the native arrays ``a``."""
        return [row[:n] for row, n in zip(a[0].tolist(), a[1].tolist())]

    def _seen(self, ns) -> Seen:
        a = self._native_arrays(ns)
        cards = self._cards(a)
        team_of = [None if t < 0 else t for t in a[10].tolist()]
        if self._strings is None:
            self._strings = {v: k for k, v in ns._runner.ng.module_strings().items()}
        strs = [self._strings[k] for k in a[4].tolist()]
        known = None
        if self._track:
            t = self.twin()
            known = [dict(k) for k in t.knowledge]
        c = ns.counters()
        layout = self.game.layout
        nints, nstrs = layout.nints, layout.nstrs
        return Seen(
            self.game,
            cards,
            team_of,
            a[3].tolist()[:nints],
            strs[:nstrs],
            ns.current_player(),
            self.history[:],
            known,
            (c["steps"], c["decisions"]),
        )

    def known_locations(self, player: int) -> dict[int, int]:
        """As ``State.known_locations`` (the twin's: native code does not track it)."""
        return self.twin().known_locations(player) if self._track else {}

    @property
    def knowledge(self):
        return self.twin().knowledge if self._track else None

    @property
    def locs(self):
        """Every location's cards, bottom first (the native arrays', copied)."""
        return self._cards(self._native_arrays(self._ns)) if self._ns is not None else self._twin.locs

    @property
    def team_of(self):
        ns = self._ns
        if ns is None:
            return self._twin.team_of
        return [None if t < 0 else t for t in self._native_arrays(ns)[10].tolist()]

    @property
    def ints(self):
        ns = self._ns
        if ns is None:
            return self._twin.ints
        return self._native_arrays(ns)[3].tolist()[: self.game.layout.nints]

    @property
    def waiting(self):
        """The ``(choice ...)`` the game waits at, None at the end: natively a ``ChoiceAt``
        (its form's place: all an observation tells of it), else the twin's compiled choice."""
        ns = self._ns
        if ns is None:
            return self._twin.waiting
        if ns._nopts < 0:
            return None
        site = ns.choice_site()
        if site > 0:
            line, column = ns._runner.ng.module.CHOICE_SITES[site - 1]
            return ChoiceAt(Place(line, column))
        return self.twin().waiting

    @property
    def frames(self):
        """Not None while a decision waits, as State's (the twin's frames once it plays alone;
        natively an empty tuple: where native code stands is not the reference's frames)."""
        if self._ns is None:
            return self._twin.frames
        return None if self._ns._nopts < 0 else ()


def start_outside(
    game,
    seed: int,
    max_steps: int | None = None,
    max_work: int | None = None,
    record=None,
    track: bool = False,
    log_decisions: bool = False,
    search: bool = False,
) -> OutsideState:
    """The game dealt with ``seed`` on the native engine, stepped from outside as the reference
    interpreter's ``game.new_state(seed, record, max_steps, track, max_work)`` would be (the
    same deal, options, observations, returns and errors). ``record``: a list the twin logs its
    events into (with ``log_decisions``, an ``("d", player, option)`` entry before each
    decision's); the twin is brought up to date before the list is read (``twin()``). Raises
    ``NativeUnsupported`` / ``NativeUnavailable`` for a game native code cannot step here.
    ``search``: stepped by the game's search module, whose blocks a look-ahead seat's whole
    search runs from (recycle/native/blind_search.py; the plain module where it does not build)."""
    from ..engine.game import DEFAULT_MAX_STEPS
    from .stepped import start

    steps = DEFAULT_MAX_STEPS if max_steps is None else max_steps
    ns = None
    if search:
        from . import NativeUnsupported

        try:
            ns = start(game, seed, steps, max_work, keys=True)
        except NativeUnsupported:
            pass  # (the plain module: its seats' playouts native, their searches in Python)
    if ns is None:
        ns = start(game, seed, steps, max_work)
    st = OutsideState(game, seed, ns, steps, max_work, record, track, log_decisions)
    if ns._nopts < 0 and ns._status:
        st._hand_over()  # (raises what new_state raises)
    return st
