"""The form ``repeat``: ``(repeat N ACTION)`` runs an action N times, ``(repeat all (move|forget
CARD ...))`` once per card the source location holds when it starts.

The form is kept whole in this one module, registered together as it is imported (``flow.py``
imports every ``form_*.py``): its reading of the s-expression (``read_repeat``: one node per
shape, ``Repeat`` or ``RepeatAll`` of ``lang/nodes/actions.py``), its meaning in the reference
interpreter (``RepeatForms.a_repeat``), its facts and words (the ``@form`` record) and its
native writers (``write_repeat``, ``write_repeat_all``: a whole location moved at once when its
address stays put; a move's and a forget's helpers are ``form_moves.py``'s).
"""

from __future__ import annotations

from ..nodes.actions import Forget, Move, Repeat, RepeatAll
from ..nodes.base import Const, Var
from ..nodes.numbers import ScoreMax, ScoreMin
from ..nodes.places import Bottom, Highest, Lowest, RunOf, Top, TopN
from ..nodes.scalars import Owner
from ..nodes.sexpr import Scope, fail, head_of, kw
from ..syntax.reader import SList
from .form_moves import ENDS, end_picked, mem_free, mem_location
from .items import MAX_REPEAT, Item, compose
from .registry import Kind, family, form, mention
from .runtime import out_of_work, rt_error
from .writers import LOC_T, VIEW_T, NativeUnsupported, native


def read_repeat(e, x: SList, scope: Scope) -> Repeat | RepeatAll:
    """A count and an action (no choice in it), or ``all`` and a move or forget whose source
    it empties."""
    e.arity(x, 3)
    if kw(x.items[1], "all"):
        body_node = x.items[2]
        if head_of(body_node) not in ("move", "forget"):
            fail("(repeat all ...) repeats a move or a forget", body_node, "repeat")
        body = e.item(body_node, scope)
        src = body_node.items[1]
        if isinstance(src, SList) and len(src.items) == 2 and head_of(src) == "actual":
            src = src.items[1]
        if not isinstance(src, SList) or len(src.items) != 2:
            fail("(repeat all (move (top|bottom LOCATION) ...)) needs a location to empty", src, "repeat")
        return RepeatAll(body, e.cards(src.items[1], scope), span=x.span, source=x)
    times = e.int_(x.items[1], scope)
    return Repeat(times, e.item(x.items[2], scope, allow_choice=False), span=x.span, source=x)


@family
class RepeatForms:
    """``repeat`` in the reference interpreter (a mixin of ``FlowCompiler``)."""

    @form(
        "repeat",
        "(repeat N ACTION) | (repeat all (move|forget CARD ...))",
        Kind.ACTION,
        role="repeat",
        words="repeat {1}: {2:action}",
        node=(Repeat, RepeatAll),
        reads=read_repeat,
    )
    def a_repeat(self, x: Repeat | RepeatAll, scope: Scope) -> Item:
        """(repeat N ACTION) | (repeat all (move|forget CARD ...))

        Runs the action N times (N evaluated once); with all, once per card the source
        location holds when the repeat starts."""
        span = x.span
        if isinstance(x, RepeatAll):
            body = self.c_item(x.body, scope)
            count = self.c_size(x.location, scope)
            brun = body.run

            def run_all(s, e):
                k = count(s, e)
                s.work -= k
                if s.work < 0:
                    out_of_work(s, span, "repeat")
                for _ in range(k):
                    brun(s, e)

            def expand_all(s, e):
                k = count(s, e)
                return [[(body, e)] * k] if k else []

            return Item(x, scope, run=run_all, expand=expand_all)
        times = self.c_int(x.times, scope)
        const = self.const_value(x.times, scope)
        body = self.c_item(x.body, scope)
        brun = body.run

        def run(s, e):
            k = times(s, e)
            if k > MAX_REPEAT:
                rt_error(f"repeat {k} times is more than the limit of {MAX_REPEAT}", span, "repeat")
            if k > 0:
                s.work -= k
                if s.work < 0:
                    out_of_work(s, span, "repeat")
            for _ in range(k):
                brun(s, e)

        if const is not None and const >= 1 and body.static:
            return Item(x, scope, run=run, static=True)

        def expand(s, e):
            k = times(s, e)
            if k > MAX_REPEAT:
                rt_error(f"repeat {k} times is more than the limit of {MAX_REPEAT}", span, "repeat")
            if k > 0:
                s.work -= k
                if s.work < 0:
                    out_of_work(s, span, "repeat")
            return compose(s, [(body, e)] * k) if k > 0 else []

        return Item(x, scope, run=run, expand=expand)


