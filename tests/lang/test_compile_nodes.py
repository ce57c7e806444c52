"""The reference interpreter compiles the elaborator's nodes (issue 41): the whole game read once
by ``elaborate`` compiles as the s-expressions ``engine/game.py`` hands over do, and an
s-expression reaching an entry point is read into its node there, once."""

from __future__ import annotations

import pytest

import recycle
from recycle.errors import RecycleCompileErrors
from recycle.lang.forms.flow import FlowCompiler
from recycle.lang.nodes.base import Broken
from recycle.lang.nodes.flow import elaborate
from recycle.lang.nodes.sexpr import Const, Scope
from recycle.lang.syntax.reader import parse_file, parse_text

from ..conftest import GAMES

GAME_FILES = sorted(GAMES.glob("*.rcy"))


def compile_nodes(path):
    """(the game loaded as usual, a compiler that compiled its elaborated nodes)."""
    g = recycle.load(path)
    source = parse_file(path)
    game = elaborate(source)
    comp = FlowCompiler(g.card_table, g.nplayers, source=source)
    consts = {n: v for n, v in g.scope.names().items() if isinstance(v, Const)}
    scope = Scope(None, dict(consts))
    for d in game.declares:
        if d.name not in consts:
            slot = comp.new_slot()
            comp.c_value(d.value, scope)
            scope = scope.bind(d.name, slot)
    for item in game.setup:
        comp.c_item(item, scope)
    for item in game.flow:
        comp.c_item(item, scope)
    comp.c_int(game.score, scope)
    return g, comp


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.stem)
def test_a_game_read_once_compiles_to_the_same_layout(path):
    g, comp = compile_nodes(path)
    assert comp.errors == []
    # every location and storage registered in the same order: what a native module numbers
    assert list(comp.layout.loc_base.items()) == list(g.layout.loc_base.items())
    for sort in ("sto", "str", "points"):
        assert comp.layout.storage_names(sort) == g.layout.storage_names(sort)


def test_an_item_the_elaborator_kept_an_error_for_reports_it_where_it_stands():
    text = """(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B)))))
 (do ((move (top (game iloc STOCK)) (top (game mem M))) (inc (game sto X) (+ 1))))
 (scoring max 0))"""
    with pytest.raises(RecycleCompileErrors) as info:
        recycle.loads(text, "tiny.rcy")
    messages = [str(e) for e in info.value.errors]
    assert len(messages) == 2
    assert "cards cannot be moved into a mem location" in messages[0]
    assert "(+ A B ...) takes two or more integers" in messages[1]


def test_the_compiler_is_handed_nodes_and_reads_no_s_expression():
    """The elaborator reads an item once into its node (a broken one standing with its error);
    the compiler takes the node and has no way of its own to read an s-expression."""
    from recycle.lang.nodes import Elaborator

    x = parse_text("(g (do ((move (top (game vloc A)) (top (game vloc B))))))").forms[0].items[1]
    node = Elaborator().item(x, Scope())
    assert type(node).__name__ == "Do" and node.span == x.span
    comp = FlowCompiler(None, 2)
    assert comp.c_item(node, Scope()).node is node
    assert not hasattr(comp, "entry") and not hasattr(comp, "reader")
    broken = Elaborator().item(parse_text("(g (move 1 2))").forms[0].items[1], Scope())
    assert isinstance(broken, Broken) and "expected a destination" in str(broken.error)
    comp.c_item(broken, Scope())  # kept, to be reported with the file's other errors
    with pytest.raises(recycle.RecycleError, match="1:12: error: expected a destination"):
        comp.raise_errors()
