"""The native engine's options of a choice: how each form offers options, registered by the form.

A choice lists its options in the Python engine's order (recycle/lang/forms/items.py: each item's
``expand``, ``compose`` for blocks); the choice's writer (recycle/lang/forms/form_choice.py)
writes a ``count_options`` function counting them and a ``run_option`` running the ``k``-th,
each option written by ``options`` here (through the writer: ``writer_flow.py``). How a form
takes part is an ``Offer``, registered under the class of the form's node in ``OFFERS``. An
action offers itself, once.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from ..lang.nodes import flow as fl
from ..lang.nodes.actions import Move, Repeat, RepeatAll
from ..lang.nodes.base import FormNode, Kind, Num
from ..lang.nodes.places import Bottom, Top
from .forms_flow import collection, loop_var, open_loop, sequence
from .purity import draws as uses_rng
from .registry import NativeUnsupported, form_label

OFFERS: dict[type, Offer] = {}  # the node class of a form -> how it offers options


def offer(*classes: type):
    """Register an ``Offer`` class (one instance) for the nodes of ``classes``."""

    def add(cls):
        for node_class in classes:
            if node_class in OFFERS:
                raise ValueError(f"two native offers for {node_class.__name__}")
            OFFERS[node_class] = cls()
        return cls

    return add


class Offer:
    """How a form offers options: an action, once (the default)."""

    def static(self, x) -> bool:
        """Exactly one option, run as a whole (an action or a block of actions)."""
        return True

    def single(self, x) -> bool:
        """One option or none (a compose of such items lists one option)."""
        return self.static(x)

    def options(self, w, x, sc, counting: bool) -> None:
        """Count the options ``x`` offers (``n``), or run the ``k``-th (then return)."""
        if not self.static(x):
            raise NativeUnsupported(f"{form_label(x)} as an option of a choice", x)
        one_option(w, x, sc, counting, [])

    def raw_count(self, w, x, sc, var: str) -> None:
        """Add to ``var`` how many options ``x`` lists before empty ones are dropped (an element
        of an ``any`` whose item offers none still lists one, empty: recycle/lang/forms/flow.py)."""
        if not self.static(x):
            raise NativeUnsupported(f"{form_label(x)} in a block of options", x)
        w.line(f"{var} += 1")

    def condition_draws(self, x) -> bool:
        """Does a condition of a conditional in ``x`` draw random numbers (``dry_run_block``)?"""
        return False

    def lists_empty(self, x) -> bool:
        """May ``x`` list an empty option (no action: the choice drops it)?"""
        return False

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        """Run the ``k``-th option ``x`` lists (empty ones included), then ``suffix``; return."""
        if not self.static(x):
            raise NativeUnsupported(f"{form_label(x)} in a block of options", x)
        one_option(w, x, sc, False, suffix)

    def offer_keys(self, w, x, sc, around: KeyAround | None = None) -> None:
        """Write the key of each option ``x`` offers (``key_options``; runtime_search.py), or
        decline the search where the options' steps are not known here. ``around``: the
        steps of a block's items before and after ``x`` (each option holds them too)."""
        if self.single(x):
            single_key(w, x, sc, around)
        else:
            decline_keys(w)

    def key_steps(self, w, x, sc, steps: str) -> None:
        """Add to the key ``h`` the steps of the one option ``x`` offers now, if it offers one
        (``steps`` counts them): Python's ``expand`` of the item (recycle/lang/items.py)."""
        if self.static(x):
            key_step(w, x, sc, steps)
        else:
            decline_keys(w)


class Forming(Offer):
    """A form that is not one fixed option: it offers its own (or none)."""

    def static(self, x) -> bool:
        return False

    def lists_empty(self, x) -> bool:
        return True  # unless the form says otherwise


ACTION, UNKNOWN = Offer(), Forming()


def offer_of(x) -> Offer:
    """The offer of a form: registered by its node's class, an action's, else none known."""
    got = OFFERS.get(type(x))
    if got is not None:
        return got
    return ACTION if isinstance(x, FormNode) and x.KIND == Kind.ACTION else UNKNOWN


def is_static(x) -> bool:
    return offer_of(x).static(x)


def is_single(x) -> bool:
    return offer_of(x).single(x)


def options(w, x, sc, counting: bool) -> None:
    offer_of(x).options(w, x, sc, counting)


def raw_count(w, x, sc, var: str) -> None:
    offer_of(x).raw_count(w, x, sc, var)


def raw_walk(w, x, sc, suffix: list) -> None:
    offer_of(x).raw_walk(w, x, sc, suffix)


