"""Native writers of blocks of options: ``(do (ITEM ...))`` as options of a choice.

The Python engine lists a block's options with ``compose`` (recycle/lang/forms/items.py): each item
that lists options of its own forks the block, and an item that needs the state the earlier
ones leave is listed after a dry run of them (the state kept and put back). ``_Block`` picks the
cheapest faithful way to write a block: a block of actions is one option; a first item that
forks, then actions (``composed``); items before the one that forks run in a dry run
(``dry_run_block``); any number of forks, depth first (``block_functions``).
"""

from __future__ import annotations

from ..lang.nodes.flow import Do
from .loops import sequence
from .forms_options import (
    KeyAround,
    Offer,
    condition_draws,
    decline_keys,
    do_parts,
    is_single,
    is_static,
    key_step,
    key_steps,
    offer,
    offer_keys,
    offer_of,
    one_option,
    options,
    raw_count,
    raw_walk,
    single_key,
)
from .purity import draws as uses_rng
from .writer import NativeUnsupported


@offer(Do)
class _Block(Offer):
    """(do (ITEM ...)): a block of actions is one option; otherwise its items compose
    (recycle/lang/forms/items.py, compose)."""

    def static(self, x) -> bool:
        return all(is_static(i) for i in do_parts(x))

    def single(self, x) -> bool:
        return all(is_single(p) for p in do_parts(x))

    def condition_draws(self, x) -> bool:
        return any(condition_draws(p) for p in do_parts(x))

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
        if len(forks) <= 1 and all(is_static(p) for p in (parts[forks[0] + 1 :] if forks else ())):
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

    def offer_keys(self, w, x, sc, around: KeyAround | None = None) -> None:
        parts = do_parts(x)
        if not self.static(x) and len(parts) == 1:
            offer_keys(w, parts[0], sc, around)  # (Python's sequence of one item lists that item's options)
            return
        forks = [i for i, p in enumerate(parts) if not is_single(p)]
        if self.static(x) or not forks:
            super().offer_keys(w, x, sc, around)  # one option: its steps
            return
        f = forks[0]
        fork = parts[f]
        if (
            len(forks) > 1
            or not all(is_static(p) for p in parts[f + 1 :])
            or uses_rng(fork)
            or any(condition_draws(p) for p in parts)
            or offer_of(fork).lists_empty(fork)
        ):
            decline_keys(w)  # (blocks whose items fork more than once: not keyed natively)
            return
        # Python's compose: the items before the fork run on a dry state, the fork's options are
        # listed there, each continuing with the fixed items after; none listed, one option
        level = w.dry_level
        w.dry_level += 1
        state = "locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver"
        if f:
            w.line(f"dry_state({state}, dry[{level}], False)")
        prefix, steps, first = w.fresh("prefix"), w.fresh("stepped"), w.fresh("first")
        w.line(f"{steps} = {around.steps if around else 0}")
        w.line(f"h = {around.prefix if around else 'KEY_SEED'}")
        for p in parts[:f]:
            key_steps(w, p, sc, steps)
            sequence(w, [p], sc)
        w.line(f"{prefix} = h")
        names = [tuple(w.naming) + ((w.named_parts[id(p)],) if id(p) in w.named_parts else ()) for p in parts[f + 1 :]]
        after = KeyAround(
            prefix, steps, [(p, sc, n) for p, n in zip(parts[f + 1 :], names)] + (around.after if around else [])
        )
        w.line(f"{first} = j")
        offer_keys(w, fork, sc, after)
        with w.block(f"if j == {first}:"):
            single_key(w, None, sc, after)
        if f:
            w.line(f"dry_state({state}, dry[{level}], True)")
        w.dry_level = level

    def key_steps(self, w, x, sc, steps: str) -> None:
        """A block of actions is one step; a block of single items, each item's steps in
        turn, listed as Python's compose lists them: on the state the items before leave
        (they run on a dry state, put back after)."""
        if self.static(x):
            key_step(w, x, sc, steps)
            return
        parts = do_parts(x)
        if not all(is_single(p) for p in parts) or any(condition_draws(p) for p in parts):
            decline_keys(w)
            return
        runs = [any(not is_static(q) for q in parts[i + 1 :]) for i in range(len(parts))]
        level = w.dry_level
        w.dry_level += 1
        state = "locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver"
        if any(runs):
            w.line(f"dry_state({state}, dry[{level}], False)")
        for p, run in zip(parts, runs):
            key_steps(w, p, sc, steps)
            if run:
                sequence(w, [p], sc)
        if any(runs):
            w.line(f"dry_state({state}, dry[{level}], True)")
        w.dry_level = level

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        if self.static(x):
            one_option(w, x, sc, False, suffix)
            return
        walk_block(w, block_functions(w, x, sc), suffix, sc)


# -- a block of several items that fork: Python's compose, depth first -------------------------


