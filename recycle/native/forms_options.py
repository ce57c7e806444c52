"""Native writers of choices: how each form offers options, registered by the form.

A choice lists its options in the Python engine's order (recycle/lang/items.py: each item's
``expand``, ``compose`` for blocks); the native ``count_options`` function counts them and
``run_option`` runs the ``k``-th. How a form takes part is an ``Offer``, registered under the
form's head in ``OFFERS`` (``recycle/lang/writers.py``'s table, sealed against recycle's
registry); a conditional is found by its shape. An action offers itself, once.
"""

from __future__ import annotations

from ..lang.flow import REGISTRY
from ..lang.forms import Kind
from ..lang.items import uses_rng
from ..lang.shapes import head_of, kw
from ..lang.syntax import INT, Atom, SList
from ..lang.writers import Writers
from .forms_flow import collection, loop_var, open_loop, sequence
from .registry import native, shape_of, CONDITIONAL
from .writer import NativeUnsupported

OFFERS = Writers("native options")


def offer(*heads: str):
    """Register an ``Offer`` class (one instance) for the forms ``heads``."""
    def add(cls):
        OFFERS.register(Kind.FLOW, *heads)(cls())
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
            raise NativeUnsupported(f"({head_of(x)} ...) as an option of a choice", x)
        one_option(w, x, sc, counting, [])

    def raw_count(self, w, x, sc, var: str) -> None:
        """Add to ``var`` how many options ``x`` lists before empty ones are dropped (an element
        of an ``any`` whose item offers none still lists one, empty: recycle/lang/flow.py)."""
        if not self.static(x):
            raise NativeUnsupported(f"({head_of(x)} ...) in a block of options", x)
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
            raise NativeUnsupported(f"({head_of(x)} ...) in a block of options", x)
        one_option(w, x, sc, False, suffix)


class Forming(Offer):
    """A form that is not one fixed option: it offers its own (or none)."""

    def static(self, x) -> bool:
        return False

    def lists_empty(self, x) -> bool:
        return True  # unless the form says otherwise


ACTION, UNKNOWN = Offer(), Forming()


def offer_of(x) -> Offer:
    """The offer of a form: registered by its head, a conditional by its shape, an action's."""
    if not isinstance(x, SList) or not x.items:
        return UNKNOWN
    if shape_of(x) == CONDITIONAL:
        return CONDITIONAL_OFFER
    h = head_of(x)
    got = OFFERS.get(Kind.FLOW, h)
    if got is not None:
        return got
    return ACTION if h is not None and REGISTRY.lookup(Kind.ACTION, h) is not None else UNKNOWN


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


def sized(w, loop) -> str:
    """The code of a collection's size, its snapshot written first when the size needs it."""
    for line in loop.before if loop.size_before else ():
        w.line(line)
    return loop.size


def do_parts(x) -> list:
    inner = x.items[1]
    return [inner] if inner.items and isinstance(inner.items[0], Atom) else list(inner.items)


# -- the forms -------------------------------------------------------------------------------

class _Conditional(Forming):
    """((CONDITION) ITEM): the item's options while the condition holds."""

    def single(self, x) -> bool:
        return is_single(x.items[1])

    def condition_draws(self, x) -> bool:
        return uses_rng(x.items[0]) or condition_draws(x.items[1])

    def lists_empty(self, x) -> bool:
        return offer_of(x.items[1]).lists_empty(x.items[1])

    def options(self, w, x, sc, counting: bool) -> None:
        if uses_rng(x.items[0]):
            raise NativeUnsupported("a condition of an option that draws random numbers", x)
        with w.block(f"if {w.bool_(x.items[0], sc)}:"):
            options(w, x.items[1], sc, counting)

    def raw_count(self, w, x, sc, var: str) -> None:
        with w.block(f"if {w.bool_(x.items[0], sc)}:"):
            raw_count(w, x.items[1], sc, var)

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        with w.block(f"if {w.bool_(x.items[0], sc)}:"):
            raw_walk(w, x.items[1], sc, suffix)


CONDITIONAL_OFFER = _Conditional()