@dataclass
class KeyAround:
    """The steps around the options of a block's item that forks: the hash (``prefix``, a
    local) and number (``steps``, a local) of the steps of the items before it, and the
    fixed items after it with their scope and the written-out names bound where each stands
    (recycle/lang/items.py, compose; ``naming``)."""

    prefix: str
    steps: str
    after: list


def offer_keys(w, x, sc, around: KeyAround | None = None) -> None:
    with naming(w, x):
        offer_of(x).offer_keys(w, x, sc, around)


def key_steps(w, x, sc, steps: str) -> None:
    with naming(w, x):
        offer_of(x).key_steps(w, x, sc, steps)


@contextmanager
def naming(w, x):
    """While the keys of ``x`` are written: the name its 'X stood for, when ``x`` is a part an
    (all NAMES 'X ...) was written out into (Python's keys hold 'X's value)."""
    bound = w.named_parts.get(id(x))
    if bound is not None:
        w.naming.append(bound)
    try:
        yield
    finally:
        if bound is not None:
            w.naming.pop()


def single_key(w, x, sc, around: KeyAround | None = None) -> None:
    """The key of the one option ``x`` offers now (none when it offers none, nor ``around``)."""
    steps = w.fresh("steps")
    w.line(f"{steps} = {around.steps if around else 0}")
    w.line(f"h = {around.prefix if around else 'KEY_SEED'}")
    if x is not None:
        key_steps(w, x, sc, steps)
    for node, scope, names in around.after if around else ():
        outer, w.naming = w.naming, list(names)  # (the names bound where that item stands)
        key_step(w, node, scope, steps)
        w.naming = outer
    with w.block(f"if {steps} > 0:"):
        w.line("j = put_key(tree, j, h)")


def key_step(w, x, sc, steps: str) -> None:
    """One step of an option's key (engine/options.py, ``option_key``): the item ``x``'s
    position and the values bound where it stands, hashed onto ``h``."""
    w.line(f"h = key_step(h, {x.span.line}, {x.span.column})")
    bound = {}
    for name, var in sc.bound:
        bound.pop(name, None)
        bound[name] = var  # (the innermost binding of a name, as Scope.names)
    for var in bound.values():
        if var.type == "view":  # a list bound: Python's key holds its first cards
            w.line(f"h = key_view(h, scratch, {var.name})")
        elif var.type == "groups":
            w.line(f"h = key_groups(h, scratch, {var.name})")
        else:
            w.line(f"h = key_add(h, {var.name})")
    for _var, name in w.naming:  # ('X of a written-out (all NAMES 'X ...): its name's id)
        w.line(f"h = key_add(h, {w.intern(name)})")
    w.line(f"{steps} += 1")


def decline_keys(w) -> None:
    w.line("ctr[STATUS] = DECLINE  # options whose keys native code does not write")


def one_option(w, x, sc, counting: bool, suffix: list) -> None:
    """One option: ``x`` (None: nothing of its own), then the actions of ``suffix``."""
    if counting:
        w.line("n += 1")
        return
    with w.block("if k == 0:"):
        if x is not None:
            w.item(x, sc)
        sequence(w, suffix, sc)
        w.line("return")
    w.line("k -= 1")


@contextmanager
def each_element(w, x, sc):
    """Inside the loop over the collection of (any|all COLLECTION 'X ITEM): yields the scope
    with 'X bound to the element."""
    name = loop_var(x)
    var = w.local(name)
    loop = collection(w, x.collection, sc, var)
    depth = w.fn.depth
    open_loop(w, loop)
    yield sc.bind(name, var, loop.type)
    w.fn.depth = depth


def sized(w, loop) -> str:
    """The code of a collection's size, its snapshot written first when the size needs it."""
    for line in loop.before if loop.size_before else ():
        w.line(line)
    return loop.size


def do_parts(x) -> list:
    return list(x.body)


# -- the forms -------------------------------------------------------------------------------


@offer(fl.When)
class _Conditional(Forming):
    """((CONDITION) ITEM): the item's options while the condition holds."""

    def single(self, x) -> bool:
        return is_single(x.item)

    def condition_draws(self, x) -> bool:
        return uses_rng(x.condition) or condition_draws(x.item)

    def lists_empty(self, x) -> bool:
        return offer_of(x.item).lists_empty(x.item)

    def options(self, w, x, sc, counting: bool) -> None:
        if uses_rng(x.condition):
            raise NativeUnsupported("a condition of an option that draws random numbers", x)
        with w.block(f"if {w.bool_(x.condition, sc)}:"):
            options(w, x.item, sc, counting)

    def raw_count(self, w, x, sc, var: str) -> None:
        with w.block(f"if {w.bool_(x.condition, sc)}:"):
            raw_count(w, x.item, sc, var)

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        with w.block(f"if {w.bool_(x.condition, sc)}:"):
            raw_walk(w, x.item, sc, suffix)

    def offer_keys(self, w, x, sc, around: KeyAround | None = None) -> None:
        with w.block(f"if {w.bool_(x.condition, sc)}:"):
            offer_keys(w, x.item, sc, around)

    def key_steps(self, w, x, sc, steps: str) -> None:
        with w.block(f"if {w.bool_(x.condition, sc)}:"):
            key_steps(w, x.item, sc, steps)


