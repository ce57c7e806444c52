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


from ..errors import StepLimitExceeded
from .forms import registry
from .shapes import (head_of, rt_error)
from .syntax import VAR, Atom, SList
from .values import WORK_PER_STEP, MoveEvent, StorageEvent, Suspend

MAX_REPEAT = 100_000
MAX_OPTIONS = 100_000


def out_of_work(s, span, form: str):
    """Stop a game whose loops ran more iterations than its work budget allows."""
    raise StepLimitExceeded(f"the game ran more loop iterations (repeat, all, any) than its limit "
                            f"({WORK_PER_STEP} per step of --max-steps {s.max_steps})", span, form=form)


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
    """A choice where a stepped state waits: lists its options again for a copied state."""

    __slots__ = ("expand", "span", "node")

    def __init__(self, expand, span, node):
        self.expand, self.span, self.node = expand, span, node


class Item:
    """A compiled action, block or flow element (see the module docstring).

    ``resume(state, env, frames, k)`` exists on items that contain a choice: it continues
    the item from the place ``frames[k]`` (and the frames below it) recorded.
    """

    __slots__ = ("run", "expand", "static", "node", "scope", "has_choice", "any_parts", "pair_parts", "draws",
                 "bulk", "resume")

    def __init__(self, node, scope, run=None, expand=None, static=False, has_choice=False):
        self.node = node
        self.scope = scope
        self.run = run
        self.has_choice = has_choice
        self.any_parts = None
        self.pair_parts = None
        # (source index, destination index) closures of a top-to-top move whose two
        # addresses cannot change while cards move: a repeat of it moves the cards at once
        self.bulk = None
        self.draws = uses_rng(node)
        self.static = static
        self.expand = expand
        self.resume = None
        if static and expand is None:
            item = self
            self.expand = lambda s, e: [[(item, e)]]


def run_steps(s, steps) -> None:
    for item, env in steps:
        item.run(s, env)


def compose(s, pairs):
    """Options of items in sequence: every branch of one continues with the next."""
    branches = [[]]
    for item, env in pairs:
        if item.static:
            for b in branches:
                b.append((item, env))
            continue
        new = []
        for b in branches:
            if b:
                # a dry run of the branch so far; the RNG is rewound too (when anything in
                # it draws), so that running the chosen option later draws the same random
                # numbers (ties of max/min)
                snap = s.snapshot()
                rewind = item.draws or any(st.draws for st, _ in b)
                rng_state = s.rng.getstate() if rewind else None
                events, s.events = s.events, None
                try:
                    run_steps(s, b)
                    subs = item.expand(s, env)
                finally:
                    s.restore(snap)
                    if rewind:
                        s.rng.setstate(rng_state)
                    s.events = events
            else:
                subs = item.expand(s, env)
            if not subs:
                new.append(b)
            else:
                for sub in subs:
                    new.append(b + sub)
            if len(new) > MAX_OPTIONS:
                rt_error(f"more than {MAX_OPTIONS} options", item.node.span, "choice")
        branches = new
    return branches





STATIC, ANY, PAIRS = 0, 1, 2


def lazy_segments(s, e, plan, span) -> tuple[list, int]:
    """The options of a lazily listed choice as segments ``(count, kind, data, env, elements)``
    and their number; no option is built."""
    segments = []
    n = 0
    for kind, data in plan:
        if kind == STATIC:
            segments.append((1, STATIC, data, e, None))
            n += 1
        elif kind == ANY:
            elems = list(data[0](s, e))
            if elems:
                segments.append((len(elems), ANY, data, e, elems))
                n += len(elems)
        else:
            outer = list(data[0](s, e))
            inner = list(data[2](s, e))
            if outer and inner:
                segments.append((len(outer) * len(inner), PAIRS, data, e, (outer, inner)))
                n += len(outer) * len(inner)
    if n > MAX_OPTIONS:
        too_many_options(span)
    return segments, n


