"""The newer RECYCLE dialect (issue 26): (pid PLAYER), (scoremax|scoremin C using P), + and *
with more operands, teams listed from 1, families of locations (OWNER KIND NAME INDEX), and
`recycle check` reporting every independent error of a file. Each form: its meaning, its
errors with their positions, and the engines agreeing (the games of tests/lang/dialect/ and the
games of games/ that use the forms are also in tests/engine/test_differential.py)."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

import recycle
from recycle.cli import app
from recycle.errors import RecycleCompileErrors
from recycle.lang.reading.lint import lint

from ..conftest import GAMES, ConservationCheck

DIALECT = Path(__file__).resolve().parent / "dialect"
ENGINES = ("reference",)  # the one Python engine (the native engine: tests/engine/test_native.py)
runner = CliRunner()

DECK = "(deck (RANK (A, B, C)) (SUIT (X, Y)))"


def game(
    body: str,
    players: int = 3,
    teams: str = "",
    scoring: str = "(scoring max 0)",
    declare: str = "",
    engine: str = "reference",
    name: str = "t.rcy",
):
    return recycle.loads(
        f"""(game {declare}
 (setup (create players {players}) {teams}
  (create deck (game iloc STOCK) {DECK}))
 {body}
 {scoring})""",
        name,
        engine=engine,
    )


def final(body: str, **kw):
    """The finished state of the game on every engine; all must agree on the storages and cards."""
    states = [game(body, engine=e, **kw).play(seed=0).state for e in ENGINES]
    for s in states[1:]:
        assert s.ints == states[0].ints and s.locs == states[0].locs
    return states[0]


def error(body: str, **kw) -> str:
    with pytest.raises(recycle.RecycleError) as exc:
        game(body, **kw).play(seed=0)
    return str(exc.value)


POINTS = "(set (game points P) (((RANK : A) 1) ((RANK : B) 5) ((RANK : C) 3)))"


# -- pid ---------------------------------------------------------------------------------------
def test_pid_is_the_players_number_and_n_player_gives_it_back():
    s = final("""(do ((cycle current next)
                      (set (game sto ASKED) (pid (current player)))
                      (set (game sto NEXT) (pid (next player)))
                      (all player 'P (set ('P sto ME) (pid 'P)))
                      (move (top (game iloc STOCK)) (top (((game sto ASKED) player) iloc HAND)))))""")
    assert s.sto("game", "ASKED") == 1 and s.sto("game", "NEXT") == 2
    assert [s.sto(p, "ME") for p in range(3)] == [0, 1, 2]
    assert s.location(1, "iloc", "HAND") == [5]
    assert type(s.ints[0]) is int  # a number, not a player object


def test_pid_errors_name_their_place():
    msg = error("(do ((set (game sto X) (pid game))))")
    assert msg.startswith("t.rcy:4:30: error: expected a player, got 'game'")
    msg = error("(do ((set (game sto X) (pid (current player) 2))))")
    assert "t.rcy:4:25: error: (pid ...) takes 1 argument, got 2" in msg
    msg = error("(do ((set (game sto X) 7) (move (top (game iloc STOCK)) (top (((game sto X) player) iloc H)))))")
    assert "runtime error: there is no player 7 (players are 0..2)" in msg


# -- scoremax, scoremin ------------------------------------------------------------------------
def test_scoremax_and_scoremin_give_the_extreme_points_of_a_collection():
    s = final(f"""(do ({POINTS}
                      (move (top (game iloc STOCK)) (top (game vloc A)))
                      (move (top (game iloc STOCK)) (top (game vloc B)))
                      (set (game sto HI) (scoremax (game iloc STOCK) using (game points P)))
                      (set (game sto LO) (scoremin (game iloc STOCK) using (game points P)))
                      (set (game sto U) (scoremax (union (game vloc A) (game vloc B)) using (game points P)))
                      (set (game sto G) (scoremin (top (partition RANK (game iloc STOCK))) using (game points P)))))""")
    # STOCK bottom to top: A-X A-Y B-X B-Y (C-Y and C-X moved to A and B); the top group of
    # the partition is its first, the As
    assert (s.sto("game", "HI"), s.sto("game", "LO"), s.sto("game", "U"), s.sto("game", "G")) == (5, 1, 3, 1)


def test_scoremax_of_no_cards_is_an_error_with_its_place():
    msg = error(f"(do ({POINTS} (set (game sto X) (scoremax (game vloc EMPTY) using (game points P)))))")
    assert msg.startswith("t.rcy:4:94: runtime error: (scoremax ...) of no cards: (game vloc EMPTY) is empty here")
    msg = error("(do ((set (game sto X) (scoremin (game iloc STOCK)))))")
    assert msg.startswith("t.rcy:4:25: error: expected (scoremin COLLECTION using POINTS)")


# -- + and * with more operands ----------------------------------------------------------------
def test_plus_and_times_take_more_operands():
    s = final("""(do ((set (game sto R) 4)
                      (set (game sto S) (+ 1 (game sto R) 2 (pid (next player))))
                      (set (game sto T) (* 2 (game sto R) 3 (+ 1 1 1)))))""")
    assert s.sto("game", "S") == 8 and s.sto("game", "T") == 72


def test_operand_errors():
    assert "t.rcy:4:25: error: (+ A B ...) takes two or more integers" in error("(do ((set (game sto X) (+ 1))))")
    assert "(- A B) takes exactly two integers (only + and * take more)" in error("(do ((set (game sto X) (- 1 2 3))))")
    msg = error("(do ((set (game sto X) (* 4294967296 4294967296 2))))")
    assert "t.rcy:4:25: runtime error: integer overflow (beyond 64 bits)" in msg


# -- teams -------------------------------------------------------------------------------------
@pytest.mark.parametrize("teams", ["(create teams (0, 2) (1, 3))", "(create teams (1, 3) (2, 4))"])
def test_teams_listed_from_0_or_from_1_are_the_same_teams(teams):
    s = game("(do ((turn pass)))", players=4, teams=teams).play(seed=0).state
    assert s.team_members == [[0, 2], [1, 3]] and s.team_of == [0, 1, 0, 1]


def test_teams_naming_both_0_and_n_are_an_error_and_naming_neither_a_warning():
    msg = error("(do ((turn pass)))", players=4, teams="(create teams (0, 4) (1, 2))")
    assert msg.startswith(
        "t.rcy:2:42: error: these teams name both player 0 and player 4: number the players 0..3 or 1..4, not both"
    )
    assert "a team lists player numbers 0..3 (or 1..4, counted from 1)" in error(
        "(do ((turn pass)))", players=4, teams="(create teams (5, 1))"
    )
    # (1, 3) with four players: read from 0 (players 1 and 3), so player 0 is on no team
    g = game("(do ((turn pass)))", players=4, teams="(create teams (1, 3))")
    assert g.play(seed=0).state.team_of == [None, 0, None, 0]
    assert [w.message for w in lint(g.nodes)] == [
        "these teams name neither player 0 nor player 4: they are read as numbered from 0 (0..3), so player 0 "
        "is on no team"
    ]


# -- families of locations ---------------------------------------------------------------------
FAMILY = """(do ((all player 'P (all 'PLOCS 'L (move (top (game iloc STOCK)) (top ('P hloc LOC 'L)))))
                 (set (game sto N) 4)
                 (move (top ((0 player) hloc LOC 2)) (top (game vloc RUN (game sto N))))
                 (move (top (game vloc RUN 4)) (top (game vloc RUN (+ 1 2))))))"""


def test_a_family_is_one_location_per_member_each_with_its_cards_and_visibility():
    g = game(FAMILY, players=2, declare="(declare (range 1..3) 'PLOCS)")
    # the members a variable over a declared range names are registered when the game is compiled
    assert {n for _, n in g.layout.loc_base} >= {"LOC[1]", "LOC[2]", "LOC[3]", "RUN[4]"}
    s = final(FAMILY, players=2, declare="(declare (range 1..3) 'PLOCS)")
    assert s.location(0, "hloc", "LOC[1]") == [5] and s.location(0, "hloc", "LOC[2]") == []
    assert s.location(1, "hloc", "LOC[2]") == [1] and s.location("game", "vloc", "RUN[3]") == [4]
    assert s.location("game", "vloc", "RUN[4]") == []
    infos = {i.label: i for i in s.game.layout.infos}  # (RUN[3] is registered when first used)
    assert infos["LOC[1](P0)"].visibility != infos["RUN[3]"].visibility
    view = s.view(0)
    assert "RUN[3]" in view.locations() and 5 not in view.known_cards()  # a hloc member: hidden from its owner


def test_family_member_errors():
    msg = error("(do ((move (top (game iloc STOCK)) (top (game vloc RUN (- 0 1))))))")
    assert msg.startswith("t.rcy:4:57: runtime error: a member of the family RUN is numbered 0..999, not -1")
    msg = error("(do ((move (top (game iloc STOCK)) (top (game vloc RUN 1000)))))")
    assert msg.startswith("t.rcy:4:57: error: a member of the family RUN is numbered 0..999, not 1000")


def test_lint_treats_members_as_locations():
    g = game("""(do ((move (top (game iloc STOCK)) (top (game vloc RUN (game sto N))))
                     (move (top (game vloc RUN 2)) (top (game vloc PILE 1)))
                     (move (top (game vloc PILES 2)) (top (game vloc PILE 1)))
                     (set (game sto N) 2)))""")
    assert [w.message for w in lint(g.nodes)] == [
        "vloc PILES[2] never receives cards (no move, swap or deck puts cards there): a misspelt name?"
    ]


def test_observation_vector_and_graph_have_the_members():
    from recycle.env.spec import EnvSpec
    from recycle.study.graphs import flow_graph

    g = recycle.load(GAMES / "golf-six.rcy")
    labels = EnvSpec(g, samples=2).labels()["sizes"]
    assert {"SPOT[1](me)", "SPOT[6](+3)"} <= set(labels)
    nodes = " ".join(str(n) for n in flow_graph(g, rollouts=1).nodes)
    assert "SPOT[1]" in nodes and "SPOT[6]" in nodes


# -- check: every independent error ------------------------------------------------------------
THREE_ERRORS = """(game
 (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B)))))
 (stage player (end (== (size (game iloc STOCK)) 0))
  (do ((move (top (game iloc STOCK)) (top ((current player) iloc HAND)))
       (set (game sto X) (+ 1))
       (move (top (game iloc STOCK)) (game vloc PILE)))))
 (scoring max (size (game iloc STOCK) 3)))
