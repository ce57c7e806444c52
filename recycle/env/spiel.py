"""Any RECYCLE game as an OpenSpiel game (OpenSpiel's Python-game API, ``pyspiel``).

    game = openspiel_game("games/hearts.rcy")
    state = game.new_initial_state()        # chance nodes as the rules draw, then decisions

* **Chance** (default, ``chance="rules"``): each draw that matters is a chance node of its
  exact outcomes (a card dealt unseen from a shuffled pile, a ``random``, a tie of
  ``max``/``min``); cards no rule tells apart are one to the players; the information-state
  tensor holds the whole information state (``rules.py``, ``chance.py``).
  ``openspiel_game(path, chance="seed")``: a RECYCLE game draws its randomness from a
  generator seeded with its deal number, and the game opens with ``DEAL_BYTES`` chance nodes
  of 256 equally likely outcomes: their bytes make a 32-bit deal number, the deal of
  ``recycle run GAME --seed N`` (this module's ``RecycleState``).
* **Actions** are option indices, as in ``EnvSpec`` (``num_distinct_actions`` is its
  action space; a larger decision raises ``ActionSpaceExceeded``); an action's string is
  the option in the words its chooser is told (``engine.public``: no card it does not see,
  no value that depends on one).
* **Observation tensor** = ``EnvSpec.vector``; **observation string**: the player's
  ``Observation`` (cards it sees, counts, storages). **Information-state string**: everything
  the player has observed since the deal, in order: each card move with the card named
  (``rules.card_name``: cards no rule tells apart share a name) when the player could see it
  at its source or its destination (``?`` otherwise), each
  storage change, who decided, the player's own choices, then its current observation.
  With seeded chance the information-state tensor is the observation tensor.
* **Returns**: ``EnvSpec.rewards`` at the end (1 per winner by default), 0 before. A game
  stopped by its step limit or work budget ends with all returns 0.
* ``resample_from_infostate(p, sampler)`` deals a state consistent with p's information
  (``Observation.sample_world``; ``resample.py`` for chance as the rules draw it):
  OpenSpiel's ISMCTS bot works through it.
* **Saving**: ``state.serialize()`` is plain text (the game's digest and the actions) that
  ``game.deserialize_state`` checks and replays; OpenSpiel's own serialization and pickle
  replay the same text (``saving.py``).
"""

from __future__ import annotations

import re

import numpy as np
import pyspiel

from ..engine.game import DEFAULT_MAX_STEPS
from ..engine.knowledge import KnowledgeSink
from ..engine.public import public_options
from ..errors import StepLimitExceeded
from ..lang.forms.values import MoveEvent, StorageEvent, may_see
from ..streams import Stream
from .engines import check_engine, decide, env_state, reference_of, synced, tracked_copy
from .saving import known_spec, max_text_length, parse_state_text, remember_spec, replay, spec_record, state_text
from .native_rules import NativeRulesState, native_rules_game
from .rules import InfoTensor, RulesObserver, RulesState, card_name, replay_rules, rules_digest
from .spec import EnvSpec, spec_for

DEAL_BYTES = 4
OUTCOMES = 256
_DEAL_OUTCOMES = tuple((b, 1.0 / OUTCOMES) for b in range(OUTCOMES))  # (a copy handed out each time)
MAX_PICK = 256  # the chance outcomes a chance-driven game declares beyond its cards (random, ties)


