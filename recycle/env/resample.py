"""Worlds of a chance-driven OpenSpiel state: ``RulesState.resample_from_infostate``.

A world in player p's information set is the state with every card p neither sees nor knows
the place of dealt again (``Observation.sample_world``, as with seeded chance), its future
randomness drawn from a generator seeded by OpenSpiel's sampler. What p knows is read from the
events of the game so far (``KnowledgeSink``: a chance-driven state does not track it as it
plays). The world is a ``ResampledCore``: it has no more chance nodes (its shuffles and picks
come from its generator, which is all OpenSpiel's ISMCTS asks of a determinized world), it
cannot be serialized or pickled (its actions do not lead to it), and the other players'
histories in it are told as p saw them (p does not know what they saw).
"""

from __future__ import annotations

from ..engine.knowledge import KnowledgeSink
from ..errors import StepLimitExceeded
from ..lang.forms.values import MoveEvent
from ..streams import Stream


def take_decision(core, action: int) -> None:
    """Check ``action`` is an option of the decision ``core``'s state waits at and note it among
    the core's actions and decisions (a chance-driven core's and a resampled one's)."""
    n = core.spec.check(core.s)
    if not 0 <= action < n:
        raise ValueError(f"option {action} of a decision with {n} options")
    core.actions.append(action)
    core.decisions.append(action)


class ResampledCore:
    """The core of a resampled state (the attributes ``RulesState`` reads from a core)."""

    __slots__ = ("spec", "s", "log", "truncated", "cache", "node", "actions", "decisions", "told_as")
    resampled = True

    def __init__(self, spec, world, log: list, actions: list, decisions: list, told_as: tuple):
        self.spec = spec
        self.s = world
        self.log = log
        world.events = log
        self.truncated = ""
        self.cache: dict = {}
        self.node = None
        self.actions = actions
        self.decisions = decisions
        # (the player it was resampled for, how much of the log it saw then)
        self.told_as = told_as

    def __deepcopy__(self, memo):
        s = self.s if self.truncated or self.s.is_terminal() else self.s.clone()
        c = ResampledCore(self.spec, s, self.log[:], self.actions[:], self.decisions[:], self.told_as)
        c.truncated = self.truncated
        return c

    def __reduce__(self):
        raise TypeError("cannot pickle a state dealt again by resample_from_infostate: its actions do not lead to it")

    def apply(self, action: int) -> None:
        """An option index (a resampled world has no chance nodes)."""
        self.cache = {}
        s = self.s
        take_decision(self, action)
        self.log.append(("d", s.current_player(), action))
        try:
            s.apply(action)
        except StepLimitExceeded as exc:
            self.truncated = str(exc)


def knowledge_from(s, log: list) -> list[dict]:
    """Per player, the cards whose location it knows, from the game's events ``log`` (as
    ``KnowledgeSink`` would have tracked them in ``s``)."""
    s.knowledge = None
    sink = KnowledgeSink(s)  # sets s.knowledge
    for e in log:
        if type(e) is MoveEvent and e.action in ("move", "swap", "create"):
            sink.see(e)
    return s.knowledge


def resampled(core, player: int, sampler) -> ResampledCore | None:
    """A world of ``core`` in ``player``'s information set, or None where there is none to
    deal (a chance node, the end of the game)."""
    s = core.s
    if core.truncated or core.node is not None or s.is_terminal():
        return None
    t = s.clone(rng=Stream(0))  # the world gets its own generator below
    knowledge_from(t, core.log)
    rng = Stream(int(sampler() * 2**53))
    world = t.observation(player).sample_world(rng)
    world.knowledge = None
    # a world of a world keeps the first one's past, told as its player saw it
    told = getattr(core, "told_as", None) or (player, len(core.log))
    return ResampledCore(core.spec, world, core.log[:], core.actions[:], core.decisions[:], told)
