"""The native engine's options of a choice: how each form offers options, registered by the form.

A choice lists its options in the Python engine's order (recycle/lang/forms/items.py: each item's
``expand``, ``compose`` for blocks); the choice's writer (recycle/lang/forms/form_choice.py)
writes a ``count_options`` function counting them and a ``run_option`` running the ``k``-th,
each option written by ``options`` here (through the writer: ``writer_flow.py``). How a form
takes part is an ``Offer``, registered under the class of the form's node in ``OFFERS``: here
(``@offer``), or beside the form in its ``lang/forms/form_*.py`` module (``@native_offer``, a
mixin composed here over ``Forming``, reaching this machinery through ``OptionTools``). An
action offers itself, once.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from ..lang.forms import flow as _forms  # noqa: F401 - every form module imported: its offer registered
from ..lang.forms.offers import NATIVE_OFFERS
from ..lang.nodes.actions import Move, Repeat, RepeatAll
from ..lang.nodes.base import FormNode, Kind, Num
from ..lang.nodes.places import Bottom, Top
from .loops import collection, loop_var, open_loop, sequence
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


class OptionTools:
    """The option machinery an offer reaches through ``self``: the offers written beside their
    forms in lang (``recycle/lang/forms/offers.py``) may not import this module. Each names the
    function of this module it stands for."""

    @staticmethod
    def offer_of(x) -> Offer:
        """``offer_of``: how ``x`` offers options."""
        return offer_of(x)

    @staticmethod
    def is_static(x) -> bool:
        """``is_static``: does ``x`` offer exactly one option, run as a whole?"""
        return is_static(x)

    @staticmethod
    def is_single(x) -> bool:
        """``is_single``: does ``x`` offer one option or none?"""
        return is_single(x)

    @staticmethod
    def draws(x) -> bool:
        """Does ``x`` draw random numbers (``purity.draws``)?"""
        return uses_rng(x)

    @staticmethod
    def conditions_draw(x) -> bool:
        """``condition_draws``: does a condition of a conditional in ``x`` draw random numbers?"""
        return condition_draws(x)

    @staticmethod
    def list_options(w, x, sc, counting: bool) -> None:
        """``options``: count the options of ``x`` (``n``), or run the ``k``-th."""
        options(w, x, sc, counting)

    @staticmethod
    def count_listed(w, x, sc, var: str) -> None:
        """``raw_count``: add to ``var`` how many options ``x`` lists, empty ones included."""
        raw_count(w, x, sc, var)

    @staticmethod
    def walk_listed(w, x, sc, suffix: list) -> None:
        """``raw_walk``: run the ``k``-th option ``x`` lists, then ``suffix``; return."""
        raw_walk(w, x, sc, suffix)

    @staticmethod
    def write_keys(w, x, sc, around: KeyAround | None = None) -> None:
        """``offer_keys``: the key of each option ``x`` offers."""
        offer_keys(w, x, sc, around)

    @staticmethod
    def add_key_steps(w, x, sc, steps: str) -> None:
        """``key_steps``: add to the key the steps of the one option ``x`` offers now."""
        key_steps(w, x, sc, steps)

    @staticmethod
    def key_step(w, x, sc, steps: str) -> None:
        """``key_step``: one step of an option's key, the item ``x`` where it stands."""
        key_step(w, x, sc, steps)

    @staticmethod
    def decline_keys(w) -> None:
        """``decline_keys``: the search declines these options' keys."""
        decline_keys(w)

    @staticmethod
    def one_option(w, x, sc, counting: bool, suffix: list) -> None:
        """``one_option``: ``x`` as one option, then the actions of ``suffix``."""
        one_option(w, x, sc, counting, suffix)

    @staticmethod
    def each_element(w, x, sc):
        """``each_element``: inside the loop over the collection of an any or all."""
        return each_element(w, x, sc)

    @staticmethod
    def sized(w, loop) -> str:
        """``sized``: the code of a collection's size."""
        return sized(w, loop)


class Offer(OptionTools):
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
        of an ``any`` whose item offers none still lists one, empty: recycle/lang/forms/form_loops.py)."""
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


@offer(Repeat, RepeatAll)
class _Repeat(Offer):
    """(repeat N ACTION) is one option; (repeat all ...) and a computed count offer none when
    there is nothing to repeat (recycle/lang/forms/form_repeat.py, whose listing charges the work
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


def composed_offer(mixin: type, forming: bool) -> type:
    """The offer class of a mixin written beside its form (``recycle/lang/forms/offers.py``):
    over ``Forming`` (or ``Offer``). A mixin may not hide a tool of ``OptionTools`` (its own
    calls through ``self`` would silently reach it instead)."""
    hidden = sorted(set(vars(mixin)) & set(vars(OptionTools)) - {"__module__", "__doc__", "__dict__", "__weakref__"})
    if hidden:
        raise ValueError(f"the native offer {mixin.__name__} hides the option tools {', '.join(hidden)}")
    namespace = {"__doc__": mixin.__doc__, "__module__": mixin.__module__}
    return type(mixin.__name__, (mixin, Forming if forming else Offer), namespace)


def _compose_form_offers() -> None:
    """The offers written beside their forms, each made one of ``OFFERS``."""
    for node_class, (mixin, forming) in NATIVE_OFFERS.items():
        offer(node_class)(composed_offer(mixin, forming))


_compose_form_offers()