class _Core:
    """What one OpenSpiel state holds; OpenSpiel copies a Python state by deep-copying its
    attributes, so this one object copies itself cheaply (``State.clone``)."""

    __slots__ = ("spec", "deal", "s", "log", "truncated", "seen", "cache", "resampled", "engine", "now")

    def __init__(self, spec: EnvSpec, engine: str = "auto"):
        self.spec = spec
        self.engine = engine  # which engine steps the game (recycle/env/engines.py)
        self.deal: list[int] = []
        self.s = None  # the recycle State, once dealt
        self.log: list = []  # events and ("d", player, option) decisions, in order
        self.truncated = ""
        # per player: the log entries told as it saw them (told lazily: [tokens, entries told])
        self.seen = [[[f"P{p}"], 0] for p in range(spec.nplayers)]
        self.cache: dict = {}
        # True for a world dealt again by resample_from_infostate: not the game of its actions
        self.resampled = False
        self.now = None  # (player to move, options, ended) until the next action (``turn``)

    def turn(self) -> tuple:
        """(the player to move as OpenSpiel numbers it, its options' count, whether the game
        ended), kept until the next action: OpenSpiel asks for them several times a step."""
        got = self.now
        if got is None:
            s = self.s
            if s is None:
                got = (pyspiel.PlayerId.CHANCE, OUTCOMES, False)
            elif self.truncated or s.is_terminal():
                got = (pyspiel.PlayerId.TERMINAL, 0, True)
            else:
                got = (s.current_player(), self.spec.check(s), False)
            self.now = got
        return got

    def __deepcopy__(self, memo):
        c = _Core.__new__(_Core)
        c.spec, c.deal, c.truncated, c.engine = self.spec, self.deal[:], self.truncated, self.engine
        c.log = self.log[:]
        c.seen = [[tokens[:], told] for tokens, told in self.seen]
        c.cache = {}
        c.s = self.s if self.s is None or isinstance(self.s, _Stopped) else _tracked_copy(self.s, c.log)
        c.resampled = self.resampled
        c.now = self.now
        return c

    def apply(self, action: int) -> None:
        """Play ``action``: a deal byte, then an option index (``RecycleState.apply_action``)."""
        if self.cache:
            self.cache = {}
        self.now = None
        if self.s is None:
            self.deal.append(action)
            if len(self.deal) == DEAL_BYTES:
                spec = self.spec
                try:
                    self.s = env_state(
                        spec.game,
                        int.from_bytes(bytes(self.deal), "big"),
                        spec.max_steps,
                        self.engine,
                        record=self.log,
                        track=True,
                    )
                except StepLimitExceeded as exc:
                    self.truncated = str(exc)
                    self.s = _Stopped()
                    return
                if not self.s.is_terminal():
                    spec.check(self.s)
            return
        s = self.s
        try:
            decide(s, self.log, action)
        except StepLimitExceeded as exc:
            self.truncated = str(exc)
            return
        if not s.is_terminal():
            self.now = (s.current_player(), self.spec.check(s), False)

    def actions(self) -> list[int]:
        """Every action applied since the initial state: the deal bytes, then the decisions."""
        synced(self.s)
        return self.deal + [e[2] for e in self.log if type(e) is tuple]

    def __reduce__(self):
        # OpenSpiel serializes a Python state as a pickle of its attributes (this core): it
        # is pickled as the game and the actions applied, replayed when it is loaded
        if self.resampled:
            raise TypeError(
                "cannot pickle a state dealt again by resample_from_infostate: its actions do not lead to it"
            )
        return (_core_from_saved, (spec_record(self.spec), state_text(self)))


def _core_from_saved(record: tuple, text: str) -> _Core:
    """A pickled core (``_Core.__reduce__``): its game found (or compiled and registered),
    its actions checked and replayed."""
    game, spec = known_spec(record)
    if spec is None:
        _, max_actions, reward, max_steps = record
        spec = spec_for(game, max_actions, reward, max_steps)
        _game_class(spec, "seed")
    core = _Core(spec)
    replay(core.apply, core, parse_state_text(spec, text, max_text_length(spec, DEAL_BYTES, OUTCOMES)), OUTCOMES)
    return core


def _tracked_copy(s, log, knowledge=None):
    """A copy of ``s`` that goes on tracking what each player observes and logging events."""
    return tracked_copy(s, log, knowledge)


