"""recycle balance: NTBEA finds the value a target asks for on a game whose answer is known,
the specs from the command line are refused in one clear line, and the variants it writes
pass `recycle check`."""

import json
import math
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

import recycle
from recycle.cli import app
from recycle.study.balance import balance, report_lines
from recycle.study.balance_spec import BalanceError, knobs_of, parse_target, parse_targets, parse_varies
from recycle.study.ntbea import NTBEA
from recycle.study.stopping import Stop

runner = CliRunner()
GAMES = Path(__file__).resolve().parents[2] / "games"

# Each turn one player draws a card or banks; the game ends after GOAL turns, so a game of
# random players has exactly GOAL decisions: the GOAL that gives D decisions is D.
GOAL_GAME = """;; Draw or bank until GOAL turns: a tiny game for the tests of recycle balance.
(game
 (declare 2 'BONUS)
 (declare 6 'GOAL)
 (setup (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (A, K, Q, J)) (SUIT (S, H)))))
 (do (
  (set (game points VAL) (((RANK : A) 4) ((RANK : K) 3) ((RANK : Q) 2) ((RANK : J) 1)))
  (shuffle (game iloc STOCK))))
 (stage player
  (end (>= (game sto TURNS) 'GOAL))
  (choice (
   ((> (size (game iloc STOCK)) 0)
    (move (top (game iloc STOCK)) (top ((current player) vloc HAND))))
   (inc ((current player) sto SCORE) 'BONUS)
   (inc ((current player) sto SCORE) 1)))
  (do ((inc (game sto TURNS) 1))))
 (scoring max (+ ((current player) sto SCORE) (sum ((current player) vloc HAND) using (game points VAL)))))
"""


@pytest.fixture
def goal_game(tmp_path):
    path = tmp_path / "goal.rcy"
    path.write_text(GOAL_GAME)
    return path


def game():
    return recycle.loads(GOAL_GAME, "goal.rcy")


# -- NTBEA --------------------------------------------------------------------------------------


def test_ntbea_finds_the_top_of_a_noisy_landscape():
    rng = random.Random(3)
    search = NTBEA([15, 10], random.Random(1))
    for _ in range(150):
        x, y = search.ask()
        search.tell((x, y), -(abs(x - 11) + abs(y - 2)) / 10 + rng.gauss(0, 0.1))
    assert search.recommend(1) == [(11, 2)]


def test_ntbea_tells_apart_a_value_never_seen_from_one_seen():
    search = NTBEA([4], random.Random(0), start=(0,))
    search.tell((0,), -1.0)
    m = search.model
    assert m.mean((0,)) == -1.0 and m.mean((2,)) == 0.0 and m.count((0,)) == 1 and m.count((2,)) == 0
    assert m.upper_bound((2,)) > m.upper_bound((0,))  # an unseen value is worth a look


# -- the search ---------------------------------------------------------------------------------


def test_balance_finds_the_goal_that_gives_the_target_length():
    g = game()
    r = balance(
        g, parse_varies(["GOAL=1..12"], g), parse_targets(["decisions=9"]), iterations=30, games=10, final_games=20
    )
    top = r.best[0]
    assert top.values == {"GOAL": 9} and top.distance == 0.0 and top.fresh
    [t] = top.targets
    assert (t.value, t.low, t.high, t.distance) == (9.0, 9.0, 9.0, 0.0)
    assert r.original.values == {"GOAL": 6} and r.original.targets[0].value == 6.0
    assert r.original.distance == pytest.approx(math.log(10 / 7))  # a count's distance is a log ratio
    assert len(r.history) == 30 and r.stopped is None
    again = balance(
        g, parse_varies(["GOAL=1..12"], g), parse_targets(["decisions=9"]), iterations=30, games=10, final_games=20
    )
    assert again.history == r.history  # the same seed, the same search


# P0 starts with HANDICAP points, then each player banks 3: P0 wins alone above 0, the two tie at 0
HANDICAP_GAME = """(game
 (declare 2 'HANDICAP)
 (setup (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (A, K)) (SUIT (S, H)))))
 (stage player
  (end (>= (game sto TURNS) 2))
  (choice (
   (inc ((current player) sto SCORE) 3)
   (inc ((current player) sto SCORE) 3)))
  (do (
   ((== (game sto TURNS) 0) (inc ((current player) sto SCORE) 'HANDICAP))
   (inc (game sto TURNS) 1))))
 (scoring max ((current player) sto SCORE)))
"""


