"""Native writers of the flow: blocks, conditionals, loops, let, choices and stages.

Each writes what the form's closure in recycle/lang/flow.py does, counter for counter: a
stage's turns and a choice's decision are steps (``ctr[STEPS]``), a choice counts its options
(``ctr[OPTIONS]``) and the random player draws ``int(random() * n)`` from the players'
stream only when there are two or more, as ``State.play_inline`` does.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..lang.flow import REGISTRY
from ..lang.forms import Kind
from ..lang.items import uses_rng
from ..lang.shapes import head_of, is_atom, kw
from ..lang.syntax import VAR, Atom, SList
from .registry import CONDITIONAL, native
from .writer import CARD_T, INT_T, LOC_T, PLAYER_T, PLAYERS_T, STR_T, TEAM_T, TEAMS_T, VIEW_T, NativeUnsupported


def is_static(x) -> bool:
    """An action, or a block of actions: one option of a choice, run as a whole."""
    if not isinstance(x, SList) or not x.items:
        return False
    h = head_of(x)
    if isinstance(x.items[0], SList) and len(x.items) == 2:
        return False  # a conditional
    if h == "do":
        inner = x.items[1] if len(x.items) == 2 else None
        if not isinstance(inner, SList):
            return False
        if inner.items and isinstance(inner.items[0], Atom):
            return is_static(inner)
        return all(is_static(i) for i in inner.items)
    if h == "repeat":
        # (repeat all ...) and a computed count offer no option when there is nothing to
        # repeat (recycle/lang/actions_state.py): not one fixed option
        n = x.items[1] if len(x.items) == 3 else None
        return isinstance(n, Atom) and n.kind == "int" and int(n.value) >= 1 and is_static(x.items[2])
    return h is not None and REGISTRY.lookup(Kind.ACTION, h) is not None


def sequence(w, nodes, sc) -> None:
    for node in nodes:
        w.item(node, sc)


@native(Kind.FLOW, "do")
def do_block(w, x, sc) -> None:
    inner = x.items[1]
    if inner.items and isinstance(inner.items[0], Atom):
        w.item(inner, sc)
    else:
        sequence(w, inner.items, sc)


@native(Kind.FLOW, CONDITIONAL)
def conditional(w, x, sc) -> None:
    w.comment(x.items[0])
    with w.block(f"if {w.bool_(x.items[0], sc)}:"):
        w.item(x.items[1], sc)


@dataclass
class Loop:
    """How to loop over a collection: ``before`` (statements making its snapshot), the ``for``
    header, ``bind`` (the statement binding the element, when the header does not), the
    element's type and the collection's size (``size_before``: the size needs ``before``)."""

    before: list
    header: str
    bind: str | None
    type: str
    size: str
    size_before: bool = True


def collection(w, coll, sc, var: str) -> Loop:
    """The loop over a snapshot of a collection, binding ``var`` to each element."""
    if kw(coll, "player"):
        return Loop([], f"for {var} in range(NPLAYERS):", None, PLAYER_T, "NPLAYERS", False)
    if kw(coll, "team"):
        return Loop([], f"for {var} in range(ctr[NTEAMS]):", None, TEAM_T, "ctr[NTEAMS]", False)
    if isinstance(coll, SList) and head_of(coll) == "other" and len(coll.items) == 2:
        # every player (team) but the current one, as when the loop starts
        team = kw(coll.items[1], "team")
        cur, n = (w.fresh("current"), "ctr[NTEAMS]" if team else "NPLAYERS")
        return Loop([f"{cur} = {'tst[ctr[TSP], 0]' if team else 'pst[ctr[PSP], 0]'}"], f"for {var} in range({n}):",
                    f"if {var} == {cur}: continue", TEAM_T if team else PLAYER_T, f"({n} - 1)", False)
    if isinstance(coll, SList) and (len(coll.items) == 2 and kw(coll.items[1], "team") or head_of(coll) == "team"):
        # a team's members (teams are made in setup: the module holds them)
        t, k = w.fresh("team"), w.fresh("k")
        w.uses_teams = True
        return Loop([f"{t} = {w.team(coll, sc)}"], f"for {k} in range(TEAM_SIZE[{t}]):", f"{var} = TEAM_MEMBERS[{t}, {k}]",
                    PLAYER_T, f"TEAM_SIZE[{t}]")
    if isinstance(coll, SList) and head_of(coll) == "range" and len(coll.items) == 4:
        lo, hi = w.fresh("low"), w.fresh("high")
        return Loop([f"{lo} = {w.int_(coll.items[1], sc)}", f"{hi} = {w.int_(coll.items[3], sc)}"],
                    f"for {var} in range({lo}, {hi} + 1):", None, INT_T, f"max(0, {hi} - {lo} + 1)")
    if isinstance(coll, Atom) and coll.kind == VAR and not hasattr(sc.lookup(coll.value) or 0, "type"):
        names = getattr(sc.lookup(coll.value), "value", None)
        if isinstance(names, list) and all(isinstance(v, str) for v in names):
            # a declared list of names: their string ids, as a constant of the module
            ids = w.name_list(names)
            k = w.fresh("k")
            return Loop([], f"for {k} in range({len(names)}):", f"{var} = {ids}[{k}]", STR_T, str(len(names)), False)
    if isinstance(coll, SList) and head_of(coll) == "partition":
        g, gi = w.fresh("groups"), w.fresh("gi")
        return Loop([f"{g} = {w.groups(coll, sc)}"], f"for {gi} in range(scratch[{g}]):",
                    f"{var} = scratch[{g} + 1 + {gi}]", VIEW_T, f"scratch[{g}]")
    t, code = w.loc(coll, sc)
    snap, k = w.fresh("snapshot"), w.fresh("k")
    if t in (PLAYERS_T, TEAMS_T):
        return Loop([f"{snap} = {code}"], f"for {k} in range(scratch[{snap}]):", f"{var} = scratch[{snap} + 1 + {k}]",
                    PLAYER_T if t == PLAYERS_T else TEAM_T, f"scratch[{snap}]")
    make = f"cards_of(locs, lens, scratch, ctr, {code})" if t == LOC_T else code
    return Loop([f"{snap} = {make}"], f"for {k} in range(scratch[{snap}]):", f"{var} = scratch[{snap} + 1 + {k}]",
                CARD_T, f"lens[{code}]" if t == LOC_T else f"scratch[{snap}]", t != LOC_T)


def open_loop(w, loop: Loop) -> None:
    """Emit a loop's snapshot and header, and bind its element; the caller resets the depth."""
    for line in loop.before:
        w.line(line)
    w.line(loop.header)
    w.fn.depth += 1
    if loop.bind:
        w.line(loop.bind)


