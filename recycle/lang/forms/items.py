"""Compiled items and how options are listed.

Every action, block or flow element compiles to an ``Item`` holding two closures:
``run(state, env)`` executes it; ``expand(state, env)`` lists the options it contributes
inside a ``choice``. An option is a list of steps ``(item, env)``: the actions are run
only when chosen, each in the state reached by the steps before it (RECYCLE.md 4.6).
Items whose options cannot depend on the state ("static" ones) are expanded without
touching it. A ``choice`` reached while the state is stepped from outside raises
``Suspend``; items that contain a choice also have ``resume`` to continue from there.
"""

from __future__ import annotations


from .effects import MAX_EVENTS, shuffle  # noqa: F401 - re-exported: engine/game.py's API, players/lookahead.py, tools
from .registry import registry
from .runtime import DEFAULT_MAX_WORK, charge, rt_error  # noqa: F401 - DEFAULT_MAX_WORK: re-exported (engine/)
from ..nodes.base import FormNode
from ..nodes.walk import walk
from .values import Suspend

MAX_REPEAT = 100_000
MAX_OPTIONS = 100_000


def too_many_options(span):
    rt_error(f"more than {MAX_OPTIONS} options", span, "choice")


def suspendable(run, frame):
    """``run`` that, when a choice inside it suspends, records ``frame`` for its parent."""

    def run_marked(s, e):
        try:
            run(s, e)
        except Suspend as sus:
            sus.frames.append(frame)
            raise

    return run_marked


def resume_into(child_resume, frame):
    """A resume for an element that only passes through to its one child (if, let)."""

    def resume(s, e, frames, k):
        try:
            child_resume(s, e, frames, k - 1)
        except Suspend as sus:
            sus.frames.append(frame)
            raise

    return resume


class ChoicePoint:
    """A choice where a stepped state waits: lists its options again for a copied state.
    ``live``: the environment's slots of the variables in scope there (the others may hold
    what an earlier part of the game left in them, never read again)."""

    __slots__ = ("expand", "span", "node", "live")

    def __init__(self, expand, span, node, live: tuple = ()):
        self.expand, self.span, self.node, self.live = expand, span, node, live


class Item:
    """A compiled action, block or flow element (see the module docstring).

    ``resume(state, env, frames, k)`` exists on items that contain a choice: it continues
    the item from the place ``frames[k]`` (and the frames below it) recorded.
    """

    __slots__ = (
        "run",
        "expand",
        "static",
        "node",
        "scope",
        "has_choice",
        "any_parts",
        "_draws",
        "resume",
        "weight",
        "charge",
    )

    def __init__(self, node, scope, run=None, expand=None, static=False, has_choice=False):
        self.node = node
        self.scope = scope
        self.run = run
        self.has_choice = has_choice
        self.any_parts = None
        # (source index, destination index) closures of a top-to-top move whose two
        # addresses cannot change while cards move: a repeat of it moves the cards at once
        self._draws = None
        # the number of forms of its syntax: what one run of it costs from the work budget
        # (set by the compiler's c_item); ``charge``: what its run takes itself (a repeat's body)
        self.weight = 1
        self.charge = 0
        self.static = static
        self.expand = expand
        self.resume = None
        if static and expand is None:
            item = self
            self.expand = lambda s, e: [[(item, e)]]

    @property
    def draws(self) -> bool:
        """Does it draw random numbers (worked out on first use)?"""
        d = self._draws
        if d is None:
            d = self._draws = uses_rng(self.node)
        return d


def counted(cond, counts: dict, span):
    """``cond`` that also counts, in ``counts[(line, column)]`` = ``[evaluations, true]``, how
    often the conditional at ``span`` was reached and how often it held: the probe of the lint
    backed by simulation (recycle/study/simlint.py). Only a game compiled with a
    ``rule_counts`` dict (``PreparedGame(..., rule_counts={})``) has it, so
    every other game's conditions, and the compiled engine's generated source, are untouched.
    Evaluations made while options are listed count too: a condition in a choice's option is
    only ever evaluated there."""
    tally = counts.setdefault((span.line, span.column), [0, 0]) if span is not None else [0, 0]

    def probe(s, e):
        tally[0] += 1
        if cond(s, e):
            tally[1] += 1
            return True
        return False

    return probe


def compose(s, pairs):
    """Options of items in sequence: every branch of one continues with the next.

    A branch is worked out depth first: its actions run on the state (a dry run: events
    off, the state and the random generator restored at the end) only as far as a later
    item needs the state, and the state is copied only where a branch forks, so the work
    is linear in the options listed (once quadratic: every item re-ran its branch from the
    start). The random generator is rewound around each expansion, so the chosen option
    draws the same numbers when it runs. Costs come from the work budget."""
    n = len(pairs)
    if all(item.static for item, _ in pairs):
        return [list(pairs)]
    out: list = []
    entry = None  # the state (and generator) before the first dry run
    rewind = any(item.draws for item, _ in pairs)
    events = s.events
    s.events = None
    todo = [(0, [], 0, None)]  # (next item, the branch so far, how much of it ran, fork to restore)
    try:
        while todo:
            i, branch, ran, fork = todo.pop()
            if fork is None:  # a fork before anything ran: back to the state at entry
                fork = entry
            if fork is not None:
                s.restore(fork[0], keep=True)
                if rewind:
                    s.rng.setstate(fork[1])
            while i < n:
                item, env = pairs[i]
                if item.static:
                    branch.append((item, env))
                    i += 1
                    continue
                span = item.node.span
                if ran < len(branch):
                    if entry is None:
                        charge(s, len(s.card_loc) + len(s.locs), span, "choice")
                        entry = (s.snapshot(), s.rng.getstate() if rewind else None)
                    for st, env2 in branch[ran:]:
                        charge(s, st.weight, span, "choice")
                        st.run(s, env2)
                    ran = len(branch)
                charge(s, item.weight, span, "choice")
                if item.draws:
                    rng_state = s.rng.getstate()
                    try:
                        subs = item.expand(s, env)
                    finally:
                        s.rng.setstate(rng_state)
                else:
                    subs = item.expand(s, env)
                i += 1
                if not subs:
                    continue
                if len(subs) == 1:
                    branch.extend(subs[0])
                    continue
                if len(out) + len(subs) > MAX_OPTIONS:
                    rt_error(f"more than {MAX_OPTIONS} options", span, "choice")
                charge(s, len(s.card_loc) + len(s.locs) + len(subs) * (len(branch) + 1), span, "choice")
                here = (s.snapshot(), s.rng.getstate() if rewind else None) if ran else None
                for sub in reversed(subs):
                    todo.append((i, branch + sub, ran, here))
                break
            else:
                out.append(branch)
                if len(out) > MAX_OPTIONS:
                    rt_error(f"more than {MAX_OPTIONS} options", pairs[-1][0].node.span, "choice")
    finally:
        if entry is not None:
            s.restore(entry[0])
            if rewind:
                s.rng.setstate(entry[1])
        s.events = events
    return out


def uses_rng(node) -> bool:
    """Does the node draw random numbers: does it hold a form whose ``Form`` says it draws
    (random, shuffle, ties of max/min)?"""
    drawing = registry().drawing
    return any(isinstance(n, FormNode) and n.HEAD in drawing for n in walk(node))
