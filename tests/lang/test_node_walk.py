"""Walking a game's nodes, and what the readings of a game take from them (issue 41): a
declared constant's literal as written, and where the sections are written."""

from recycle.lang.nodes import elaborate
from recycle.lang.nodes.base import Const, Num, Var
from recycle.lang.nodes.flow import Declare, Do
from recycle.lang.nodes.walk import children, walk
from recycle.lang.syntax.reader import parse_text

TEXT = """(game
 (declare 3 'N)
 (declare (+ 'N 1) 'M)
 (setup (create players 'N) (create deck (game iloc STOCK) (deck (R (A, B)))))
 (do ((move (top (game iloc STOCK)) (top (game vloc PILE)))))
 (scoring max 'M))"""


def test_walk_yields_each_node_before_its_operands_in_the_order_written():
    game = elaborate(parse_text(TEXT, "w.rcy"))
    names = [type(n).__name__ for n in walk(game.flow[0])]
    assert names == ["Do", "Move", "Top", "Loc", "GameOwner", "Word", "Place", "Loc", "GameOwner", "Word"]
    assert isinstance(game.flow[0], Do) and list(children(game.flow[0])) == [game.flow[0].body[0]]


def test_a_declared_literal_is_kept_as_written_beside_its_folded_value():
    game = elaborate(parse_text(TEXT, "w.rcy"))
    n, m = game.declares
    assert isinstance(n, Declare) and isinstance(n.value, Const) and n.value.value == 3
    assert isinstance(n.literal, Num) and (n.literal.span.line, n.literal.span.column) == (2, 11)
    assert m.literal is None and not isinstance(m.value, Const)
    # the literal is no operand (walking the declaration meets its value once)
    assert [type(x).__name__ for x in walk(n)] == ["Declare", "Const"]
    assert isinstance(game.players, Const) and game.players.name == "N"
    assert isinstance(game.score, Var) and game.score.name == "M"
    spans = [game.players_at, game.setup_at, game.scoring_at]
    assert [(s.line, s.column) for s in spans] == [(4, 9), (4, 2), (6, 2)]
