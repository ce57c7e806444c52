"""The fixed shape of a RECYCLE game as a learning environment (``EnvSpec``).

Learning libraries want a fixed number of actions and a fixed-size observation vector;
a RECYCLE game has neither: its options are listed anew at each decision, and its
locations and storages are addressed by name and owner. ``EnvSpec`` fixes both once per
game, from the game's layout and from ``SAMPLE_GAMES`` random games played with fixed
seeds (so the same file always gives the same spec):

* **Actions**: an action is the index of a legal option. The action space is
  ``max(2 * M, M + 8)`` where M is the largest number of options seen in the sampled
  games (``max_actions`` overrides it). A decision that offers more raises
  ``ActionSpaceExceeded``, with the number to pass instead.
* **Observation** of player p (``vector(state, p)``, float32), in sections, each listed
  with its slot labels by ``describe()``. Seats are relative: ``me`` is p, ``+1`` the player
  after p, so one policy can play every seat.

  ``cards``  one block of ``ncards`` per location p may see into (``HAND(me)``, ``MIDDLE``...),
             1 where p sees that card there; a last block ``elsewhere`` for cards p sees in a
             location the sampled games never used. Cards p cannot see are in no block.
  ``top``    per such location, a one-hot of its top card (the last one, as RECYCLE's ``top``).
  ``sizes``  the number of cards of every location (hidden ones too: RECYCLE tells everyone
             the counts), and of all locations the sampled games never used, summed.
  ``ints``   every integer storage the sampled games ever set (storages are public).
  ``turn``   a one-hot of the player to move, relative to p (0 once the game is over).
  ``choice`` a one-hot of the ``(choice ...)`` form the game waits at, in source order.

Locations and storages a game only uses in rare positions may be missing from the sampled
games: such cards are reported in ``elsewhere``, never dropped silently; storages that were
never set are left out. String storages and point maps are not in the vector.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ..engine.game import DEFAULT_MAX_STEPS, PreparedGame, load
from ..errors import RecycleError
from ..lang.nodes.flow import Choice
from ..lang.nodes.walk import walk
from ..lang.forms.values import HIDDEN, OTHERS, PRIVATE, may_see, visibility_class

SAMPLE_GAMES = 64  # random games played to find the action space and the locations used
SAMPLE_DECISIONS = 10_000  # ... or fewer, once this many decisions were seen in all
REWARDS = ("win", "score")


class ActionSpaceExceeded(RuntimeError):
    """A decision offers more options than the environment's action space."""


def action_space_for(most: int) -> int:
    """The action space for a game whose sampled decisions offered at most ``most`` options."""
    return max(1, 2 * most, most + 8)


@dataclass
class Sample:
    """What the sampled random games showed (see ``sample``)."""

    games: int = 0
    failed: int = 0
    decisions: int = 0
    max_options: int = 0
    max_decisions: int = 0
    used_locs: set = field(default_factory=set)  # (kind, name, owner kind)
    used_ints: set = field(default_factory=set)  # (name, owner kind)
    first_error: str = ""
    score_sums: set = field(default_factory=set)  # the sum of the final scores, per game
    winner_counts: set = field(default_factory=set)  # how many players won, per game


def sample(game: PreparedGame, games: int = SAMPLE_GAMES, max_decisions: int = SAMPLE_DECISIONS) -> Sample:
    """Play random games with seeds 0, 1, ... and record what the spec needs: the most
    options at a decision, the most decisions in a game, the locations that held cards and
    the integer storages that were set at a decision or at the end."""
    layout = game.layout
    out = Sample()
    loc_keys = {}
    for (kind, name), base in layout.loc_base.items():
        for owner in range(layout.width):
            loc_keys[base + owner] = (kind, name, layout.owner_of(owner)[0])
    int_keys = {}
    for name, base in layout.storage_names("sto").items():
        for owner in range(layout.width):
            int_keys[base + owner] = (name, layout.owner_of(owner)[0])

    def look(s):
        for i, lst in enumerate(s.locs):
            if lst and i in loc_keys:
                out.used_locs.add(loc_keys[i])
        for i, v in enumerate(s.ints):
            if v and i in int_keys:
                out.used_ints.add(int_keys[i])

    def on_decision(s, p, options, i):
        out.max_options = max(out.max_options, len(options))
        look(s)

    for seed in range(games):
        if out.decisions >= max_decisions:
            break
        try:
            result = game.play(seed=seed, on_decision=on_decision)
        except RecycleError as exc:
            out.failed += 1
            out.first_error = out.first_error or f"seed {seed}: {str(exc).splitlines()[0]}"
            continue
        look(result.state)
        out.score_sums.add(sum(result.state.returns()))
        out.winner_counts.add(len(result.state.winners()))
        out.games += 1
        out.decisions += result.decisions
        out.max_decisions = max(out.max_decisions, result.decisions)
    return out