def test_balance_finds_the_handicap_of_a_fair_start():
    g = recycle.loads(HANDICAP_GAME, "handicap.rcy")
    r = balance(g, ["HANDICAP=0..5"], ["first_player=0.5"], iterations=12, games=4, final_games=8)
    top = r.best[0]
    assert top.values == {"HANDICAP": 0} and top.distance == 0.0
    assert top.targets[0].value == 0.5  # a tie for best shares the win
    assert r.original.targets[0].value == 1.0 and r.original.distance == 0.5
    assert all(c.targets[0].value == 1.0 for c in r.best[1:])


@pytest.mark.slow  # a native compile: about 10 s on a shared machine
def test_native_playouts_give_the_reference_figures():
    pytest.importorskip("numpy")
    from recycle.native import why_not_native

    g = game()
    if why_not_native(g) is not None:
        pytest.skip(why_not_native(g))
    runs = {
        engine: balance(g, ["GOAL=6..6"], ["first_player=0.5", "score_gap=0..3"], iterations=1, games=30,
                        final_games=60, engine=engine)
        for engine in ("native", "reference")
    }  # fmt: skip
    assert runs["native"].engines == {"native": 1} and runs["reference"].engines == {"reference": 1}
    native, reference = runs["native"].original, runs["reference"].original
    assert native.engine == "native" and reference.engine == "reference"
    assert native.measures == reference.measures and native.measures["first_player"].value != 0.5


def test_a_stopped_search_keeps_what_it_played():
    g = game()
    stop = Stop()

    def progress(done):  # "Ctrl-C" after two evaluations of 10 games
        if done >= 20:
            stop.interrupted = True

    r = balance(
        g,
        parse_varies(["GOAL=1..12"], g),
        parse_targets(["decisions=9"]),
        iterations=30,
        games=10,
        progress=progress,
        stop=stop,
    )
    assert r.stopped == "interrupted" and len(r.history) == 2
    assert r.best and all(not c.fresh and c.games == 10 for c in r.best)
    lines = report_lines(r)
    assert any("not measured again (no time left)" in line for line in lines)
    assert lines[1] == "stopped before the final measurement: the figures are of the search's games; 95% intervals"


def test_no_time_for_one_evaluation_is_an_error():
    g = game()
    with pytest.raises(TimeoutError, match="before one variant was played"):
        balance(g, parse_varies(["GOAL=1..3"], g), parse_targets(["decisions=9"]), stop=Stop(0))


# -- specs --------------------------------------------------------------------------------------


def test_the_knobs_of_a_game_are_its_constants_and_point_values():
    assert list(knobs_of(game())) == ["BONUS", "GOAL", "VAL.A", "VAL.K", "VAL.Q", "VAL.J"]
    hearts = knobs_of(recycle.load(GAMES / "hearts.rcy"))
    assert hearts["GOAL"][0] == 100 and hearts["PENALTY.Q+SPADES"][0] == 13 and hearts["WINNING.SUIT"][0] == 100


def test_target_distances():
    assert parse_target("first_player=0.25").distance(0.3) == pytest.approx(0.05)
    assert parse_target("decisions=60..90").distance(75) == 0.0
    assert parse_target("decisions=60..90").distance(45) == pytest.approx(math.log(61 / 46))
    assert parse_target("decisions=60..90").distance(99) == pytest.approx(math.log(100 / 91))
    assert parse_target("score_gap=..5").distance(1000) == 5.0  # capped
    assert parse_target("ladder=ordered").distance(0.4) == pytest.approx(0.1)


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--vary", "GOL=1..20", "--target", "decisions=9"],
            "error: 'GOL' is not declared in goal; it can vary: BONUS, GOAL, VAL.A, VAL.K, VAL.Q, VAL.J",
        ),
        (
            ["--vary", "GOAL=1..x", "--target", "decisions=9"],
            "error: bad --vary 'GOAL=1..x': expected NAME=LO..HI or NAME=LO..HI:STEP, e.g. GOAL=50..150",
        ),
        (
            ["--vary", "GOAL=9..1", "--target", "decisions=9"],
            "error: bad --vary 'GOAL=9..1': LO must be at most HI and STEP at least 1",
        ),
        (
            ["--vary", "GOAL=1..9", "--target", "decision=9"],
            "error: unknown target 'decision'; known: first_player, ties, decisions, score_gap, ladder",
        ),
        (
            ["--vary", "GOAL=1..9", "--target", "first_player=2"],
            "error: bad --target 'first_player=2': first_player is a rate in [0, 1]",
        ),
        (
            ["--vary", "GOAL=1..9", "--target", "decisions=ordered"],
            "error: bad --target 'decisions=ordered': only ladder=ordered",
        ),
        (
            ["--vary", "GOAL=-2..9", "--target", "decisions=9"],
            "error: bad --vary 'GOAL=-2..9': a declared constant or point value is 0 or more",
        ),
        (
            ["--vary", "GOAL=1..9", "--target", "decisions=9..1"],
            "error: bad --target 'decisions=9..1': LO must be at most HI",
        ),
        (
            ["--vary", "GOAL=1..9", "--target", "ties=.."],
            "error: bad --target 'ties=..': a range needs at least one end",
        ),
        (
            ["--target", "decisions=9"],
            "error: give at least one --vary NAME=LO..HI; goal can vary: BONUS, GOAL, VAL.A, VAL.K, VAL.Q, VAL.J",
        ),
        (
            ["--vary", "GOAL=1..9"],
            "error: give at least one --target, e.g. first_player=0.5; known: first_player, "
            "ties, decisions, score_gap, ladder",
        ),
        (["--vary", "GOAL=1..9", "--vary", "GOAL=2..3", "--target", "ties=0"], "error: --vary GOAL is given twice"),
        (
            ["--vary", "GOAL=0..99999", "--target", "ties=0"],
            "error: --vary GOAL: 100000 values; at most 1000 (give a :STEP)",
        ),
        (["--vary", "GOAL=1..9", "--target", "ties=0", "--engine", "fast"], "error: engine must be one of"),
        (["--vary", "GOAL=1..9", "--target", "ties=0", "--players", "human"], "error: a person plays one game"),
    ],
)
def test_bad_specs_are_one_clear_line(goal_game, args, message):
    r = runner.invoke(app, ["balance", str(goal_game), *args, "--no-progress"])
    assert r.exit_code == 1, r.output
    assert r.output.startswith(message) and len(r.output.strip().splitlines()) == 1, r.output