def loop_var(x) -> str:
    if len(x.items) != 4 or not is_atom(x.items[2], VAR):
        raise NativeUnsupported(f"({head_of(x)} ...) of an unexpected shape", x)
    return x.items[2].value


@native(Kind.FLOW, "all", "any")
def each(w, x, sc) -> None:
    name = loop_var(x)
    var = w.local(name)
    loop = collection(w, x.items[1], sc, var)
    w.comment(x)
    depth = w.fn.depth
    open_loop(w, loop)
    w.line("ctr[WORK] += 1")
    w.item(x.items[3], sc.bind(name, var, loop.type))
    w.fn.depth = depth


@native(Kind.FLOW, "let")
def let(w, x, sc) -> None:
    name = loop_var(x)
    var = w.local(name)
    typ, code = w.value(x.items[1], sc)
    w.line(f"{var} = {code}")
    w.item(x.items[3], sc.bind(name, var, typ))


# -- choices -------------------------------------------------------------------------------

def options(w, x, sc, counting: bool) -> None:
    """The options ``x`` offers, walked in the Python engine's order: counted (``n``), or the
    ``k``-th run (then the function returns)."""
    if is_static(x):
        if counting:
            w.line("n += 1")
        else:
            with w.block("if k == 0:"):
                w.item(x, sc)
                w.line("return")
            w.line("k -= 1")
        return
    h = head_of(x)
    if isinstance(x, SList) and x.items and isinstance(x.items[0], SList) and len(x.items) == 2:
        if uses_rng(x.items[0]):
            raise NativeUnsupported("a condition of an option that draws random numbers", x)
        with w.block(f"if {w.bool_(x.items[0], sc)}:"):
            options(w, x.items[1], sc, counting)
        return
    if h == "any":
        name = loop_var(x)
        if uses_rng(x.items[1]):
            raise NativeUnsupported("a collection of options that draws random numbers", x)
        var = w.local(name)
        loop = collection(w, x.items[1], sc, var)
        if counting and is_static(x.items[3]):
            for line in loop.before if loop.size_before else ():
                w.line(line)
            w.line(f"n += {loop.size}")
            return
        depth = w.fn.depth
        open_loop(w, loop)
        options(w, x.items[3], sc.bind(name, var, loop.type), counting)
        w.fn.depth = depth
        return
    if h == "let":
        name = loop_var(x)
        var = w.local(name)
        typ, code = w.value(x.items[1], sc)
        w.line(f"{var} = {code}")
        options(w, x.items[3], sc.bind(name, var, typ), counting)
        return
    if h == "all" and len(x.items) == 4 and is_static(x.items[3]) and not uses_rng(x.items[1]):
        # (all COLLECTION 'X ACTION): one option, the actions for every element, when the
        # collection holds one; none when it is empty (recycle/lang/flow.py, c_each)
        loop = collection(w, x.items[1], sc, w.local(loop_var(x)))
        for line in loop.before if loop.size_before else ():
            w.line(line)
        with w.block(f"if {loop.size} > 0:"):
            one_option(w, x, sc, counting, [])
        return
    if h == "repeat" and kw(x.items[1], "all"):
        # one option while the location to empty holds a card, none when it is empty
        with w.block(f"if {repeat_source_size(w, x, sc)} > 0:"):
            one_option(w, x, sc, counting, [])
        return
    if h == "do":
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
    raise NativeUnsupported(f"({h} ...) as an option of a choice" if h else "an option of this shape", x)