def choice_forms(game: PreparedGame) -> list[tuple[int, int]]:
    """(line, column) of every ``(choice ...)`` form of the game, in source order."""
    return sorted((n.span.line, n.span.column) for n in walk(game.nodes) if isinstance(n, Choice))


@dataclass(frozen=True)
class Slot:
    """One location (or storage) of the observation, its owner relative to the viewer."""

    kind: str  # vloc, iloc, ... (sto for a storage)
    name: str
    owner_kind: str  # game, player or team
    owner: int  # relative seat for a player (0 = the viewer), team index, 0 for the game

    @property
    def label(self) -> str:
        if self.owner_kind == "game":
            return self.name
        if self.owner_kind == "team":
            return f"{self.name}(T{self.owner})"
        return f"{self.name}({'me' if self.owner == 0 else f'+{self.owner}'})"


class EnvSpec:
    """The action space and observation layout of one game (see the module docstring)."""

    def __init__(
        self,
        game: PreparedGame,
        max_actions: int | None = None,
        reward: str = "win",
        max_steps: int = DEFAULT_MAX_STEPS,
        samples: int = SAMPLE_GAMES,
    ):
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if max_actions is not None and (
            isinstance(max_actions, bool) or not isinstance(max_actions, int) or max_actions < 1
        ):
            raise ValueError(f"max_actions must be a positive integer, not {max_actions!r}")
        self.game = game
        self.reward = reward
        self.max_steps = max_steps
        self.sample = sample(game, samples)
        self.nplayers = n = game.nplayers
        self.ncards = len(game.card_attrs)
        self.num_actions = max_actions or action_space_for(self.sample.max_options)
        self.action_source = "given" if max_actions else "sampled"
        layout = game.layout
        self.nlocs = layout.nlocs
        self.nints = layout.nints
        owners = {"game": [0], "player": list(range(n)), "team": list(range(n))}
        self.size_slots: list[Slot] = []
        for (kind, name), _base in sorted(layout.loc_base.items(), key=lambda kv: kv[1]):
            for owner_kind in ("game", "player", "team"):
                if (kind, name, owner_kind) in self.sample.used_locs:
                    self.size_slots += [Slot(kind, name, owner_kind, o) for o in owners[owner_kind]]
        self.card_slots = [sl for sl in self.size_slots if self._may_ever_see(sl)]
        self.int_slots: list[Slot] = []
        for name, _base in sorted(layout.storage_names("sto").items(), key=lambda kv: kv[1]):
            for owner_kind in ("game", "player", "team"):
                if (name, owner_kind) in self.sample.used_ints:
                    self.int_slots += [Slot("sto", name, owner_kind, o) for o in owners[owner_kind]]
        self.choices = choice_forms(game)
        self._choice_index = {c: i for i, c in enumerate(self.choices)}
        nc = self.ncards
        sizes = [
            ("cards", (len(self.card_slots) + 1) * nc),
            ("top", len(self.card_slots) * nc),
            ("sizes", len(self.size_slots) + 1),
            ("ints", len(self.int_slots)),
            ("turn", n),
            ("choice", len(self.choices)),
        ]
        self.sections: dict[str, tuple[int, int]] = {}
        at = 0
        for name, size in sizes:
            self.sections[name] = (at, size)
            at += size
        self.obs_size = at
        self._plans = [self._plan(p) for p in range(n)]

    # -- layout ----------------------------------------------------------------------------
    @staticmethod
    def _may_ever_see(sl: Slot) -> bool:
        vis = visibility_class(sl.kind, sl.owner_kind)
        if vis == HIDDEN:
            return False
        if sl.owner_kind == "player" and vis == PRIVATE:
            return sl.owner == 0
        if sl.owner_kind == "player" and vis == OTHERS:
            return sl.owner != 0
        return True  # public, memory, or a team's location (checked when observed)

    def location(self, sl: Slot, viewer: int) -> int:
        """The location index of ``sl`` seen from ``viewer``."""
        n = self.nplayers
        layout = self.game.layout
        base = layout.loc_base[(sl.kind, sl.name)]
        if sl.owner_kind == "game":
            return base
        if sl.owner_kind == "player":
            return base + 1 + (viewer + sl.owner) % n
        return base + 1 + n + sl.owner

    def _plan(self, p: int):
        layout = self.game.layout
        cards = [(k, self.location(sl, p)) for k, sl in enumerate(self.card_slots)]
        sizes = [(k, self.location(sl, p)) for k, sl in enumerate(self.size_slots)]
        planned = {i for _, i in sizes}
        others = [i for i in range(self.nlocs) if i not in planned]
        ints = [(k, layout.storage_slot("sto", self._owner_ref(sl, p), sl.name)) for k, sl in enumerate(self.int_slots)]
        return cards, sizes, others, ints

    def _owner_ref(self, sl: Slot, viewer: int):
        if sl.owner_kind == "game":
            return "game"
        if sl.owner_kind == "team":
            return f"T{sl.owner}"
        return (viewer + sl.owner) % self.nplayers

    # -- observing -------------------------------------------------------------------------
    def vector(self, s, p: int, out: np.ndarray | None = None, known: set | None = None) -> np.ndarray:
        """Player ``p``'s observation of state ``s`` (see the module docstring); with ``known``,
        cards outside that set are left out of the card blocks (``after_vectors``)."""
        v = np.zeros(self.obs_size, np.float32) if out is None else out
        if out is not None:
            v.fill(0)
        if s is None:  # not dealt yet (OpenSpiel's chance nodes)
            return v
        cards, sizes, others, ints = self._plans[p]
        infos = self.game.layout.infos
        team_of = s.team_of
        locs = s.locs
        nc = self.ncards
        c0 = self.sections["cards"][0]
        t0 = self.sections["top"][0]
        for k, i in cards:
            lst = locs[i]
            if lst and may_see(infos[i], p, team_of):
                base = c0 + k * nc
                for c in lst:
                    if c < nc and (known is None or c in known):
                        v[base + c] = 1.0
                if lst[-1] < nc and (known is None or lst[-1] in known):
                    v[t0 + k * nc + lst[-1]] = 1.0
        z0 = self.sections["sizes"][0]
        for k, i in sizes:
            v[z0 + k] = len(locs[i])
        elsewhere = c0 + len(self.card_slots) * nc
        rest = 0
        for i in others + list(range(self.nlocs, len(locs))):
            lst = locs[i]
            if lst:
                rest += len(lst)
                if i >= len(infos) or may_see(infos[i], p, team_of):
                    for c in lst:
                        if c < nc and (known is None or c in known):
                            v[elsewhere + c] = 1.0
        v[z0 + len(sizes)] = rest
        i0 = self.sections["ints"][0]
        values = s.ints
        for k, j in ints:
            v[i0 + k] = values[j]
        if s.frames is not None and s.waiting is not None:
            v[self.sections["turn"][0] + (s.current_player() - p) % self.nplayers] = 1.0
            w = s.waiting
            k = self._choice_index.get((w.span.line, w.span.column))
            if k is not None:
                v[self.sections["choice"][0] + k] = 1.0
        return v

    def after_vectors(self, s, p: int) -> np.ndarray:
        """One row per legal option of the decision ``p`` waits at: the observation ``p``
        would have right after the option's own actions, before the game goes on, as far as
        ``p`` can know it before choosing. Cards ``p`` cannot see now are left out even where
        the option would show them (an option that draws a face-down card does not tell
        which). The rows are worked out in the probe worlds of ``engine.public`` (the cards
        ``p`` does not see re-dealt, the generator reseeded, from ``p``'s information alone),
        never in the real state: an entry on which they disagree (a storage set from a card
        drawn unseen) keeps its value of now. So the rows are the same in every world ``p``
        cannot tell from the real one."""
        from ..engine.public import probe_worlds

        n = s.num_options()
        known = {
            c for lst, info in zip(s.locs, self.game.layout.infos) if lst and may_see(info, p, s.team_of) for c in lst
        }
        now = self.vector(s, p, None, known)
        out = np.tile(now, (n, 1))
        rows = [self._rows_after(w, p, n, known) for w in probe_worlds(s, p, n)]
        if rows:
            agreed = np.all([r == rows[0] for r in rows[1:]], axis=0) if len(rows) > 1 else np.ones_like(out, bool)
            out = np.where(agreed, rows[0], out)
        return out

    def _rows_after(self, w, p: int, n: int, known: set) -> np.ndarray:
        """``after_vectors``' rows in one world ``w`` (its own options, all ``n`` of them)."""
        out = np.zeros((n, self.obs_size), np.float32)
        options = w._raw_options()
        for i in range(n):
            t = w.clone()
            t.chooser = p
            try:
                for item, env in options[i]:
                    item.run(t, t.env if env is w.env else env[:])
            except RecycleError:
                t = w
            self.vector(t, p, out[i], known)
        return out

    def mask(self, s, p: int) -> np.ndarray:
        """1 for the legal actions of ``p`` (all 0 when it is not ``p``'s turn)."""
        m = np.zeros(self.num_actions, np.int8)
        # (a game stopped by its step limit inside a move waits nowhere: no legal action)
        if s is not None and s.frames is not None and s.waiting is not None and s.current_player() == p:
            m[: self.check(s)] = 1
        return m

    def check(self, s) -> int:
        """The number of options of the waiting decision; ``ActionSpaceExceeded`` when it is
        more than the action space."""
        n = s.num_options()
        if n > self.num_actions:
            why = (
                "as given"
                if self.action_source == "given"
                else f"found by sampling {self.sample.games} random games, whose largest decision offered "
                f"{self.sample.max_options}, with a margin"
            )
            raise ActionSpaceExceeded(
                f"{self.game.name}: a decision offers {n} options, more than the action space of "
                f"{self.num_actions} ({why}); make the environment again with max_actions={2 * n} or more"
            )
        return n

    def rewards(self, s) -> list[float]:
        """The final reward of each player: 1 for a winner (every player tied for the best
        score) and 0 otherwise, or the raw score with ``reward="score"``."""
        if self.reward == "score":
            return [float(x) for x in s.returns()]
        won = set(s.winners())
        return [1.0 if p in won else 0.0 for p in range(self.nplayers)]

    def reward_range(self) -> tuple[float, float]:
        if self.reward == "win":
            return 0.0, 1.0
        return -float(2**63), float(2**63)

    # -- telling ---------------------------------------------------------------------------
    def labels(self) -> dict[str, list[str]]:
        """The slot labels of each section, in order (a card block spans ``ncards`` entries)."""
        return {
            "cards": [sl.label for sl in self.card_slots] + ["elsewhere"],
            "top": [sl.label for sl in self.card_slots],
            "sizes": [sl.label for sl in self.size_slots] + ["elsewhere"],
            "ints": [sl.label for sl in self.int_slots],
            "turn": ["me"] + [f"+{r}" for r in range(1, self.nplayers)],
            "choice": [f"line {a}:{b}" for a, b in self.choices],
        }

    def to_dict(self) -> dict:
        smp = self.sample
        return {
            "game": self.game.name,
            "players": self.nplayers,
            "cards": self.ncards,
            "actions": self.num_actions,
            "action_space": self.action_source,
            "sampled": {
                "games": smp.games,
                "failed": smp.failed,
                "decisions": smp.decisions,
                "max_options": smp.max_options,
                "max_decisions": smp.max_decisions,
                "first_error": smp.first_error,
            },
            "observation_size": self.obs_size,
            "sections": {
                name: {"start": a, "size": b, "slots": self.labels()[name]} for name, (a, b) in self.sections.items()
            },
            "reward": self.reward,
        }

    def describe(self) -> str:
        smp = self.sample
        g = self.game
        lines = [
            f"{g.name}: {self.nplayers} players, {self.ncards} cards",
            f"actions: {self.num_actions} (an action is the index of a legal option; "
            + (
                "given as max_actions)"
                if self.action_source == "given"
                else f"max(2M, M+8) with M = {smp.max_options}, the most options at a decision in "
                f"{smp.games} random games of seeds 0..{smp.games + smp.failed - 1})"
            ),
            f"observation: {self.obs_size} float32 values, from the viewer's seat (me, +1 = next player)",
        ]
        labels = self.labels()
        for name, (a, b) in self.sections.items():
            per = f" ({self.ncards} per slot)" if name in ("cards", "top") else ""
            lines.append(f"  [{a}:{a + b}] {name}{per}: {', '.join(labels[name]) or '-'}")
        lines.append(
            "rewards: "
            + (
                "1 to each winner (all players tied for the best score), 0 to the others"
                if self.reward == "win"
                else "each player's final score"
            )
        )
        if smp.failed:
            lines.append(f"note: {smp.failed} sampled games stopped with an error ({smp.first_error})")
        if smp.games and not smp.max_options:
            lines.append("note: the sampled games offered no decision: there is nothing to learn")
        return "\n".join(lines)


_CACHE: dict = {}


def spec_for(
    path_or_game, max_actions: int | None = None, reward: str = "win", max_steps: int = DEFAULT_MAX_STEPS
) -> EnvSpec:
    """The ``EnvSpec`` of a game file (or a ``PreparedGame``); a file's spec is kept while it
    is unchanged, so making many environments of one game samples it once."""
    if isinstance(path_or_game, PreparedGame):
        return EnvSpec(path_or_game, max_actions, reward, max_steps)
    path = os.path.abspath(os.fspath(path_or_game))
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size, max_actions, reward, max_steps)
    spec = _CACHE.get(key)
    if spec is None:
        spec = _CACHE[key] = EnvSpec(load(path), max_actions, reward, max_steps)
    return spec
