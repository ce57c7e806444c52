"""Assembling RECYCLE's compiler: the ``FlowCompiler`` gathers every form's compile method,
from the expression mixins (``expr_scalar``, ``expr_int``, ``expr_bool``, ``expr_cards``,
``expr_locs``, ``expr_groups``: the entry points and what several families share) and from every
form kept whole in a ``form_*.py`` module (the flow: ``form_blocks`` (conditional, do),
``form_loops`` (any, all, let), ``form_choice``, ``form_stage``, ``form_simultaneous``; the
actions; the integer, boolean, card, place and group forms ...), with the item machinery they
share: ``c_item_of`` and ``sequence`` (items run one after another, the frames that let a state
wait at a choice and resume: ``items``). ``REGISTRY`` is the sealed registry of their forms
(``registry``), checked when this module is imported.
"""

from __future__ import annotations


from ..nodes.actions import Repeat, RepeatAll
from .runtime import SMALL
from ..nodes.sexpr import Scope
from .values import Suspend
from .expr_bool import BoolForms
from .expr_cards import CardForms
from .expr_groups import Collections
from .expr_int import IntForms
from .expr_locs import LocationForms
from .expr_scalar import ScalarForms
from .costs import Costs
from .recovery import ErrorKeeping
from .reads import NodeReading
from .registry import families, seal
from .reads import NODE_METHODS
from .items import suspendable, Item, compose


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
    Collections,
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


REGISTRY = seal(FlowCompiler)
NODE_METHODS.update(REGISTRY.node_methods)
