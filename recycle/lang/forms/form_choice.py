"""The form ``(choice (ITEM ...))``: the current player picks one of the options the items offer.

The form is kept whole in this one module, registered together as it is imported (``flow.py``
imports every ``form_*.py``): its reading of the s-expression (``read_choice``: the shape checks
and positioned errors; no choice or stage stands inside its options), its meaning in the
reference interpreter (``ChoiceForms.a_choice``: the options listed by the items' ``expand``,
a ``ChoicePoint`` where a stepped state waits), its facts (the ``@form`` record) and its native
writer (``write_choice``, with ``choice_keys`` for a look-ahead search). How each form offers
options is the shared option machinery's (``items.py``; natively ``forms_options.py`` and
``forms_blocks.py``, reached through the writer). A choice in a simultaneous stage is every
player's (``form_simultaneous.py``).
"""

from __future__ import annotations

from ...errors import StepLimitExceeded
from ..nodes.base import Kind
from ..nodes.flow import Choice
from ..nodes.sexpr import Scope, fail
from ..syntax.reader import Atom, SList
from .form_simultaneous import every_player_chooses
from .items import MAX_OPTIONS, ChoicePoint, Item, too_many_options, uses_rng
from .registry import family, form
from .runtime import SMALL, out_of_work, rt_error
from .values import Suspend
from .writers import NativeUnsupported, native


def read_choice(e, x: SList, scope: Scope) -> Choice:
    """The node of ``(choice (OPTION ...))``; ``(choice (ITEM))``, one option written bare, is
    ``bare``. The options are read with no choice or stage allowed in them."""
    if len(x.items) != 2 or not isinstance(x.items[1], SList) or not x.items[1].items:
        fail("expected (choice (OPTION ...)) with at least one option", x, "choice")
    inner = x.items[1]
    e.option_depth += 1
    try:
        bare = isinstance(inner.items[0], Atom)  # (choice (ITEM)): one option
        if bare:
            options = (e.item(inner, scope, allow_choice=False),)
        else:
            options = tuple(e.item(i, scope, allow_choice=False) for i in inner.items)
    finally:
        e.option_depth -= 1
    return Choice(options, bare=bare, span=x.span, source=x)


@family
class ChoiceForms:
    """The choice in the reference interpreter (a mixin of ``FlowCompiler``)."""

    @form("choice", "(choice (ITEM ...))", Kind.FLOW, role="choice", node=Choice, reads=read_choice)
    def a_choice(self, x: Choice, scope: Scope) -> Item:
        """(choice (ITEM ...))

        The current player picks one option among those the items offer (each option a
        sequence of actions); a choice with no option is an error."""
        self.option_depth += 1  # no choice or stage anywhere inside the options
        try:
            parts = [self.c_item(i, scope) for i in x.options]
        finally:
            self.option_depth -= 1
        expanders = [p.expand for p in parts]
        span = x.span

        def plain_expand(s, e):
            # the options listed one by one (the plain path's listing; each part stops at
            # MAX_OPTIONS of its own)
            opts = []
            for ex in expanders:
                opts.extend(ex(s, e))
            if len(opts) > MAX_OPTIONS:
                too_many_options(span)
            return [o for o in opts if o]

        if all(p.static or p.any_parts is not None for p in parts):
            # every option these produce has at least one action
            def expand(s, e):
                opts = []
                for ex in expanders:
                    opts.extend(ex(s, e))
                if len(opts) > MAX_OPTIONS:
                    too_many_options(span)
                return opts
        else:
            expand = plain_expand

        if uses_rng(x):
            # working out the options must not change the random numbers the chosen
            # option will draw when it runs
            unwound = expand

            def expand(s, e):
                rng_state = s.rng.getstate()
                try:
                    return unwound(s, e)
                finally:
                    s.rng.setstate(rng_state)

        def choice(s, e):
            opts = expand(s, e)
            n = len(opts)
            if not n:
                rt_error("a choice with no legal option", span, "choice")
            s.steps += 1
            if s.steps > s.max_steps:
                raise StepLimitExceeded(f"the game did not end within {s.max_steps} steps", span, form="choice")
            if n > SMALL:  # the options listed (a few are paid for by the choice's forms)
                s.work -= n
                if s.work < 0:
                    out_of_work(s, span, "choice")
            s.decisions += 1
            s.options_total += n
            decide = s.decide
            if decide is None:
                # stepped from outside: wait here for apply()
                s.waiting = choice_point
                s.options = opts
                raise Suspend()
            i = decide(opts) if n > 1 else 0
            s.chooser = s.pstack[-1][0]
            opt = opts[i]
            if len(opt) > SMALL:  # an option of many steps (a repeat all): each is paid for
                s.work -= len(opt)
                if s.work < 0:
                    out_of_work(s, span, "choice")
            for item, env in opt:
                item.run(s, env)
            s.chooser = None

        def resume(s, e, frames, k):
            opts = s.options
            if opts is None:  # a copy of the state lists them again (the original paid for them)
                work = s.work
                opts = expand(s, e)
                s.work = work
            i = s.chosen
            s.waiting = s.options = None
            s.chooser = s.pstack[-1][0]
            opt = opts[i]
            if len(opt) > SMALL:
                s.work -= len(opt)
                if s.work < 0:
                    out_of_work(s, span, "choice")
            for item, env in opt:
                item.run(s, env)
            s.chooser = None

        if self.simultaneous:  # every player's, in a simultaneous stage (form_simultaneous.py)
            return self.simultaneous_choice(x, scope, expand, span)
        live = tuple(sorted({v for v in scope.names().values() if type(v) is int}))
        choice_point = ChoicePoint(expand, span, x, live)
        item = Item(x, scope, run=choice, has_choice=True)
        item.resume = resume
        return item


