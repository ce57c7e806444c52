"""The OpenSpiel state of ``openspiel_game(path, chance="rules")``: chance as the rules draw it.

* **Chance nodes** are the draws that matter (``recycle/env/chance.py``): each card dealt
  unseen from a shuffled pile is a node whose outcomes are the cards it could be (action =
  the card's id), and each ``random`` or tie of ``max``/``min`` a node of n outcomes (action =
  0..n-1), all equally likely. Kuhn poker opens with 3 x 2 outcomes.
* **Cards no rule tells apart** (the same attributes) are named by what can be seen of them,
  their name (``K``), in the information-state and observation strings, and counted per name
  in the information-state tensor: Leduc's two kings are one card to a player.
* **Information-state string**: everything the player observed since the start, in order
  (card moves, naming the card when it could see it, storage changes, who decided and its
  own choices), then its current observation.
* **Information-state tensor**: per decision so far (at most ``history`` of them), who
  decided (relative seat), the option if the player chose it, and the player's observation
  vector at that moment with cards counted per name; then its observation now. The
  observation tensor is ``EnvSpec.vector``, as with seeded chance.
"""

from __future__ import annotations

import copy
import numpy as np
import pyspiel

from ..engine.public import public_options
from ..engine.serial import text_digest
from ..errors import RecycleError, StepLimitExceeded
from ..lang.forms.values import MoveEvent, StorageEvent, may_see
from .chance import Script, chance_apply, chance_clone, chance_state, place_drawn
from .resample import resampled, take_decision
from .saving import HEADER, known_spec, spec_digest, spec_record
from .spec import ActionSpaceExceeded, EnvSpec, spec_for


class RulesCore:
    """What one chance-driven OpenSpiel state holds (copied cheaply by ``__deepcopy__``)."""

    __slots__ = ("spec", "script", "actions", "decisions", "s", "log", "node", "truncated", "cache", "pre")

    def __init__(self, spec: EnvSpec):
        self.spec = spec
        self.script = Script()
        self.actions: list[int] = []
        self.decisions: list[int] = []
        self.log: list = []
        self.truncated = ""
        self.cache: dict = {}
        self.s = None
        self.node = None
        # (the state before the step that waits for a draw, its player, its option): an outcome
        # plays that step again, not the whole game (never changed: copies share it)
        self.pre = None
        self._replay()

    def __deepcopy__(self, memo):
        c = RulesCore.__new__(RulesCore)
        c.spec, c.script, c.actions, c.decisions = self.spec, self.script.copy(), self.actions[:], self.decisions[:]
        c.log, c.truncated, c.cache, c.node, c.pre = self.log[:], self.truncated, {}, self.node, self.pre
        c.s = self.s if self.node is not None or self.truncated or self.s.is_terminal() else chance_clone(self.s, c.log)
        return c

    def __reduce__(self):
        # OpenSpiel pickles a Python state's attributes: the game's record and the actions,
        # replayed when loaded (as the seeded core, saving.py)
        return (_core_from_saved, (spec_record(self.spec), self.actions))

    def _replay(self) -> None:
        """Play the game again from the start with the chance outcomes and choices so far."""
        spec = self.spec
        self.log = log = []
        try:
            # only the last step can need a draw: the earlier ones were checked when first played
            last = len(self.decisions)
            self.s, self.node = chance_state(spec.game, self.script, log, spec.max_steps, check=last == 0)
            for k, d in enumerate(self.decisions, 1):
                log.append(("d", self.s.current_player(), d))
                self.node = chance_apply(self.s, d, check=k == last)
        except StepLimitExceeded as exc:
            self.truncated = str(exc)
            self.node = None

    def apply(self, action: int) -> None:
        """A chance outcome at a chance node, an option index at a decision."""
        self.cache = {}
        if self.node is not None:
            self.script.add(self.node, action)
            self.actions.append(action)
            if self.pre is None:
                self._replay()
            else:
                _rerun(self)
            return
        s = self.s
        take_decision(self, action)
        pre = (chance_clone(s, self.log[:]), s.current_player(), action)
        self.log.append(("d", s.current_player(), action))
        try:
            self.node = chance_apply(s, action)
            self.pre = pre if self.node is not None else None
        except StepLimitExceeded as exc:
            self.truncated = str(exc)


