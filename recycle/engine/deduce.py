"""Deduction: worlds in which every earlier choice of every other player was legal as made.

A plain sampled world (``Observation.sample_world``) agrees with the cards a player has seen,
not with what the others' choices showed: a player who did not follow suit holds none of that
suit, a pass that would have been illegal with a card rules that card out. Nothing here is
written for a game: the rules say it. ``PastChoices`` replays the game up to the observer's
decision and keeps, for every earlier decision of another player, the state as it was then
and the chosen option's key *as the observer saw it* (``seen_key``: a card it cannot place
now is only "a card of that location"). A candidate world (the re-deal ``renamed``: which card now
lies where each card lay) is consistent when, in each of those earlier states re-dealt the
same way (``knowledge.relabel``), the option chosen there is still legal.

Players never peek. The check depends on the candidate world and the observer's information
only: an earlier state re-dealt by ``renamed`` is the world rewound, which is exact only while
every card the observer cannot place now lay where it lies since that decision. So a decision
is checked only if no card moved unseen by the observer after it (a move is seen when its
source or its destination is visible to the observer; a card that changed places between two
decisions unseen at both ends counts as unseen, however it went): earlier decisions tell
nothing about where cards went unseen since, and are left out rather than guessed at. The
Observation that asks holds the live state already (only the package's own players get one);
what it hands a player is a world, which never holds the earlier states.
"""

from __future__ import annotations

from ..lang.forms.values import Card, may_see
from ..streams import Stream

# fresh worlds dealt at most to find a first consistent one at a decision ...
DEDUCE_TRIES = 100
# ... then swaps of two cards at most to repair the world that broke fewest choices; past
# that, a plain world is used, and said (``Observation.deduction``)
REPAIR_STEPS = 300
# swaps of two cards proposed for each later world (a Markov chain over consistent worlds)
CHAIN_STEPS = 3
# bounds on what one decision may cost, whatever the game (a record names its players, and a
# record is untrusted): the game is replayed only up to this many decisions, and only the most
# recent choices of the others, this many, are checked (fewer checks: less deduced, never wrong)
MAX_REPLAY = 5_000
MAX_CHECKS = 100
# ... and the checks of one decision's worlds list options, or play one, at most this many
# times (Go Fish's asks share a key when told apart only by hidden cards, and each is played)
MAX_COST = 30_000