# -- its native writer ---------------------------------------------------------------------
# The choice lists its options in the reference interpreter's order (each item's ``expand``):
# ``count_options`` counts them and ``run_option`` runs the ``k``-th, each option written by
# the writer's option machinery (``w.write_options``: recycle/native/forms_options.py). A
# choice's decision is a step, and it counts its options (``ctr[OPTIONS]``), as above.


@native(Kind.FLOW, Choice)
def write_choice(w, x: Choice, sc) -> None:
    """The statements of ``(choice (ITEM ...))``: count the options, stop on none, count the
    step and the decision, pick (``choose``, or ``choose_searching`` in a search module) and
    run the option picked."""
    parts = list(x.options)
    params = sc.params()
    w.comment(x)
    with w.function(
        "count_options", params, f"How many options the choice at line {x.span.line} offers now.", inline=False
    ):
        w.line("n = 0")
        for p in parts:
            w.write_options(p, sc, True)
        w.line("return n")
    count = w.fns[-1]
    with w.function("run_option", params + ["k"], f"Run option k of the choice at line {x.span.line}.", inline=False):
        for p in parts:
            w.write_options(p, sc, False)
    run = w.fns[-1]
    if w.simultaneous:  # every player's choice (form_simultaneous.py)
        every_player_chooses(w, x, count.call(*params), lambda k: run.call(*params, k))
        return
    if not w.search:
        listed_and_counted(w, count.call(*params), count.lines)
        w.line("k = choose(ctr, keys, resume, n)")
    else:
        # a search from a blind start resumes the stopped choice with RELIST: it lists its
        # options again with a sampled world's cards (runtime_search.py, ``from_blind``)
        keyed = choice_keys(w, x, parts, sc, params)
        with w.block("while True:"):
            listed_and_counted(w, count.call(*params), count.lines)
            with w.block("if ctr[SEARCHING] == 2 and resume[R_STAGE] != 0 and 1 < n <= MAX_CONSIDERED:"):
                w.line(keyed.call(*params))
                with w.block("if ctr[STEPPING]:"):
                    w.line("keys_stepped(ctr, tree, n, ctr[DECISIONS])")
            w.line("k = choose_searching(ctr, keys, resume, pst, tree, treef, n)")
            with w.block("if k != RELIST:"):
                w.line("break")
            w.line("relisted(ctr, n)")
    w.check()
    w.line(run.call(*params, "k"))
    w.check()


def listed_and_counted(w, count: str, lines: list) -> None:
    """A choice's options listed (the world's cards put in place first in a playout's or a
    search's world: ``arrive``), counted as a decision."""
    with w.block("if ctr[RESUMING]:"):
        w.line("arrive(ctr, keys, resume, locs, card_loc, ver)  # the sampled world's decision: its cards")
        w.check()
    w.line(f"n = {count}")
    if any("dry_state(" in ln or "dry_count" in ln for ln in lines):
        w.check()  # a dry run broke a rule while the options were listed
    w.decision_counted()


def choice_keys(w, x: Choice, parts: list, sc, params: list):
    """The choice's ``key_options`` (a search module's): the key of each option it offers now."""
    with w.function(
        "key_options",
        params,
        f"The keys of the options of the choice at line {x.span.line}, into the "
        "tree (a look-ahead search: runtime_search.py).",
        inline=False,
    ):
        w.line("j = 0")
        w.line("work = ctr[WORK]")
        for p in parts:
            mark, depth = len(w.fn.lines), w.fn.depth
            try:
                w.write_option_keys(p, sc)
            except NativeUnsupported:  # (a shape the keys cannot follow: the search declines)
                del w.fn.lines[mark:]
                w.fn.depth = depth
                w.decline_keys()
        w.line("ctr[WORK] = work  # (listing them again is not charged twice)")
    return w.fns[-1]