def _rerun(core: RulesCore) -> None:
    """Play the step that waits for a draw again from the state before it, with the outcomes
    drawn since: each card of a shuffle made before that step takes the topmost undrawn place
    of its location, in the order drawn (the places a replay from the start gives them)."""
    pre, player, option = core.pre
    s = chance_clone(pre, pre.rng.log[:])
    s.rng.script = core.script
    # every card drawn since ``pre`` (this step may have waited for several), in order
    for sh in list(s.rng.shuffled):
        for card in core.script.cards.get(sh.number, ()):
            place_drawn(s, sh.number, card)
    core.s, core.log = s, s.rng.log
    core.log.append(("d", player, option))
    try:
        core.node = chance_apply(s, option)
    except StepLimitExceeded as exc:
        core.truncated = str(exc)
        core.node = None
    if core.node is None:
        core.pre = None


def _core_from_saved(record: tuple, actions: list[int]) -> RulesCore:
    """A pickled core: its game found (or compiled), its actions replayed. (OpenSpiel loads
    the state's game by its registered name first: ``openspiel_game`` registered it.)"""
    game, spec = known_spec(record)
    if spec is None:
        _, max_actions, reward, max_steps = record
        spec = spec_for(game, max_actions, reward, max_steps)
    return replay_rules(spec, [int(a) for a in actions])


def rules_digest(spec: EnvSpec) -> str:
    """The digest a serialized chance-driven state names its game by (not a seeded one's)."""
    return text_digest(f"{spec_digest(spec)}\nchance=rules")[:32]


def rules_text(core: RulesCore) -> str:
    """A chance-driven state as text: the format, the game's digest, every action."""
    if getattr(core, "resampled", False):
        raise ValueError(
            "a state dealt again by resample_from_infostate cannot be serialized: its actions do not lead to it"
        )
    listed = f" {','.join(map(str, core.actions))}" if core.actions else ""
    return f"{HEADER}\ngame {rules_digest(core.spec)}\nactions{listed}"


def replay_rules(spec: EnvSpec, actions: list[int], state=None) -> RulesCore:
    """A core with ``actions`` applied, each checked (a chance outcome of its node, an option
    of its decision); ValueError naming the first that is not. ``state``: a new ``RulesState``
    to apply them to (through OpenSpiel, which keeps its history), else a bare core."""
    core = RulesCore(spec) if state is None else state._core
    apply = core.apply if state is None else state.apply_action
    for k, a in enumerate(actions, 1):
        if core.truncated or (core.node is None and core.s.is_terminal()):
            raise ValueError(f"action {k}: the game is already over")
        if core.node is not None and a not in core.node.outcomes:
            raise ValueError(f"action {k} is {a}, not an outcome of its chance node")
        try:
            if core.node is None and not 0 <= a < spec.check(core.s):
                raise ValueError(f"action {k} is option {a} of a decision with {spec.check(core.s)} options")
            apply(a)
        except (RecycleError, ActionSpaceExceeded) as exc:
            raise ValueError(f"action {k} cannot be replayed: {exc}") from None
    return core