def block_functions(w, x, sc, drop_empty: bool = False) -> tuple[str, str]:
    """(the call counting the options of the block ``x``, the call running its ``k``-th): the
    Python engine's ``compose`` (recycle/lang/forms/items.py) over items of which any number fork.
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
                after = parts[f + 1 :] if suffixed and not any(not is_single(p) for p in parts[f + 1 :]) else []
                with w.function(
                    "option_of",
                    params + ["k"],
                    f"Option k of the item at line {part.span.line}, as a branch of a block.",
                    inline=False,
                ):
                    raw_walk(w, part, sc, after)
                subs[f, suffixed] = w.fns[-1]
    level = w.dry_level
    w.dry_level += 1
    with w.function(
        "dry_count", params, f"How many options the block at line {x.span.line} lists (a dry run).", inline=False
    ):
        w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], False)")
        w.line("total = 0")
        _count_from(w, parts, 0, subs, sc, "total", params, keep_untaken)
        w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], True)")
        w.line("return total")
    count = w.fns[-1].call(*params)
    w.dry_level = level
    with w.function("run_block", params + ["k"], f"Run option k of the block at line {x.span.line}.", inline=False):
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
                _count_option(w, parts, f, j, subs, sc, total, params, level)
            w.dry_level = level


def _count_option(w, parts: list, f: int, j: str, subs: dict, sc, total: str, params: list, level: int) -> None:
    """Add to ``total`` the branches through option ``j`` of item ``f``: the option run on the
    state kept at ``level`` and put back (a dry run)."""
    w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], False)")
    w.line(subs[f, False].call(*params, j))
    with w.block("if ctr[STATUS] == 0:"):
        _count_from(w, parts, f + 1, subs, sc, total, params, True)
        w.line("pass")
    w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], True)")


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
        _count_option(w, parts, f, j, subs, sc, size, params, level)
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


def composed(w, first, suffix: list, sc, counting: bool) -> None:
    """(do (ITEM ACTION ...)) as an option, ITEM offering options of its own: each of them,
    then the actions (recycle/lang/forms/items.py, compose; no dry run is needed, the actions come
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


def dry_run_block(w, x, parts: list, fork: int | None, sc, counting: bool) -> None:
    """(do (ITEM ...)) as an option where the items before the one that forks (``fork``, or
    none) need the state: the Python engine lists its options by running them on the state
    and putting it back (a dry run, recycle/lang/forms/items.py, compose). So does this: the state is
    kept (``dry_state``), the items before the fork run, the fork's options are counted, the
    state is put back. An error in the dry run stops the game as Python's
    listing does (Python then plays it again for the message)."""
    before, first, after = (parts, None, []) if fork is None else (parts[:fork], parts[fork], parts[fork + 1 :])
    # Python lists the options once (its draws rewound) and runs the chosen one's actions: the
    # actions draw alike here, but a condition or the fork's listing would be drawn again
    if (first is not None and uses_rng(first)) or any(condition_draws(p) for p in before):
        raise NativeUnsupported("a block of options whose listing draws random numbers", x)
    params = sc.params()
    level = w.dry_level
    w.dry_level += 1
    # a block of items that may each offer nothing (conditionals) and no fork: when none
    # acts, its one option is empty and the choice drops it, as Python's
    empty = first is None and not any(is_static(p) for p in parts)
    if empty and any(offer_of(p).lists_empty(p) for p in parts):
        raise NativeUnsupported("a block of options that may list empty options of its items", x)
    with w.function(
        "dry_run",
        params,
        f"The items before the options of the block at line {x.span.line}" + (" (how many acted)." if empty else "."),
        inline=False,
    ):
        if empty:
            w.line("acted = 0")
            for p in before:
                one = w.fresh("listed")
                w.line(f"{one} = 0")
                raw_count(w, p, sc, one)  # 1 when the item acts now, else 0
                w.line(f"acted += {one}")
                sequence(w, [p], sc)
            w.line("return acted")
        else:
            sequence(w, before, sc)
    if empty:  # every return of the dry run says how many acted
        w.fns[-1].lines = [
            ln.replace("return", "return acted") if ln.strip() == "return" else ln for ln in w.fns[-1].lines
        ]
    run_before = w.fns[-1].call(*params)
    listed = w.fresh("listed")
    w.line(f"{listed} = 0")
    w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], False)")
    w.line(f"{listed} = min(1, {run_before})" if empty else run_before)
    if first is not None:
        with w.block("if ctr[STATUS] == 0:"):
            raw_count(w, first, sc, listed)
    w.line(f"dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry[{level}], True)")
    w.dry_level = level
    offered = listed if empty else f"max(1, {listed})"
    if counting:
        w.line(f"n += {offered}")
        return
    with w.block("if ctr[STATUS]:"):
        w.line("return")
    with w.block(f"if k < {offered}:"):
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
    w.line(f"k -= {offered}")
