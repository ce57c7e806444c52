"""A node written back as its s-expression (lang/forms/spelling.py): what a transcript shows of
an option whose effects say nothing, now written from the compiled item's node; and a form's
weight, its number of lists as written, counted from its node (lang/forms/costs.py)."""

from __future__ import annotations

import pytest

import recycle
from recycle.lang.forms.costs import Costs
from recycle.lang.forms.spelling import spelled
from recycle.lang.nodes import elaborate
from recycle.lang.nodes.actions import Cycle, Deck, Inc
from recycle.lang.nodes.flow import Elaborator
from recycle.lang.nodes.sexpr import Scope
from recycle.lang.nodes.walk import walk
from recycle.lang.syntax.reader import parse_text

from ..conftest import GAMES

GAME_FILES = sorted(GAMES.glob("*.rcy"))


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.name)
def test_every_node_is_written_back_as_it_was_written(path):
    """Every node of the game, stages too, but a deck (its node keeps the cards, not the
    attribute tree written), is written back exactly as its text."""
    game = elaborate(recycle.load(path, engine="reference").source)
    checked = 0
    for node in walk(game):
        if node is game or node.source is None or any(isinstance(n, Deck) for n in walk(node)):
            continue
        assert spelled(node) == str(node.source)
        checked += 1
    assert checked > 100


def test_a_stage_is_written_with_its_keywords():
    """player|team and simultaneous are facts of the node (team, simultaneous), written back
    as the keywords they were; the end condition as the (end ...) list."""
    game = elaborate(
        parse_text(
            "(game (setup (create players 2)) (stage team (end (== 1 1)) (turn pass))"
            " (stage player simultaneous (end (== 1 1)) (turn pass)) (stage player (end (== 1 1)) (turn pass))"
            " (scoring max ((current player) sto X)))"
        )
    )
    stages = [spelled(n) for n in game.flow]
    assert stages == [
        "(stage team (end (== 1 1)) (turn pass))",
        "(stage player simultaneous (end (== 1 1)) (turn pass))",
        "(stage player (end (== 1 1)) (turn pass))",
    ]


def test_variables_are_written_by_what_the_caller_says_of_them():
    game = elaborate(
        parse_text(
            "(game (declare 2 'N) (setup (create players 'N) (create deck (game iloc STOCK) (deck (RANK (A, K)))))"
            " (do ((all player 'P (cycle next current)) (all player 'P (inc ('P sto X) 'N))))"
            " (scoring max ((current player) sto X)))"
        )
    )
    inc = next(n for n in walk(game) if isinstance(n, Inc))
    cycle = next(n for n in walk(game) if isinstance(n, Cycle))
    assert spelled(inc) == "(inc ('P sto X) 'N)"
    assert spelled(inc, {"P": "P1"}.get) == "(inc (P1 sto X) 'N)"
    assert spelled(cycle) == "(cycle next current)"  # the bare word, as written


@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.name)
def test_a_forms_weight_is_the_number_of_lists_written(path):
    """What a form costs from the work budget (lang/forms/costs.py, read from its node) is its
    number of parenthesised lists as written; with one player a loop over the players counts
    its body once, as the text does."""
    game = elaborate(recycle.load(path, engine="reference").source)
    costs = Costs()
    for node in walk(game):  # the game itself too: its cost is charged when it starts
        if node.source is not None:
            assert costs._lists(node, 1, {}) == str(node.source).count("("), type(node).__name__


def test_a_loop_over_the_players_counts_its_body_once_per_player():
    item = Elaborator().item(parse_text("(all player 'P (inc ('P sto X)))").forms[0], Scope())
    assert Costs()._lists(item, 4, {}) == 1 + 4 * 2