class Deducer:
    """Deduction-aware worlds at one decision of one observer (``Observation.sample_world``
    with ``deduce``).

    The first world is found by rejection: fresh worlds are dealt until one is consistent
    (``PastChoices.consistent``), up to ``DEDUCE_TRIES``; failing that, the one that broke
    fewest choices is repaired by swaps of two cards that break no more, up to
    ``REPAIR_STEPS``. Each later world walks on from the last: ``CHAIN_STEPS`` proposals to
    swap two cards of one deck lying in different places, each kept when the world stays
    consistent. The proposal is symmetric, so the walk keeps the uniform distribution over
    consistent worlds (Metropolis with a hard constraint): the worlds are the plain ones
    conditioned on the others' choices. A decision where no consistent world was found uses
    plain worlds, counted in ``deduction["fallbacks"]`` with the reason in ``["why"]``.
    All draws come from the ``rng`` each sample is given: the same calls, the same worlds.
    """

    __slots__ = ("obs", "plan", "past", "chain", "failed")

    def __init__(self, obs, plan: list):
        self.obs = obs
        self.plan = plan
        # a blind copy of a native state keeps its checks, made blind by the table's side
        # (recycle/native/blind_past.py): it has no seed to replay
        past = getattr(obs._state, "past", None)
        self.past = past or PastChoices(obs._state, obs.player, frozenset(c for _f, cards in plan for c in cards))
        self.chain: list | None = None  # the last consistent world (cards per family, per place)
        self.failed = False  # no consistent world was found here: plain worlds
        obs.deduction["checked"] = len(self.past.checks)

    def sample(self, rng):
        """One world (see the class docstring)."""
        got = self.obs.deduction
        past = self.past
        if past.reason is not None or self.failed:
            got["fallbacks"] += 1
            got["why"] = got["why"] or f"no deduction: {past.reason}; plain worlds were used"
            return self.obs._deal(self.plan, rng, True)[0]
        if not past.checks:
            return self.obs._deal(self.plan, rng, True)[0]
        if self.chain is None:
            self.chain = self._first(rng)
        else:
            for _ in range(CHAIN_STEPS):
                if past.cost > MAX_COST:
                    break
                got["worlds"] += 1
                proposal = self._swapped(self.chain, rng)
                if proposal is not None and past.consistent(self._renamed(proposal)):
                    self.chain = proposal
                else:
                    got["rejected"] += 1
        if self.chain is None or past.cost > MAX_COST:
            self.failed = True
            got["fallbacks"] += 1
            got["why"] = (
                f"checking worlds against the others' choices cost more than {MAX_COST:,} option "
                "listings at a decision; plain worlds were used for the rest of it"
                if past.cost > MAX_COST
                else f"no world of {DEDUCE_TRIES} dealt and {REPAIR_STEPS} swaps let every earlier "
                "choice of the others be legal; plain worlds were used at that decision"
            )
            return self.obs._deal(self.plan, rng, True)[0]
        world = self.obs._world(self.plan, self.chain, rng)
        return world if world is not None else self.obs._deal(self.plan, rng, True)[0]

    def _first(self, rng) -> list | None:
        got = self.obs.deduction
        best, fewest = None, None
        for _ in range(DEDUCE_TRIES):
            if self.past.cost > MAX_COST:
                return None
            world, _renamed = self.obs._deal(self.plan, rng, True)
            got["worlds"] += 1
            dealt = [[world.locs[i][k] for i, k, _c in family] for family, _o in self.plan]
            broken = self.past.broken(self._renamed(dealt), fewest)
            if broken == 0:
                return dealt
            got["rejected"] += 1
            if fewest is None or broken < fewest:
                best, fewest = dealt, broken
        for _ in range(REPAIR_STEPS if best is not None else 0):
            if self.past.cost > MAX_COST:
                return None
            proposal = self._swapped(best, rng)
            if proposal is None:
                return None
            got["worlds"] += 1
            broken = self.past.broken(self._renamed(proposal), fewest + 1)
            if broken <= fewest:
                best, fewest = proposal, broken
                if broken == 0:
                    return best
            else:
                got["rejected"] += 1
        return None

    def _swapped(self, dealt: list, rng) -> list | None:
        """``dealt`` with two cards of one family, in different locations, swapped (None
        when no family has two places in different locations)."""
        plan = self.plan
        families = [f for f, (family, _o) in enumerate(plan) if len({i for i, _k, _c in family}) > 1]
        if not families:
            return None
        f = families[int(rng.random() * len(families))]
        family = plan[f][0]
        n = len(family)
        a = int(rng.random() * n)
        b = int(rng.random() * (n - 1))
        b += b >= a
        if family[a][0] == family[b][0]:
            return dealt  # the same location: the same world
        cards = dealt[f][:]
        cards[a], cards[b] = cards[b], cards[a]
        return [cards if g == f else d for g, d in enumerate(dealt)]

    def _renamed(self, dealt: list) -> dict:
        return {
            old: c
            for (family, _o), cards in zip(self.plan, dealt)
            for (_i, _k, old), c in zip(family, cards)
            if c != old
        }


