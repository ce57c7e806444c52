"""The forms ``(any COLLECTION 'VARIABLE ITEM)``, ``(all COLLECTION 'VARIABLE ITEM)`` and
``(let VALUE 'VARIABLE ITEM)``: an item run with a variable bound, for each element of a
collection (``any`` inside a choice: an option per element) or to a value computed once.

Each form is kept whole in this one module, registered together as it is imported (``flow.py``
imports every ``form_*.py``): its reading of the s-expression (``read_any``, ``read_all``,
``read_let``: the shape checks and positioned errors), its meaning in the reference
interpreter (``LoopForms``: ``c_each`` for any and all, with ``each_spine`` when the body
holds a choice), its facts (the ``@form`` record) and its native writer (``write_each``,
``write_let``; their options in a choice: ``AnyOffer``, ``AllOffer``, ``LetOffer``, mixins of
the native engine's option machinery: ``offers.py``). The nodes are ``Offer``, ``Loop`` and
``Let`` (``lang/nodes/flow.py``).
"""

from __future__ import annotations

from ..nodes.base import Kind
from ..nodes.flow import Let, Loop, Offer
from ..nodes.sexpr import Scope, fail, head_of, is_atom
from ..syntax.reader import VAR, SList
from .items import MAX_OPTIONS, Item, compose, resume_into, suspendable, too_many_options
from .registry import family, form
from .runtime import SMALL, out_of_work
from .values import Suspend
from .offers import native_offer
from .writers import NativeUnsupported, native


def read_each(e, x: SList, scope: Scope, cls: type):
    """The node (``cls``: ``Offer`` or ``Loop``) of ``(any|all COLLECTION 'VARIABLE ITEM)``."""
    h = head_of(x)
    if len(x.items) != 4 or not is_atom(x.items[2], VAR):
        fail(f"expected ({h} COLLECTION 'VARIABLE ITEM)", x, h)
    return cls(*e.binder(x, scope, e.item), span=x.span, source=x)


def read_any(e, x: SList, scope: Scope) -> Offer:
    """The node of ``(any COLLECTION 'VARIABLE ITEM)``."""
    return read_each(e, x, scope, Offer)


def read_all(e, x: SList, scope: Scope) -> Loop:
    """The node of ``(all COLLECTION 'VARIABLE ITEM)``."""
    return read_each(e, x, scope, Loop)


def read_let(e, x: SList, scope: Scope) -> Let:
    """The node of ``(let VALUE 'VARIABLE ITEM)``."""
    if len(x.items) != 4 or not is_atom(x.items[2], VAR):
        fail("expected (let VALUE 'VARIABLE ITEM)", x, "let")
    return Let(*e.let_value(x, scope, e.item), span=x.span, source=x)


@family
class LoopForms:
    """any, all and let as flow in the reference interpreter (a mixin of ``FlowCompiler``)."""

    @form(
        "any",
        "(any COLLECTION 'VARIABLE ITEM)",
        Kind.FLOW,
        binds=True,
        loops=True,
        role="offer",
        node=Offer,
        reads=read_any,
    )
    def a_any(self, x: Offer, scope: Scope) -> Item:
        """(any COLLECTION 'VARIABLE ITEM)

        Inside a choice, one option per element bound to 'VARIABLE; elsewhere the item runs
        for each element, as with all."""
        return self.c_each(x, scope, branching=True)

    @form(
        "all",
        "(all COLLECTION 'VARIABLE ITEM)",
        Kind.FLOW,
        binds=True,
        loops=True,
        role="loop",
        node=Loop,
        reads=read_all,
    )
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

    @form(
        "let",
        "(let VALUE 'VARIABLE ITEM)",
        Kind.FLOW,
        binds=True,
        role="binding",
        node=Let,
        reads=read_let,
    )
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


# -- their native writers ------------------------------------------------------------------
# Each writes what the form's closure above does, counter for counter (``w``: the native
# engine's ``Writer``; the loop over a collection's snapshot is its ``collection``).


@native(Kind.FLOW, Loop, Offer)
def write_each(w, x: Loop | Offer, sc) -> None:
    """``(all|any COLLECTION 'X ITEM)`` outside a choice's options: the item for each element
    of the collection's snapshot, a unit of work each."""
    name = x.variable.name
    var = w.local(name)
    loop = w.collection(x.collection, sc, var)
    w.comment(x)
    depth = w.fn.depth
    w.open_loop(loop)
    w.line("ctr[WORK] += 1")
    w.item(x.item, sc.bind(name, var, loop.type))
    w.fn.depth = depth


@native(Kind.FLOW, Let)
def write_let(w, x: Let, sc) -> None:
    """``(let VALUE 'X ITEM)``: the value in a fresh local, then the item."""
    name = x.variable.name
    var = w.local(name)
    typ, code = w.value(x.value, sc)
    w.line(f"{var} = {code}")
    w.item(x.item, sc.bind(name, var, typ))