def do_parts(x) -> list:
    inner = x.items[1]
    return [inner] if inner.items and isinstance(inner.items[0], Atom) else list(inner.items)


def is_single(x) -> bool:
    """An item offering one option or none: an action or block, a conditional of one, (repeat
    all ...), a block of such items (a compose of them lists one option, recycle/lang/items.py)."""
    if is_static(x):
        return True
    if isinstance(x, SList) and x.items and isinstance(x.items[0], SList) and len(x.items) == 2:
        return is_single(x.items[1])
    h = head_of(x)
    if h == "repeat" and len(x.items) == 3 and kw(x.items[1], "all"):
        return True
    if h == "all" and len(x.items) == 4 and is_static(x.items[3]):
        return True  # every element's actions as one option, none for an empty collection
    if h == "do" and len(x.items) == 2 and isinstance(x.items[1], SList):
        return all(is_single(p) for p in do_parts(x))
    return False


def condition_draws(x) -> bool:
    """Does a condition of a conditional in ``x`` (a block of single items) draw random numbers?"""
    if not isinstance(x, SList) or not x.items:
        return False
    if isinstance(x.items[0], SList) and len(x.items) == 2:
        return uses_rng(x.items[0]) or condition_draws(x.items[1])
    if head_of(x) == "do" and len(x.items) == 2 and isinstance(x.items[1], SList):
        return any(condition_draws(p) for p in do_parts(x))
    return False


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
    with w.function("dry_run", params, f"The items before the options of the block at line {x.span.line}."):
        sequence(w, before, sc)
    run_before = w.fns[-1].call(*params)
    listed = w.fresh("listed")
    w.line(f"{listed} = 0")
    w.line("dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry, False)")
    w.line(run_before)
    if first is not None:
        with w.block("if ctr[STATUS] == 0:"):
            raw_count(w, first, sc, listed)
    w.line("dry_state(locs, lens, card_loc, ints, strs, pts, pst, tst, ctr, ver, dry, True)")
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


def repeat_source_size(w, x, sc) -> str:
    src = x.items[2].items[1] if head_of(x.items[2]) == "move" and len(x.items[2].items) == 3 else None
    if not (isinstance(src, SList) and len(src.items) == 2 and kw(src.items[0], "top", "bottom")):
        raise NativeUnsupported("(repeat all ...) of this shape as an option", x)
    return f"lens[{w.phys(src.items[1], sc)}]"


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


def raw_count(w, x, sc, var: str) -> None:
    """Add to ``var`` how many options ``x`` lists before empty ones are dropped (an element of
    an ``any`` whose item offers none still lists one, empty: recycle/lang/flow.py, c_each)."""
    if is_static(x):
        w.line(f"{var} += 1")
        return
    h = head_of(x)
    if isinstance(x, SList) and x.items and isinstance(x.items[0], SList) and len(x.items) == 2:
        with w.block(f"if {w.bool_(x.items[0], sc)}:"):
            raw_count(w, x.items[1], sc, var)
        return
    if h == "any":
        name = loop_var(x)
        elem = w.local(name)
        loop = collection(w, x.items[1], sc, elem)
        if is_static(x.items[3]):
            for line in loop.before if loop.size_before else ():
                w.line(line)
            w.line(f"{var} += {loop.size}")
            return
        depth = w.fn.depth
        open_loop(w, loop)
        inner = w.fresh("listed")
        w.line(f"{inner} = 0")
        raw_count(w, x.items[3], sc.bind(name, elem, loop.type), inner)
        w.line(f"{var} += max(1, {inner})")
        w.fn.depth = depth
        return
    if h == "repeat" and kw(x.items[1], "all"):
        with w.block(f"if {repeat_source_size(w, x, sc)} > 0:"):
            w.line(f"{var} += 1")
        return
    raise NativeUnsupported(f"({h} ...) in a block of options" if h else "an option of this shape", x)


