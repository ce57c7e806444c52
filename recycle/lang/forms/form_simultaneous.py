"""The form ``(stage player simultaneous (end CONDITION) ITEM ...)``: every player chooses on the
same state, and the choices are applied together (CardStock's grammar since 2025-11-05).

A simultaneous stage runs its items turn after turn as a stage does; a ``choice`` among them is
made by every player, in seat order, each on the same state and seeing only its own view
(``current player`` is the player choosing while its options are listed). The choices are kept
hidden until the last player has chosen; then they are applied, in seat order, each with its
player current, and the stage's current player is what it was before the choice.

Stepped from outside (``legal_options`` / ``apply``), the state asks each player in turn: its
``current_player()`` is the player being asked, and the choices made so far are kept in the
choice's frame, not in the cards or storages an observation reads. No event is emitted before
the choices are applied, and ``hide_pending`` re-draws the pending choices of the other players
in a sampled world (``Observation.sample_world``), so that a look-ahead player never simulates
with another player's real choice. This module is the form's one place: its meaning in the
reference interpreter (``flow.py``'s stage and choice hand a simultaneous stage and its choices
here) and its native writer (``every_player_chooses``, which the native choice writer hands a
choice of a simultaneous stage); the stage's node is the ``Stage`` node with its
``simultaneous`` field, read with the stage.
"""

from __future__ import annotations

from ...errors import StepLimitExceeded
from ..nodes.flow import Choice, Stage
from .items import MAX_OPTIONS, ChoicePoint, Item, too_many_options
from .runtime import out_of_work
from .runtime import SMALL, rt_error
from ..nodes.sexpr import Scope
from .values import Suspend
from .registry import family
from .writers import NativeUnsupported


class SimultaneousPoint(ChoicePoint):
    """Where a stepped state waits for one player of a simultaneous choice; ``hide_pending``
    re-draws the other players' pending choices in a copy of the state."""

    __slots__ = ()

    def hide_pending(self, world, viewer: int, rng) -> None:
        """In ``world`` (a copy dealt for ``viewer``), replace every pending choice of another
        player by one drawn uniformly from its options there: ``viewer`` may know its own
        choice, never another's."""
        frame = world.frames[0] if world.frames else None
        if type(frame) is not tuple:
            return
        chosen, asked = frame
        top = world.pstack[-1]
        work = world.work
        redrawn = list(chosen)
        for q in range(asked):
            if q == viewer:
                continue
            top[0] = q
            n = len(self.expand(world, world.env))
            redrawn[1 + q] = int(rng.random() * n) if n > 1 else 0
        top[0] = asked
        world.work = work
        world.frames[0] = (redrawn, asked)


@family
class SimultaneousForms:
    """The simultaneous stage and its choices in the compiler (a mixin of ``FlowCompiler``)."""

    simultaneous = 0  # > 0 while the items of a simultaneous stage are compiled

    def c_simultaneous_stage(self, x: Stage, scope: Scope) -> Item:
        """``(stage player simultaneous (end CONDITION) ITEM ...)``: a stage whose choices every
        player makes (``simultaneous_choice``); its turns are a stage's (no stage stands inside
        it: the elaborator refuses one)."""
        self.simultaneous += 1
        try:
            return self.a_stage(x, scope)
        finally:
            self.simultaneous -= 1

    def simultaneous_choice(self, x: Choice, scope: Scope, expand, span) -> Item:
        """The Item of a ``choice`` in a simultaneous stage: every player, in seat order, chooses
        among the options listed for it on the same state; then the choices run in seat order.
        Each player's choice counts as a decision and a step, as a choice does."""
        n = self.layout.nplayers

        def listed(s, e, p):
            """Player ``p``'s options (``p`` current while they are listed), counted as a decision."""
            s.pstack[-1][0] = p
            opts = expand(s, e)
            k = len(opts)
            if not k:
                rt_error(f"a choice with no legal option (for P{p}, in a simultaneous stage)", span, "choice")
            if k > MAX_OPTIONS:
                too_many_options(span)
            s.steps += 1
            if s.steps > s.max_steps:
                raise StepLimitExceeded(f"the game did not end within {s.max_steps} steps", span, form="choice")
            if k > SMALL:
                s.work -= k
                if s.work < 0:
                    out_of_work(s, span, "choice")
            s.decisions += 1
            s.options_total += k
            return opts

        def wait(s, opts, chosen: list, p: int):
            """Stop for ``apply``: player ``p`` is asked; the choices so far stay in the frame."""
            s.waiting = point
            s.options = opts
            sus = Suspend()
            sus.frames[0] = (chosen, p)
            raise sus

        def ask_from(s, e, chosen: list, p: int) -> None:
            """Players ``p`` ... n-1 choose (inline, or waiting for ``apply``); then all apply."""
            while p < n:
                opts = listed(s, e, p)
                decide = s.decide
                if decide is None:
                    wait(s, opts, chosen, p)
                chosen = chosen + [decide(opts) if len(opts) > 1 else 0]
                p += 1
            apply_all(s, e, chosen)

        def apply_all(s, e, chosen: list) -> None:
            """The choices, listed again on the state they were made on, run in seat order."""
            top = s.pstack[-1]
            work = s.work  # (each list was paid for when it was offered)
            picked = []
            for p in range(n):
                top[0] = p
                picked.append(expand(s, e)[chosen[1 + p]])
            s.work = work
            for p, opt in enumerate(picked):
                top[0] = p
                s.chooser = p
                if len(opt) > SMALL:
                    s.work -= len(opt)
                    if s.work < 0:
                        out_of_work(s, span, "choice")
                for item, env in opt:
                    item.run(s, env)
            s.chooser = None
            top[0] = chosen[0]

        def run(s, e):
            ask_from(s, e, [s.pstack[-1][0]], 0)

        def resume(s, e, frames, k):
            chosen, p = frames[k]
            i = s.chosen
            s.waiting = s.options = None
            ask_from(s, e, chosen + [i], p + 1)

        live = tuple(sorted({v for v in scope.names().values() if type(v) is int}))
        point = SimultaneousPoint(expand, span, x, live)
        item = Item(x, scope, run=run, has_choice=True)
        item.resume = resume
        return item


