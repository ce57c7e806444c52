"""Native writers of the flow: blocks, conditionals, loops, let and stages (choices: in
forms_options.py).

Each writes what the form's closure in recycle/lang/forms/flow.py does, counter for counter: a
stage's turns and a choice's decision are steps (``ctr[STEPS]``), a choice counts its options
(``ctr[OPTIONS]``) and the random player draws ``int(random() * n)`` from the players'
stream only when there are two or more, as ``State.play_inline`` does.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..lang.forms.registry import Kind, registry
from ..lang.forms.shapes import MAX_COLLECTION, declared_forms, head_of, is_atom, kw, literal_names, literal_range
from ..lang.syntax.reader import VAR, Atom, SList
from .registry import CONDITIONAL, native
from .writer import (
    CARD_T,
    GROUPS_T,
    INT_T,
    LOC_T,
    LOCS_T,
    NUMBERS_T,
    PLAYER_T,
    PLAYERS_T,
    STR_T,
    TEAM_T,
    TEAMS_T,
    VIEW_T,
    NativeUnsupported,
)


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


def is_groups_form(x) -> bool:
    """Is ``x`` a form whose value is a group list (partition, tuples ...: the registry says)?"""
    return head_of(x) in registry().only[Kind.GROUPS]


def groups_of(w, x, sc) -> str | None:
    """The code of a group list (see runtime.SCRATCH): a group-list form, or a variable
    holding one; None for anything else."""
    if isinstance(x, Atom) and x.kind == VAR:
        v = sc.lookup(x.value)
        return v.name if getattr(v, "type", None) == GROUPS_T else None
    return w.groups(x, sc) if is_groups_form(x) else None


def collection(w, coll, sc, var: str, in_place: bool = False) -> Loop:
    """The loop over a snapshot of a collection, binding ``var`` to each element. ``in_place``:
    the loop's body moves no card (a condition), so a location's cards are read where they lie
    rather than copied to a snapshot first."""
    if kw(coll, "player"):
        return Loop([], f"for {var} in range(NPLAYERS):", None, PLAYER_T, "NPLAYERS", False)
    if kw(coll, "team"):
        return Loop([], f"for {var} in range(ctr[NTEAMS]):", None, TEAM_T, "ctr[NTEAMS]", False)
    if isinstance(coll, SList) and head_of(coll) == "other" and len(coll.items) == 2:
        # every player (team) but the current one, as when the loop starts
        team = kw(coll.items[1], "team")
        cur, n = (w.fresh("current"), "ctr[NTEAMS]" if team else "NPLAYERS")
        return Loop(
            [f"{cur} = {'tst[ctr[TSP], 0]' if team else 'pst[ctr[PSP], 0]'}"],
            f"for {var} in range({n}):",
            f"if {var} == {cur}: continue",
            TEAM_T if team else PLAYER_T,
            f"({n} - 1)",
            False,
        )
    if isinstance(coll, SList) and ((len(coll.items) == 2 and kw(coll.items[1], "team")) or head_of(coll) == "team"):
        # a team's members (teams are made in setup: the module holds them)
        t, k = w.fresh("team"), w.fresh("k")
        w.uses_teams = True
        return Loop(
            [f"{t} = {w.team(coll, sc)}"],
            f"for {k} in range(TEAM_SIZE[{t}]):",
            f"{var} = TEAM_MEMBERS[{t}, {k}]",
            PLAYER_T,
            f"TEAM_SIZE[{t}]",
        )
    declared = (
        declared_forms(w.game.source).get(coll.value) if is_atom(coll, VAR) and sc.lookup(coll.value) is None else None
    )
    if literal_range(declared) is not None:
        coll = declared  # (declare (range A..B) 'NAME): the range itself
    if isinstance(coll, SList) and head_of(coll) == "range" and len(coll.items) == 4:
        lo, hi = w.fresh("low"), w.fresh("high")
        # a range longer than Python's bound is its error (then played by Python), empty here
        return Loop(
            [
                f"{lo} = {w.int_(coll.items[1], sc)}",
                f"{hi} = {w.int_(coll.items[3], sc)}",
                f"if {hi} - {lo} > {MAX_COLLECTION}: ctr[STATUS] = RULE; {hi} = {lo} - 1",
            ],
            f"for {var} in range({lo}, {hi} + 1):",
            None,
            INT_T,
            f"max(0, {hi} - {lo} + 1)",
        )
    names = literal_names(coll)
    if (
        names is None
        and isinstance(coll, Atom)
        and coll.kind == VAR
        and not hasattr(sc.lookup(coll.value) or 0, "type")
    ):
        names = getattr(sc.lookup(coll.value), "value", None)
    if isinstance(names, list) and all(isinstance(v, str) for v in names):
        # a literal or declared list of names: their string ids, as a constant of the module
        ids = w.name_list(names)
        k = w.fresh("k")
        w.name_domain[var] = tuple(names)  # the names the variable can hold (computed location names)
        return Loop([], f"for {k} in range({len(names)}):", f"{var} = {ids}[{k}]", STR_T, str(len(names)), False)
    held = sc.lookup(coll.value) if isinstance(coll, Atom) and coll.kind == VAR else None
    if getattr(held, "type", None) == GROUPS_T:
        # a variable holding a group list (let of a partition): each group, a view
        gi = w.fresh("gi")
        return Loop(
            [],
            f"for {gi} in range(scratch[{held.name}]):",
            f"{var} = scratch[{held.name} + 1 + {gi}]",
            VIEW_T,
            f"scratch[{held.name}]",
            False,
        )
    if is_groups_form(coll):
        g, gi = w.fresh("groups"), w.fresh("gi")
        return Loop(
            [f"{g} = {w.groups(coll, sc)}"],
            f"for {gi} in range(scratch[{g}]):",
            f"{var} = scratch[{g} + 1 + {gi}]",
            VIEW_T,
            f"scratch[{g}]",
        )
    t, code = w.loc(coll, sc)
    snap, k = w.fresh("snapshot"), w.fresh("k")
    if t in (PLAYERS_T, TEAMS_T, NUMBERS_T, LOCS_T):
        element = {PLAYERS_T: PLAYER_T, TEAMS_T: TEAM_T, NUMBERS_T: INT_T, LOCS_T: LOC_T}[t]
        return Loop(
            [f"{snap} = {code}"],
            f"for {k} in range(scratch[{snap}]):",
            f"{var} = scratch[{snap} + 1 + {k}]",
            element,
            f"scratch[{snap}]",
        )
    if in_place and t == LOC_T:
        return Loop(
            [f"{snap} = {code}"],
            f"for {k} in range(lens[{snap}]):",
            f"{var} = locs[{snap}, {k}]",
            CARD_T,
            f"lens[{code}]",
            False,
        )
    make = f"cards_of(locs, lens, scratch, ctr, {code})" if t == LOC_T else code
    return Loop(
        [f"{snap} = {make}"],
        f"for {k} in range(scratch[{snap}]):",
        f"{var} = scratch[{snap} + 1 + {k}]",
        CARD_T,
        f"lens[{code}]" if t == LOC_T else f"scratch[{snap}]",
        t != LOC_T,
    )


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


# -- stages --------------------------------------------------------------------------------


@native(Kind.FLOW, "stage")
def stage(w, x, sc) -> None:
    items = x.items
    if len(items) > 2 and kw(items[2], "simultaneous"):  # every player's choices (forms_simultaneous.py)
        from ..lang.forms.simultaneous import stage_node

        w.simultaneous += 1
        try:
            return stage(w, stage_node(x), sc)
        finally:
            w.simultaneous -= 1
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