@offer("any")
class _Any(Forming):
    """(any COLLECTION 'X ITEM): the item's options for each element."""

    def lists_empty(self, x) -> bool:
        # an element whose item offers none lists one empty option, unless the item is an any
        # of a fixed action (Python lists such pairs without: recycle/lang/flow.py, c_each)
        return len(x.items) != 4 or not (is_static(x.items[3]) or self.pairs(x))

    def pairs(self, x) -> bool:
        """(any A 'X (any B 'Y ACTION)): an option per pair, none for an X with no Y."""
        item = x.items[3] if len(x.items) == 4 else None
        return offer_of(item) is self and len(item.items) == 4 and is_static(item.items[3])

    def options(self, w, x, sc, counting: bool) -> None:
        name = loop_var(x)
        if uses_rng(x.items[1]):
            raise NativeUnsupported("a collection of options that draws random numbers", x)
        var = w.local(name)
        loop = collection(w, x.items[1], sc, var)
        if counting and is_static(x.items[3]):
            w.line(f"n += {sized(w, loop)}")
            return
        depth = w.fn.depth
        open_loop(w, loop)
        options(w, x.items[3], sc.bind(name, var, loop.type), counting)
        w.fn.depth = depth

    def raw_count(self, w, x, sc, var: str) -> None:
        name = loop_var(x)
        elem = w.local(name)
        loop = collection(w, x.items[1], sc, elem)
        if is_static(x.items[3]):
            w.line(f"{var} += {sized(w, loop)}")
            return
        depth = w.fn.depth
        open_loop(w, loop)
        inner = w.fresh("listed")
        w.line(f"{inner} = 0")
        raw_count(w, x.items[3], sc.bind(name, elem, loop.type), inner)
        w.line(f"{var} += {inner}" if self.pairs(x) else f"{var} += max(1, {inner})")
        w.fn.depth = depth

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        name = loop_var(x)
        elem = w.local(name)
        loop = collection(w, x.items[1], sc, elem)
        depth = w.fn.depth
        open_loop(w, loop)
        inner_sc = sc.bind(name, elem, loop.type)
        if is_static(x.items[3]):
            one_option(w, x.items[3], inner_sc, False, suffix)
        else:
            inner = w.fresh("listed")
            w.line(f"{inner} = 0")
            raw_count(w, x.items[3], inner_sc, inner)
            if self.pairs(x):
                raw_walk(w, x.items[3], inner_sc, suffix)  # (an element with none lists nothing)
            else:
                with w.block(f"if {inner} == 0:"):
                    one_option(w, None, inner_sc, False, suffix)  # the element's empty option
                with w.block("else:"):
                    raw_walk(w, x.items[3], inner_sc, suffix)
        w.fn.depth = depth


@offer("let")
class _Let(Forming):
    """(let VALUE 'X ITEM): the item's options with the value bound."""

    def lists_empty(self, x) -> bool:
        return len(x.items) != 4 or offer_of(x.items[3]).lists_empty(x.items[3])

    def options(self, w, x, sc, counting: bool) -> None:
        name = loop_var(x)
        var = w.local(name)
        typ, code = w.value(x.items[1], sc)
        w.line(f"{var} = {code}")
        options(w, x.items[3], sc.bind(name, var, typ), counting)


@offer("all")
class _All(Forming):
    """(all COLLECTION 'X ACTION): one option, the actions for every element, when the
    collection holds one; none when it is empty (recycle/lang/flow.py, c_each)."""

    def single(self, x) -> bool:
        return len(x.items) == 4 and is_static(x.items[3])

    def lists_empty(self, x) -> bool:
        return not self.single(x)

    def options(self, w, x, sc, counting: bool) -> None:
        if not self.single(x) or uses_rng(x.items[1]):
            raise NativeUnsupported("(all ...) as an option of a choice", x)
        loop = collection(w, x.items[1], sc, w.local(loop_var(x)))
        with w.block(f"if {sized(w, loop)} > 0:"):
            one_option(w, x, sc, counting, [])


@offer("repeat")
class _Repeat(Offer):
    """(repeat N ACTION) is one option; (repeat all ...) and a computed count offer none when
    there is nothing to repeat (recycle/lang/actions_state.py)."""

    def static(self, x) -> bool:
        n = x.items[1] if len(x.items) == 3 else None
        return isinstance(n, Atom) and n.kind == INT and int(n.value) >= 1 and is_static(x.items[2])

    def single(self, x) -> bool:
        return self.static(x) or len(x.items) == 3 and kw(x.items[1], "all")

    def options(self, w, x, sc, counting: bool) -> None:
        if self.static(x):
            one_option(w, x, sc, counting, [])
            return
        if not kw(x.items[1], "all"):
            raise NativeUnsupported("(repeat ...) as an option of a choice", x)
        # one option while the location to empty holds a card, none when it is empty
        with w.block(f"if {repeat_source_size(w, x, sc)} > 0:"):
            one_option(w, x, sc, counting, [])

    def raw_count(self, w, x, sc, var: str) -> None:
        if self.static(x):
            w.line(f"{var} += 1")
            return
        if not kw(x.items[1], "all"):
            raise NativeUnsupported("(repeat ...) in a block of options", x)
        with w.block(f"if {repeat_source_size(w, x, sc)} > 0:"):
            w.line(f"{var} += 1")

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        if self.static(x):
            one_option(w, x, sc, False, suffix)
            return
        if not kw(x.items[1], "all"):
            raise NativeUnsupported("(repeat ...) in a block of options", x)
        with w.block(f"if {repeat_source_size(w, x, sc)} > 0:"):
            one_option(w, x, sc, False, suffix)


