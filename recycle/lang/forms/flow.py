"""Compiling RECYCLE's flow into items: blocks, conditionals, for-each, let, choices and
stages, with the frames that let a state wait at a choice and resume (see ``items``).
The ``FlowCompiler`` gathers every form's compiler: expressions (``expr_scalar``,
``expr_int``, ``expr_bool``, ``expr_cards``, ``expr_locs``, ``expr_groups``), actions
(``actions``, ``actions_state``) and the flow here; ``REGISTRY`` is the sealed registry of
their forms (``registry``), checked when this module is imported.
"""

from __future__ import annotations


from .reads import reads_node
from ..nodes.actions import Repeat, RepeatAll
from ..nodes.flow import Choice, Do, Let, Loop, Offer, Stage, When
from ...errors import StepLimitExceeded
from .runtime import SMALL, rt_error
from ..nodes.sexpr import Scope
from .values import Suspend
from .actions import CardActions
from .actions_state import StateActions
from .expr_bool import BoolForms
from .expr_cards import CardForms
from .expr_groups import GroupForms
from .expr_int import IntForms
from .expr_locs import LocationForms
from .expr_scalar import ScalarForms
from .costs import Costs
from .recovery import ErrorKeeping
from .reads import NodeReading
from .registry import Kind, families, form, mention, seal
from .reads import NODE_METHODS
from .runtime import out_of_work
from .items import (
    MAX_OPTIONS,
    too_many_options,
    suspendable,
    resume_into,
    ChoicePoint,
    Item,
    compose,
    uses_rng,
    counted,
)


def _import_form_modules() -> None:
    """Import every ``form_*.py`` module of this package: each is a form kept whole in one
    module (its node, reading, meaning, facts and native writer), registered as it is
    imported, so that adding such a form is adding its file."""
    import importlib
    import pkgutil
    from pathlib import Path

    for module in sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])):
        if module.startswith("form_"):
            importlib.import_module(f"{__package__}.{module}")


_import_form_modules()


