"""The native engine's loops over collections and runs of items, shared by the writers of many
forms: ``collection`` (the loop over a snapshot of a collection, binding a variable to each
element), ``open_loop``, ``loop_var``, ``sequence`` (items written one after another),
``groups_of``. The flow's own writers are their forms' (``recycle/lang/forms/form_blocks.py``,
``form_loops.py``, ``form_choice.py``, ``form_stage.py``), reaching these through the writer
(``writer_flow.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..lang.forms.writers import (
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
)
from ..lang.nodes.sexpr import MAX_COLLECTION
from ..lang.nodes.base import Const, Everyone, Names, Num, Var
from ..lang.nodes.groups import Members, Others, Range
from .writer_actions import is_groups_form


def sequence(w, nodes, sc) -> None:
    """Write the items ``nodes`` one after another."""
    for node in nodes:
        w.item(node, sc)


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


def declared_range(w, coll, sc):
    """The (range A..B) with integer ends written out that a declared variable holds, else None."""
    if not isinstance(coll, Var) or sc.lookup(coll.name) is not None:
        return None
    value = w.declared.get(coll.name)
    if isinstance(value, Range) and isinstance(value.low, Num) and isinstance(value.high, Num):
        return value
    return None


def collection(w, coll, sc, var: str, in_place: bool = False) -> Loop:
    """The loop over a snapshot of a collection, binding ``var`` to each element. ``in_place``:
    the loop's body moves no card (a condition), so a location's cards are read where they lie
    rather than copied to a snapshot first."""
    if isinstance(coll, Everyone) and coll.what == "player":
        return Loop([], f"for {var} in range(NPLAYERS):", None, PLAYER_T, "NPLAYERS", False)
    if isinstance(coll, Everyone):
        return Loop([], f"for {var} in range(ctr[NTEAMS]):", None, TEAM_T, "ctr[NTEAMS]", False)
    if isinstance(coll, Others):
        # every player (team) but the current one, as when the loop starts
        team = coll.what == "team"
        cur, n = (w.fresh("current"), "ctr[NTEAMS]" if team else "NPLAYERS")
        return Loop(
            [f"{cur} = {'tst[ctr[TSP], 0]' if team else 'pst[ctr[PSP], 0]'}"],
            f"for {var} in range({n}):",
            f"if {var} == {cur}: continue",
            TEAM_T if team else PLAYER_T,
            f"({n} - 1)",
            False,
        )
    if isinstance(coll, Members):
        # a team's members (teams are made in setup: the module holds them)
        t, k = w.fresh("team"), w.fresh("k")
        w.uses_teams = True
        return Loop(
            [f"{t} = {w.team(coll.team, sc)}"],
            f"for {k} in range(TEAM_SIZE[{t}]):",
            f"{var} = TEAM_MEMBERS[{t}, {k}]",
            PLAYER_T,
            f"TEAM_SIZE[{t}]",
        )
    coll = declared_range(w, coll, sc) or coll  # (declare (range A..B) 'NAME): the range itself
    if isinstance(coll, Range):
        lo, hi = w.fresh("low"), w.fresh("high")
        # a range longer than Python's bound is its error (then played by Python), empty here
        return Loop(
            [
                f"{lo} = {w.int_(coll.low, sc)}",
                f"{hi} = {w.int_(coll.high, sc)}",
                f"if {hi} - {lo} > {MAX_COLLECTION}: ctr[STATUS] = RULE; {hi} = {lo} - 1",
            ],
            f"for {var} in range({lo}, {hi} + 1):",
            None,
            INT_T,
            f"max(0, {hi} - {lo} + 1)",
        )
    names = list(coll.values) if isinstance(coll, Names) else None
    if names is None and isinstance(coll, (Var, Const)) and not hasattr(sc.lookup(coll.name) or 0, "type"):
        names = getattr(sc.lookup(coll.name), "value", None)
        names = list(names) if isinstance(names, tuple) else names
    if isinstance(names, list) and all(isinstance(v, str) for v in names):
        # a literal or declared list of names: their string ids, as a constant of the module
        ids = w.name_list(names)
        k = w.fresh("k")
        w.name_domain[var] = tuple(names)  # the names the variable can hold (computed location names)
        return Loop([], f"for {k} in range({len(names)}):", f"{var} = {ids}[{k}]", STR_T, str(len(names)), False)
    held = sc.lookup(coll.name) if isinstance(coll, (Var, Const)) else None
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
    """The name of the variable a binding form (any, all, filter, let) binds."""
    return x.variable.name