"""


def test_check_reports_three_independent_errors_with_their_places(tmp_path):
    p = tmp_path / "three.rcy"
    p.write_text(THREE_ERRORS)
    r = runner.invoke(app, ["check", str(p)])
    assert r.exit_code == 1
    lines = [line for line in r.output.splitlines() if ": error: " in line]
    assert [line.split(": error: ")[0] for line in lines] == [f"{p}:5:26", f"{p}:6:38", f"{p}:7:15"]
    assert r.output.rstrip().endswith("3 errors")
    with pytest.raises(RecycleCompileErrors) as exc:
        recycle.load(p)
    assert len(exc.value.errors) == 3 and exc.value.span.line == 5


def test_check_stops_at_20_errors():
    body = " ".join(f"(set (game sto X{'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[i]}) (+ 1))" for i in range(26))
    with pytest.raises(RecycleCompileErrors) as exc:
        game(f"(do ({body}))")
    assert len(exc.value.errors) == 20 and exc.value.more
    assert str(exc.value).endswith("20 errors (the first 20; there may be more)")


def test_a_count_of_one_error_is_singular():
    """Issue 40.12: '1 errors'."""
    from recycle.errors import RecycleCompileError

    one = RecycleCompileErrors([RecycleCompileError("expected an action")])
    assert one.format().endswith("\n1 error")
    assert RecycleCompileErrors([RecycleCompileError("a")] * 2).format().endswith("\n2 errors")


def test_one_error_is_reported_as_before():
    with pytest.raises(recycle.RecycleError) as exc:
        game("(do ((set (game sto X) (+ 1))))")
    assert not isinstance(exc.value, RecycleCompileErrors)


# -- the games ---------------------------------------------------------------------------------
NEW_GAMES = [GAMES / "go-fish.rcy", GAMES / "whist.rcy", GAMES / "golf-six.rcy", DIALECT / "melds.rcy"]


@pytest.mark.parametrize("path", NEW_GAMES, ids=lambda p: p.stem)
def test_new_games_pass_strict_check_and_conserve_cards(path):
    r = runner.invoke(app, ["check", "--strict", str(path)])
    assert r.exit_code == 0, r.output
    g = recycle.load(path)
    for seed in range(3):
        sink = ConservationCheck()
        r = g.play(seed=seed, record=sink)
        assert sink.checked > 0 and r.winners


def test_whist_partners_share_the_points():
    r = recycle.load(GAMES / "whist.rcy").play(seed=3)
    assert r.scores == [0, 8, 0, 8] and r.winners == [1, 3]


def test_go_fish_books_and_asks():
    r = recycle.load(GAMES / "go-fish.rcy").play(seed=1)
    s = r.state
    assert sum(s.sto(p, "SCORE") for p in range(3)) == s.sto("game", "BOOKS")
    assert sum(len(s.location(p, "vloc", "BOOKS")) for p in range(3)) == 4 * s.sto("game", "BOOKS")


def test_a_form_that_trips_over_an_earlier_kept_error_reports_that_error():
    """Going on after a compile error (recovery.py) leaves an item standing for nothing; a form
    around it that reads the broken form's parts (``(repeat all (move))`` reads the move's
    source) must end the search with the errors found, not crash (found by tools/fuzz.py)."""
    text = """(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B)))))
 (do ((repeat all (move)) (shuffle (game iloc STOCK))))
 (scoring max 0))"""
    with pytest.raises(recycle.RecycleCompileError) as info:
        recycle.loads(text, "x.rcy")
    assert str(info.value).startswith("x.rcy:2:19: error: (move ...) takes 2 arguments, got 0")