class RulesState(pyspiel.State):
    """A chance-driven state of a RECYCLE game in OpenSpiel (see the module docstring)."""

    def __init__(self, game):
        super().__init__(game)
        # the game's start is played once per game object; each new state copies it
        base = game.__dict__.get("_initial_core")
        if base is None or base.spec is not game.spec:
            base = game._initial_core = RulesCore(game.spec)
        self._core = copy.deepcopy(base)

    def current_player(self):
        c = self._core
        if c.truncated or (c.node is None and c.s.is_terminal()):
            return pyspiel.PlayerId.TERMINAL
        if c.node is not None:
            return pyspiel.PlayerId.CHANCE
        return c.s.current_player()

    def _legal_actions(self, player):
        c = self._core
        if self.is_terminal() or c.node is not None or player != c.s.current_player():
            return []
        return list(range(c.spec.check(c.s)))

    def chance_outcomes(self):
        node = self._core.node
        return [] if node is None else node.probabilities()

    def _apply_action(self, action):
        self._core.apply(int(action))

    def is_terminal(self):
        c = self._core
        return bool(c.truncated) or (c.node is None and c.s.is_terminal())

    def returns(self):
        c = self._core
        if not self.is_terminal() or c.truncated:
            return [0.0] * c.spec.nplayers
        return c.spec.rewards(c.s)

    def rewards(self):
        return self.returns()

    def recycle_state(self):
        """The underlying recycle ``State`` (at a chance node: as far as it ran before the draw)."""
        return self._core.s

    def _action_to_string(self, player, action):
        c = self._core
        if player == pyspiel.PlayerId.CHANCE:
            node = c.node
            if node is not None and node.kind == "card":
                return f"card {card_name(c.spec, action)} #{action}"  # distinct: OpenSpiel checks
            return f"pick {action}"
        s = c.s
        if c.node is None and not self.is_terminal() and player == s.current_player() and action < s.num_options():
            return public_options(s, [s.legal_options()[action]])[0].words
        return f"option {action}"

    def __str__(self):
        c = self._core
        names = [card_name(c.spec, x) for x in range(c.spec.ncards)]
        parts = [f"actions {c.actions}" + (" (chance to draw)" if c.node is not None else "")]
        for info in c.spec.game.layout.infos:
            if info.index < len(c.s.locs) and c.s.locs[info.index]:
                parts.append(f"{info.label}: {' '.join(names[x] for x in c.s.locs[info.index])}")
        return "\n".join(parts)

    def info_string(self, player: int) -> str:
        got = self._core.cache.get(("i", player))
        if got is None:
            got = self._core.cache[("i", player)] = history_string(self._core, player) + "\n" + self.obs_string(player)
        return got

    def obs_string(self, player: int) -> str:
        c = self._core
        got = c.cache.get(("o", player))
        if got is None:
            s = c.s
            view = s.observation(player)
            to_move = "over" if self.is_terminal() else "chance" if c.node is not None else f"P{s.current_player()}"
            locs = " ".join(
                f"{label}:{','.join('?' if x is None else card_name(c.spec, x) for x in cards)}"
                for label, cards in view.locations().items()
            )
            ints = " ".join(f"{k}={v}" for k, v in view.ints().items())
            got = c.cache[("o", player)] = f"P{player} {to_move} | {locs} | {ints}"
        return got

    def serialize(self) -> str:
        """This state as plain text (the game's digest and every action); the game's
        ``deserialize_state`` checks and replays it."""
        return rules_text(self._core)

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state in the same information set of ``player_id`` (``resample.py``): the cards
        it neither sees nor knows the place of are dealt again; no chance nodes follow."""
        clone = self.clone()
        core = resampled(self._core, player_id, probability_sampler)
        if core is not None:
            clone._core = core
        return clone


def card_name(spec: EnvSpec, c: int) -> str:
    """A card as a player sees it: the same name for cards no rule tells apart (the same
    attributes and deck), a different one for any others."""
    names = spec.__dict__.get("_card_names")
    if names is None or len(names) != len(spec.game.card_attrs):
        names = spec._card_names = class_names(spec.game)
    return names[c]


def class_names(game) -> list[str]:
    """Per card id, its name (``K``, ``A♠``); a name that cards of different attributes or
    decks would share (the short name leaves out COLOR) is made of all their attributes and
    the deck's name instead."""
    table = game.card_table
    keys = [
        (table.decks[c], tuple(sorted((k, v) for k, v in attrs.items() if k != "__serial__")))
        for c, attrs in enumerate(table.attrs)
    ]
    short = [game.card_name(c) for c in range(len(keys))]
    kinds: dict = {}
    for name, key in zip(short, keys):
        kinds.setdefault(name, set()).add(key)
    several_decks = len({deck for deck, _ in keys}) > 1
    return [
        name if len(kinds[name]) == 1 else "-".join(v for _, v in key[1]) + (f"@{key[0]}" if several_decks else "")
        for name, key in zip(short, keys)
    ]


def history_string(core: RulesCore, player: int) -> str:
    """Everything ``player`` observed since the start, in order (see the module docstring).
    In a resampled world (``resample.py``) another player's past is told as the player it
    was resampled for saw it."""
    told = getattr(core, "told_as", None)
    if told is None or told[0] == player:
        return " ".join([f"P{player}", *_tokens(core, core.log, player)])
    viewer, k = told
    seen = _tokens(core, core.log[:k], viewer)
    return " ".join([f"P{player} as P{viewer} saw:", *seen, *_tokens(core, core.log[k:], player)])