class FlowCompiler(
    ScalarForms,
    IntForms,
    BoolForms,
    CardForms,
    LocationForms,
    GroupForms,
    CardActions,
    StateActions,
    *families(),
    Costs,
    ErrorKeeping,
    NodeReading,
):
    """Turns a game's forms into Items. Of the game, it and its closures read only the card table
    ``cards`` (``card_table``: the contract), ``source`` and ``rule_counts`` (``items.counted``)."""

    def __init__(self, cards, nplayers: int, source=None, rule_counts: dict | None = None):
        from .layout import Layout
        from .values import PlayerId, TeamId

        self.cards, self.source, self.rule_counts = cards, source, rule_counts
        self.option_depth = 0
        self.layout = Layout(nplayers)
        self.players = tuple(PlayerId(p) for p in range(nplayers))
        self.teams = tuple(TeamId(t) for t in range(nplayers))
        self.nslots = 0
        self.forms = REGISTRY
        self.weights: dict = {}  # id(node) -> forms in it (``weight``)
        self.repeat_bodies: dict = {}  # id(body node) -> span of the (repeat N BODY) around it
        # slots of variables bound to each group of a group list made afresh for the loop, in
        # a body without loops: reading such a group is paid for by making the list (``sum``)
        self.once_slots: set = set()
        self.errors: list = []  # the compile errors found so far (c_item)
        self.binder_colls: dict = {}  # slot of an any/all/filter variable -> its collection's form

    # -- items -----------------------------------------------------------------------------
    def c_item_of(self, x, scope: Scope) -> Item:
        """An action, block, conditional, stage or choice's node (``c_item``: with error
        recovery); where it stands was checked by the elaborator."""
        if isinstance(x, (Repeat, RepeatAll)):
            self.repeat_bodies[id(x.body)] = x.span
        item = self.form_of(x, scope)
        if not isinstance(item, Item):  # a test's stand-in for the registry
            return item
        item.weight = self.weight(x)
        repeat = self.repeat_bodies.pop(id(x), None)
        if repeat is not None and item.weight > SMALL:  # (a small body: paid by the repeat's unit)
            self.charge_per_run(item, repeat)
        return item

    @form(None, "((CONDITION) ITEM)", Kind.FLOW, label="conditional")
    @reads_node
    def c_conditional(self, x: When, scope: Scope) -> Item:
        """((CONDITION) ITEM)

        Runs the item only when the condition, evaluated when it is reached, holds."""
        cond = self.c_bool(x.condition, scope)
        if self.rule_counts is not None:
            cond = counted(cond, self.rule_counts, x.span)
        sub = self.c_item(x.item, scope)
        body = suspendable(sub.run, None) if sub.has_choice else sub.run

        def run(s, e):
            if cond(s, e):
                body(s, e)

        sub_expand = sub.expand

        def expand(s, e):
            return sub_expand(s, e) if cond(s, e) else []

        item = Item(x, scope, run=run, expand=expand, has_choice=sub.has_choice)
        if sub.has_choice:
            item.resume = resume_into(sub.resume, None)
        return item

    def sequence(self, x, scope, parts: list[Item]) -> Item:
        """Items run one after another (do, stage bodies, the top level): ``x`` is their
        node (a ``Do``, a ``Stage``, the ``GameNode``)."""
        choice = any(p.has_choice for p in parts)
        runs = [suspendable(p.run, i) if p.has_choice else p.run for i, p in enumerate(parts)]
        if len(runs) == 1:
            run = runs[0]
        elif len(runs) == 2:
            r1, r2 = runs

            def run(s, e):
                r1(s, e)
                r2(s, e)
        elif len(runs) == 3:
            r1, r2, r3 = runs

            def run(s, e):
                r1(s, e)
                r2(s, e)
                r3(s, e)
        else:

            def run(s, e):
                for r in runs:
                    r(s, e)

        if all(p.static for p in parts):
            item = Item(x, scope, run=run, static=True)
            return item

        def expand(s, e):
            return compose(s, [(p, e) for p in parts])

        item = Item(x, scope, run=run, expand=expand, has_choice=choice)
        if choice:
            resumes = [p.resume for p in parts]

            def resume(s, e, frames, k):
                i = frames[k]
                try:
                    resumes[i](s, e, frames, k - 1)
                except Suspend as sus:
                    sus.frames.append(i)
                    raise
                for r in runs[i + 1 :]:
                    r(s, e)

            item.resume = resume
        return item

    @form("do", "(do (ITEM ...))", Kind.FLOW, role="block")
    @reads_node
    def a_do(self, x: Do, scope: Scope) -> Item:
        """(do (ITEM ...))

        Runs the items in order, each seeing the effects of the ones before it."""
        return self.sequence(x, scope, [self.c_item(i, scope) for i in x.body])

    @form("any", "(any COLLECTION 'VARIABLE ITEM)", Kind.FLOW, binds=True, loops=True, role="offer")
    @reads_node
    def a_any(self, x: Offer, scope: Scope) -> Item:
        """(any COLLECTION 'VARIABLE ITEM)

        Inside a choice, one option per element bound to 'VARIABLE; elsewhere the item runs
        for each element, as with all."""
        return self.c_each(x, scope, branching=True)

    @form("all", "(all COLLECTION 'VARIABLE ITEM)", Kind.FLOW, binds=True, loops=True, role="loop")
    @reads_node
    def a_all(self, x: Loop, scope: Scope) -> Item:
        """(all COLLECTION 'VARIABLE ITEM)

        Runs the item for each element of a snapshot of the collection, in order, with the
        element bound to 'VARIABLE."""
        return self.c_each(x, scope, branching=False)

    def c_each(self, x: Offer | Loop, scope: Scope, branching: bool) -> Item:
        h = x.HEAD
        coll = self.c_coll(x.collection, scope)
        slot = self.new_slot()
        self.binder_colls[slot] = x.collection  # (families of locations: the members it may name)
        self.fresh_groups(x, slot)
        body = self.c_item(x.item, scope.bind(x.variable.name, slot, x.variable.hint))
        brun = body.run
        w = 0 if self.players_loop(x) else self.weight(x.item)  # (paid with the form around it)
        span = x.span

        def run(s, e):
            elems = list(coll(s, e))
            s.work -= len(elems) * w
            if s.work < 0:
                out_of_work(s, span, h)
            for v in elems:
                e[slot] = v
                brun(s, e)

        bexpand = body.expand
        nested = getattr(body, "any_parts", None)
        if branching and nested is not None:
            # (any A 'X (any B 'Y STATIC)): one option per pair, without intermediate lists
            coll2, slot2, body2 = nested

            def expand(s, e):
                out = []
                for v in list(coll(s, e)):
                    e2 = e[:]
                    e2[slot] = v
                    inner = list(coll2(s, e2))
                    s.work -= len(inner) + 1
                    if s.work < 0:
                        out_of_work(s, span, h)
                    if len(out) + len(inner) > MAX_OPTIONS:
                        too_many_options(span)
                    for v2 in inner:
                        e3 = e2[:]
                        e3[slot2] = v2
                        out.append([(body2, e3)])
                return out
        elif branching:
            static = body.static
            # listing costs a unit per element beyond SMALL (as the lazy listing: items.py)
            # when the body is a fixed action; else the body's forms are worked out for each
            per = 1 if static else max(1, w)

            def expand(s, e):
                out = []
                elems = list(coll(s, e))
                if static and len(elems) <= SMALL:
                    pass
                else:
                    s.work -= len(elems) * per
                    if s.work < 0:
                        out_of_work(s, span, h)
                for v in elems:
                    e2 = e[:]
                    e2[slot] = v
                    if static:
                        out.append([(body, e2)])
                    else:
                        out.extend(bexpand(s, e2) or [[]])
                        if len(out) > MAX_OPTIONS:
                            too_many_options(span)
                if len(out) > MAX_OPTIONS:
                    too_many_options(span)
                return out
        else:

            def expand(s, e):
                pairs = []
                elems = list(coll(s, e))
                s.work -= len(elems)
                if s.work < 0:
                    out_of_work(s, span, h)
                for v in elems:
                    e2 = e[:]
                    e2[slot] = v
                    pairs.append((body, e2))
                return compose(s, pairs) if pairs else []

        item = Item(x, scope, run=run, expand=expand, has_choice=body.has_choice)
        if body.has_choice:
            item.run, item.resume = self.each_spine(coll, slot, body, span, h, w)
        if branching and body.static:
            item.any_parts = (coll, slot, body)
        return item

    @staticmethod
    def each_spine(coll, slot, body: Item, span, h: str, w: int):
        """run and resume of a for-each whose body holds a choice: the frame is the
        collection's snapshot and the position in it."""
        brun, bresume = body.run, body.resume

        def run(s, e):
            elems = list(coll(s, e))
            s.work -= len(elems) * w
            if s.work < 0:
                out_of_work(s, span, h)
            j = 0
            try:
                for j in range(len(elems)):
                    e[slot] = elems[j]
                    brun(s, e)
            except Suspend as sus:
                sus.frames.append((elems, j))
                raise

        def resume(s, e, frames, k):
            elems, j = frames[k]
            try:
                bresume(s, e, frames, k - 1)
                for j in range(j + 1, len(elems)):  # noqa: B020 - the loop resumes from its saved j
                    e[slot] = elems[j]
                    brun(s, e)
            except Suspend as sus:
                sus.frames.append((elems, j))
                raise

        return run, resume

    @form("let", "(let VALUE 'VARIABLE ITEM)", Kind.FLOW, binds=True, role="binding")
    @reads_node
    def a_let(self, x: Let, scope: Scope) -> Item:
        """(let VALUE 'VARIABLE ITEM)

        Runs the item with VALUE, evaluated once, bound to 'VARIABLE."""
        val = self.c_value(x.value, scope)
        slot = self.new_slot()
        body = self.c_item(x.item, scope.bind(x.variable.name, slot, x.variable.hint))
        brun, bexpand = body.run, body.expand
        if body.has_choice:
            brun = suspendable(brun, None)

        def run(s, e):
            e[slot] = val(s, e)
            brun(s, e)

        def expand(s, e):
            e2 = e[:]
            e2[slot] = val(s, e)
            return bexpand(s, e2)

        item = Item(x, scope, run=run, expand=expand, has_choice=body.has_choice)
        if body.has_choice:
            item.resume = resume_into(body.resume, None)
        return item

    # -- choice and stages -----------------------------------------------------------------
    @form("choice", "(choice (ITEM ...))", Kind.FLOW, role="choice")
    @reads_node
    def a_choice(self, x: Choice, scope: Scope) -> Item:
        """(choice (ITEM ...))

        The current player picks one option among those the items offer (each option a
        sequence of actions); a choice with no option is an error."""
        self.option_depth += 1  # no choice or stage anywhere inside the options
        try:
            parts = [self.c_item(i, scope, allow_choice=False) for i in x.options]
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

        if self.simultaneous:  # every player's, in a simultaneous stage (simultaneous.py)
            return self.simultaneous_choice(x, scope, expand, span)
        live = tuple(sorted({v for v in scope.names().values() if type(v) is int}))
        choice_point = ChoicePoint(expand, span, x, live)
        item = Item(x, scope, run=choice, has_choice=True)
        item.resume = resume
        return item

    @form(
        "stage",
        "(stage player|team (end CONDITION) ITEM ...) | (stage player simultaneous (end CONDITION) ITEM ...)",
        Kind.FLOW,
        role="stage",
    )
    @reads_node
    def a_stage(self, x: Stage, scope: Scope) -> Item:
        """(stage player|team (end CONDITION) ITEM ...) | (stage player simultaneous (end CONDITION) ITEM ...)

        Pushes a copy of the player (team) cycle and runs the items turn after turn,
        advancing the cycle between turns, until the condition, checked before every turn,
        holds. In a simultaneous stage every player makes each choice, in seat order on the
        same state and unseen by the others, and the choices are applied together in seat order."""
        if x.simultaneous and not self.simultaneous:  # (its choices: simultaneous.py)
            return self.c_simultaneous_stage(x, scope)
        team = x.team
        end = self.c_bool(x.end, scope)
        body = self.sequence(x, scope, [self.c_item(i, scope) for i in x.body])
        span = x.span
        n = self.layout.nplayers
        w = self.weight(x)  # the work of one turn: its forms (its loops pay for their own turns)
        player_stage = not team  # a player stage's passes at depth 1 are the game's rounds (State.rounds)

        def limit(s):
            if s.steps > s.max_steps:
                raise StepLimitExceeded(f"the game did not end within {s.max_steps} steps", span, form="stage")
            out_of_work(s, span, "stage")

        brun = body.run
        if body.has_choice:
            item = self.stage_spine(x, scope, end, body, team, limit, w)
            return item

        def run(s, e):
            stack = s.tstack if team else s.pstack
            top = [stack[-1][0], None]
            stack.append(top)
            first = True
            while not end(s, e):
                if not first:
                    q = top[1]
                    if q is None:
                        top[0] = (top[0] + 1) % (s.nteams if team else n)
                    else:
                        top[0], top[1] = q, None
                first = False
                s.steps += 1
                if player_stage and len(stack) == 2:
                    s.rounds += 1
                s.work -= w
                if s.steps > s.max_steps or s.work < 0:
                    limit(s)
                brun(s, e)
            stack.pop()

        item = Item(x, scope, run=run)
        return item

    def stage_spine(self, x, scope, end, body: Item, team: bool, limit, w: int) -> Item:
        """A stage whose body holds a choice: the frame is the depth of its cycle in the
        stack (the cycle itself stays on the stack while the game waits for a decision)."""
        n = self.layout.nplayers
        player_stage = not team
        brun, bresume = body.run, body.resume

        def rounds(s, e, stack, top):
            """The stage's loop after a pass of its body: check the end, advance, run again."""
            while not end(s, e):
                q = top[1]
                if q is None:
                    top[0] = (top[0] + 1) % (s.nteams if team else n)
                else:
                    top[0], top[1] = q, None
                s.steps += 1
                if player_stage and len(stack) == 2:
                    s.rounds += 1
                s.work -= w
                if s.steps > s.max_steps or s.work < 0:
                    limit(s)
                brun(s, e)

        def run(s, e):
            stack = s.tstack if team else s.pstack
            top = [stack[-1][0], None]
            stack.append(top)
            d = len(stack) - 1
            try:
                if not end(s, e):
                    s.steps += 1
                    if player_stage and len(stack) == 2:
                        s.rounds += 1
                    s.work -= w
                    if s.steps > s.max_steps or s.work < 0:
                        limit(s)
                    brun(s, e)
                    rounds(s, e, stack, top)
            except Suspend as sus:
                sus.frames.append(d)
                raise
            stack.pop()

        def resume(s, e, frames, k):
            d = frames[k]
            stack = s.tstack if team else s.pstack
            try:
                bresume(s, e, frames, k - 1)
                rounds(s, e, stack, stack[d])
            except Suspend as sus:
                sus.frames.append(d)
                raise
            stack.pop()

        item = Item(x, scope, run=run, has_choice=True)
        item.resume = resume
        return item


mention(__name__, ("choice", "stage"))
REGISTRY = seal(FlowCompiler)
NODE_METHODS.update(REGISTRY.node_methods)