# how each offers options in a choice, natively (``offers.py``)
@native_offer(Offer)
class AnyOffer:
    """(any COLLECTION 'X ITEM) in a choice, natively: the item's options for each element (a
    mixin of the native engine's ``Forming``: ``offers.py``)."""

    def lists_empty(self, x) -> bool:
        # an element whose item offers none lists one empty option, unless the item is an any
        # of a fixed action (Python lists such pairs without: ``c_each``)
        return not (self.is_static(x.item) or self.pairs(x))

    def pairs(self, x) -> bool:
        """(any A 'X (any B 'Y ACTION)): an option per pair, none for an X with no Y."""
        item = x.item
        return self.offer_of(item) is self and self.is_static(item.item)

    def options(self, w, x, sc, counting: bool) -> None:
        name = x.variable.name
        if self.draws(x.collection):
            raise NativeUnsupported("a collection of options that draws random numbers", x)
        var = w.local(name)
        loop = w.collection(x.collection, sc, var)
        if counting and self.is_static(x.item):
            w.line(f"n += {self.sized(w, loop)}")
            return
        depth = w.fn.depth
        w.open_loop(loop)
        self.list_options(w, x.item, sc.bind(name, var, loop.type), counting)
        w.fn.depth = depth

    def offer_keys(self, w, x, sc, around=None) -> None:
        with self.each_element(w, x, sc) as inner:
            self.write_keys(w, x.item, inner, around)

    def raw_count(self, w, x, sc, var: str) -> None:
        name = x.variable.name
        elem = w.local(name)
        loop = w.collection(x.collection, sc, elem)
        if self.is_static(x.item):
            w.line(f"{var} += {self.sized(w, loop)}")
            return
        depth = w.fn.depth
        w.open_loop(loop)
        inner = w.fresh("listed")
        w.line(f"{inner} = 0")
        self.count_listed(w, x.item, sc.bind(name, elem, loop.type), inner)
        w.line(f"{var} += {inner}" if self.pairs(x) else f"{var} += max(1, {inner})")
        w.fn.depth = depth

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        name = x.variable.name
        elem = w.local(name)
        loop = w.collection(x.collection, sc, elem)
        depth = w.fn.depth
        w.open_loop(loop)
        inner_sc = sc.bind(name, elem, loop.type)
        if self.is_static(x.item):
            self.one_option(w, x.item, inner_sc, False, suffix)
        else:
            inner = w.fresh("listed")
            w.line(f"{inner} = 0")
            self.count_listed(w, x.item, inner_sc, inner)
            if self.pairs(x):
                self.walk_listed(w, x.item, inner_sc, suffix)  # (an element with none lists nothing)
            else:
                with w.block(f"if {inner} == 0:"):
                    self.one_option(w, None, inner_sc, False, suffix)  # the element's empty option
                with w.block("else:"):
                    self.walk_listed(w, x.item, inner_sc, suffix)
        w.fn.depth = depth


@native_offer(Let)
class LetOffer:
    """(let VALUE 'X ITEM) in a choice, natively: the item's options with the value bound (a
    mixin of the native engine's ``Forming``: ``offers.py``)."""

    def lists_empty(self, x) -> bool:
        return self.offer_of(x.item).lists_empty(x.item)

    def single(self, x) -> bool:
        return self.is_single(x.item)

    def condition_draws(self, x) -> bool:
        return self.draws(x.value) or self.conditions_draw(x.item)

    def bound(self, w, x, sc):
        """The scope of the let's item, its value bound to a fresh local (worked out again
        when the option runs: a value drawing random numbers would draw twice)."""
        if self.draws(x.value):
            raise NativeUnsupported("a let of options whose value draws random numbers", x)
        name = x.variable.name
        var = w.local(name)
        typ, code = w.value(x.value, sc)
        w.line(f"{var} = {code}")
        return sc.bind(name, var, typ)

    def options(self, w, x, sc, counting: bool) -> None:
        self.list_options(w, x.item, self.bound(w, x, sc), counting)

    def raw_count(self, w, x, sc, var: str) -> None:
        self.count_listed(w, x.item, self.bound(w, x, sc), var)

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        self.walk_listed(w, x.item, self.bound(w, x, sc), suffix)

    def offer_keys(self, w, x, sc, around=None) -> None:
        self.write_keys(w, x.item, self.bound(w, x, sc), around)

    def key_steps(self, w, x, sc, steps: str) -> None:
        self.add_key_steps(w, x.item, self.bound(w, x, sc), steps)


@native_offer(Loop)
class AllOffer:
    """(all COLLECTION 'X ACTION) in a choice, natively: one option, the actions for every
    element, when the collection holds one; none when it is empty (``c_each``; a mixin of the
    native engine's ``Forming``: ``offers.py``)."""

    def single(self, x) -> bool:
        return self.is_static(x.item)

    def lists_empty(self, x) -> bool:
        return not self.single(x)

    def _if_any(self, w, x, sc, where: str):
        """The block under which the all offers its one option: the collection holds one."""
        if not self.single(x) or self.draws(x.collection):
            raise NativeUnsupported(f"(all ...) {where}", x)
        loop = w.collection(x.collection, sc, w.local(x.variable.name))
        return w.block(f"if {self.sized(w, loop)} > 0:")

    def options(self, w, x, sc, counting: bool) -> None:
        with self._if_any(w, x, sc, "as an option of a choice"):
            self.one_option(w, x, sc, counting, [])

    def raw_count(self, w, x, sc, var: str) -> None:
        with self._if_any(w, x, sc, "in a block of options"):
            w.line(f"{var} += 1")

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        with self._if_any(w, x, sc, "in a block of options"):
            self.one_option(w, x, sc, False, suffix)

    def key_steps(self, w, x, sc, steps: str) -> None:
        """A step per element: the action with the element bound (Python composes them)."""
        if not self.single(x) or self.draws(x.collection):
            self.decline_keys(w)
            return
        with self.each_element(w, x, sc) as inner:
            self.key_step(w, x.item, inner, steps)