@offer(fl.Offer)
class _Any(Forming):
    """(any COLLECTION 'X ITEM): the item's options for each element."""

    def lists_empty(self, x) -> bool:
        # an element whose item offers none lists one empty option, unless the item is an any
        # of a fixed action (Python lists such pairs without: recycle/lang/forms/flow.py, c_each)
        return not (is_static(x.item) or self.pairs(x))

    def pairs(self, x) -> bool:
        """(any A 'X (any B 'Y ACTION)): an option per pair, none for an X with no Y."""
        item = x.item
        return offer_of(item) is self and is_static(item.item)

    def options(self, w, x, sc, counting: bool) -> None:
        name = loop_var(x)
        if uses_rng(x.collection):
            raise NativeUnsupported("a collection of options that draws random numbers", x)
        var = w.local(name)
        loop = collection(w, x.collection, sc, var)
        if counting and is_static(x.item):
            w.line(f"n += {sized(w, loop)}")
            return
        depth = w.fn.depth
        open_loop(w, loop)
        options(w, x.item, sc.bind(name, var, loop.type), counting)
        w.fn.depth = depth

    def offer_keys(self, w, x, sc, around: KeyAround | None = None) -> None:
        with each_element(w, x, sc) as inner:
            offer_keys(w, x.item, inner, around)

    def raw_count(self, w, x, sc, var: str) -> None:
        name = loop_var(x)
        elem = w.local(name)
        loop = collection(w, x.collection, sc, elem)
        if is_static(x.item):
            w.line(f"{var} += {sized(w, loop)}")
            return
        depth = w.fn.depth
        open_loop(w, loop)
        inner = w.fresh("listed")
        w.line(f"{inner} = 0")
        raw_count(w, x.item, sc.bind(name, elem, loop.type), inner)
        w.line(f"{var} += {inner}" if self.pairs(x) else f"{var} += max(1, {inner})")
        w.fn.depth = depth

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        name = loop_var(x)
        elem = w.local(name)
        loop = collection(w, x.collection, sc, elem)
        depth = w.fn.depth
        open_loop(w, loop)
        inner_sc = sc.bind(name, elem, loop.type)
        if is_static(x.item):
            one_option(w, x.item, inner_sc, False, suffix)
        else:
            inner = w.fresh("listed")
            w.line(f"{inner} = 0")
            raw_count(w, x.item, inner_sc, inner)
            if self.pairs(x):
                raw_walk(w, x.item, inner_sc, suffix)  # (an element with none lists nothing)
            else:
                with w.block(f"if {inner} == 0:"):
                    one_option(w, None, inner_sc, False, suffix)  # the element's empty option
                with w.block("else:"):
                    raw_walk(w, x.item, inner_sc, suffix)
        w.fn.depth = depth


@offer(fl.Let)
class _Let(Forming):
    """(let VALUE 'X ITEM): the item's options with the value bound."""

    def lists_empty(self, x) -> bool:
        return offer_of(x.item).lists_empty(x.item)

    def single(self, x) -> bool:
        return is_single(x.item)

    def condition_draws(self, x) -> bool:
        return uses_rng(x.value) or condition_draws(x.item)

    def bound(self, w, x, sc):
        """The scope of the let's item, its value bound to a fresh local (worked out again
        when the option runs: a value drawing random numbers would draw twice)."""
        if uses_rng(x.value):
            raise NativeUnsupported("a let of options whose value draws random numbers", x)
        name = loop_var(x)
        var = w.local(name)
        typ, code = w.value(x.value, sc)
        w.line(f"{var} = {code}")
        return sc.bind(name, var, typ)

    def options(self, w, x, sc, counting: bool) -> None:
        options(w, x.item, self.bound(w, x, sc), counting)

    def raw_count(self, w, x, sc, var: str) -> None:
        raw_count(w, x.item, self.bound(w, x, sc), var)

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        raw_walk(w, x.item, self.bound(w, x, sc), suffix)

    def offer_keys(self, w, x, sc, around: KeyAround | None = None) -> None:
        offer_keys(w, x.item, self.bound(w, x, sc), around)

    def key_steps(self, w, x, sc, steps: str) -> None:
        key_steps(w, x.item, self.bound(w, x, sc), steps)