def repeat_source_size(w, x, sc) -> str:
    move = x.items[2]
    src = move.items[1] if isinstance(move, SList) and len(move.items) == 3 and kw(move.items[0], "move") else None
    if not (isinstance(src, SList) and len(src.items) == 2 and kw(src.items[0], "top", "bottom")):
        raise NativeUnsupported("(repeat all ...) of this shape as an option", x)
    return f"lens[{w.phys(src.items[1], sc)}]"


@offer("do")
class _Block(Offer):
    """(do (ITEM ...)): a block of actions is one option; otherwise its items compose
    (recycle/lang/items.py, compose)."""

    def static(self, x) -> bool:
        inner = x.items[1] if len(x.items) == 2 else None
        if not isinstance(inner, SList):
            return False
        return all(is_static(i) for i in do_parts(x))

    def single(self, x) -> bool:
        return len(x.items) == 2 and isinstance(x.items[1], SList) and all(is_single(p) for p in do_parts(x))

    def condition_draws(self, x) -> bool:
        return len(x.items) == 2 and isinstance(x.items[1], SList) and any(condition_draws(p) for p in do_parts(x))

    def lists_empty(self, x) -> bool:
        return not self.static(x) and not any(is_static(p) for p in do_parts(x))

    def options(self, w, x, sc, counting: bool) -> None:
        if self.static(x):
            one_option(w, x, sc, counting, [])
            return
        parts = do_parts(x)
        if len(parts) == 1:
            options(w, parts[0], sc, counting)
            return
        if not is_static(parts[0]) and all(is_static(p) for p in parts[1:]):
            composed(w, parts[0], parts[1:], sc, counting)
            return
        forks = [i for i, p in enumerate(parts) if not is_single(p)]
        if len(forks) <= 1 and all(is_static(p) for p in (parts[forks[0] + 1:] if forks else ())):
            dry_run_block(w, x, parts, forks[0] if forks else None, sc, counting)
            return
        count = block_functions(w, x, sc, drop_empty=True)
        if counting:
            w.line(f"n += {count[0]}")
            return
        walk_block(w, count, [], sc)

    def raw_count(self, w, x, sc, var: str) -> None:
        if self.static(x):
            w.line(f"{var} += 1")
            return
        w.line(f"{var} += {block_functions(w, x, sc)[0]}")

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        if self.static(x):
            one_option(w, x, sc, False, suffix)
            return
        walk_block(w, block_functions(w, x, sc), suffix, sc)


# -- a block of several items that fork: Python's compose, depth first -------------------------

def block_functions(w, x, sc, drop_empty: bool = False) -> tuple[str, str]:
    """(the call counting the options of the block ``x``, the call running its ``k``-th): the
    Python engine's ``compose`` (recycle/lang/items.py) over items of which any number fork.
    Depth first: an item's options are listed in the state the branch so far leaves (its
    items run, kept and put back with ``dry_state`` at a level of its own), an item with none
    is passed over, and every option of one continues with the next item. ``drop_empty``: as
    the choice counts them, without an empty option (a block of no action of its own whose
    every item offered none)."""
    parts = do_parts(x)
    if any(offer_of(p).condition_draws(p) or (not is_single(p) and uses_rng(p)) for p in parts):
        raise NativeUnsupported("a block of options whose listing draws random numbers", x)
    # the one branch that can be empty is the one where every item offered none, unless an
    # item lists empty options of its own (then emptiness is not known when written)
    keep_untaken = not drop_empty or any(is_static(p) for p in parts)
    if not keep_untaken and any(offer_of(p).lists_empty(p) for p in parts if not is_single(p)):
        raise NativeUnsupported("a block of options that may list empty options of its items", x)
    params = sc.params()
    subs = {}
    for f, part in enumerate(parts):
        if not is_single(part):
            for suffixed in (False, True):
                after = parts[f + 1:] if suffixed and not any(not is_single(p) for p in parts[f + 1:]) else []
                with w.function("option_of", params + ["k"],
                                f"Option k of the item at line {part.span.line}, as a branch of a block.",
                                inline=False):
                    raw_walk(w, part, sc, after)
                subs[f, suffixed] = w.fns[-1]
    level = w.dry_level
    w.dry_level += 1
    with w.function("dry_count", params, f"How many options the block at line {x.span.line} lists (a dry run).",
                    inline=False):
        w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], False)")
        w.line("total = 0")
        _count_from(w, parts, 0, subs, sc, "total", params, keep_untaken)
        w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], True)")
        w.line("return total")
    count = w.fns[-1].call(*params)
    w.dry_level = level
    with w.function("run_block", params + ["k"], f"Run option k of the block at line {x.span.line}.",
                    inline=False):
        _run_from(w, parts, 0, subs, sc, params)
    run = w.fns[-1]
    return count, run.call(*params, "k")