class RecycleState(pyspiel.State):
    """One state of a RECYCLE game in OpenSpiel (see the module docstring)."""

    def __init__(self, game):
        super().__init__(game)
        self._core = _Core(game.spec, game.engine)

    # -- the game's course -----------------------------------------------------------------
    def current_player(self):
        c = self._core
        return (c.now or c.turn())[0]

    # the calls of a Python loop's every step, answered here: OpenSpiel's C++ would call back
    # into Python for each (current_player, then the method itself), several times as long
    def is_chance_node(self):
        return self._core.s is None

    def legal_actions(self, player=None):
        if player is not None:  # (OpenSpiel's own answers for a given player)
            return pyspiel.State.legal_actions(self, player)
        c = self._core
        return list(range((c.now or c.turn())[1]))

    def _legal_actions(self, player):
        c = self._core
        if c.s is None or c.truncated or c.s.is_terminal() or player != c.s.current_player():
            return []
        return list(range(c.spec.check(c.s)))

    def chance_outcomes(self):
        return list(_DEAL_OUTCOMES)

    def _apply_action(self, action):
        self._core.apply(int(action))

    def deal_number(self) -> int:
        """The deal (the recycle seed) the chance nodes chose, once they have all been played."""
        return int.from_bytes(bytes(self._core.deal), "big")

    def is_terminal(self):
        c = self._core
        return (c.now or c.turn())[2]

    def returns(self):
        c = self._core
        if not self.is_terminal() or c.truncated:
            return [0.0] * c.spec.nplayers
        return c.spec.rewards(c.s)

    def rewards(self):
        return self.returns()

    def serialize(self) -> str:
        """This state as plain text: the game's digest and the actions applied (see
        ``recycle.env.saving``); ``game.deserialize_state`` reads it back."""
        return state_text(self._core)

    def recycle_state(self):
        """The underlying recycle ``State`` (None before the deal; a native state's reference twin)."""
        s = self._core.s
        return None if s is None or isinstance(s, _Stopped) else reference_of(s)

    def _action_to_string(self, player, action):
        c = self._core
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal byte {action}"
        s = c.s
        if s is not None and not self.is_terminal() and player == s.current_player() and action < s.num_options():
            return f"{action}: {public_options(s, [s.legal_options()[action]])[0].words}"
        return f"option {action}"

    def __str__(self):
        c = self._core
        if c.s is None:
            return f"dealing: bytes {c.deal}"
        s = c.s
        if isinstance(s, _Stopped):
            return f"deal {self.deal_number()}: stopped ({c.truncated})"
        names = _card_names(c.spec)
        parts = [f"deal {self.deal_number()}, decisions {s.history}"]
        for info in c.spec.game.layout.infos:
            if info.index < len(s.locs) and s.locs[info.index]:
                parts.append(f"{info.label}: {' '.join(names[x] for x in s.locs[info.index])}")
        return "\n".join(parts)

    # -- information -----------------------------------------------------------------------
    def info_string(self, player: int) -> str:
        got = self._core.cache.get(("i", player))
        if got is None:
            got = self._core.cache[("i", player)] = _history(self._core, player) + "\n" + self.obs_string(player)
        return got

    def obs_string(self, player: int) -> str:
        c = self._core
        s = c.s
        if s is None or isinstance(s, _Stopped):
            return f"P{player} dealing"
        got = c.cache.get(("o", player))
        if got is None:
            view = s.observation(player)
            to_move = "over" if s.is_terminal() else f"P{s.current_player()} to move"
            locs = " ".join(
                f"{label}:{','.join('?' if x is None else card_name(c.spec, x) for x in cards)}"
                for label, cards in view.locations().items()
            )
            ints = " ".join(f"{k}={v}" for k, v in view.ints().items())
            got = c.cache[("o", player)] = f"P{player} {to_move} | {locs} | {ints}"
        return got

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state in the same information set of ``player_id``: the cards it neither sees
        nor knows the place of are dealt again, and the game's future randomness reseeded."""
        c = self._core
        s = c.s
        if s is not None and not isinstance(s, _Stopped):
            s = reference_of(s)  # (a native state's twin, its log up to date: it deals the worlds)
        clone = self.clone()
        if s is None or isinstance(s, _Stopped) or s.is_terminal():
            return clone
        rng = Stream(int(probability_sampler() * 2**53))
        world = s.observation(player_id).sample_world(rng)
        core = clone._core
        knowledge = [dict(s.knowledge[p]) if p == player_id else {} for p in range(c.spec.nplayers)]
        world.knowledge = knowledge
        world.events = KnowledgeSink(world, core.log)
        core.s = world
        core.now = None
        # the other players' histories in this world are not known to player_id: they are
        # told as player_id saw them
        mine = core.seen[player_id]
        _tell(core, player_id)
        for p in range(c.spec.nplayers):
            if p != player_id:
                core.seen[p] = [[f"P{p} as P{player_id} saw:"] + mine[0][1:], mine[1]]
        core.cache = {}
        core.resampled = True
        return clone


_NAMES: dict = {}


