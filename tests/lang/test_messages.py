"""Messages that point at the real slip (issue 16): each test names the exact message and
its position, through the library and through the ``recycle`` command."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import recycle
from recycle.cli.main import app
from recycle.lang.reading.lint import lint

from ..conftest import tiny

runner = CliRunner()

HEAD = """(game
 (setup (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (SEVEN, EIGHT, A)) (SUIT (X, Y)))))
"""


def write(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(HEAD + body)
    return path


def error_of(text, filename="f.rcy", fast=True):
    with pytest.raises(recycle.RecycleError) as info:
        recycle.loads(text, filename, fast=fast).play(seed=0)
    return info.value


# -- files and parentheses -----------------------------------------------------------------


def test_a_missing_file_is_not_a_syntax_error(tmp_path):
    missing = tmp_path / "nothere.rcy"
    with pytest.raises(recycle.RecycleError) as info:
        recycle.load(missing)
    assert info.value.format() == f"error: cannot read {missing}: no such file"
    r = runner.invoke(app, ["check", str(missing)])
    assert r.exit_code == 1 and f"error: cannot read {missing}: no such file" in r.output
    assert "syntax error" not in r.output


def test_one_paren_too_many_is_reported_where_it_is(tmp_path):
    game = write(tmp_path, "extra.rcy", " (do ((shuffle (game iloc STOCK)))))\n (scoring max 0))\n")
    r = runner.invoke(app, ["check", str(game)])
    assert r.exit_code == 1
    assert (
        f"{game}:5:17: syntax error: this ')' closes nothing: one ')' too many earlier closed (game ...) "
        "at 4:36, leaving (scoring ...) at 5:2 outside the game"
    ) in r.output
    assert "must end with" not in r.output


def test_a_game_closed_early_without_a_stray_paren():
    text = HEAD + " (do ((shuffle (game iloc STOCK)))))\n (scoring max 0)\n"
    with pytest.raises(recycle.RecycleSyntaxError) as info:
        recycle.loads(text, "f.rcy")
    assert str(info.value).startswith(
        "f.rcy:4:36: syntax error: this ')' closes (game ...) too early, leaving "
        "(scoring ...) at 5:2 outside the game: one ')' too many?"
    )


def test_a_stray_paren_after_a_whole_game_is_still_only_a_warning():
    g = recycle.loads(HEAD + " (do ((shuffle (game iloc STOCK))))\n (scoring max 0)))\n", "f.rcy")
    assert any("stray ')'" in w for w in g.warnings)


# -- forms of the wrong kind ----------------------------------------------------------------


def test_size_of_a_card():
    text = HEAD + " (do (((> (size (top (game iloc STOCK))) 0) (shuffle (game iloc STOCK)))))\n (scoring max 0))"
    with pytest.raises(recycle.RecycleCompileError) as info:
        recycle.loads(text, "f.rcy")
    assert str(info.value).startswith("f.rcy:4:17: error: size counts a location or a group list; (top L) is a card")


def test_size_of_the_top_group_is_still_a_size():
    g = tiny(
        "(do ((set (game sto N) (size (top (partition RANK (game iloc STOCK)))))))",
        scoring="(scoring max (game sto N))",
    )
    assert g.play(seed=0).scores == [2, 2]


def test_a_card_attribute_compared_with_a_number_says_attributes_are_names():
    text = (
        HEAD + " (do (((> (cardatt RANK (top (game iloc STOCK))) 8) (shuffle (game iloc STOCK)))))\n (scoring max 0))"
    )
    with pytest.raises(recycle.RecycleCompileError) as info:
        recycle.loads(text, "f.rcy")
    assert "f.rcy:4:11: error: expected an integer expression, got (cardatt ...): card attributes are names" in str(
        info.value
    )


# -- cards that are not there -----------------------------------------------------------------


@pytest.mark.parametrize("fast", [True, False])
def test_the_top_of_an_empty_location_names_the_location(fast):
    text = (
        HEAD
        + """ (do ((set (game str S) A)
      ((== (cardatt RANK (bottom ((1 player) vloc PLAY))) A) (shuffle (game iloc STOCK)))
      ((> (score (top ((current player) vloc PLAY)) using (game points P)) 0) (shuffle (game iloc STOCK)))))
 (scoring max 0))"""
    )
    err = error_of(text, fast=fast)
    assert err.format().startswith(
        "f.rcy:6:11: runtime error: (top (P0 vloc PLAY)) names no card: "
        "(P0 vloc PLAY) is empty here, and score needs a card"
    )


@pytest.mark.parametrize("fast", [True, False])
def test_max_and_bottom_of_an_empty_location(fast):
    text = (
        HEAD
        + """ (stage player (end (== (game sto N) 1))
   (do ((inc (game sto N) 1)
        (set (game sto M) (score (max ((next player) iloc HAND) using (game points P)) using (game points P))))))
 (scoring max 0))"""
    )
    assert (
        error_of(text, fast=fast)
        .format()
        .startswith(
            "f.rcy:6:27: runtime error: (max (P1 iloc HAND) using (game points P)) names no card: (P1 iloc HAND) is "
            "empty here, and score needs a card"
        )
    )
    text = HEAD + " (do ((move (bottom (game vloc PILE)) (top (game vloc OUT)))))\n (scoring max 0))"
    assert "move from the empty location PILE" in error_of(text, fast=fast).format()
    text = (
        HEAD + " (do ((set (game sto N) (score (bottom (game vloc PILE)) using (game points P)))))\n (scoring max 0))"
    )
    assert (
        error_of(text, fast=fast)
        .format()
        .startswith(
            "f.rcy:4:25: runtime error: (bottom (game vloc PILE)) names no card: (game vloc PILE) is empty here"
        )
    )


# -- RECYCLE.md 9.2: a card reference that names no card equals no card ----------------------


@pytest.mark.parametrize("fast", [True, False])
def test_a_card_reference_naming_no_card_equals_no_card(fast):
    g = recycle.loads(
        HEAD
        + """ (do (
   (move (top (game iloc STOCK)) (top (game vloc PILE)))
   ((== (top (game vloc PILE)) (top (game vloc EMPTY))) (inc (game sto EQ1) 1))
   ((== (top (game vloc EMPTY)) (top (game vloc PILE))) (inc (game sto EQ2) 1))
   ((== (top (game vloc EMPTY)) (top (game vloc NONE))) (inc (game sto EQ3) 1))
   ((!= (top (game vloc PILE)) (top (game vloc EMPTY))) (inc (game sto NE1) 1))
   ((!= (top (game vloc EMPTY)) (top (game vloc NONE))) (inc (game sto NE2) 1))
   ((== (top (game vloc PILE)) (bottom (game vloc PILE))) (inc (game sto SAME) 1))
   (all (game iloc STOCK) 'C ((!= 'C (top (game mem DRAWN))) (inc (game sto OTHER) 1)))))
 (scoring max 0))""",
        "f.rcy",
        fast=fast,
    )
    s = g.play(seed=0).state
    got = {k: s.sto("game", k) for k in ("EQ1", "EQ2", "EQ3", "NE1", "NE2", "SAME", "OTHER")}
    assert got == {"EQ1": 0, "EQ2": 0, "EQ3": 0, "NE1": 1, "NE2": 1, "SAME": 1, "OTHER": 5}


def test_a_rummy_like_discard_rule_plays():
    """The corpus' Rummy2 compares each hand card with the top of a memory location that is
    never filled; every game of it stopped with an error before RECYCLE.md 9.2."""
    g = recycle.loads(
        HEAD
        + """ (do ((shuffle (game iloc STOCK))
   (all player 'P (repeat 3 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))))
 (stage player (end (any player 'P (== (size ('P iloc HAND)) 0)))
  (choice (
   (any ((current player) iloc HAND) 'C
    ((!= 'C (top ((current player) mem DRAWN))) (move 'C (top (game vloc DISCARD))))))))
 (scoring min (size ((current player) iloc HAND))))""",
        "f.rcy",
    )
    stats = recycle.simulate(g, 20, seed=1)
    assert stats.finished == 20 and stats.step_limit_hits == 0


# -- lint -------------------------------------------------------------------------------------


def test_lint_warns_of_an_attribute_value_no_card_has(tmp_path):
    game = write(
        tmp_path,
        "att.rcy",
        """ (do ((move (top (game iloc STOCK)) (top (game vloc DISCARD)))
   ((== (cardatt RANK (top (game vloc DISCARD))) 8) (shuffle (game iloc STOCK)))
   ((!= NINE (cardatt RANK (top (game vloc DISCARD)))) (shuffle (game iloc STOCK)))
   ((== (cardatt SUIT (top (game vloc DISCARD))) X) (shuffle (game iloc STOCK)))))
 (scoring max 0))""",
    )
    r = runner.invoke(app, ["check", str(game)])
    assert r.exit_code == 0
    assert (
        f"{game}:5:50: warning: no card has RANK 8: the values of RANK are SEVEN, EIGHT, A "
        "(card attributes are names, not numbers)"
    ) in r.output
    assert f"{game}:6:9: warning: no card has RANK NINE: the values of RANK are SEVEN, EIGHT, A" in r.output
    assert "SUIT X" not in r.output and r.output.count("warning:") == 2


def test_lint_warns_of_a_lower_case_name_among_upper_case_ones(tmp_path):
    game = write(
        tmp_path,
        "case.rcy",
        """ (do ((move (top (game iloc STOCK)) (top (game vloc DISCARD)))
   (move (top (game iloc STOCK)) (top (game vloc Discard)))
   (set (game sto COUNT) (size (game vloc DISCARD)))))
 (scoring max (game sto COUNT)))""",
    )
    r = runner.invoke(app, ["check", str(game)])
    assert (
        f"{game}:5:50: warning: the name Discard is not in upper case like the game's other names "
        "(names are case-sensitive; DISCARD is another name)"
    ) in r.output
    r = runner.invoke(app, ["check", "--strict", str(game)])
    assert r.exit_code == 1


def test_lint_is_quiet_on_the_games_of_the_project():
    from ..conftest import GAMES

    for path in sorted(GAMES.glob("*.rcy")):
        g = recycle.load(path)
        assert [str(w) for w in lint(g.nodes)] == [], path.name
