"""The OpenSpiel game's default chance (``chance="rules"``, recycle/env/rules.py) stepped by
native code: ``NativeRulesState``.

The game's *chance module* (recycle/native/chance_module.py) stops at each chance node as at a
choice, with the reference's outcomes (recycle/native/runtime_chance.py), so a chance outcome
or an option is one native step: no step is played again. The hot calls (the player to move,
the legal actions, the chance outcomes, applying an action, the end, the returns, a copy) are
answered from the native state. Everything else (observation and information-state strings
and tensors, action strings, resampling) is asked of a *twin*: the reference ``RulesCore``
given the same actions, made when first wanted and brought up to date from then on. Where
native code stops (a rule broken, the step limit, the work budget, a capacity) the state
becomes the reference's, replayed from its actions (``_hand_over``), which gives the exact
outcome or message.

An action applied from Python skips OpenSpiel's C++ (``NativeRulesState.apply_action``: two
calls back into Python an action); OpenSpiel's history is told those actions when it is
asked (``history`` and the like) or before its C++ applies one (``child``, a C++ algorithm).
"""

from __future__ import annotations

from operator import index, itemgetter

import pyspiel

from ..native.chance_module import COUNTERS
from ..native.runtime import NCOUNTERS, PSP
from ..native.runtime_chance import NODE_CARD
from . import native_rules_c
from .chance import ChanceNode
from .rules import RulesCore, RulesState, replay_rules
from .saving import spec_record

_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_CHANCE = int(pyspiel.PlayerId.CHANCE)
# the hot calls in C (recycle/env/native_rules_step.c), or None: the Python methods below play
_STEP = native_rules_c.load()


def native_rules_game(spec):
    """The chance module of ``spec``'s game, or raises NativeUnsupported / NativeUnavailable."""
    from ..native.chance_module import chance_native_game

    return chance_native_game(spec.game)


class _Count:
    """What ``EnvSpec.check`` asks of a state: its number of options."""

    __slots__ = ("n",)

    def __init__(self, n: int):
        self.n = n

    def num_options(self) -> int:
        return self.n


class _Views:
    """A runner's arrays as a natively stepped chance-driven state reads them after a step
    (the runner's arrays never move: made once per runner). They are read through
    memoryviews and the step called without releasing the GIL (``PYFUNCTYPE``): an
    ndarray's ``item`` and a ctypes call that lets the GIL go cost several times as much, at
    every action of a Python loop."""

    __slots__ = (
        "runner",
        "apply",
        "ctr",
        "pst",
        "outs",
        "at",
        "pairs",
        "acquire",
        "release",
        "most",
        "psp",
        "ncards",
        "fast",
    )

    def __init__(self, runner, at: int, ncards: int, most: int):
        import ctypes

        self.runner, self.at, self.most, self.psp, self.ncards = runner, at, most, PSP, ncards
        # (the runner's own lock stays the one every stepping of its library holds)
        address = ctypes.cast(runner.lib.rc_step_apply, ctypes.c_void_p).value
        self.apply = ctypes.PYFUNCTYPE(ctypes.c_longlong, ctypes.c_longlong)(address)
        self.ctr, self.pst = memoryview(runner.ctr), memoryview(runner.pst)
        self.acquire, self.release = runner.lock.acquire, runner.lock.release
        self.outs = self.ctr[at + COUNTERS + ncards :]
        # pairs[n][o]: the chance outcome (o, 1/n), made once (chance_outcomes: a list of them)
        self.pairs = [None] + [tuple((o, 1.0 / n) for o in range(max(ncards, n))) for n in range(1, ncards + 1)]
        # what the C calls read (the same arrays, the same lock)
        self.fast = None
        if _STEP is not None:
            self.fast = _STEP.Views(
                address,
                runner.ctr,
                runner.pst,
                at,
                PSP,
                ncards,
                most,
                at + COUNTERS + ncards,
                runner,
                runner.lock,
                self.pairs,
            )


_VIEWS: dict = {}


def _views(ns, at: int, ncards: int, most: int) -> _Views:
    r = ns._runner
    got = _VIEWS.get(id(r))
    if got is None or got.runner is not r:
        got = _VIEWS[id(r)] = _Views(r, at, ncards, most)
    return got