@native(Kind.ACTION, RepeatAll)
def write_repeat_all(w, x: RepeatAll, sc) -> None:
    """A move or forget repeated once per card of its source when it starts; a whole location
    moved onto the top of another at once when its address stays put."""
    body = x.body
    w.comment(x)
    if isinstance(body, Forget):
        # as many entries dropped as the mem location holds (a_repeat, run_all, above)
        src = end_picked(body.card)
        if src is None:
            raise NativeUnsupported("(repeat all (forget ...)) at an index", x)
        repeated(w, body, sc, f"lens[{mem_location(w, src.location, sc, 'forget')}]")
        return
    if not isinstance(body, Move):
        raise NativeUnsupported("(repeat all ...) of something other than a move", x)
    src = body.card
    if not isinstance(src, ENDS):
        raise NativeUnsupported("(repeat all (move ...)) from a place other than a top or bottom", x)
    from_bottom = isinstance(src, Bottom)
    mem_free(w, src.location)
    if isinstance(src.location, (Var, Const)) and w.loc(src.location, sc)[0] == VIEW_T:
        # out of a view: as many moves as it holds cards, each dropping its card (move)
        view = w.fresh("view")
        w.line(f"{view} = {w.loc(src.location, sc)[1]}")
        repeated(w, body, sc, f"scratch[{view}]")
        return
    s = w.phys(src.location, sc)
    dst = body.to
    if dst.where == "top":
        mem_free(w, dst.location)
        t, d = w.loc(dst.location, sc)
        if t == LOC_T and stable(w, dst.location):
            w.line(f"ctr[WORK] += lens[{s}]")
            w.line(f"{'move_all_from_bottom' if from_bottom else 'move_all'}(locs, lens, ver, card_loc, ctr, {s}, {d})")
            w.check()
            return
    repeated(w, body, sc, f"lens[{s}]")


@native(Kind.ACTION, Repeat)
def write_repeat(w, x: Repeat, sc) -> None:
    """An action repeated N times (more than MAX_REPEAT breaks the rule), each paid for."""
    w.comment(x)
    times = w.fresh("times")
    w.line(f"{times} = {w.int_(x.times, sc)}")
    with w.block(f"if {times} > MAX_REPEAT:"):
        w.line("ctr[STATUS] = RULE")
        w.line("return")
    w.line(f"ctr[WORK] += max({times}, 0)")
    with w.block(f"for _ in range({times}):"):
        w.item(x.body, sc)


def repeated(w, body, sc, count: str) -> None:
    """``body`` as many times as ``count`` says when the repeat starts (a repeat all: the size
    of what it empties), each paid for."""
    times = w.fresh("times")
    w.line(f"{times} = {count}")
    w.line(f"ctr[WORK] += {times}")
    with w.block(f"for _ in range({times}):"):
        w.item(body, sc)


MOVING = (Owner, Highest, Lowest, ScoreMax, ScoreMin, Top, TopN, RunOf)  # forms whose answer moves with the cards


def stable(w, loc) -> bool:
    """Does the location's address stay the same while cards move (no owner of a card, no card
    picked by its place or points)?"""
    return not any(isinstance(n, MOVING) for n in w.walk(loc))


mention(__name__, ("move", "forget", "actual"))
