"""Counting and scoring cards: ``size``, ``sum``, ``score``, ``scoremax`` and ``scoremin``.

Each form is kept whole here, registered together as this module is imported (``flow.py``
imports every ``form_*.py``): its node (``lang/nodes/numbers.py``), its reading of the
s-expression (``read_*``: the shape checks and positioned errors), its meaning in the
reference interpreter (``CountingForms``; the size of a collection itself, ``c_size``, stays in
``expr_int.py``: the actions that count cards read it too), its facts (the ``@form`` record)
and its native writer (``write_*``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.base import Everyone, written
from ..nodes.numbers import Score, ScoreMax, ScoreMin, Size, Sum
from ..nodes.sexpr import Scope, fail, kw
from ..syntax.reader import INT, Atom, SList
from .registry import Kind, family, form
from .runtime import MAX_INT, SMALL, out_of_work, rt_error
from .writers import LOC_T, native


# -- readings ----------------------------------------------------------------------------------


def read_size(e, x: SList, scope: Scope) -> Size:
    """``(size COLLECTION)``: the cards of a location, or any other collection (a card is not one)."""
    e.arity(x, 2)
    c = x.items[1]
    if (
        isinstance(c, SList)
        and len(c.items) == 2
        and isinstance(c.items[0], Atom)
        and (c.items[0].value in ("top", "bottom") or c.items[0].kind == INT)
    ):
        inner = c.items[1]
        if e.is_location(inner) or (isinstance(inner, SList) and inner.head in e.VIEWS_OF_LOCATIONS):
            fail(f"size counts a location or a group list; ({c.items[0].value} L) is a card", c, "size")
    if e.is_location(c):
        return Size(e.cards(c, scope), span=x.span, source=x)
    return Size(e.coll(c, scope), span=x.span, source=x)


def read_sum(e, x: SList, scope: Scope) -> Sum:
    """``(sum LOCATION using POINTS)``."""
    if len(x.items) != 4 or not kw(x.items[2], "using"):
        fail("expected (sum LOCATION using POINTS)", x, "sum")
    return Sum(e.cards(x.items[1], scope), e.points(x.items[3], scope), span=x.span, source=x)


def read_score(e, x: SList, scope: Scope) -> Score:
    """``(score CARD using POINTS)``: the card may name none (the top of an empty place)."""
    if len(x.items) != 4 or not kw(x.items[2], "using"):
        fail("expected (score CARD using POINTS)", x, "score")
    return Score(e.card(x.items[1], scope, optional=True), e.points(x.items[3], scope), span=x.span, source=x)


def read_extreme(cls: type) -> Callable:
    """The reading of ``(scoremax|scoremin COLLECTION using POINTS)``."""
    head = cls.HEAD

    def read(e, x: SList, scope: Scope):
        if len(x.items) != 4 or not kw(x.items[2], "using"):
            fail(f"expected ({head} COLLECTION using POINTS)", x, head)
        return cls(e.cards(x.items[1], scope), e.points(x.items[3], scope), span=x.span, source=x)

    return read


# -- meanings in the reference interpreter -----------------------------------------------------


@family
class CountingForms:
    """Counting and scoring cards in the compiler (a mixin of ``FlowCompiler``)."""

    @form("size", "(size COLLECTION)", Kind.INT, pure=True, words="size {1}", node=Size, reads=read_size)
    def int_size(self, x: Size, scope: Scope) -> Callable:
        """(size COLLECTION)

        The number of elements of a collection: cards of a location, groups of a group
        list, players, teams, names or integers of a range."""
        return self.c_size(x.collection, scope)

    @form(
        "sum",
        "(sum LOCATION using POINTS)",
        Kind.INT,
        pure=True,
        expensive=True,
        words="sum {1} {2=using} {3}",
        node=Sum,
        reads=read_sum,
    )
    def int_sum(self, x: Sum, scope: Scope) -> Callable:
        """(sum LOCATION using POINTS)

        The total score of the cards under the point map (0 for no cards)."""
        cards = self.c_cards(x.location, scope)
        pts = self.c_points(x.points, scope)
        vs, ps = getattr(cards, "var_slot", None), getattr(pts, "points_slot", None)
        span = x.span

        def checked(s, n: int, total: int) -> int:
            # the rare case: many cards (each costs a unit), or a map whose sums may pass 64 bits
            if n > SMALL:
                s.work -= n
                if s.work < 0:
                    out_of_work(s, span, "sum")
            if -MAX_INT <= total <= MAX_INT:
                return total
            rt_error("integer overflow (beyond 64 bits)", span, "sum")

        # a sum is a leaf (no loop inside): it pays for its cards after adding them, and a
        # hand of up to SMALL cards is paid for by the form itself
        if vs is not None and ps is not None and vs in self.once_slots:

            def sum_group(s, e):
                # a group of a list made afresh for the loop around (its cards paid for there);
                # a plain loop beats sum(map(...)) on the few cards of a hand or group
                pm = s.points[ps]
                table = pm.table
                total = 0
                for c in e[vs]:
                    total += table[c]
                if pm.wide:
                    return checked(s, 0, total)
                return total

            return sum_group
        if vs is not None and ps is not None:

            def sum_var(s, e):
                pm = s.points[ps]
                table = pm.table
                lst = e[vs]
                total = 0
                for c in lst:
                    total += table[c]
                if pm.wide or len(lst) > 8:  # 8: SMALL
                    return checked(s, len(lst), total)
                return total

            return sum_var

        def sum_(s, e):
            pm = pts(s, e)
            sc = pm.table
            lst = cards(s, e)
            if len(lst) > SMALL:
                s.work -= len(lst)
                if s.work < 0:
                    out_of_work(s, span, "sum")
            total = sum([sc[c] for c in lst])
            if pm.wide:
                return checked(s, 0, total)
            return total

        return sum_

    @form(
        "score",
        "(score CARD using POINTS)",
        Kind.INT,
        pure=True,
        words="score {1} {2=using} {3}",
        node=Score,
        reads=read_score,
    )
    def int_score(self, x: Score, scope: Scope) -> Callable:
        """(score CARD using POINTS)

        One card's score under the point map."""
        card = self.c_card(x.card, scope, optional=True)
        pts = self.c_points(x.points, scope)
        span = x.span
        why = self.no_card(x.card, scope)

        def score(s, e):
            c = card(s, e)
            if c is None:
                rt_error(f"{why(s, e)}, and score needs a card", span, "score")
            pm = pts(s, e)
            v = pm.table[c]
            if not pm.wide or -MAX_INT <= v <= MAX_INT:
                return v
            rt_error("integer overflow (beyond 64 bits): the card's points add up beyond 64 bits", span, "score")

        return score

    @form(
        "scoremax",
        "(scoremax COLLECTION using POINTS)",
        Kind.INT,
        pure=True,
        expensive=True,
        node=ScoreMax,
        reads=read_extreme(ScoreMax),
    )
    def int_scoremax(self, x: ScoreMax, scope: Scope) -> Callable:
        """(scoremax COLLECTION using POINTS)

        The highest score under the point map among the cards of a location, view or group
        (the score of the card ``max`` gives); an error when there are no cards."""
        return self.score_extreme(x, scope, True)

    @form(
        "scoremin",
        "(scoremin COLLECTION using POINTS)",
        Kind.INT,
        pure=True,
        expensive=True,
        node=ScoreMin,
        reads=read_extreme(ScoreMin),
    )
    def int_scoremin(self, x: ScoreMin, scope: Scope) -> Callable:
        """(scoremin COLLECTION using POINTS)

        The lowest score under the point map among the cards of a location, view or group
        (the score of the card ``min`` gives); an error when there are no cards."""
        return self.score_extreme(x, scope, False)

    def score_extreme(self, x, scope: Scope, highest: bool) -> Callable:
        """The closure of scoremax (``highest``) or scoremin."""
        head = x.HEAD
        cards = self.c_cards(x.collection, scope)
        pts = self.c_points(x.points, scope)
        span = x.span
        pick = max if highest else min
        what = written(x.collection)
        if len(what) > 60:
            what = what[:57] + "..."

        def extreme(s, e):
            lst = cards(s, e)
            if not lst:
                rt_error(f"({head} ...) of no cards: {what} is empty here", span, head)
            if len(lst) > SMALL:  # a hand of up to SMALL cards is paid for by the form itself
                s.work -= len(lst)
                if s.work < 0:
                    out_of_work(s, span, head)
            pm = pts(s, e)
            sc = pm.table
            v = pick([sc[c] for c in lst])
            if not pm.wide or -MAX_INT <= v <= MAX_INT:
                return v
            rt_error("integer overflow (beyond 64 bits): a card's points add up beyond 64 bits", span, head)

        return extreme