def _tokens(core, events, player: int) -> list[str]:
    infos = core.spec.game.layout.infos
    team_of = core.s.team_of
    tokens = []
    for e in events:
        if type(e) is tuple:
            tokens.append(f"P{e[1]}:{e[2]}" if e[1] == player else f"P{e[1]}")
        elif type(e) is MoveEvent:
            seen = (e.src is not None and may_see(infos[e.src], player, team_of)) or (
                e.dst is not None and may_see(infos[e.dst], player, team_of)
            )
            tokens.append(f"{e.action[0]}{card_name(core.spec, e.card) if seen else '?'}:{e.src}>{e.dst}")
        elif type(e) is StorageEvent:
            tokens.append(f"{e.slot}={e.value}")
    return tokens


class InfoTensor:
    """The layout of the information-state tensor (see the module docstring)."""

    def __init__(self, spec: EnvSpec, history: int):
        self.spec = spec
        self.history = history
        names = sorted({card_name(spec, c) for c in range(spec.ncards)})
        index = {n: i for i, n in enumerate(names)}
        self.names = names
        self.fold = np.zeros((spec.ncards, len(names)), np.float32)
        for c in range(spec.ncards):
            self.fold[c, index[card_name(spec, c)]] = 1
        a, b = spec.sections["cards"]
        t, u = spec.sections["top"]
        self.card_blocks = (a, b // max(spec.ncards, 1), t, u // max(spec.ncards, 1))
        self.obs = self._folded_size()
        self.block = spec.nplayers + spec.num_actions + self.obs
        self.size = history * self.block + self.obs

    def _folded_size(self) -> int:
        spec = self.spec
        _, nb, _, nt = self.card_blocks
        return spec.obs_size - (nb + nt) * spec.ncards + (nb + nt) * len(self.names)

    def folded(self, s, p: int) -> np.ndarray:
        """``EnvSpec.vector`` with each card block counted per card name."""
        spec = self.spec
        v = spec.vector(s, p)
        a, nb, t, nt = self.card_blocks
        nc = spec.ncards
        cards = v[a : a + nb * nc].reshape(nb, nc) @ self.fold
        top = v[t : t + nt * nc].reshape(nt, nc) @ self.fold
        rest = v[t + nt * nc :]
        return np.concatenate([v[:a], cards.ravel(), top.ravel(), rest])

    def fill(self, core: RulesCore, p: int, out: np.ndarray) -> None:
        """The tensor of player ``p``: the game replayed with its chance outcomes and choices,
        the player's view taken at each decision."""
        spec = self.spec
        out[:] = 0
        if getattr(core, "resampled", False):
            raise ValueError("a state dealt again by resample_from_infostate has no information-state tensor")
        if len(core.decisions) > self.history:
            raise ValueError(
                f"{len(core.decisions)} decisions so far: the information-state tensor holds "
                f"{self.history}; make the game with a larger history="
            )
        log: list = []
        s, _ = chance_state(spec.game, core.script, log, spec.max_steps, check=False)
        n = spec.nplayers
        for k, d in enumerate(core.decisions):
            at = k * self.block
            actor = s.current_player()
            out[at + (actor - p) % n] = 1
            if actor == p:
                out[at + n + d] = 1
            out[at + n + spec.num_actions : at + self.block] = self.folded(s, p)
            log.append(("d", actor, d))
            chance_apply(s, d, check=False)
        end = self.history * self.block
        out[end:] = self.folded(core.s, p)


class RulesObserver:
    """OpenSpiel's Python observer for chance-driven states: the observation tensor
    (``EnvSpec.vector``) or, with perfect recall, the information-state tensor."""

    def __init__(self, spec: EnvSpec, perfect_recall: bool, info: InfoTensor):
        self.spec = spec
        self.perfect_recall = perfect_recall
        self.info = info
        size = info.size if perfect_recall else spec.obs_size
        self.tensor = np.zeros(size, np.float32)
        if perfect_recall:
            self.dict = {"info_state": self.tensor}
        else:
            self.dict = {name: self.tensor[a : a + b] for name, (a, b) in spec.sections.items()}

    def set_from(self, state, player):
        core = state._core
        if self.perfect_recall:
            self.info.fill(core, player, self.tensor)
        else:
            self.spec.vector(core.s, player, out=self.tensor)

    def string_from(self, state, player):
        return state.info_string(player) if self.perfect_recall else state.obs_string(player)
