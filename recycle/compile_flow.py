"""Compiling RECYCLE actions, choices, stages, setup and scoring into closures.

Every item compiles to an ``Item`` holding two closures: ``run(state, env)`` executes
it; ``expand(state, env)`` lists the options it contributes inside a ``choice``. A
``choice`` asks ``state.decide(options)`` (set by the rollout loop) for an index; ``None``
means "the state changed: list the options again".
An option is a list of steps ``(item, env)``: the actions are run only when chosen,
each in the state reached by the steps before it (RECYCLE.md 4.6). Items whose options
cannot depend on the state ("static" ones) are expanded without touching it.
"""

from __future__ import annotations

import itertools

from .compile_expr import (MAX_COLLECTION, MAX_INT, Const, ExprCompiler, Scope, element_hint, fail, head_of, is_atom,
                           is_location_form, is_storage_form, kw, rt_error, value_hint)
from .errors import StepLimitExceeded
from .runtime import MEMORY, WORK_PER_STEP, Card, MoveEvent, PLoc, StorageEvent, Suspend
from .syntax import COLON, INT, SYMBOL, VAR, Atom, SList

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


class FlowCompiler(ExprCompiler):
    """Turns the game's forms into Items; see ``recycle.game.PreparedGame`` for the result."""

    def __init__(self, game, nplayers: int, fast: bool = True):
        from .layout import Layout
        from .runtime import PlayerId, TeamId

        self.game = game
        self.option_depth = 0
        self.layout = Layout(nplayers)
        self.players = tuple(PlayerId(p) for p in range(nplayers))
        self.teams = tuple(TeamId(t) for t in range(nplayers))
        self.nslots = 0
        self.fast = fast

    # -- items -----------------------------------------------------------------------------
    def c_item(self, x, scope: Scope, allow_choice: bool = True) -> Item:
        """An action, block, conditional, stage or choice."""
        if not isinstance(x, SList) or not x.items:
            fail(f"expected an action, got {self.form_name(x) if isinstance(x, SList) else x}", x)
        first = x.items[0]
        if isinstance(first, SList) and len(x.items) == 2 and not is_location_form(first) \
                and not is_storage_form(first):
            return self.c_conditional(x, scope)
        h = head_of(x)
        method = getattr(self, "a_" + h.replace("-", "_"), None) if isinstance(h, str) and h.islower() else None
        if method is None:
            fail(f"expected an action or block, got {self.form_name(x)}", x)
        if h in ("choice", "stage") and (not allow_choice or self.option_depth):
            where = "inside the options of a choice" if self.option_depth else "here"
            fail(f"a ({h} ...) cannot stand {where} (only in a stage, at the top level or in a let)", x, h)
        return method(x, scope)

    def c_conditional(self, x: SList, scope: Scope) -> Item:
        cond = self.cache_pure(x.items[0], scope, self.c_bool(x.items[0], scope))
        sub = self.c_item(x.items[1], scope)
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
        """Items run one after another (do, stage bodies, the top level)."""
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
            return Item(x, scope, run=run, static=True)

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
                for r in runs[i + 1:]:
                    r(s, e)
            item.resume = resume
        return item

    def a_do(self, x: SList, scope: Scope) -> Item:
        if len(x.items) != 2 or not isinstance(x.items[1], SList):
            fail("expected (do (ITEM ...))", x, "do")
        inner = x.items[1]
        if inner.items and isinstance(inner.items[0], Atom):
            # (do (move ...)) with a single action not wrapped in a list
            return self.sequence(x, scope, [self.c_item(inner, scope)])
        return self.sequence(x, scope, [self.c_item(i, scope) for i in inner.items])

    def a_any(self, x: SList, scope: Scope) -> Item:
        return self.c_each(x, scope, branching=True)

    def a_all(self, x: SList, scope: Scope) -> Item:
        return self.c_each(x, scope, branching=False)

    def c_each(self, x: SList, scope: Scope, branching: bool) -> Item:
        h = head_of(x)
        if len(x.items) != 4 or not is_atom(x.items[2], VAR):
            fail(f"expected ({h} COLLECTION 'VARIABLE ITEM)", x, h)
        coll = self.c_coll(x.items[1], scope)
        slot = self.new_slot()
        body = self.c_item(x.items[3], scope.bind(x.items[2].value, slot, element_hint(x.items[1])))
        brun = body.run

        span = x.span

        def run(s, e):
            elems = list(coll(s, e))
            s.work -= len(elems)
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

            def expand(s, e):
                out = []
                elems = list(coll(s, e))
                s.work -= len(elems)
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
            item.run, item.resume = self.each_spine(coll, slot, body, span, h)
        if branching and body.static:
            item.any_parts = (coll, slot, body)
        elif branching and nested is not None and not mentions(x.items[3].items[1], x.items[2].value):
            # the inner collection does not depend on the outer element: options are pairs
            item.pair_parts = (coll, slot, nested[0], nested[1], nested[2])
        return item

    @staticmethod
    def each_spine(coll, slot, body: Item, span, h: str):
        """run and resume of a for-each whose body holds a choice: the frame is the
        collection's snapshot and the position in it."""
        brun, bresume = body.run, body.resume

        def run(s, e):
            elems = list(coll(s, e))
            s.work -= len(elems)
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
                for j in range(j + 1, len(elems)):
                    e[slot] = elems[j]
                    brun(s, e)
            except Suspend as sus:
                sus.frames.append((elems, j))
                raise
        return run, resume

    def a_let(self, x: SList, scope: Scope) -> Item:
        if len(x.items) != 4 or not is_atom(x.items[2], VAR):
            fail("expected (let VALUE 'VARIABLE ITEM)", x, "let")
        val = self.c_value(x.items[1], scope)
        slot = self.new_slot()
        body = self.c_item(x.items[3], scope.bind(x.items[2].value, slot, value_hint(x.items[1], scope)))
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
    def a_choice(self, x: SList, scope: Scope) -> Item:
        if len(x.items) != 2 or not isinstance(x.items[1], SList) or not x.items[1].items:
            fail("expected (choice (OPTION ...)) with at least one option", x, "choice")
        inner = x.items[1]
        self.option_depth += 1  # no choice or stage anywhere inside the options
        try:
            if isinstance(inner.items[0], Atom):
                parts = [self.c_item(inner, scope, allow_choice=False)]
            else:
                parts = [self.c_item(i, scope, allow_choice=False) for i in inner.items]
        finally:
            self.option_depth -= 1
        expanders = [p.expand for p in parts]
        span = x.span
        lazy = False

        if self.fast and all(p.static or p.any_parts is not None or p.pair_parts is not None for p in parts):
            # Options are listed lazily: a random player only needs their number, so only
            # the chosen one is built (see LazyOptions).
            lazy = True
            plan = [(STATIC, p) if p.static else (ANY, p.any_parts) if p.any_parts else (PAIRS, p.pair_parts)
                    for p in parts]

            def expand(s, e):
                return LazyOptions(s, e, plan, span)
        elif all(p.static or p.any_parts is not None for p in parts):
            # every option these produce has at least one action
            def expand(s, e):
                opts = []
                for ex in expanders:
                    opts.extend(ex(s, e))
                return opts
        else:
            def expand(s, e):
                opts = []
                for ex in expanders:
                    opts.extend(ex(s, e))
                return [o for o in opts if o]

        if uses_rng(x):
            # working out the options must not change the random numbers the chosen
            # option will draw when it runs
            plain_expand = expand

            def expand(s, e):
                rng_state = s.rng.getstate()
                try:
                    return plain_expand(s, e)
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
            for item, env in opts[i]:
                item.run(s, env)
            s.chooser = None

        def resume(s, e, frames, k):
            opts = s.options
            if opts is None:  # a copy of the state lists them again
                opts = expand(s, e)
            i = s.chosen
            s.waiting = s.options = None
            s.chooser = s.pstack[-1][0]
            for item, env in opts[i]:
                item.run(s, env)
            s.chooser = None

        if lazy and not uses_rng(x):
            generic = choice

            def choice(s, e):
                # a random player needs only the number of options: count them, draw, and
                # build the chosen one, with no options object (the rollout hot path)
                pick = s.pick
                if pick is None:
                    return generic(s, e)
                segments, n = lazy_segments(s, e, plan, span)
                if not n:
                    rt_error("a choice with no legal option", span, "choice")
                s.steps += 1
                if s.steps > s.max_steps:
                    raise StepLimitExceeded(f"the game did not end within {s.max_steps} steps", span,
                                            form="choice")
                s.decisions += 1
                s.options_total += n
                s.chooser = s.pstack[-1][0]
                for item, env in segment_option(segments, pick(n) if n > 1 else 0):
                    item.run(s, env)
                s.chooser = None
        choice_point = ChoicePoint(expand, span, x)
        item = Item(x, scope, run=choice, has_choice=True)
        item.resume = resume
        return item

    def a_stage(self, x: SList, scope: Scope) -> Item:
        items = x.items
        if len(items) < 4 or not kw(items[1], "player", "team") or head_of(items[2]) != "end" \
                or len(items[2].items) != 2:
            fail("expected (stage player|team (end CONDITION) ITEM ...)", x, "stage")
        team = items[1].value == "team"
        end = self.c_bool(items[2].items[1], scope)
        body = self.sequence(x, scope, [self.c_item(i, scope) for i in items[3:]])
        span = x.span
        n = self.layout.nplayers

        def limit(s):
            raise StepLimitExceeded(f"the game did not end within {s.max_steps} steps", span, form="stage")

        brun = body.run
        if body.has_choice:
            return self.stage_spine(x, scope, end, body, team, limit)

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
                if s.steps > s.max_steps:
                    limit(s)
                brun(s, e)
            stack.pop()
        return Item(x, scope, run=run)

    def stage_spine(self, x, scope, end, body: Item, team: bool, limit) -> Item:
        """A stage whose body holds a choice: the frame is the depth of its cycle in the
        stack (the cycle itself stays on the stack while the game waits for a decision)."""
        n = self.layout.nplayers
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
                if s.steps > s.max_steps:
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
                    if s.steps > s.max_steps:
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

    # -- card movement ---------------------------------------------------------------------
    def c_dest(self, x, scope: Scope):
        """(top|bottom|i LOCATION) as a destination → (index closure, position closure or str)."""
        if not isinstance(x, SList) or len(x.items) != 2:
            fail(f"expected a destination (top LOCATION), (bottom LOCATION) or (INDEX LOCATION), "
                 f"got {self.form_name(x)}", x)
        where, loc = x.items
        if not (is_location_form(loc) or is_atom(loc, VAR)):
            fail(f"cards can only be moved into a physical location (OWNER KIND NAME), not {self.form_name(loc)}",
                 loc)
        if is_location_form(loc) and loc.items[1].value == "mem":
            fail("cards cannot be moved into a mem location (use remember)", loc)
        idx = self.c_loc_index(loc, scope, "a location to move into")
        if kw(where, "top"):
            return idx, "top"
        if kw(where, "bottom"):
            return idx, "bottom"
        return idx, self.c_int(where, scope)

    def c_source(self, x, scope: Scope):
        """A card to take → closure returning (card, list it was picked from or None)."""
        if isinstance(x, SList) and len(x.items) == 2 and (kw(x.items[0], "top", "bottom") or is_atom(x.items[0], INT)
                                                          or is_atom(x.items[0], VAR)) \
                and not kw(x.items[1], "player", "team") and not self.is_groups_form(x.items[1]):
            where, loc = x.items
            cards = self.c_cards(loc, scope, first_group=True)
            span = x.span
            label = f"({where} ...)"
            if kw(where, "top"):
                def src(s, e):
                    lst = cards(s, e)
                    if not lst:
                        rt_error("move from an empty location", span, "top")
                    return lst[-1], lst
            elif kw(where, "bottom"):
                def src(s, e):
                    lst = cards(s, e)
                    if not lst:
                        rt_error("move from an empty location", span, "bottom")
                    return lst[0], lst
            else:
                ifn = self.c_int(where, scope)

                def src(s, e):
                    lst = cards(s, e)
                    i = ifn(s, e)
                    if not 0 <= i < len(lst):
                        rt_error(f"index {i} out of range for a location of {len(lst)} cards", span, label)
                    return lst[i], lst
            return src
        if head_of(x) == "actual":
            self.arity(x, 2)
            return self.c_source(x.items[1], scope)
        card = self.c_card(x, scope, optional=True)
        span = getattr(x, "span", None)

        def src_card(s, e):
            c = card(s, e)
            if c is None:
                rt_error("the card reference names no card", span)
            return c, None
        return src_card

    def a_move(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 3)
        layout = self.layout
        dst, pos = self.c_dest(x.items[2], scope)
        src_node = x.items[1]
        span = x.span
        # Fast path: (move (top (OWNER KIND NAME)) (top (OWNER KIND NAME))), the deal.
        if self.fast and isinstance(src_node, SList) and len(src_node.items) == 2 and kw(src_node.items[0], "top") \
                and is_location_form(src_node.items[1]) and pos == "top":
            sidx = self.c_loc_index(src_node.items[1], scope)
            infos = layout.infos
            const_src = self.static_loc_index(src_node.items[1], scope)
            const_dst = self.static_loc_index(x.items[2].items[1], scope)
            if const_src is not None:
                # the deal: from a fixed pile to the top of another
                def move_top_from_pile(s, e):
                    lst = s.locs[const_src]
                    if not lst:
                        rt_error(f"move from the empty location {infos[const_src].label}", span, "move")
                    c = lst.pop()
                    d = const_dst if const_dst is not None else dst(s, e)
                    s.locs[d].append(c)
                    s.card_loc[c] = d
                    if s.events is not None:
                        record_move(s, "move", c, const_src, d)
                item = Item(x, scope, run=move_top_from_pile, static=True)
                if self.stable_location(x.items[2].items[1], scope):
                    item.bulk = (sidx, dst)
                return item
            cur, const_dst = getattr(sidx, "loc_current", None), self.static_loc_index(x.items[2].items[1], scope)
            if cur is not None and const_dst is not None:
                # e.g. discarding the current player's hand onto a fixed pile
                def move_top_of_current(s, e):
                    i = cur + s.pstack[-1][0]
                    lst = s.locs[i]
                    if not lst:
                        rt_error(f"move from the empty location {infos[i].label}", span, "move")
                    c = lst.pop()
                    s.locs[const_dst].append(c)
                    s.card_loc[c] = const_dst
                    if s.events is not None:
                        record_move(s, "move", c, i, const_dst)
                item = Item(x, scope, run=move_top_of_current, static=True)
                item.bulk = (sidx, dst)
                return item

            def move_top(s, e):
                i = sidx(s, e)
                lst = s.locs[i]
                if not lst:
                    rt_error(f"move from the empty location {infos[i].label}", span, "move")
                c = lst.pop()
                d = dst(s, e)
                s.locs[d].append(c)
                s.card_loc[c] = d
                if s.events is not None:
                    record_move(s, "move", c, i, d)
            item = Item(x, scope, run=move_top, static=True)
            if self.stable_location(src_node.items[1], scope) and self.stable_location(x.items[2].items[1], scope):
                item.bulk = (sidx, dst)
            return item
        src = self.c_source(src_node, scope)
        infos = layout.infos

        def move(s, e):
            c, picked_from = src(s, e)
            i = s.card_loc[c]
            phys = s.locs[i]
            phys.remove(c)
            if picked_from is not None and picked_from is not phys and c in picked_from:
                if infos[i].visibility != MEMORY:
                    picked_from.remove(c)
            d = dst(s, e)
            place(s, d, c, pos, e, span)
            if s.events is not None:
                record_move(s, "move", c, i, d)
        return Item(x, scope, run=move, static=True)

    def stable_location(self, x, scope: Scope) -> bool:
        """Is ``x`` a physical location whose address no card movement can change?

        Its name is literal and its owner is the game, the current player or a variable."""
        if not is_location_form(x) or x.items[1].value == "mem":
            return False
        if not isinstance(self.storage_name(x.items[2], scope), str):
            return False
        o = x.items[0]
        return kw(o, "game") or is_atom(o, VAR) or (
            isinstance(o, SList) and len(o.items) == 2 and kw(o.items[0], "current") and kw(o.items[1], "player"))

    def a_swap(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 3)
        a, b = x.items[1], x.items[2]
        span = x.span
        infos = self.layout.infos

        def locish(n):
            return is_location_form(n)

        if locish(a) or locish(b):
            ia = self.c_loc_index(a, scope, "a location to swap")
            ib = self.c_loc_index(b, scope, "a location to swap")

            def swap_locs(s, e):
                i, j = ia(s, e), ib(s, e)
                if infos[i].visibility == MEMORY or infos[j].visibility == MEMORY:
                    rt_error("cannot swap a mem location", span, "swap")
                locs = s.locs
                li, lj = locs[i], locs[j]
                locs[i], locs[j] = lj, li
                cl = s.card_loc
                for c in lj:
                    cl[c] = i
                for c in li:
                    cl[c] = j
                if s.events is not None:
                    for c in li:
                        record_move(s, "swap", c, i, j)
                    for c in lj:
                        record_move(s, "swap", c, j, i)
            return Item(x, scope, run=swap_locs, static=True)
        ca = self.c_value(a, scope)
        cb = self.c_value(b, scope)

        def swap(s, e):
            va, vb = ca(s, e), cb(s, e)
            if isinstance(va, PLoc) and isinstance(vb, PLoc):
                i, j = va.idx, vb.idx
                li, lj = s.locs[i], s.locs[j]
                s.locs[i], s.locs[j] = lj, li
                for c in lj:
                    s.card_loc[c] = i
                for c in li:
                    s.card_loc[c] = j
                if s.events is not None:
                    for c in li:
                        record_move(s, "swap", c, i, j)
                    for c in lj:
                        record_move(s, "swap", c, j, i)
                return
            if not isinstance(va, Card) or not isinstance(vb, Card):
                rt_error("swap needs two cards or two locations", span, "swap")
            i, j = s.card_loc[va], s.card_loc[vb]
            li, lj = s.locs[i], s.locs[j]
            pa, pb = li.index(va), lj.index(vb)
            li[pa] = vb
            lj[pb] = va
            s.card_loc[va], s.card_loc[vb] = j, i
            if s.events is not None:
                record_move(s, "swap", va, i, j)
                record_move(s, "swap", vb, j, i)
        return Item(x, scope, run=swap, static=True)

    def a_remember(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 3)
        card = self.c_card(x.items[1], scope)
        if not isinstance(x.items[2], SList) or len(x.items[2].items) != 2:
            fail("expected (remember CARD (top|bottom|INDEX MEMLOCATION))", x.items[2], "remember")
        dst, pos = self.c_mem_dest(x.items[2], scope)
        span = x.span
        infos = self.layout.infos

        def remember(s, e):
            c = card(s, e)
            d = dst(s, e)
            if infos[d].visibility != MEMORY:
                rt_error(f"remember into {infos[d].label}, which is not a mem location", span, "remember")
            place(s, d, c, pos, e, span, memory=True)
            if s.events is not None:
                record_move(s, "remember", c, s.card_loc[c], d)
        return Item(x, scope, run=remember, static=True)

    def c_mem_dest(self, x: SList, scope: Scope):
        where, loc = x.items
        idx = self.c_loc_index(loc, scope)
        if kw(where, "top"):
            return idx, "top"
        if kw(where, "bottom"):
            return idx, "bottom"
        return idx, self.c_int(where, scope)

    def a_forget(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 2)
        src = self.c_source(x.items[1], scope)
        span = x.span
        infos = self.layout.infos

        def forget(s, e):
            c, lst = src(s, e)
            if lst is None:
                rt_error("forget needs a card of a mem location, e.g. (top (game mem SEEN))", span, "forget")
            for i in range(len(s.locs)):
                if s.locs[i] is lst:
                    if infos[i].visibility != MEMORY:
                        rt_error(f"forget from {infos[i].label}, which is not a mem location", span, "forget")
                    lst.remove(c)
                    if s.events is not None:
                        record_move(s, "forget", c, i, None)
                    return
            rt_error("forget needs a card of a mem location", span, "forget")
        return Item(x, scope, run=forget, static=True)

    def a_shuffle(self, x: SList, scope: Scope) -> Item:
        if len(x.items) == 4 and kw(x.items[1], "faro"):
            ia, ib = self.c_loc_index(x.items[2], scope), self.c_loc_index(x.items[3], scope)

            def faro(s, e):
                i, j = ia(s, e), ib(s, e)
                a, b = s.locs[i], s.locs[j]
                merged = [c for pair in itertools.zip_longest(a, b) for c in pair if c is not None]
                for c in b:
                    s.card_loc[c] = i
                    if s.events is not None:
                        record_move(s, "move", c, j, i)
                s.locs[i] = merged
                s.locs[j] = []
            return Item(x, scope, run=faro, static=True)
        self.arity(x, 2)
        if not is_location_form(x.items[1]) and not is_atom(x.items[1], VAR):
            fail("shuffle needs a physical location (OWNER KIND NAME)", x.items[1], "shuffle")
        idx = self.c_loc_index(x.items[1], scope)
        return Item(x, scope, run=lambda s, e: shuffle(s.locs[idx(s, e)], s.rng.random), static=True)

    # -- storage ---------------------------------------------------------------------------
    def a_set(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 3)
        target = x.items[1]
        sort = is_storage_form(target)
        if sort is None:
            fail(f"set needs a storage (OWNER sto|str|points NAME), got {self.form_name(target)}", target, "set")
        const, slot = self.c_storage_slot(sort, target, scope)
        layout = self.layout
        if sort == "points":
            return self.c_set_points(x, scope, slot)
        val = self.c_int(x.items[2], scope) if sort == "sto" else self.c_str(x.items[2], scope)
        attr = "ints" if sort == "sto" else "strs"
        if const is not None and sort == "sto":
            def set_const(s, e):
                v = val(s, e)
                s.ints[const] = v
                if s.events is not None:
                    record_storage(s, layout.slot_label("sto", const), v)
            return Item(x, scope, run=set_const, static=True)

        def set_(s, e):
            v = val(s, e)
            k = slot(s, e)
            getattr(s, attr)[k] = v
            if s.events is not None:
                record_storage(s, layout.slot_label(sort, k), v)
        return Item(x, scope, run=set_, static=True)

    def c_set_points(self, x: SList, scope: Scope, slot) -> Item:
        awards_node = x.items[2]
        if not isinstance(awards_node, SList) or not awards_node.items:
            fail("expected a list of awards (((KEY : VALUE) ... POINTS) ...)", awards_node, "set")
        compiled = []
        constant = True
        for award in awards_node.items:
            if not isinstance(award, SList) or len(award.items) < 2:
                fail("expected an award ((KEY : VALUE) ... POINTS)", award, "set")
            conds = []
            for c in award.items[:-1]:
                if not isinstance(c, SList) or len(c.items) != 3 or not is_atom(c.items[1], COLON):
                    fail("expected a condition (KEY : VALUE)", c, "set")
                k = self.storage_name(c.items[0], scope)
                v = self.storage_name(c.items[2], scope)
                constant &= isinstance(k, str) and isinstance(v, str)
                conds.append((k, v))
            pts_val = self.const_value(award.items[-1], scope)
            if pts_val is None:
                constant = False
                pts_val = self.c_int(award.items[-1], scope)
            compiled.append((conds, pts_val))
        game = self.game
        if constant:
            key = tuple((tuple(c), p) for c, p in compiled)

            def set_points_const(s, e):
                s.points[slot(s, e)] = game.point_map(key)
            return Item(x, scope, run=set_points_const, static=True)

        # the map is a function of the computed parts alone (Hearts: the suit led, set each
        # trick), so it is found by their values without building the whole key again; each
        # part is computed once, in the order of the awards
        computed = []
        for conds, p in compiled:
            for kv in conds:
                computed.extend(v for v in kv if not isinstance(v, (str, int)))
            if not isinstance(p, (str, int)):
                computed.append(p)
        by_values: dict = {}

        def build_key(values):
            it = iter(values)

            def val(v):
                return v if isinstance(v, (str, int)) else next(it)
            return tuple((tuple((val(k), val(v)) for k, v in conds), val(p)) for conds, p in compiled)

        if not self.fast:
            def set_points_plain(s, e):
                s.points[slot(s, e)] = game.point_map(build_key(tuple([f(s, e) for f in computed])))
            return Item(x, scope, run=set_points_plain, static=True)

        def set_points(s, e):
            values = tuple([f(s, e) for f in computed])
            pm = by_values.get(values)
            if pm is None:
                pm = game.point_map(build_key(values))
                if len(by_values) >= 10_000:
                    by_values.clear()
                by_values[values] = pm
            s.points[slot(s, e)] = pm
        return Item(x, scope, run=set_points, static=True)

    def a_inc(self, x: SList, scope: Scope) -> Item:
        return self.c_step(x, scope, 1)

    def a_dec(self, x: SList, scope: Scope) -> Item:
        return self.c_step(x, scope, -1)

    def c_step(self, x: SList, scope: Scope, sign: int) -> Item:
        if len(x.items) not in (2, 3) or is_storage_form(x.items[1]) != "sto":
            fail(f"expected ({x.items[0]} (OWNER sto NAME) AMOUNT?)", x, str(x.items[0]))
        const, slot = self.c_storage_slot("sto", x.items[1], scope)
        layout = self.layout
        amount = self.c_int(x.items[2], scope) if len(x.items) == 3 else (lambda s, e: 1)
        span, form = x.span, str(x.items[0])
        if const is not None:
            def step_const(s, e):
                v = s.ints[const] + sign * amount(s, e)
                if not -MAX_INT <= v <= MAX_INT:
                    rt_error("integer overflow (beyond 64 bits)", span, form)
                s.ints[const] = v
                if s.events is not None:
                    record_storage(s, layout.slot_label("sto", const), v)
            return Item(x, scope, run=step_const, static=True)

        def step(s, e):
            k = slot(s, e)
            v = s.ints[k] + sign * amount(s, e)
            if not -MAX_INT <= v <= MAX_INT:
                rt_error("integer overflow (beyond 64 bits)", span, form)
            s.ints[k] = v
            if s.events is not None:
                record_storage(s, layout.slot_label("sto", k), v)
        return Item(x, scope, run=step, static=True)

    # -- turn order ------------------------------------------------------------------------
    def a_cycle(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 3)
        which, target = x.items[1], x.items[2]
        if not kw(which, "next", "current"):
            fail("expected (cycle next|current WHO)", x, "cycle")
        n = self.layout.nplayers
        if kw(target, "current"):
            who = lambda s, e: s.pstack[-1][0]  # noqa: E731
        elif kw(target, "next"):
            def who(s, e):
                top = s.pstack[-1]
                return top[1] if top[1] is not None else (top[0] + 1) % n
        elif kw(target, "previous"):
            who = lambda s, e: (s.pstack[-1][0] - 1) % n  # noqa: E731
        else:
            who = self.c_player(target, scope)
        if which.value == "next":
            def cycle_next(s, e):
                s.pstack[-1][1] = int(who(s, e))
            return Item(x, scope, run=cycle_next, static=True)

        def cycle_current(s, e):
            p = int(who(s, e))
            top = s.pstack[-1]
            top[0], top[1] = p, None
        return Item(x, scope, run=cycle_current, static=True)

    def a_turn(self, x: SList, scope: Scope) -> Item:
        if len(x.items) != 2 or not kw(x.items[1], "pass"):
            fail("expected (turn pass)", x, "turn")
        return Item(x, scope, run=lambda s, e: None, static=True)

    def a_repeat(self, x: SList, scope: Scope) -> Item:
        self.arity(x, 3)
        span = x.span
        if kw(x.items[1], "all"):
            body_node = x.items[2]
            h = head_of(body_node)
            if h not in ("move", "forget"):
                fail("(repeat all ...) repeats a move or a forget", body_node, "repeat")
            body = self.c_item(body_node, scope)
            src_node = body_node.items[1]
            if isinstance(src_node, SList) and len(src_node.items) == 2 and head_of(src_node) == "actual":
                src_node = src_node.items[1]
            if not isinstance(src_node, SList) or len(src_node.items) != 2:
                fail("(repeat all (move (top|bottom LOCATION) ...)) needs a location to empty", src_node, "repeat")
            count = self.c_size(src_node.items[1], scope)
            brun = body.run

            def run_all(s, e):
                k = count(s, e)
                s.work -= k
                if s.work < 0:
                    out_of_work(s, span, "repeat")
                for _ in range(k):
                    brun(s, e)
            if body.bulk is not None and self.fast:
                run_all = bulk_repeat(count, body, span)

            def expand_all(s, e):
                k = count(s, e)
                return [[(body, e)] * k] if k else []
            return Item(x, scope, run=run_all, expand=expand_all)
        times = self.c_int(x.items[1], scope)
        const = self.const_value(x.items[1], scope)
        body = self.c_item(x.items[2], scope, allow_choice=False)
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
        if body.bulk is not None and self.fast:
            run = bulk_repeat(times, body, span)
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

    # -- creation --------------------------------------------------------------------------
    def a_create(self, x: SList, scope: Scope) -> Item:
        if len(x.items) >= 2 and kw(x.items[1], "deck"):
            return self.c_create_deck(x, scope)
        if len(x.items) >= 3 and kw(x.items[1], "teams"):
            return self.c_create_teams(x, scope)
        fail("expected (create deck ...) or (create teams ...) here", x, "create")

    def c_create_deck(self, x: SList, scope: Scope) -> Item:
        items = x.items[2:]
        deck_name = "DEFAULT"
        if items and isinstance(items[0], Atom) and items[0].is_name:
            deck_name = items[0].value
            items = items[1:]
        if len(items) != 2 or head_of(items[1]) != "deck":
            fail("expected (create deck NAME? LOCATION (deck ATTRIBUTE ...))", x, "create")
        if not is_location_form(items[0]):
            fail("a deck is created in a physical location (OWNER KIND NAME)", items[0], "create")
        dst = self.c_loc_index(items[0], scope)
        combos = deck_combinations(items[1])
        if len(combos) > MAX_COLLECTION:
            fail(f"this deck would have {len(combos)} cards (limit {MAX_COLLECTION})", items[1], "deck")
        game = self.game
        key = (x.span.line, x.span.column)

        def create(s, e):
            d = dst(s, e)
            ids = game.deal_cards(s, key, deck_name, combos, x.span)
            s.locs[d].extend(ids)
            s.card_loc.extend([d] * len(ids))
            if s.events is not None:
                for c in ids:
                    record_move(s, "create", c, None, d)
        return Item(x, scope, run=create, static=True)

    def c_create_teams(self, x: SList, scope: Scope) -> Item:
        teams = []
        n = self.layout.nplayers
        for t in x.items[2:]:
            if not isinstance(t, SList):
                fail("expected a team (P, P, ...)", t, "create")
            members = [i.value for i in t.items if is_atom(i, INT)]
            if not members or any(m >= n for m in members):
                fail(f"a team lists player numbers 0..{n - 1}", t, "create")
            teams.append(members)

        def create_teams(s, e):
            s.team_members = [m[:] for m in teams]
            s.team_of = [None] * n
            for t, members in enumerate(teams):
                for p in members:
                    s.team_of[p] = t
            s.nteams = len(teams)
        return Item(x, scope, run=create_teams, static=True)


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
    """Does the form draw random numbers (random, shuffle, ties of max/min)?"""
    if isinstance(x, SList):
        if head_of(x) in ("random", "shuffle", "max", "min"):
            return True
        return any(uses_rng(i) for i in x.items)
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