def test_a_hostile_name_is_shown_escaped():
    with pytest.raises(BalanceError) as err:
        parse_varies(["X\x1b[2J=1..2"], game())
    assert "\x1b" not in str(err.value) and "u001b[2J" in str(err.value)


# -- the command --------------------------------------------------------------------------------


@pytest.mark.slow  # (5-6 s: the fast suite must stay under 5 minutes on 2 cores)
def test_cli_writes_variants_that_pass_check(goal_game, tmp_path):
    out = tmp_path / "out"
    r = runner.invoke(
        app,
        ["balance", str(goal_game), "--vary", "GOAL=1..12:1", "--vary", "BONUS=0..3", "--target", "decisions=9",
         "--iterations", "30", "--games", "10", "--final-games", "20", "--keep", "2", "-o", str(out), "--no-progress"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "variant-01: GOAL=9, BONUS=" in r.stdout and "original: GOAL=6, BONUS=2  distance 0.357" in r.stdout
    paths = sorted(out.glob("variant-*.rcy"))
    assert [p.name for p in paths] == ["variant-01.rcy", "variant-02.rcy"]
    for p in paths:
        checked = runner.invoke(app, ["check", str(p)])
        assert checked.exit_code == 0 and ": ok — 2 players" in checked.output, checked.output
    text = paths[0].read_text()
    assert text.startswith(";; variant-01: a variant of goal.rcy made by `recycle balance` (seed 0): GOAL=9, BONUS=")
    body = text[text.index(";; Draw or bank") :].splitlines()
    changed = [(a, b) for a, b in zip(GOAL_GAME.splitlines(), body) if a != b]
    assert (" (declare 6 'GOAL)", " (declare 9 'GOAL)") in changed and len(body) == len(GOAL_GAME.splitlines())
    report = json.loads((out / "report.json").read_text())
    assert report["best"][0]["values"]["GOAL"] == 9 and report["best"][0]["targets"][0]["distance"] == 0.0


def test_cli_json(goal_game):
    r = runner.invoke(
        app,
        ["balance", str(goal_game), "--vary", "GOAL=8..10", "--target", "decisions=9", "--target", "first_player=0..1",
         "--iterations", "6", "--games", "5", "--final-games", "10", "--json", "--no-progress"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["targets"] == ["decisions=9", "first_player=0..1"] and d["evaluations"] == 6
    top = d["best"][0]
    assert top["values"] == {"GOAL": 9} and [t["measure"] for t in top["targets"]] == ["decisions", "first_player"]
    assert set(top["measures"]) == {"first_player", "ties", "decisions", "score_gap"}


def test_a_ladder_target_plays_the_ladder():
    g = game()
    r = balance(
        g,
        parse_varies(["GOAL=4..5"], g),
        parse_targets(["ladder=ordered"]),
        iterations=1,
        games=2,
        final_games=2,
        keep=1,
        rungs=("random", "ismcts:4"),
        ladder_games=2,
    )
    lad = r.original.measures["ladder"]
    assert 0.0 <= lad.low <= lad.value <= lad.high <= 1.0
    assert r.original.targets[0].distance == pytest.approx(max(0.0, 0.5 - lad.value))
