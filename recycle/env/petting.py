"""Any RECYCLE game as a PettingZoo AEC environment (turn-based, one agent per seat).

    env = pettingzoo_env("games/schwimmen.rcy", seed=1)
    env.reset(seed=1)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()   # obs: {"observation", "action_mask"}
        env.step(None if term or trunc else policy(obs))

Agents are ``player_0`` ... ``player_{n-1}``; the agent to move is the game's current player.
An action is the index of a legal option (``action_mask`` marks them); the observation is
``EnvSpec.vector`` (what that player may see, from its seat). Rewards come at the end only
(``EnvSpec.rewards``). A game stopped by its step limit or work budget is *truncated* for
every agent, with reward 0. ``reset(seed=k)`` deals game number k (the deal of
``recycle run GAME --seed k``); later resets without a seed deal from a generator seeded
with k. ``info`` holds ``options``: the legal options in words, as the agent is told them
before choosing (``engine.public``: plain strings naming no card it does not see and no
value that depends on one), when ``describe=True``, and ``option_observations`` (one row
per legal option: what the agent would see right after it, ``EnvSpec.after_vectors``) when
``option_observations=True``.
"""

from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..engine.game import DEFAULT_MAX_STEPS
from ..engine.public import public_options
from ..errors import StepLimitExceeded
from ..streams import Stream
from .engines import check_engine, env_state, reference_of
from .spec import EnvSpec, spec_for


class RecycleAECEnv(AECEnv):
    """A RECYCLE game as a PettingZoo ``AECEnv`` (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "recycle_v0", "is_parallelizable": False}  # noqa: RUF012 - PettingZoo's API

    def __init__(
        self,
        spec: EnvSpec,
        seed: int | None = None,
        render_mode: str | None = None,
        describe: bool = False,
        option_observations: bool = False,
        engine: str = "auto",
    ):
        super().__init__()
        self.engine = check_engine(engine)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.spec_ = spec
        self.game = spec.game
        self.render_mode = render_mode
        self.describe = describe
        self.option_observations = option_observations
        self.metadata = dict(self.metadata, name=f"recycle_{self.game.name}_v0")
        self.possible_agents = [f"player_{p}" for p in range(spec.nplayers)]
        self._index = {a: p for p, a in enumerate(self.possible_agents)}
        lo = np.full(spec.obs_size, -np.inf, np.float32)
        hi = np.full(spec.obs_size, np.inf, np.float32)
        for name in ("cards", "top", "turn", "choice"):
            a, b = spec.sections[name]
            lo[a : a + b], hi[a : a + b] = 0.0, 1.0
        a, b = spec.sections["sizes"]
        lo[a : a + b] = 0.0
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(lo, hi, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (spec.num_actions,), dtype=np.int8),
            }
        )
        act_space = spaces.Discrete(spec.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._seed = seed
        self._deals: Stream | None = None
        self.state = None
        self.deal = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def __str__(self) -> str:
        return self.metadata["name"]

    # -- the AEC API -----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is None and self._deals is None:
            seed = self._seed
        if seed is not None:
            deal = int(seed)
            self._deals = Stream(deal)
        else:
            if self._deals is None:
                self._deals = Stream(random.SystemRandom().getrandbits(64))  # as random.Random()
            deal = self._deals.getrandbits(63)
        self.deal = deal
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        try:
            self.state = env_state(self.game, deal, self.spec_.max_steps, self.engine)
        except StepLimitExceeded as exc:
            self.state = None
            self._stop(truncated=str(exc))
            return
        self._next()

    def observe(self, agent):
        p = self._index[agent]
        return {"observation": self.spec_.vector(self.state, p), "action_mask": self.spec_.mask(self.state, p)}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.state
        n = s.num_options()
        if action is None or not 0 <= int(action) < n:
            raise ValueError(
                f"{agent}: action {action} is not legal here: the decision offers {n} options "
                f"(0..{n - 1}; see the action mask)"
            )
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        try:
            s.apply(int(action))
        except StepLimitExceeded as exc:
            self._stop(truncated=str(exc))
            return
        self._next()

    def _next(self) -> None:
        """After a deal or a move: pass the turn, or end the game with its rewards."""
        s = self.state
        if s.is_terminal():
            self._stop()
            return
        p = s.current_player()
        self.spec_.check(s)
        self.agent_selection = self.agents[p]
        self.infos = {a: {} for a in self.agents}
        info = {}
        if self.describe:
            info["options"] = [o.words for o in public_options(s, s.legal_options())]
        if self.option_observations:
            info["option_observations"] = self.spec_.after_vectors(reference_of(s), p)
        if info:
            self.infos[self.agent_selection] = info
        self._accumulate_rewards()

    def _stop(self, truncated: str | None = None) -> None:
        if truncated is None:
            for a, r in zip(self.possible_agents, self.spec_.rewards(self.state)):
                self.rewards[a] = r
            for a in self.agents:
                self.terminations[a] = True
        else:
            for a in self.agents:
                self.rewards[a] = 0.0
                self.truncations[a] = True
                self.infos[a] = {"truncated": truncated}
        self.agent_selection = self.agents[0]
        self._accumulate_rewards()

    # -- showing ---------------------------------------------------------------------------
    def render(self):
        if self.render_mode is None or self.state is None:
            return None
        s = self.state
        if s.is_terminal():
            text = f"game over: scores {s.returns()}, winners {s.winners()}"
        else:
            p = s.current_player()
            lines = [repr(s.observation(p))]
            lines += [f"  {o.index}: {o.words}" for o in public_options(s, s.legal_options())]
            text = "\n".join(lines)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        self.state = None


def pettingzoo_env(
    path,
    seed: int | None = None,
    *,
    reward: str = "win",
    max_actions: int | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    render_mode: str | None = None,
    describe: bool = False,
    option_observations: bool = False,
    engine: str = "auto",
) -> RecycleAECEnv:
    """A PettingZoo AEC environment of the game at ``path`` (or a ``PreparedGame``).

    ``seed``: the deal of the first ``reset()`` without a seed. ``reward``: ``"win"`` (1 to
    each winner, 0 to the others) or ``"score"`` (the raw final score). ``max_actions``: the
    action space, instead of the sampled one. ``describe``: put the legal options in words
    in the acting agent's ``info``; ``option_observations``: put there what it would see
    right after each option (``EnvSpec.after_vectors``). ``engine``: which engine steps the
    game: ``"auto"`` native code when the game builds here, else the reference interpreter (the
    same deals, observations and rewards: recycle/env/engines.py), ``"native"``, ``"reference"``."""
    return RecycleAECEnv(
        spec_for(path, max_actions, reward, max_steps), seed, render_mode, describe, option_observations, engine
    )