def _card_names(spec: EnvSpec) -> list[str]:
    got = _NAMES.get(id(spec))
    if got is None or len(got[1]) != len(spec.game.card_attrs):
        got = _NAMES[id(spec)] = (spec, [spec.game.card_name(c) for c in range(len(spec.game.card_attrs))])
    return got[1]


class _Stopped:
    """Stands for the state of a game stopped during its deal (step limit or work budget)."""

    def is_terminal(self) -> bool:
        return True


def _tell(core: _Core, player: int) -> None:
    """Bring ``player``'s told history up to the end of the log."""
    synced(core.s)  # (a native state's events are logged when its twin plays them)
    tokens, told = core.seen[player]
    log = core.log
    if told == len(log):
        return
    s = core.s
    infos = core.spec.game.layout.infos
    team_of = s.team_of
    viewer = player
    for e in log[told:]:
        if type(e) is tuple:
            tokens.append(f"P{e[1]}:{e[2]}" if e[1] == viewer else f"P{e[1]}")
        elif isinstance(e, MoveEvent):
            seen = (e.src is not None and may_see(infos[e.src], viewer, team_of)) or (
                e.dst is not None and may_see(infos[e.dst], viewer, team_of)
            )
            tokens.append(f"{e.action[0]}{card_name(core.spec, e.card) if seen else '?'}:{e.src}>{e.dst}")
        elif isinstance(e, StorageEvent):
            tokens.append(f"{e.slot}={e.value}")
    core.seen[player][1] = len(log)


def _history(core: _Core, player: int) -> str:
    """Everything ``player`` observed since the deal (see the module docstring)."""
    if core.s is None or isinstance(core.s, _Stopped):
        return f"P{player}"
    _tell(core, player)
    return " ".join(core.seen[player][0])


class _Observer:
    """OpenSpiel's Python observer: ``tensor`` (with named views in ``dict``), ``set_from``
    and ``string_from``; the perfect-recall kind gives information states."""

    def __init__(self, spec: EnvSpec, perfect_recall: bool):
        self.spec = spec
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(spec.obs_size, np.float32)
        self.dict = {name: self.tensor[a : a + b] for name, (a, b) in spec.sections.items()}

    def set_from(self, state, player):
        s = state._core.s  # (a native state answers EnvSpec.vector itself)
        s = None if isinstance(s, _Stopped) else s
        self.spec.vector(s, player, out=self.tensor)

    def string_from(self, state, player):
        return state.info_string(player) if self.perfect_recall else state.obs_string(player)


class RecycleGame(pyspiel.Game):
    """A RECYCLE game in OpenSpiel; ``openspiel_game`` makes one subclass per game file."""

    spec: EnvSpec = None
    game_type = None
    chance = "rules"
    history = 0
    engine = "auto"

    def __init__(self, params=None):
        spec = self.spec
        lo, hi = spec.reward_range()
        _, total = utility_of(spec)
        info = pyspiel.GameInfo(
            num_distinct_actions=spec.num_actions,
            max_chance_outcomes=max(spec.ncards, MAX_PICK) if self.chance == "rules" else OUTCOMES,
            num_players=spec.nplayers,
            min_utility=lo,
            max_utility=hi,
            utility_sum=total,
            max_game_length=DEAL_BYTES + spec.max_steps,
        )
        super().__init__(self.game_type, info, params or {})
        self.native_rules = False
        if self.chance == "rules":
            self.info_tensor = InfoTensor(spec, self.history)
            self.native_rules = _steps_natively(spec, self.engine)

    def new_initial_state(self):
        if self.chance == "rules":
            return NativeRulesState(self) if self.native_rules else RulesState(self)
        return RecycleState(self)

    def deserialize_state(self, text: str) -> RecycleState:
        """The state ``RecycleState.serialize`` wrote: checked (this game, legal actions, a
        bounded length) and replayed; ValueError with the reason for anything else."""
        spec = self.spec
        if self.chance == "rules":
            actions = parse_state_text(
                spec, text, max_text_length(spec, 4 * spec.ncards + spec.max_steps, MAX_PICK), rules_digest(spec)
            )
            state = self.new_initial_state()
            replay_rules(spec, actions, state)
            return state
        actions = parse_state_text(spec, text, max_text_length(spec, DEAL_BYTES, OUTCOMES))
        state = self.new_initial_state()
        replay(state.apply_action, state._core, actions, OUTCOMES)
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        if self.chance == "rules":
            return RulesObserver(self.spec, bool(iig_obs_type and iig_obs_type.perfect_recall), self.info_tensor)
        return _Observer(self.spec, bool(iig_obs_type and iig_obs_type.perfect_recall))