# the fields of a core: in C (``Core``, with its ``step``) where the extension is built
_FIELDS = (
    "spec",
    "ns",
    "v",
    "fv",
    "actions",
    "outs",
    "kind",
    "player",
    "nopts",
    "cache",
    "_twin",
    "told",
    "who",
    "synced",
    "replay",
    "limit",
)


class NativeRulesCore(_STEP.Core if _STEP is not None else object):  # type: ignore[misc]
    """What one natively stepped chance-driven state holds (see the module's docstring).
    ``who`` is the player of each action (chance -1) and ``synced`` how many of the actions
    OpenSpiel's own history holds: an action applied from Python skips OpenSpiel's C++
    (``NativeRulesState.apply_action``), which is told them when it is asked (``_sync``).
    ``v`` is the runner's ``_Views``, ``fv`` what the C calls read of it (its ``fast``)."""

    __slots__ = () if _STEP is not None else _FIELDS
    truncated = ""
    resampled = False

    def __init__(self, spec, ns, at: int):
        self.spec, self.ns = spec, ns
        self.v = _views(ns, at, len(spec.game.card_attrs), spec.num_actions)
        self.fv = self.v.fast
        self.actions: list[int] = []
        self.cache: dict = {}
        self._twin = None
        self.told = 0  # the actions the twin has played
        self.kind = 0
        self.who: list[int] = []
        self.synced = 0
        self.replay = None
        self._read(ns._nopts)

    @property
    def node(self):
        """The chance node waiting (a ``ChanceNode``, as a reference core's), or None."""
        outs = self.outs
        if outs is None:
            return None
        return ChanceNode("card" if self.kind == NODE_CARD else "pick", -1, tuple(outs))

    def _read(self, n: int) -> None:
        """The node, player and options after a native step that returned ``n`` (the state in
        place); ``limit`` bounds the action checked before a step (``step``)."""
        if n < 0:
            self.outs, self.player, self.nopts, self.limit = None, _TERMINAL, 0, 0
            return
        v = self.v
        ctr = v.ctr
        kind = ctr[v.at]
        if kind == 0:
            self.outs = None
            self.player = v.pst[ctr[PSP], 0]
            self.nopts = self.limit = n
            if n > v.most:
                self.spec.check(_Count(n))  # (raises ActionSpaceExceeded)
            return
        self.kind, self.player, self.nopts = kind, _CHANCE, n
        self.outs = v.outs[:n].tolist() if kind == NODE_CARD else list(range(n))
        self.limit = v.ncards if kind == NODE_CARD else n

    def _too_many(self, n: int) -> None:
        self.spec.check(_Count(n))  # (raises ActionSpaceExceeded)

    if _STEP is None:  # (else Core's, in C)

        def step(self, action: int) -> bool:
            """Play ``action`` natively; False when native code stopped (``_hand_over``)."""
            # (a card node's outcome is checked by native code, which stops at any other card:
            # the reference then refuses it, NativeRulesState.apply_action)
            if not 0 <= action < self.limit:
                raise self._refusal(action)
            if self.cache:
                self.cache = {}
            self.actions.append(action)
            self.who.append(self.player)
            ns = self.ns
            v = self.v
            v.acquire()  # (the runner's lock: a with statement costs twice as much)
            try:
                r = v.runner
                if r.resident is not ns:
                    r.take(ns)
                n = ns._nopts = v.apply(action)
                if n < 0:
                    ns._finish()
                    if ns._status:
                        return False
                    self.outs, self.player, self.nopts = None, _TERMINAL, 0
                    self.limit = 0
                    return True
                # (_read, inlined: once an action)
                ctr = v.ctr
                kind = ctr[v.at]
                if kind == 0:
                    self.outs = None
                    self.player = v.pst[ctr[v.psp], 0]
                    self.nopts = self.limit = n
                    if n > v.most:
                        self.spec.check(_Count(n))  # (raises ActionSpaceExceeded)
                    return True
                self.kind, self.player, self.nopts = kind, _CHANCE, n
                if kind == NODE_CARD:
                    self.outs, self.limit = v.outs[:n].tolist(), v.ncards
                else:
                    self.outs, self.limit = list(range(n)), n
                return True
            finally:
                v.release()

    def _refusal(self, action: int) -> ValueError:
        if self.outs is not None:
            return ValueError(f"{action} is not an outcome of this chance node ({self.nopts} outcomes)")
        return ValueError(f"option {action} of a decision with {self.nopts} options")

    def is_terminal(self) -> bool:
        return self.player == _TERMINAL

    def rewards(self) -> list[float]:
        spec = self.spec
        sc = self.ns.returns()
        if spec.reward == "score":
            return [float(x) for x in sc]
        best = max(sc) if spec.game.scoring_max else min(sc)
        return [1.0 if v == best else 0.0 for v in sc]

    # -- the twin: what the reference core answers -----------------------------------------
    def twin(self) -> RulesCore:
        """The reference core at this node (made, or brought up to date, now)."""
        t = self._twin
        if t is None:
            t = self._twin = RulesCore(self.spec)
        for a in self.actions[self.told :]:
            t.apply(a)
        self.told = len(self.actions)
        return t

    # what RulesState's other methods read of a core: the twin's
    @property
    def s(self):
        return self.twin().s

    @property
    def log(self):
        return self.twin().log

    @property
    def script(self):
        return self.twin().script

    @property
    def decisions(self):
        return self.twin().decisions

    def __deepcopy__(self, memo):
        c = NativeRulesCore.__new__(NativeRulesCore)
        c.spec, c.v, c.fv, c.actions, c.cache = self.spec, self.v, self.fv, self.actions[:], {}
        c.ns = self.ns.clone()
        c.outs, c.kind, c.player, c.nopts, c.limit = self.outs, self.kind, self.player, self.nopts, self.limit
        c.who, c.synced, c.replay = self.who[:], self.synced, None
        c._twin = None
        c.told = 0
        if self._twin is not None:  # (a copy asked for strings goes on from here, not from the start)
            import copy

            c._twin, c.told = copy.deepcopy(self._twin), self.told
        return c

    def __reduce__(self):
        # pickled as the game's record and the actions, replayed natively when loaded
        return (_core_from_saved, (spec_record(self.spec), self.actions))