# -- its native writer -------------------------------------------------------------------
# The native writer of ``(stage player simultaneous (end C) ITEM ...)``:
# the stage is written as a stage (form_stage.write_stage, its keyword left out), and each choice in it
# as every player's (``every_player_chooses``), counter for counter as the reference interpreter
# makes it: for each player in seat order, current while its options are counted, a step, a
# decision and its options counted, a pick; then the picks run in seat order, each with its
# player current, and the stage's current player is restored.
#
# Where the native engine could differ, it stops and Python plays the rollout (CAPACITY): a later
# player whose number of options is no longer the one it chose among once the earlier choices
# ran (the reference runs the options listed before any was applied), and a playout from a
# sampled world (its forced history holds the other players' real pending choices, which
# Python's sampled worlds draw anew). A search module does not write it.


def every_player_chooses(w, x, count: str, run) -> None:
    """Statements of a choice in a simultaneous stage: ``count`` is the code counting the
    options of the current player, ``run(k)`` the code running its option k."""
    if w.search:
        raise NativeUnsupported("(stage player simultaneous ...) in a look-ahead search", x)
    chosen, counted, first, p = w.fresh("chosen"), w.fresh("counted"), w.fresh("first"), w.fresh("seat")
    with w.block("if ctr[RESUMING]:"):
        w.line("ctr[STATUS] = CAPACITY  # a playout from a sampled world: Python draws the pending choices")
        w.line("return")
    w.line(f"{chosen} = alloc(scratch, ctr, NPLAYERS)  # each player's pick")
    w.line(f"{counted} = alloc(scratch, ctr, NPLAYERS)  # and how many options it picked among")
    w.check()
    w.line(f"{first} = pst[ctr[PSP], 0]")
    with w.block(f"for {p} in range(NPLAYERS):"):
        w.line(f"pst[ctr[PSP], 0] = {p}")
        w.line(f"n = {count}")
        w.check()
        w.decision_counted()
        w.line("k = choose(ctr, keys, resume, n)")
        w.check()
        w.line(f"scratch[{chosen} + 1 + {p}] = k")
        w.line(f"scratch[{counted} + 1 + {p}] = n")
    with w.block(f"for {p} in range(NPLAYERS):"):
        w.line(f"pst[ctr[PSP], 0] = {p}")
        with w.block(f"if {p} > 0 and {count} != scratch[{counted} + 1 + {p}]:"):
            w.line("ctr[STATUS] = CAPACITY  # its options changed with an earlier pick: Python plays it")
            w.line("return")
        w.line(run(f"scratch[{chosen} + 1 + {p}]"))
        w.check()
    w.line(f"pst[ctr[PSP], 0] = {first}")
