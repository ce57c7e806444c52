"""The card, attribute, place and view forms, each kept whole in one module of lang/forms
(issue 41, requirement 4): its node class, its reading, its meaning in the reference
interpreter and its native writer are registered together from that module, and found there
by the elaborator, the compiler's entry points and the native writer; a malformed form is
still refused with its message."""

from __future__ import annotations

import importlib

import pytest

import recycle
from recycle.lang.forms.flow import REGISTRY
from recycle.lang.forms.reads import NODE_METHODS
from recycle.lang.forms.writers import NATIVE_WRITERS
from recycle.lang.nodes import Elaborator, elaborate
from recycle.lang.nodes.base import Kind
from recycle.lang.nodes import places as P
from recycle.lang.nodes import scalars as S
from recycle.lang.syntax.reader import parse_text

# (kind, head or label, its module, its node class, has a native writer)
WHOLE_FORMS = [
    (Kind.CARD, "top", "form_card_picks", P.Top, True),
    (Kind.CARD, "bottom", "form_card_picks", P.Bottom, True),
    (Kind.CARD, "index", "form_card_picks", P.At, True),
    (Kind.CARD, "max", "form_card_picks", P.Highest, True),
    (Kind.CARD, "min", "form_card_picks", P.Lowest, True),
    (Kind.CARD, "actual", "form_card_picks", P.Actual, True),
    (Kind.PLAYER, "owner", "form_attributes", S.Owner, True),
    (Kind.TEAM, "team", "form_attributes", S.TeamOf, True),
    (Kind.STR, "cardatt", "form_attributes", S.CardAtt, True),
    (Kind.STR, "member", "form_member", S.Member, False),
    (Kind.LOC, "union", "form_views", P.Union, True),
    (Kind.LOC, "intersect", "form_views", P.Intersect, False),
    (Kind.LOC, "disjunction", "form_views", P.Disjunction, False),
    (Kind.LOC, "sort", "form_views", P.Sort, False),
    (Kind.LOC, "run", "form_views", P.RunOf, True),
    (Kind.LOC, "top", "form_views", P.TopN, True),
    (Kind.LOC, "bottom", "form_views", P.BottomN, True),
    (Kind.LOC, "filter", "form_filter", P.Filter, True),
    (Kind.LOC, "let", "form_let_place", P.LetPlace, False),
]


@pytest.mark.parametrize(("kind", "name", "module", "node", "written"), WHOLE_FORMS)
def test_the_form_is_registered_whole_from_its_module(kind, name, module, node, written):
    pytest.importorskip("recycle.native.module")  # (the native engine's own writers registered too)
    where = importlib.import_module(f"recycle.lang.forms.{module}").__name__
    (f,) = [f for f in REGISTRY.forms if f.kind == kind and f.name == name]
    assert f.node is node and f.compile.__module__ == where and f.reads.__module__ == where
    assert NODE_METHODS[node] == f.method and REGISTRY.readings[f.method] is f.reads
    assert not hasattr(Elaborator, "e_" + f.method)  # (no second reading left in lang/nodes)
    writer = NATIVE_WRITERS.get((kind, node))
    assert (writer.__module__ if writer is not None else None) == (where if written else None)


def test_the_readings_make_the_nodes_the_compiler_is_handed():
    text = """(game (setup (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 (do ((set (game points P) (((RANK : A) 1)))
      (move (max (filter (game iloc STOCK) 'C (== (cardatt RANK 'C) A)) using (game points P))
            (top (game vloc (member RUN (size (union (game iloc STOCK) (top 2 (game iloc STOCK))))))))))
 (scoring max 0))"""
    move = elaborate(parse_text(text)).flow[0].body[1]
    assert isinstance(move.card, P.Highest) and isinstance(move.card.location, P.Filter)
    assert isinstance(move.card.location.condition.a, S.CardAtt)
    member = move.to.location.name
    assert isinstance(member, S.Member) and member.family == "RUN"
    union = member.index.collection
    assert isinstance(union, P.Union) and isinstance(union.parts[1], P.TopN)


def text_of(body: str) -> str:
    return f"""(game
 (setup (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 {body}
 (scoring max 0))"""


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "(do ((move (max (game iloc STOCK) by (game points P)) (top (game vloc D)))))",
            "4:13: error: expected (max LOCATION using POINTS) ('by' is not a word of RECYCLE)",
        ),
        (
            "(do ((move (top (game iloc STOCK) (game iloc STOCK)) (top (game vloc D)))))",
            "4:13: error: expected (top LOCATION), (bottom LOCATION) or (INDEX LOCATION)",
        ),
        ("(do ((move (actual) (top (game vloc D)))))", "4:13: error: (actual ...) takes 1 argument, got 0"),
        (
            "(do ((set (game sto X) (size (sort (game iloc STOCK))))))",
            "4:31: error: expected (sort LOCATION using POINTS)",
        ),
        (
            "(do ((set (game sto X) (size (run middle 2 (game iloc STOCK) using (game points P))))))",
            "4:31: error: expected (run top|bottom N LOCATION using POINTS) ('middle' is not a word of RECYCLE)",
        ),
        (
            "(do ((set (game sto X) (size (top 1 2 (game iloc STOCK))))))",
            "4:31: error: expected a location, got (top ...)",
        ),
        ("(do ((set (game str X) (cardatt RANK))))", "4:25: error: (cardatt ...) takes 2 arguments, got 1"),
        (
            "(do ((set (game sto X) (size (game vloc (member run 3))))))",
            "4:42: error: expected (member NAME INDEX), as in (game vloc RUN 3)",
        ),
        ("(do ((cycle next (owner))))", "4:19: error: (owner ...) takes 1 argument, got 0"),
        (
            "(do ((set (game sto X) (size (filter (game iloc STOCK) C (== 1 1))))))",
            "4:31: error: expected (filter COLLECTION 'VARIABLE BODY)",
        ),
        ("(do ((set (game sto X) (size (union)))))", "4:31: error: expected one or more locations"),
        (
            "(do ((set (game sto X) (size (let 3 (game iloc STOCK))))))",
            "4:31: error: expected (let VALUE 'VARIABLE BODY)",
        ),
    ],
)
def test_a_malformed_form_is_refused_by_its_reading_with_its_message(body, message):
    with pytest.raises(recycle.RecycleError) as compiled:
        recycle.loads(text_of(body), "m.rcy")
    with pytest.raises(recycle.RecycleError) as read:
        elaborate(parse_text(text_of(body), "m.rcy"))
    assert read.value.format().splitlines()[0] == "m.rcy:" + message
    assert compiled.value.format() == read.value.format()
