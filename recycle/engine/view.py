"""What one player may know: the identities of cards it may see, counts everywhere else.

An ``Observation`` (``state.observation(p)``) is what the package's own players receive,
with the list of legal options (a player of someone else's gets the plain ``PlayerView``
copied out of it: ``public``; an Observation holds the state, for ``sample_world``). Its
methods answer only what the visibility model of RECYCLE.md section 6 allows that player,
plus what the player has observed earlier (cards it saw move and knows the place of, when
the state tracks observations). ``sample_world`` deals a copy of the game consistent with
that information: the look-ahead players simulate only such worlds. An observation
describes the state at one decision; take a new one after ``apply``.
"""

from __future__ import annotations

from ..lang.forms.values import may_see
from ..streams import Stream


# how often sample_world deals again a world whose current decision differs from the real one
RESAMPLE_TRIES = 100


class Observation:
    """One player's observation of a state (see the module docstring)."""

    __slots__ = ("_state", "player", "_plan", "_past", "deduction")

    def __init__(self, state, player: int):
        self._state = state
        self.player = player
        self._plan: tuple | None = None  # (where the state was, what sample_world re-deals there)
        self._past: tuple | None = None  # (where the state was, its deduce.Deducer)
        # what the deduction-aware samples of this observation did: worlds dealt, worlds
        # rejected, samples that gave up (a plain world instead), and the last reason given
        self.deduction = {"worlds": 0, "rejected": 0, "fallbacks": 0, "checked": 0, "why": None}

    @property
    def game(self):
        """The compiled game (its layout, card names, player count)."""
        return self._state.game

    def spend_work(self, units: int) -> None:
        """Take ``units`` from the game's work budget (``State.work``): what a look-ahead
        player's simulations that never reached an end cost. Raises ``StepLimitExceeded``
        naming the budget when it runs out (a game that never ends, played by look-ahead
        players, stops like one played by random players instead of running for days)."""
        s = self._state
        s.work -= units
        if s.work < 0:
            from ..errors import StepLimitExceeded

            raise StepLimitExceeded(
                f"the game's work budget of {s.max_work:,} units was used up by the look-ahead players' "
                f"simulations that did not reach the end of the game (a game that never ends?), at decision "
                f"{s.decisions}; raise it with --max-work (max_work) if the game is meant to be this long"
            )

    @property
    def current_player(self) -> int:
        return self._state.pstack[-1][0]

    def can_see(self, location: int) -> bool:
        """May this player see the cards of the location with this index?"""
        s = self._state
        return may_see(s.game.layout.info(location), self.player, s.team_of)

    def cards(self, location: int) -> list:
        """The location's cards, bottom first: card ids where visible, ``None`` where not."""
        s = self._state
        lst = s.locs[location]
        if may_see(s.game.layout.info(location), self.player, s.team_of):
            return [int(c) for c in lst]
        return [None] * len(lst)

    def count(self, location: int) -> int:
        return len(self._state.locs[location])

    def locations(self) -> dict[str, list]:
        """Every non-empty location by label, with ``cards()`` of each."""
        s = self._state
        out = {}
        for info in s.game.layout.infos:
            if info.index < len(s.locs) and s.locs[info.index]:
                out[info.label] = self.cards(info.index)
        return out

    def known_cards(self) -> set[int]:
        """Every card whose identity and place this player can see now."""
        s = self._state
        known: set[int] = set()
        for info in s.game.layout.infos:
            if info.index < len(s.locs) and s.locs[info.index] and may_see(info, self.player, s.team_of):
                known.update(int(c) for c in s.locs[info.index])
        return known

    def known_locations(self) -> dict[int, int]:
        """Cards this player cannot see now but knows the place of (card -> location),
        from what it observed earlier (empty when the state does not track it)."""
        s = self._state
        infos = s.game.layout.infos
        return {
            c: i for c, i in s.known_locations(self.player).items() if not may_see(infos[i], self.player, s.team_of)
        }

    def ints(self) -> dict[str, int]:
        """All integer storages (public to everyone), by label."""
        s = self._state
        layout = s.game.layout
        return {layout.slot_label("sto", i): v for i, v in enumerate(s.ints) if v}

    def strs(self) -> dict[str, str]:
        s = self._state
        layout = s.game.layout
        return {layout.slot_label("str", i): v for i, v in enumerate(s.strs) if v}

    @property
    def decisions_so_far(self) -> int:
        return len(self._state.history)

    def sample_world(self, rng, determinize: bool = True, reveal: frozenset = frozenset(), deduce: bool = False):
        """A copy of the state, waiting at this decision, in a world consistent with
        this player's information: every card it neither sees nor knows the place of is
        re-dealt among such places, and the game's future randomness is reseeded from
        ``rng``. ``determinize=False`` keeps the true cards (cheating, for comparison).
        ``reveal``: location indices whose true cards are kept as if the player saw them
        (only these; for measuring what seeing one location is worth, never in fair play).

        A world whose waiting decision offers another number of options than the real
        one contradicts what the game has shown (e.g. who moves now was decided by where
        a card lies) and is dealt again, up to ``RESAMPLE_TRIES`` times.

        ``deduce``: deal only a world in which every earlier choice of every other player
        was legal as it was made (``deduce.Deducer``: a player who did not follow suit holds
        none of it); where no such world is found, a plain world, counted in
        ``deduction["fallbacks"]`` with the reason in ``deduction["why"]``."""
        plan = self._redeal_plan() if determinize else []
        if plan and reveal:
            plan = _without(plan, reveal)
        if not (deduce and plan):
            return self._deal(plan, rng, determinize)[0]
        return self._deducer(plan, reveal).sample(rng)

    def _deal(self, plan: list, rng, determinize: bool) -> tuple:
        """One world (and its re-deal ``renamed``), dealt again while its waiting decision
        differs from the real one."""
        from .knowledge import redeal

        s = self._state
        wanted = s.num_options()
        renamed: dict = {}
        for _ in range(RESAMPLE_TRIES):
            future = Stream.keyed(0)  # keyed below, after the re-deal's draws
            world = s.clone(rng=future)
            if determinize:
                renamed = redeal(world, plan, rng)
                hide = getattr(world.waiting, "hide_pending", None)
                if hide is not None:  # the other players' choices in a simultaneous stage: drawn anew
                    hide(world, self.player, rng)
            future.setstate((rng.getrandbits(64), 0, None))
            if not determinize or self._same_decision(world, wanted):
                break
        return world, renamed

    def _deducer(self, plan: list, reveal):
        """The ``deduce.Deducer`` of this decision (its replay and its chain of worlds are
        worked out once while the state stays here)."""
        from .deduce import Deducer

        s = self._state
        at = (s.steps, s.decisions, len(s.history), s.nevents, reveal)
        if self._past is None or self._past[0] != at:
            self._past = (at, Deducer(self, plan))
        return self._past[1]

    def _world(self, plan: list, dealt: list, rng):
        """A world with ``dealt`` at ``plan``'s places and its future reseeded from ``rng``,
        or None when its waiting decision differs from the real one."""
        from .knowledge import place

        s = self._state
        future = Stream.keyed(0)
        world = s.clone(rng=future)
        place(world, plan, dealt)
        hide = getattr(world.waiting, "hide_pending", None)
        if hide is not None:  # the other players' choices in a simultaneous stage: drawn anew
            hide(world, self.player, rng)
        future.setstate((rng.getrandbits(64), 0, None))
        return world if self._same_decision(world, s.num_options()) else None

    def _redeal_plan(self) -> list:
        """``knowledge.redeal_plan`` of the observed state, worked out once while the state
        stays at this decision (the look-ahead players sample thousands of worlds from it)."""
        from .knowledge import redeal_plan

        s = self._state
        at = (s.steps, s.decisions, len(s.history), s.nevents)
        if self._plan is None or self._plan[0] != at:
            self._plan = (at, redeal_plan(s, self.player, s.known_locations(self.player)))
        return self._plan[1]

    @staticmethod
    def _same_decision(world, wanted: int) -> bool:
        """Does the re-dealt world offer as many options here as the real one? (A world in
        which the cards that decided who moves now lie elsewhere may offer none.)"""
        from ..errors import RecycleRuntimeError

        try:
            return world.num_options() == wanted
        except RecycleRuntimeError:
            return False

    def __repr__(self) -> str:
        s = self._state
        g = s.game
        lines = [f"Observation of P{self.player} (P{self.current_player} to move, decision {s.decisions})"]
        for label, cards in self.locations().items():
            names = " ".join("?" if c is None else g.card_name(c) for c in cards)
            lines.append(f"  {label}: {names}")
        for label, v in {**self.ints(), **self.strs()}.items():
            lines.append(f"  {label} = {v}")
        return "\n".join(lines)


def _without(plan: list, reveal) -> list:
    """A re-deal plan with the places in the ``reveal`` locations (and their cards) left out:
    those cards stay where they truly are, the others are dealt among the other places."""
    out = []
    for family, _ordered in plan:
        kept = tuple(slot for slot in family if slot[0] not in reveal)
        if kept:
            out.append((kept, tuple(sorted(c for _, _, c in kept))))
    return out


View = Observation  # the name used before the stepping API