# -- native writers ----------------------------------------------------------------------------


@native(Kind.INT, Size)
def write_size(w, x: Size, sc) -> str:
    """The native count of players, teams, groups of a group list, or cards of a location or view."""
    coll = x.collection
    if isinstance(coll, Everyone):
        return "NPLAYERS" if coll.what == "player" else "ctr[NTEAMS]"
    groups = w.groups_of(coll, sc)
    if groups is not None:
        return f"scratch[{groups}]"  # how many groups
    t, code = w.loc(coll, sc)
    return f"lens[{code}]" if t == LOC_T else f"scratch[{code}]"


@native(Kind.INT, Sum)
def write_sum(w, x: Sum, sc) -> str:
    """The native total of the cards' points: read where a location's cards lie, or a view's."""
    t, code = w.loc(x.location, sc)
    table = w.points_table(x.points, sc)
    # (checked for leaving 64 bits only where the game's point maps could: ``sums_fit``)
    plain = "_plain" if w.sums_fit() else ""
    if t == LOC_T:
        return f"score_sum_loc{plain}(ctr, locs, lens, {code}, {table})"
    return f"score_sum{plain}(ctr, scratch, {code}, {table})"


@native(Kind.INT, ScoreMax, ScoreMin)
def write_score_extreme(w, x, sc) -> str:
    """The native highest (lowest) score among the cards (``best_score`` in the runtime)."""
    return (
        f"best_score(ctr, scratch, {w.cards(x.collection, sc)}, {w.points_table(x.points, sc)}, "
        f"{isinstance(x, ScoreMax)})"
    )


@native(Kind.INT, Score)
def write_score(w, x: Score, sc) -> str:
    """The native score of one card."""
    return f"card_score({w.points_table(x.points, sc)}, {w.card(x.card, sc)})"
