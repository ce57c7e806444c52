"""The forms ``((CONDITION) ITEM)`` and ``(do (ITEM ...))``: an item run when a condition holds,
and items run in order.

Each form is kept whole in this one module, registered together as it is imported (``flow.py``
imports every ``form_*.py``): its reading of the s-expression (``read_conditional``,
``read_do``: the shape checks and positioned errors), its meaning in the reference interpreter
(``BlockForms``), its facts (the ``@form`` record) and its native writer (``write_conditional``,
``write_do``; the conditional's options in a choice: ``ConditionalOffer``). The nodes are
``When`` and ``Do`` (``lang/nodes/flow.py``). A block's options in a choice are the shared
``compose`` of the items (``items.py``; natively ``recycle/native/forms_blocks.py``, the
engine's dry runs), and running items one after another is the compiler's ``sequence``
(``flow.py``), shared with the stages and the top level.
"""

from __future__ import annotations

from ..nodes.base import Kind
from ..nodes.flow import Do, When
from ..nodes.sexpr import Scope, fail
from ..syntax.reader import Atom, SList
from .items import Item, counted, resume_into, suspendable
from .registry import family, form
from .offers import native_offer
from .writers import NativeUnsupported, native


def read_conditional(e, x: SList, scope: Scope) -> When:
    """The node of ``((CONDITION) ITEM)``, read by the elaborator ``e`` (its shape is the one
    ``Elaborator.item_of`` recognised: a list of a condition and an item)."""
    return When(e.bool_(x.items[0], scope), e.item(x.items[1], scope), span=x.span, source=x)


def read_do(e, x: SList, scope: Scope) -> Do:
    """The node of ``(do (ITEM ...))``; ``(do (ITEM))``, one item written bare, is ``bare``."""
    if len(x.items) != 2 or not isinstance(x.items[1], SList):
        fail("expected (do (ITEM ...))", x, "do")
    inner = x.items[1]
    if inner.items and isinstance(inner.items[0], Atom):
        return Do((e.item(inner, scope),), bare=True, span=x.span, source=x)  # (do (ITEM))
    return Do(tuple(e.item(i, scope) for i in inner.items), span=x.span, source=x)


@family
class BlockForms:
    """The conditional and the block in the reference interpreter (a mixin of ``FlowCompiler``)."""

    @form(None, "((CONDITION) ITEM)", Kind.FLOW, label="conditional", node=When, reads=read_conditional)
    def c_conditional(self, x: When, scope: Scope) -> Item:
        """((CONDITION) ITEM)

        Runs the item only when the condition, evaluated when it is reached, holds."""
        cond = self.c_bool(x.condition, scope)
        if self.rule_counts is not None:
            cond = counted(cond, self.rule_counts, x.span)
        sub = self.c_item(x.item, scope)
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

    @form("do", "(do (ITEM ...))", Kind.FLOW, role="block", node=Do, reads=read_do)
    def a_do(self, x: Do, scope: Scope) -> Item:
        """(do (ITEM ...))

        Runs the items in order, each seeing the effects of the ones before it."""
        return self.sequence(x, scope, [self.c_item(i, scope) for i in x.body])


# -- their native writers ------------------------------------------------------------------
# Each writes what the form's closure above does, counter for counter (``w``: the native
# engine's ``Writer``).


@native(Kind.FLOW, Do)
def write_do(w, x: Do, sc) -> None:
    """The items of ``(do (ITEM ...))`` in order."""
    w.sequence(x.body, sc)


@native(Kind.FLOW, When)
def write_conditional(w, x: When, sc) -> None:
    """``((CONDITION) ITEM)``: the item under an ``if`` of the condition."""
    w.comment(x.condition)
    with w.block(f"if {w.bool_(x.condition, sc)}:"):
        w.item(x.item, sc)


# how the conditional offers options in a choice, natively (``offers.py``)
@native_offer(When)
class ConditionalOffer:
    """((CONDITION) ITEM) in a choice, natively: the item's options while the condition holds
    (a mixin of the native engine's ``Forming``: ``offers.py``)."""

    def single(self, x) -> bool:
        return self.is_single(x.item)

    def condition_draws(self, x) -> bool:
        return self.draws(x.condition) or self.conditions_draw(x.item)

    def lists_empty(self, x) -> bool:
        return self.offer_of(x.item).lists_empty(x.item)

    def options(self, w, x, sc, counting: bool) -> None:
        if self.draws(x.condition):
            raise NativeUnsupported("a condition of an option that draws random numbers", x)
        with w.block(f"if {w.bool_(x.condition, sc)}:"):
            self.list_options(w, x.item, sc, counting)

    def raw_count(self, w, x, sc, var: str) -> None:
        with w.block(f"if {w.bool_(x.condition, sc)}:"):
            self.count_listed(w, x.item, sc, var)

    def raw_walk(self, w, x, sc, suffix: list) -> None:
        with w.block(f"if {w.bool_(x.condition, sc)}:"):
            self.walk_listed(w, x.item, sc, suffix)

    def offer_keys(self, w, x, sc, around=None) -> None:
        with w.block(f"if {w.bool_(x.condition, sc)}:"):
            self.write_keys(w, x.item, sc, around)

    def key_steps(self, w, x, sc, steps: str) -> None:
        with w.block(f"if {w.bool_(x.condition, sc)}:"):
            self.add_key_steps(w, x.item, sc, steps)