class PastChoices:
    """The earlier choices of the other players that ``observer`` can check a world against
    (see the module docstring). ``reason`` is why there are none to check, or None."""

    __slots__ = ("observer", "unknown", "checks", "seen", "reason", "cost")

    def __init__(self, state, observer: int, unknown: frozenset):
        self.observer = observer
        self.unknown = unknown  # the cards the observer cannot place now (the re-dealt ones)
        self.checks: list = []  # (state at the decision, chooser, the chosen option's key as seen)
        self.seen = 0  # earlier choices of others, checked or not
        self.cost = 0  # options listed and played by the checks so far (MAX_COST)
        self.reason: str | None = None
        if state.knowledge is None:
            self.reason = "the game does not track what its players saw"
        elif state.unsaved or state.seed is None:
            self.reason = "the state is not the game its seed and choices replay"
        elif state.decisions > MAX_REPLAY:
            self.reason = f"the game is past {MAX_REPLAY:,} decisions, too long to replay at every decision"
        else:
            self._replay(state)

    def _replay(self, state) -> None:
        from ..errors import RecycleError

        o = self.observer
        game = state.game
        infos = game.layout.infos
        try:
            r = game.new_state(state.seed, max_steps=state.max_steps, max_work=state.max_work)
        except RecycleError:
            self.reason = "the game could not be replayed"
            return
        unseen = 0
        stamped = []
        before = r.card_loc[:]
        history = state.history
        j = 0
        while j < len(history) and not r.is_terminal():
            opts = r._raw_options()
            if len(opts) == 1:
                r.apply(0)
            else:
                p = r.pstack[-1][0]
                i = history[j]
                check = None
                if p != o and 0 <= i < len(opts):
                    self.seen += 1
                    check = [unseen, r.clone(rng=Stream.keyed(0)), p, seen_key(r, opts[i], self.unknown), None]
                    stamped.append(check)
                    drawn = r.rng.getstate()
                r.apply(i)
                if check is not None and r.rng.getstate() == drawn:
                    # no random draw until the next decision: what the choice did to the storages
                    # (public) must come out the same in the world
                    check[4] = (r.ints[:], r.strs[:])
                j += 1
            after = r.card_loc
            team_of = r.team_of
            for a, b in zip(before, after):
                if a != b and not (_sees(infos, a, o, team_of) or _sees(infos, b, o, team_of)):
                    unseen += 1
            before = after[:]
        while not r.is_terminal() and r.num_options() == 1 and r.decisions < state.decisions:
            r.apply(0)
        if r.card_loc != state.card_loc or r.history != state.history:
            self.reason = "the game replayed from its seed is not this state"
            return
        # the most recent first: a world that breaks a rule tends to break it late
        self.checks = [(s, p, key, after) for stamp, s, p, key, after in reversed(stamped) if stamp == unseen]
        del self.checks[MAX_CHECKS:]

    def _leads_to(self, world, option: int, after: tuple) -> bool:
        """Does ``option`` in ``world`` (an earlier state re-dealt) leave the storages as the
        real choice left them (``after``: the integer and string storages at the next decision)?"""
        from ..errors import RecycleError

        self.cost += 1
        w = world.clone(rng=Stream.keyed(0))
        try:
            w.apply(option)
        except RecycleError:
            return False
        return (w.ints, w.strs) == after

    def consistent(self, renamed: dict) -> bool:
        """Was every checked choice legal in the world re-dealt by ``renamed``?"""
        return self.broken(renamed, 1) == 0

    def broken(self, renamed: dict, enough: int | None = None) -> int:
        """How many checked choices were not legal in the world re-dealt by ``renamed``
        (counting stops at ``enough``)."""
        from ..errors import RecycleRuntimeError
        from .knowledge import relabel

        unknown = self.unknown
        n = 0
        for past, _p, key, after in self.checks:
            w = past.clone(rng=Stream.keyed(0))
            relabel(w, renamed)
            self.cost += 1
            try:
                same = [k for k, steps in enumerate(w._raw_options()) if seen_key(w, steps, unknown) == key]
            except RecycleRuntimeError:
                same = []
            # options told apart only by hidden cards share a key: one of them must do what was seen
            legal = bool(same) and (after is None or any(self._leads_to(w, k, after) for k in same))
            if not legal:
                n += 1
                if enough is not None and n >= enough:
                    break
        return n


def _sees(infos, where, observer: int, team_of) -> bool:
    """May ``observer`` see location ``where`` (False for a card in no location)?"""
    return where is not None and 0 <= where < len(infos) and may_see(infos[where], observer, team_of)


def seen_key(state, steps, unknown: frozenset) -> tuple:
    """An option's identity as the observer knows it now (``options.option_key`` otherwise):
    a card of ``unknown`` (one it cannot place now) is only ``("hidden", its location)``, and
    a list of cards is the set of what its cards are, so that neither the place of a hidden
    card within its location nor how many hidden cards a group holds is told: what the
    observer saw of the choice, no more (a card played face up is named: it is known now)."""
    from .options import _canon, _item_part

    card_loc = state.card_loc

    def canon(v):
        if isinstance(v, Card) and v in unknown:
            return ("hidden", card_loc[v])
        if isinstance(v, list):
            return ("cards", tuple(sorted({canon(x) for x in v}, key=repr)))
        return _canon(v)

    cache: dict = {}
    out = []
    for item, env in steps:
        got = _item_part(item, cache)
        out.append((got[1], got[2], tuple([canon(env[slot]) for slot in got[3]])))
    return tuple(out)