def _next_fork(parts: list, p: int):
    return next((f for f in range(p, len(parts)) if not is_single(parts[f])), None)


def _count_from(w, parts: list, p: int, subs: dict, sc, total: str, params: list, taken: bool) -> None:
    """Add to ``total`` the branches from item ``p`` on (the branch so far has run; ``taken``:
    it holds an action, or empty branches count)."""
    f = _next_fork(parts, p)
    if f is None:
        if taken:
            w.line(f"{total} += 1")  # the branch is complete (the items left need not run to count)
        return
    sequence(w, parts[p:f], sc)
    with w.block("if ctr[STATUS] == 0:"):
        listed = w.fresh("listed")
        w.line(f"{listed} = 0")
        raw_count(w, parts[f], sc, listed)
        with w.block(f"if {listed} == 0:"):
            _count_from(w, parts, f + 1, subs, sc, total, params, taken)  # an item with none is passed over
            w.line("pass")
        if _next_fork(parts, f + 1) is None:
            with w.block("else:"):
                w.line(f"{total} += {listed}")
            return
        with w.block("else:"):
            level = w.dry_level
            w.dry_level += 1
            j = w.fresh("j")
            with w.block(f"for {j} in range({listed}):"):
                w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], False)")
                w.line(subs[f, False].call(*params, j))
                with w.block("if ctr[STATUS] == 0:"):
                    _count_from(w, parts, f + 1, subs, sc, total, params, True)
                    w.line("pass")
                w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], True)")
            w.dry_level = level


def _run_from(w, parts: list, p: int, subs: dict, sc, params: list) -> None:
    """Run branch ``k`` from item ``p`` on, for real (``k`` counts the branches from here)."""
    f = _next_fork(parts, p)
    if f is None:
        sequence(w, parts[p:], sc)
        w.line("return")
        return
    sequence(w, parts[p:f], sc)
    w.check()
    listed = w.fresh("listed")
    w.line(f"{listed} = 0")
    raw_count(w, parts[f], sc, listed)
    with w.block(f"if {listed} == 0:"):
        _run_from(w, parts, f + 1, subs, sc, params)
    if _next_fork(parts, f + 1) is None:
        w.line(subs[f, True].call(*params, "k"))  # option k of the last item that forks, then the rest
        w.line("return")
        return
    j, size = w.fresh("j"), w.fresh("size")
    level = w.dry_level
    w.dry_level += 1
    with w.block(f"for {j} in range({listed}):"):
        w.line(f"{size} = 0")
        w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], False)")
        w.line(subs[f, False].call(*params, j))
        with w.block("if ctr[STATUS] == 0:"):
            _count_from(w, parts, f + 1, subs, sc, size, params, True)
            w.line("pass")
        w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], True)")
        with w.block(f"if k < {size}:"):
            w.dry_level = level
            w.line(subs[f, False].call(*params, j))
            w.check()
            _run_from(w, parts, f + 1, subs, sc, params)
            w.dry_level = level + 1
        w.line(f"k -= {size}")
    w.dry_level = level
    w.line("return")


def walk_block(w, calls: tuple, suffix: list, sc) -> None:
    """Run option ``k`` of a block (``block_functions``) and ``suffix`` when ``k`` is one of its
    options (then return), else count its options off ``k``."""
    count, run = calls
    size = w.fresh("size")
    w.line(f"{size} = {count}")
    w.check()
    with w.block(f"if k < {size}:"):
        w.line(run)
        w.check()
        sequence(w, suffix, sc)
        w.line("return")
    w.line(f"k -= {size}")


# -- blocks of items, and the choice ----------------------------------------------------------