def segment_option(segments, i: int) -> list:
    """Option ``i`` (0 <= i < the number of options) of ``lazy_segments``: its (item, env) steps."""
    for count, kind, data, e, elems in segments:
        if i < count:
            if kind == STATIC:
                return [(data, e)]
            if kind == ANY:
                coll, slot, body = data
                e2 = e[:]
                e2[slot] = elems[i]
                return [(body, e2)]
            coll, slot, coll2, slot2, body2 = data
            outer, inner = elems
            e2 = e[:]
            e2[slot] = outer[i // len(inner)]
            e2[slot2] = inner[i % len(inner)]
            return [(body2, e2)]
        i -= count
    raise IndexError(i)


class LazyOptions:
    """The options of a choice, built on demand: ``len()`` is cheap, ``[i]`` builds one.

    Used when every part of the choice is a fixed action, an ``any`` over a collection, or
    two nested ``any`` whose inner collection does not depend on the outer element.
    """

    __slots__ = ("segments", "n")

    def __init__(self, s, e, plan, span):
        self.segments, self.n = lazy_segments(s, e, plan, span)

    def __len__(self) -> int:
        return self.n

    def __bool__(self) -> bool:
        return self.n > 0

    def __getitem__(self, i: int) -> list:
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(i)
        return segment_option(self.segments, i)


def mentions(node, name: str) -> bool:
    """Does the form mention the variable ``'name``?"""
    if isinstance(node, Atom):
        return node.kind == VAR and node.value == name
    return any(mentions(i, name) for i in node.items)


def shuffle(lst: list, random) -> None:
    """Fisher-Yates with ``random()`` floats: uniform to within 2**-53, and much faster in
    CPython than ``Random.shuffle``'s integer draws."""
    for i in range(len(lst) - 1, 0, -1):
        j = int(random() * (i + 1))
        lst[i], lst[j] = lst[j], lst[i]


def uses_rng(x) -> bool:
    """Does the form draw random numbers: does it contain a form whose ``Form`` says it
    draws (random, shuffle, ties of max/min)?"""
    return _draws(x, registry().drawing)


def _draws(x, drawing) -> bool:
    if isinstance(x, SList):
        if head_of(x) in drawing:
            return True
        return any(_draws(i, drawing) for i in x.items)
    return False



def place(s, d: int, c, pos, e, span, memory: bool = False) -> None:
    """Insert card ``c`` into location ``d`` at ``pos`` (top, bottom or an index)."""
    lst = s.locs[d]
    if pos == "top":
        lst.append(c)
    elif pos == "bottom":
        lst.insert(0, c)
    else:
        i = pos(s, e)
        if not 0 <= i <= len(lst):
            rt_error(f"index {i} out of range for a location of {len(lst)} cards", span, "move")
        lst.insert(i, c)
    if not memory:
        s.card_loc[c] = d


def bulk_repeat(times, body: Item, span):
    """``(repeat N (move (top A) (top B)))`` moving the N cards at once.

    The same result as N single moves (B receives A's top card first); when events are
    recorded, A holds too few cards, or A is B, the moves run one by one as written, so
    events and errors are exactly those of the single moves."""
    src_index, dst_index = body.bulk
    brun = body.run

    def run(s, e):
        k = times(s, e)
        if k > MAX_REPEAT:
            rt_error(f"repeat {k} times is more than the limit of {MAX_REPEAT}", span, "repeat")
        if k <= 0:
            return
        s.work -= k
        if s.work < 0:
            out_of_work(s, span, "repeat")
        i = src_index(s, e)
        d = dst_index(s, e)
        lst = s.locs[i]
        if s.events is not None or len(lst) < k or i == d:
            for _ in range(k):
                brun(s, e)
            return
        moved = lst[-k:]
        del lst[-k:]
        moved.reverse()
        s.locs[d].extend(moved)
        card_loc = s.card_loc
        for c in moved:
            card_loc[c] = d
    return run


def record_move(s, action: str, c, src, dst, whole: bool = False) -> None:
    infos = s.game.layout.infos
    s.events.append(MoveEvent(s.steps, action, int(c), src, dst,
                              infos[src].visibility if src is not None else None,
                              infos[dst].visibility if dst is not None else None,
                              s.chooser, s.decisions, whole))


def record_storage(s, label: str, value) -> None:
    s.events.append(StorageEvent(s.steps, label, value, s.chooser, s.decisions))