def record_move(s, action: str, c, src, dst) -> None:
    infos = s.game.layout.infos
    s.events.append(MoveEvent(s.steps, action, int(c), src, dst,
                              infos[src].visibility if src is not None else None,
                              infos[dst].visibility if dst is not None else None,
                              s.chooser, s.decisions))


def record_storage(s, label: str, value) -> None:
    s.events.append(StorageEvent(s.steps, label, value, s.chooser, s.decisions))


def deck_combinations(deck: SList) -> list[dict]:
    """The cards of a ``(deck ATTR ...)`` form: one attribute dict per card, in creation order."""
    trees = deck.items[1:]
    if not trees:
        fail("a deck needs at least one attribute", deck, "deck")
    per_tree = [expand_attr(t) for t in trees]
    out = []
    for combo in itertools.product(*per_tree):
        card: dict = {}
        for part in combo:
            card.update(part)
        out.append(card)
        if len(out) > MAX_COLLECTION:
            fail(f"this deck has more than {MAX_COLLECTION} cards", deck, "deck")
    return out


def expand_attr(tree) -> list[dict]:
    if not isinstance(tree, SList) or len(tree.items) < 2 or not (isinstance(tree.items[0], Atom)
                                                                   and tree.items[0].kind == SYMBOL):
        fail("expected an attribute (KEY (VALUE, VALUE ...)) or (KEY (VALUE ATTRIBUTE ...) ...)", tree, "deck")
    key = tree.items[0].value
    out: list[dict] = []
    for branch in tree.items[1:]:
        if not isinstance(branch, SList) or not branch.items:
            fail(f"expected values for {key}", branch, "deck")
        if all(isinstance(i, Atom) for i in branch.items):
            for i in branch.items:
                if i.kind == SYMBOL or i.kind == INT:
                    out.append({key: str(i.value)})
                elif i.kind != "comma":
                    fail(f"unexpected {i} in the values of {key}", i, "deck")
            continue
        value = branch.items[0]
        if not isinstance(value, Atom) or value.kind not in (SYMBOL, INT):
            fail(f"expected a value of {key}", value, "deck")
        subs = [expand_attr(t) for t in branch.items[1:]]
        for combo in itertools.product(*subs):
            card = {key: str(value.value)}
            for part in combo:
                card.update(part)
            out.append(card)
    return out


__all__ = ["FlowCompiler", "Item", "Const", "Scope"]