def composed(w, first, suffix: list, sc, counting: bool) -> None:
    """(do (ITEM ACTION ...)) as an option, ITEM offering options of its own: each of them,
    then the actions (recycle/lang/items.py, compose; no dry run is needed, the actions come
    after). None or one listed: a single option."""
    listed = w.fresh("listed")
    w.line(f"{listed} = 0")
    raw_count(w, first, sc, listed)
    if counting:
        w.line(f"n += max(1, {listed})")
        return
    with w.block(f"if {listed} <= 1:"):
        with w.block("if k == 0:"):
            raw_walk(w, first, sc, suffix)  # (returns when there is one)
            sequence(w, suffix, sc)
            w.line("return")
        w.line("k -= 1")
    with w.block("else:"):
        raw_walk(w, first, sc, suffix)


def condition_draws(x) -> bool:
    """Does a condition of a conditional in ``x`` (a block of single items) draw random numbers?"""
    return offer_of(x).condition_draws(x)


def dry_run_block(w, x, parts: list, fork: int | None, sc, counting: bool) -> None:
    """(do (ITEM ...)) as an option where the items before the one that forks (``fork``, or
    none) need the state: the Python engine lists its options by running them on the state
    and putting it back (a dry run, recycle/lang/items.py, compose). So does this: the state is
    kept (``dry_state``), the items before the fork run, the fork's options are counted, the
    state is put back. An error in the dry run stops the game as Python's
    listing does (Python then plays it again for the message)."""
    before, first, after = (parts, None, []) if fork is None else (parts[:fork], parts[fork], parts[fork + 1:])
    # Python lists the options once (its draws rewound) and runs the chosen one's actions: the
    # actions draw alike here, but a condition or the fork's listing would be drawn again
    if first is not None and uses_rng(first) or any(condition_draws(p) for p in before):
        raise NativeUnsupported("a block of options whose listing draws random numbers", x)
    params = sc.params()
    level = w.dry_level
    w.dry_level += 1
    with w.function("dry_run", params, f"The items before the options of the block at line {x.span.line}."):
        sequence(w, before, sc)
    run_before = w.fns[-1].call(*params)
    listed = w.fresh("listed")
    w.line(f"{listed} = 0")
    w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], False)")
    w.line(run_before)
    if first is not None:
        with w.block("if ctr[STATUS] == 0:"):
            raw_count(w, first, sc, listed)
    w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], True)")
    w.dry_level = level
    if counting:
        w.line(f"n += max(1, {listed})")
        return
    with w.block("if ctr[STATUS]:"):
        w.line("return")
    with w.block(f"if k < max(1, {listed}):"):
        w.line(run_before)  # now for real
        w.check()
        if first is None:
            w.line("return")
        else:
            with w.block(f"if {listed} == 0:"):
                sequence(w, after, sc)
                w.line("return")
            raw_walk(w, first, sc, after)
            w.line("return")
    w.line(f"k -= max(1, {listed})")


@native(Kind.FLOW, "choice")
def choice(w, x, sc) -> None:
    inner = x.items[1]
    parts = [inner] if inner.items and isinstance(inner.items[0], Atom) else list(inner.items)
    params = sc.params()
    w.comment(x)
    with w.function("count_options", params, f"How many options the choice at line {x.span.line} offers now."):
        w.line("n = 0")
        for p in parts:
            options(w, p, sc, True)
        w.line("return n")
    count = w.fns[-1]
    with w.function("run_option", params + ["k"], f"Run option k of the choice at line {x.span.line}."):
        for p in parts:
            options(w, p, sc, False)
    run = w.fns[-1]
    with w.block("if ctr[RESUMING]:"):
        w.line("arrive(ctr, keys, resume, locs, card_loc, ver)  # the sampled world's decision: its cards")
        w.check()
    w.line(f"n = {count.call(*params)}")
    if any("dry_state(" in ln or "dry_count" in ln for ln in count.lines):
        w.check()  # a dry run broke a rule while the options were listed
    with w.block("if n == 0:"):
        w.line("ctr[STATUS] = RULE  # a choice with no legal option")
        w.line("return")
    w.line("ctr[STEPS] += 1")
    with w.block("if ctr[STEPS] > ctr[MAX_STEPS]:"):
        w.line("ctr[STATUS] = STEP_LIMIT")
        w.line("return")
    w.line("ctr[DECISIONS] += 1")
    w.line("ctr[OPTIONS] += n")
    w.line("ctr[WORK] += n")
    w.line("k = choose(ctr, keys, resume, n)")
    w.check()
    w.line(run.call(*params, "k"))
    w.check()