_CLASSES: dict = {}


def _steps_natively(spec: EnvSpec, engine: str) -> bool:
    """Does native code step ``spec``'s chance-driven states (its chance module builds here)?
    ``engine="native"`` raises why it cannot; ``"auto"`` says no."""
    if engine == "reference":
        return False
    from ..native import NativeUnavailable, NativeUnsupported

    try:
        native_rules_game(spec)
    except (NativeUnsupported, NativeUnavailable):
        if engine == "native":
            raise
        return False
    return True


def utility_of(spec: EnvSpec):
    """OpenSpiel's utility type of the game and the sum of its returns (None when not
    constant), as the sampled games show it: ``reward="score"`` of a game whose scores summed
    to one constant in every sampled game is zero- or constant-sum; ``reward="win"`` of a game
    that always had exactly one winner is constant-sum (1); anything else is general-sum."""
    U = pyspiel.GameType.Utility
    smp = spec.sample
    sums = smp.score_sums if spec.reward == "score" else smp.winner_counts
    if smp.failed or len(sums) != 1:
        return U.GENERAL_SUM, None
    total = float(next(iter(sums)))
    return (U.ZERO_SUM if total == 0 else U.CONSTANT_SUM), total


def _game_class(spec: EnvSpec, chance: str = "rules", history: int | None = None, engine: str = "auto"):
    key = (id(spec), chance, history, engine)
    got = _CLASSES.get(key)
    if got is not None and got.spec is spec:
        return got
    base = "python_recycle_" + re.sub(r"[^a-z0-9]+", "_", spec.game.name.lower()).strip("_")
    if chance == "seed":
        base += "_seed"
    name, k = base, 1
    taken = set(pyspiel.registered_names())
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    n = spec.nplayers
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"RECYCLE {spec.game.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility_of(spec)[0],
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=n,
        min_num_players=n,
        provides_information_state_string=True,
        # a seeded game's only tensor is the observation's, which merges information states the
        # player tells apart: it does not claim one (the chance-driven game's holds them whole)
        provides_information_state_tensor=chance == "rules",
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={},
    )
    if history is None:
        history = 2 * spec.sample.max_decisions + 4
    attrs = {"spec": spec, "game_type": game_type, "chance": chance, "history": history, "engine": engine}
    cls = type(f"RecycleGame_{name}", (RecycleGame,), attrs)
    pyspiel.register_game(game_type, cls)
    _CLASSES[key] = cls
    remember_spec(spec)
    return cls


def openspiel_game(
    path,
    *,
    reward: str = "win",
    max_actions: int | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    chance: str = "rules",
    history: int | None = None,
    engine: str = "auto",
) -> RecycleGame:
    """An OpenSpiel game of the game at ``path`` (or a ``PreparedGame``), registered with
    pyspiel as ``python_recycle_NAME`` (so ``pyspiel.load_game`` finds it afterwards).
    ``reward``, ``max_actions``, ``max_steps``: as in ``pettingzoo_env``. ``chance="rules"``
    (the default): each draw that matters is a chance node of its exact outcomes, and cards no
    rule tells apart are one to the players (``recycle/env/rules.py``); ``chance="seed"``: the
    game opens with the deal bytes of a seed (``python_recycle_NAME_seed``); ``history``: the
    decisions its information-state tensor holds (twice the most in the sampled games, plus 4);
    ``engine``: which engine steps the ``chance="seed"`` game's states (a ``chance="rules"``
    game's are the reference interpreter's): ``"auto"`` native code when the game builds here,
    else the reference interpreter (the same deals, actions, observations and returns:
    recycle/env/engines.py), ``"native"``, ``"reference"``."""
    if chance not in ("seed", "rules"):
        raise ValueError(f'chance must be "seed" or "rules", not {chance!r}')
    return _game_class(spec_for(path, max_actions, reward, max_steps), chance, history, check_engine(engine))()