def _core_from_saved(record: tuple, actions: list[int]):
    from .rules import _core_from_saved as reference_core

    return reference_core(record, actions)


class NativeRulesState(RulesState):
    """A chance-driven state of a RECYCLE game in OpenSpiel, stepped natively (the module's
    docstring); once native code hands the game over, a ``RulesState``'s own answers."""

    def __init__(self, game):
        pyspiel.State.__init__(self, game)
        base = game.__dict__.get("_initial_native")
        ng = native_rules_game(game.spec)
        # (made again when the optimised library has been swapped in since)
        if base is None or base.spec is not game.spec or base.ns._runner.lib is not ng.module.games.lib:
            from ..native.stepping import start_keys

            ns = start_keys(ng, 0, 0, game.spec.max_steps)
            base = game._initial_native = NativeRulesCore(game.spec, ns, NCOUNTERS + game.spec.nplayers)
            if ns._nopts < 0 and ns._status:
                base = game._initial_native = None
                self._core = replay_rules(game.spec, [])
                return
        c = NativeRulesCore.__new__(NativeRulesCore)
        c.spec, c.v, c.fv, c.actions, c.cache, c._twin, c.told = base.spec, base.v, base.fv, [], {}, None, 0
        c.ns = base.ns.clone()
        c.outs, c.kind, c.player, c.nopts, c.limit = base.outs, base.kind, base.player, base.nopts, base.limit
        c.who, c.synced, c.replay = [], 0, None
        self._core = c

    # the hot calls: in C where the extension is built (``_STEP.install`` below puts them on
    # the class, each calling back its ``_py_`` method here where the core is not native)
    def _py_current_player(self):
        c = self._core
        if type(c) is NativeRulesCore:
            return c.player if c.replay is None else c.who[c.replay]
        return RulesState.current_player(self)

    def _py_is_chance_node(self):
        c = self._core
        if type(c) is NativeRulesCore:
            return c.outs is not None
        return RulesState.current_player(self) == _CHANCE

    def _py_is_terminal(self):
        c = self._core
        if type(c) is NativeRulesCore:
            return c.player == _TERMINAL
        return RulesState.is_terminal(self)

    def _py_legal_actions(self, player=None):
        c = self._core
        if player is None and type(c) is NativeRulesCore:
            outs = c.outs
            return list(range(c.nopts)) if outs is None else outs[:]
        return pyspiel.State.legal_actions(self) if player is None else pyspiel.State.legal_actions(self, player)

    def _legal_actions(self, player):
        c = self._core
        if type(c) is NativeRulesCore:
            return list(range(c.nopts)) if c.outs is None and player == c.player else []
        return RulesState._legal_actions(self, player)

    def _py_chance_outcomes(self):
        c = self._core
        if type(c) is NativeRulesCore:
            outs = c.outs
            if outs is None:
                return []
            n = len(outs)
            pairs = c.v.pairs
            if 1 < n < len(pairs) and outs[-1] < len(pairs[n]):
                return list(itemgetter(*outs)(pairs[n]))
            return list(zip(outs, [1.0 / n] * n))
        return RulesState.chance_outcomes(self)

    def _py_apply_action(self, action):
        """As OpenSpiel's, without its C++ while native code steps the game: OpenSpiel's
        history is told the actions when it is asked (``_sync``), the hot loop skips two
        calls back into Python an action."""
        c = self._core
        if type(c) is not NativeRulesCore:
            return pyspiel.State.apply_action(self, action)
        if not c.step(index(action)):
            self._native_stopped(action)

    current_player = _py_current_player
    is_chance_node = _py_is_chance_node
    is_terminal = _py_is_terminal
    legal_actions = _py_legal_actions
    chance_outcomes = _py_chance_outcomes
    apply_action = _py_apply_action

    def _native_stopped(self, action) -> None:
        """Native code stopped at ``action`` (a rule, a limit, an outcome it refuses): the
        reference interpreter plays the game to here, and the action through OpenSpiel's C++."""
        c = self._core
        last = c.actions.pop()
        c.who.pop()
        self._sync()
        self._hand_over()
        pyspiel.State.apply_action(self, last)

    def _apply_action(self, action):
        # OpenSpiel's C++ applies an action (its ApplyAction pushes it after this returns)
        c = self._core
        if type(c) is not NativeRulesCore:
            c.apply(int(action))
            return
        if c.replay is not None:  # (_sync telling OpenSpiel's history an action played already)
            c.replay += 1
            return
        if c.synced < len(c.actions):
            self._sync()
        ok = c.step(int(action))
        c.synced += 1
        if not ok:
            self._hand_over()

    def _sync(self) -> None:
        """Tell OpenSpiel's C++ history the actions applied from Python since (each through
        its ApplyAction, replayed: current_player gives the recorded player, nothing steps)."""
        c = self._core
        if type(c) is not NativeRulesCore or c.synced >= len(c.actions) or c.replay is not None:
            return
        pending = c.actions[c.synced :]
        c.replay = c.synced
        try:
            for a in pending:
                pyspiel.State.apply_action(self, a)
        finally:
            c.replay = None
        c.synced = len(c.actions)

    # what OpenSpiel's C++ answers from its history: told it first
    def history(self):
        self._sync()
        return pyspiel.State.history(self)

    def full_history(self):
        self._sync()
        return pyspiel.State.full_history(self)

    def history_str(self):
        self._sync()
        return pyspiel.State.history_str(self)

    def move_number(self):
        self._sync()
        return pyspiel.State.move_number(self)

    def is_initial_state(self):
        self._sync()
        return pyspiel.State.is_initial_state(self)

    def _hand_over(self) -> None:
        """Native code stopped: the reference core, replayed from the actions, plays on (and
        gives the outcome: the end, a truncation, or the error it raises)."""
        actions = self._core.actions
        self._core = RulesCore(self._core.spec)
        for a in actions:
            self._core.apply(a)

    def returns(self):
        c = self._core
        if type(c) is NativeRulesCore:
            if c.player != _TERMINAL:
                return [0.0] * c.spec.nplayers
            return c.rewards()
        return RulesState.returns(self)

    def recycle_state(self):
        """The underlying recycle ``State`` (the twin's: the reference interpreter's)."""
        return self._core.s

    def resample_from_infostate(self, player_id, probability_sampler):
        """As ``RulesState``'s, from the twin (a resampled world is the reference's)."""
        c = self._core
        if type(c) is NativeRulesCore:
            clone = self.clone()
            clone._core = _reference_copy(c)
            return RulesState.resample_from_infostate(clone, player_id, probability_sampler)
        return RulesState.resample_from_infostate(self, player_id, probability_sampler)


def _reference_copy(c: NativeRulesCore) -> RulesCore:
    import copy

    return copy.deepcopy(c.twin())


if _STEP is not None:
    _STEP.install(NativeRulesState, NativeRulesCore)