def raw_walk(w, x, sc, suffix: list) -> None:
    """Run the ``k``-th option ``x`` lists (empty ones included), then ``suffix``; return."""
    if is_static(x) or head_of(x) == "repeat":
        if head_of(x) == "repeat" and not is_static(x):
            with w.block(f"if {repeat_source_size(w, x, sc)} > 0:"):
                one_option(w, x, sc, False, suffix)
            return
        one_option(w, x, sc, False, suffix)
        return
    h = head_of(x)
    if isinstance(x, SList) and x.items and isinstance(x.items[0], SList) and len(x.items) == 2:
        with w.block(f"if {w.bool_(x.items[0], sc)}:"):
            raw_walk(w, x.items[1], sc, suffix)
        return
    if h == "any":
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
            with w.block(f"if {inner} == 0:"):
                one_option(w, None, inner_sc, False, suffix)  # the element's empty option
            with w.block("else:"):
                raw_walk(w, x.items[3], inner_sc, suffix)
        w.fn.depth = depth
        return
    raise NativeUnsupported(f"({h} ...) in a block of options" if h else "an option of this shape", x)


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
    w.line(f"n = {count.call(*params)}")
    if any("dry_state(" in ln for ln in count.lines):
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
    w.line(run.call(*params, "pick(ctr, keys, 1, n) if n > 1 else 0"))
    w.check()


# -- stages --------------------------------------------------------------------------------

@native(Kind.FLOW, "stage")
def stage(w, x, sc) -> None:
    items = x.items
    if len(items) < 4 or not kw(items[1], "player", "team") or head_of(items[2]) != "end":
        raise NativeUnsupported("a stage of an unexpected shape", x)
    team = items[1].value == "team"
    sp, stack, n = ("TSP", "tst", "ctr[NTEAMS]") if team else ("PSP", "pst", "NPLAYERS")
    first = w.fresh("first")
    w.comment(x)
    w.line(f"ctr[{sp}] += 1")
    with w.block(f"if ctr[{sp}] >= STACK_DEPTH:"):
        w.line("ctr[STATUS] = CAPACITY")
        w.line("return")
    w.line(f"{stack}[ctr[{sp}], 0] = {stack}[ctr[{sp}] - 1, 0]")
    w.line(f"{stack}[ctr[{sp}], 1] = -1")
    w.line(f"{first} = True")
    mark = w.fresh("mark")
    w.line(f"{mark} = ctr[SP]")
    end = w.bool_(items[2].items[1], sc)
    with w.block(f"while not ({end}):"):
        w.line(f"ctr[SP] = {mark}  # what the last turn put on the scratch stack is free again")
        with w.block(f"if not {first}:"):
            w.line(f"queued = {stack}[ctr[{sp}], 1]")
            with w.block("if queued < 0:"):
                w.line(f"{stack}[ctr[{sp}], 0] = ({stack}[ctr[{sp}], 0] + 1) % {n}")
            with w.block("else:"):
                w.line(f"{stack}[ctr[{sp}], 0] = queued")
                w.line(f"{stack}[ctr[{sp}], 1] = -1")
        w.line(f"{first} = False")
        w.line("ctr[STEPS] += 1")
        if not team:
            with w.block("if ctr[PSP] == 1:"):
                w.line("ctr[ROUNDS] += 1")
        w.line("ctr[WORK] += 1")
        with w.block("if ctr[STEPS] > ctr[MAX_STEPS]:"):
            w.line("ctr[STATUS] = STEP_LIMIT")
            w.line("return")
        with w.block("if ctr[WORK] > ctr[MAX_WORK]:"):
            w.line("ctr[STATUS] = WORK_LIMIT")
            w.line("return")
        w.check()  # (a rule broken by the end condition)
        sequence(w, items[3:], sc)
    w.line(f"ctr[{sp}] -= 1")