@offer(fl.Loop)
class _All(Forming):
    """(all COLLECTION 'X ACTION): one option, the actions for every element, when the
    collection holds one; none when it is empty (recycle/lang/forms/flow.py, c_each)."""

    def single(self, x) -> bool:
        return is_static(x.item)

    def lists_empty(self, x) -> bool:
        return not self.single(x)

    def _if_any(self, w, x, sc, where: str):
        """The block under which the all offers its one option: the collection holds one."""
        if not self.single(x) or uses_rng(x.collection):
            raise NativeUnsupported(f"(all ...) {where}", x)
        loop = collection(w, x.collection, sc, w.local(loop_var(x)))
        return w.block(f"if {sized(w, loop)} > 0:")

    def options(self, w, x, sc, counting: bool) -> None:
        with self._if_any(w, x, sc, "as an option of a choice"):
            one_option(w, x, sc, counting, [])

    def raw_count(self, w, x, sc, var: str) -> None:
        with self._if_any(w, x, sc, "in a block of options"):
            w.line(f"{var} += 1")

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        with self._if_any(w, x, sc, "in a block of options"):
            one_option(w, x, sc, False, suffix)

    def key_steps(self, w, x, sc, steps: str) -> None:
        """A step per element: the action with the element bound (Python composes them)."""
        if not self.single(x) or uses_rng(x.collection):
            decline_keys(w)
            return
        with each_element(w, x, sc) as inner:
            key_step(w, x.item, inner, steps)


@offer(Repeat, RepeatAll)
class _Repeat(Offer):
    """(repeat N ACTION) is one option; (repeat all ...) and a computed count offer none when
    there is nothing to repeat (recycle/lang/forms/actions_state.py, whose listing charges the work
    of a computed count and stops at a count over MAX_REPEAT)."""

    def static(self, x) -> bool:
        n = x.times if isinstance(x, Repeat) else None
        return isinstance(n, Num) and int(n.value) >= 1 and is_static(x.body)

    def single(self, x) -> bool:
        return self.static(x) or isinstance(x, RepeatAll) or is_static(x.body)

    def _if_any(self, w, x, sc, listing: bool):
        """The block under which the repeat offers its one option."""
        if isinstance(x, RepeatAll):
            return w.block(f"if {repeat_source_size(w, x, sc)} > 0:")
        if not is_static(x.body):
            raise NativeUnsupported("(repeat ...) of a choice as an option", x)
        times = w.fresh("times")
        w.line(f"{times} = {w.int_(x.times, sc)}")
        if listing:
            with w.block(f"if {times} > MAX_REPEAT:"):
                w.line("ctr[STATUS] = RULE")
                w.line(f"{times} = 0")
            w.line(f"ctr[WORK] += max({times}, 0)")
        return w.block(f"if {times} > 0:")

    def options(self, w, x, sc, counting: bool) -> None:
        if self.static(x):
            one_option(w, x, sc, counting, [])
            return
        with self._if_any(w, x, sc, counting):
            one_option(w, x, sc, counting, [])

    def raw_count(self, w, x, sc, var: str) -> None:
        if self.static(x):
            w.line(f"{var} += 1")
            return
        with self._if_any(w, x, sc, True):
            w.line(f"{var} += 1")

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        if self.static(x):
            one_option(w, x, sc, False, suffix)
            return
        with self._if_any(w, x, sc, False):
            one_option(w, x, sc, False, suffix)

    def key_steps(self, w, x, sc, steps: str) -> None:
        """A fixed repeat is one step; another, its action once per time (Python composes them)."""
        if self.static(x):
            key_step(w, x, sc, steps)
            return
        if not is_static(x.body):
            decline_keys(w)
            return
        times = w.fresh("times")
        w.line(f"{times} = {repeat_source_size(w, x, sc) if isinstance(x, RepeatAll) else w.int_(x.times, sc)}")
        with w.block(f"for _ in range({times}):"):
            key_step(w, x.body, sc, steps)


def repeat_source_size(w, x, sc) -> str:
    move = x.body
    src = move.card if isinstance(move, Move) else None
    if not isinstance(src, (Top, Bottom)):
        raise NativeUnsupported("(repeat all ...) of this shape as an option", x)
    return f"lens[{w.phys(src.location, sc)}]"


def condition_draws(x) -> bool:
    """Does a condition of a conditional in ``x`` (a block of single items) draw random numbers?"""
    return offer_of(x).condition_draws(x)
