"""recycle evolve: mutation operators edit only the forms they change, variants are valid,
the search is the same for any number of workers, and the CLI writes checked variants."""

import json
import random
import re

import pytest
from typer.testing import CliRunner

import recycle
from recycle.cli import app
from recycle.lang.syntax.reader import parse_text
from recycle.study import mutations
from recycle.study.analysis import analyze
from recycle.study.evolve import compare, evolve, validate
from recycle.study.evolve_fitness import fairness, measures, measures_of_summary, play_chunk, variant_seed
from recycle.engine.game import rollout_seed
from recycle.study.stopping import Stop

runner = CliRunner()

DRAW = """;; Draw or bank: a tiny game for the tests of recycle evolve.
(game
 (declare 2 'BONUS)
 (setup (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (A, K, Q, J)) (SUIT (S, H)))))
 ;; the values of the cards
 (do (
  (set (game points VAL) (((RANK : A) 4) ((RANK : K) 3) ((RANK : Q) 2) ((RANK : J) 1)))
  (shuffle (game iloc STOCK))))
 (stage player
  (end (>= (game sto TURNS) 6))
  (choice (
   ;; draw a card
   ((> (size (game iloc STOCK)) 0)
    (move (top (game iloc STOCK)) (top ((current player) vloc HAND))))
   ;; bank the bonus
   (inc ((current player) sto SCORE) 'BONUS)
   (inc ((current player) sto SCORE) 1)))
  (do ((inc (game sto TURNS) 1))))
 (scoring max (+ ((current player) sto SCORE) (sum ((current player) vloc HAND) using (game points VAL)))))
"""


def source():
    return parse_text(DRAW, "draw.rcy")


def changed_lines(a: str, b: str) -> list:
    la, lb = a.splitlines(), b.splitlines()
    return [(x, y) for x, y in zip(la, lb) if x != y]


# -- operators ----------------------------------------------------------------------------------


def test_nudge_moves_a_value_and_never_below_zero():
    rng = random.Random(1)
    assert mutations.nudge(0, rng) == 1
    assert {mutations.nudge(1, random.Random(k)) for k in range(20)} == {0, 2}
    assert {mutations.nudge(100, random.Random(k)) for k in range(20)} == {75, 125}
    assert {mutations.nudge(2, random.Random(k)) for k in range(20)} == {1, 3}
    assert all(mutations.nudge(-8, random.Random(k)) in (-10, -6) for k in range(10))


@pytest.mark.parametrize(
    "op, line, before",
    [
        ("constant", " (declare 2 'BONUS)", "2"),
        ("threshold", "  (end (>= (game sto TURNS) 6))", "6"),
    ],
)
def test_integer_operators_edit_one_number_in_place(op, line, before):
    m = mutations.OPERATORS[op](source(), random.Random(3))
    new = m.apply(DRAW)
    [(old_line, new_line)] = changed_lines(DRAW, new)
    assert old_line == line
    after = re.search(r" → (\d+) \(line", m.description).group(1)
    assert after != before and new_line == line.replace(f" {before}", f" {after}", 1)
    assert len(new) - len(DRAW) == len(new_line) - len(old_line)  # nothing else moved
    assert m.operator == op and op in m.description


def test_points_operator_changes_one_value_of_the_map():
    m = mutations.points(source(), random.Random(2))
    new = m.apply(DRAW)
    [(old_line, new_line)] = changed_lines(DRAW, new)
    assert "points VAL" in old_line and old_line != new_line
    assert m.description.startswith("points: points VAL (RANK : ")
    assert recycle.loads(new, "v.rcy").nplayers == 2


def test_drop_option_removes_one_option_and_keeps_comments():
    seen = set()
    for k in range(12):
        m = mutations.drop_option(source(), random.Random(k))
        new = m.apply(DRAW)
        opts = mutations.choice_sites(parse_text(new, "v.rcy"), 1)[0]
        assert len(opts) == 2
        assert ";; draw a card" in new and ";; bank the bonus" in new and ";; the values of the cards" in new
        seen.add(new)
    assert len(seen) == 3  # each of the three options can go
    # the option that stood alone on its line takes its line with it
    assert any("sto SCORE) 'BONUS)" not in t and t.count("\n") == DRAW.count("\n") - 1 for t in seen)
    # one that shares its line with the closing parentheses leaves them in place
    assert any(t.count("\n") == DRAW.count("\n") and "sto SCORE) 'BONUS)\n   ))\n" in t for t in seen)


def test_duplicate_option_writes_the_option_twice_at_its_indentation():
    m = mutations.duplicate_option(source(), random.Random(0))
    new = m.apply(DRAW)
    opts = mutations.choice_sites(parse_text(new, "v.rcy"), 1)[0]
    assert len(opts) == 4
    texts = [str(o) for o in opts]
    assert len(set(texts)) == 3 and any(texts.count(t) == 2 for t in texts)
    assert m.description.startswith("duplicate-option: option ")


def test_an_operator_without_sites_gives_nothing():
    war = recycle.loads(DRAW, "d.rcy").source  # has every kind of site
    assert mutations.constant(war, random.Random(0)) is not None
    plain = parse_text(DRAW.replace("(declare 2 'BONUS)", "").replace("'BONUS", "2"), "p.rcy")
    assert mutations.constant(plain, random.Random(0)) is None
    assert mutations.mutate(plain, random.Random(0), ["constant"]) is None


# -- validity and measures --------------------------------------------------------------------------


def test_validate_rejects_what_does_not_load_or_end_or_play():
    game, reason = validate(DRAW, "d.rcy")
    assert reason is None and game.nplayers == 2
    _, reason = validate(DRAW.replace("(>= (game sto TURNS) 6)", "(>= (game sto TURNS) 6000)"), "d.rcy", max_steps=500)
    assert reason == "hits the step limit or the work budget in a trial game"
    _, reason = validate(DRAW.replace("(declare 2 'BONUS)", "(declare 2 'BONUS 3)"), "d.rcy")
    assert reason.startswith("does not load: ")
    one = DRAW.replace(
        """   ;; bank the bonus
   (inc ((current player) sto SCORE) 'BONUS)
   (inc ((current player) sto SCORE) 1)""",
        "",
    ).replace("(>= (game sto TURNS) 6)", "(>= (game sto TURNS) 12)")
    _, reason = validate(one, "d.rcy")  # the ninth draw finds the stock empty: no option
    assert reason.startswith("fails in a trial game: ")


def test_measures_agree_with_the_analysis():
    """The search's measures of a variant's games are analysis.analyze's on the same games."""
    g = recycle.loads(DRAW, "d.rcy")
    n = 40
    recs = play_chunk(g, DRAW, "d.rcy", [rollout_seed(7, i) for i in range(n)], ["random", "random"], 100_000)
    mine = measures(recs, 2)
    theirs = measures_of_summary(analyze(g, n, seed=7, keep_games=False).to_dict())
    for k in (
        "finished",
        "win_shares",
        "fairness",
        "ties",
        "decisions",
        "rounds",
        "lead_changes",
        "drama",
        "decisiveness",
    ):
        assert mine[k] == pytest.approx(theirs[k]), k
    assert mine["lead_changes"] > 0 and mine["drama"] > 0


def test_fairness_is_one_for_equal_shares_and_zero_for_one_winner():
    assert fairness([0.25] * 4) == 1.0
    assert fairness([1.0, 0, 0, 0]) == 0.0
    assert fairness([0.6, 0.4]) == pytest.approx(0.8)


# -- the search ---------------------------------------------------------------------------------


def test_evolve_is_the_same_with_any_number_of_workers(tmp_path):
    path = tmp_path / "draw.rcy"
    path.write_text(DRAW)
    one = evolve(path, generations=2, population=3, games=30, seed=5, workers=1)
    two = evolve(path, generations=2, population=3, games=30, seed=5, workers=2)
    assert [(v.text, v.fitness, v.changes) for v in one.best] == [(v.text, v.fitness, v.changes) for v in two.best]
    assert one.history == two.history and one.best
    # random players' trial and traced games, stepped natively wherever the game builds, no
    # playouts: said in the result and its JSON
    from recycle.native.choose import native_here

    stepped = "native" if native_here() else "reference"
    assert (one.engine, one.playouts_engine) == (stepped, None) == (two.engine, two.playouts_engine)
    assert (one.to_json()["engine"], one.to_json()["playouts_engine"]) == (stepped, None)
    other = evolve(path, generations=2, population=3, games=30, seed=6, workers=1)
    assert [v.text for v in other.best] != [v.text for v in one.best]
    assert variant_seed(5, 1, 0) != variant_seed(5, 1, 1) != variant_seed(5, 2, 0)
    for v in one.best:
        assert v.changes and v.text != DRAW
        assert validate(v.text, "d.rcy")[1] is None
        assert v.fitness == max(u.fitness for u in one.archive.values() if u.cell == v.cell)


def test_evolve_refuses_bad_settings():
    g = recycle.loads(DRAW, "d.rcy")
    with pytest.raises(ValueError, match="unknown mutation operator 'swap'"):
        evolve(g, 1, 1, 1, operators=["swap"])
    with pytest.raises(ValueError, match="weights"):
        evolve(g, 1, 1, 1, weights={"fun": 1.0})


# -- the command ----------------------------------------------------------------------------------


def test_cli_writes_variants_that_pass_check_and_a_report(tmp_path):
    path = tmp_path / "draw.rcy"
    path.write_text(DRAW)
    out = tmp_path / "evolved"
    r = runner.invoke(
        app,
        [
            "evolve",
            str(path),
            "--generations",
            "2",
            "--population",
            "3",
            "--games",
            "20",
            "--keep",
            "2",
            "-o",
            str(out),
            "--seed",
            "3",
            "--no-progress",
        ],
    )
    assert r.exit_code == 0, r.output
    from recycle.native.choose import native_here

    assert ("played by: native code\n" if native_here() else "played by: the reference interpreter\n") in r.output
    files = sorted(out.glob("variant-*.rcy"))
    assert [f.name for f in files] == ["variant-01.rcy", "variant-02.rcy"]
    for f in files:
        text = f.read_text()
        assert text.startswith(f";; {f.stem}: a variant of draw.rcy made by `recycle evolve` (seed 3, ")
        assert ";; What changed" in text and ";; Draw or bank: a tiny game" in text
        c = runner.invoke(app, ["check", str(f)])
        assert c.exit_code == 0 and ": ok — 2 players" in c.output
    report = (out / "report.txt").read_text()
    assert "original" in report and "variant-02" in report and "P0 win rate" in report
    data = json.loads((out / "report.json").read_text())
    rows = data["comparison"]["rows"]
    assert rows[0]["name"] == "original" and len(rows) == 3
    assert all(len(x["analysis"]["seats"][0]["win_rate_ci"]) == 2 for x in rows)
    assert [x["changes"] for x in rows[1:]] == [v["changes"] for v in data["best"]]
    j = runner.invoke(
        app, ["evolve", str(path), "-g", "1", "--population", "2", "--games", "10", "--json", "--keep", "1"]
    )
    assert j.exit_code == 0 and json.loads(j.stdout)["settings"]["population"] == 2


@pytest.mark.parametrize(
    "args, message",
    [
        (["--weights", "fun=2"], "unknown fitness term 'fun' in --weights"),
        (["--weights", "drama=x"], "bad weight 'drama=x'"),
        (["--weights", "drama=-1"], "a weight is a number 0 or more"),
        (["--weights", "fairness=0,drama=0,lead_changes=0,length=0"], "at least one weight must be more than 0"),
        (["--weights", "drama=nan"], "a weight is a number 0 or more"),
        (["--length", "10"], "bad --length '10'"),
        (["--length", "9:3"], "0 <= MIN <= MAX"),
        (["--operators", "constant,swap"], "unknown mutation operator 'swap'"),
    ],
)
def test_cli_refuses_bad_options(tmp_path, args, message):
    path = tmp_path / "draw.rcy"
    path.write_text(DRAW)
    r = runner.invoke(app, ["evolve", str(path), "-g", "1", "--games", "2", *args])
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output


def test_cli_refuses_an_output_that_is_a_file(tmp_path):
    path = tmp_path / "draw.rcy"
    path.write_text(DRAW)
    r = runner.invoke(app, ["evolve", str(path), "-g", "1", "--games", "2", "-o", str(path)])
    assert r.exit_code == 2 and "it is a file, not a folder" in r.output


# -- a variant's own number of players (issue 40.1) ------------------------------------------------

SEATS = (
    DRAW.replace("(declare 2 'BONUS)", "(declare 3 'NUMP)")
    .replace("(create players 2)", "(create players 'NUMP)")
    .replace("'BONUS)", "2)")
)


def test_a_variant_that_changes_the_player_count_is_played_by_its_own_players(tmp_path):
    path = tmp_path / "seats.rcy"
    path.write_text(SEATS)
    r = evolve(path, generations=3, population=3, games=10, seed=1, operators=["constant"], specs=["greedy", "random"])
    counts = {v.nplayers for v in r.archive.values()}
    assert r.original.nplayers == 3 and counts - {3}, counts  # some variant has another count
    for v in r.archive.values():
        assert v.nplayers == recycle.loads(v.text, "v.rcy").nplayers >= 2
        assert len(v.measures["win_shares"]) == v.nplayers and v.measures["finished"] == 10
    rows = compare(r, games=10)["rows"]
    assert [len(x["analysis"]["seats"]) for x in rows] == [v.nplayers for v in [r.original] + r.best]
    assert all(x["analysis"]["players"][0] == "greedy" for x in rows)


def test_cli_evolves_a_game_that_declares_its_player_count(tmp_path):
    path = tmp_path / "seats.rcy"
    path.write_text(SEATS)
    r = runner.invoke(
        app,
        [
            "evolve",
            str(path),
            "-g",
            "3",
            "--population",
            "3",
            "--games",
            "10",
            "--keep",
            "3",
            "--operators",
            "constant",
            "--no-progress",
            "-o",
            str(tmp_path / "out"),
        ],
    )
    assert r.exit_code == 0, r.output
    players_row = next(line for line in r.stdout.splitlines() if line.startswith("players "))
    assert players_row.split()[1] == "3" and set(players_row.split()[2:]) - {"3"}


def test_evolve_stopped_keeps_the_generations_done(tmp_path):
    path = tmp_path / "draw.rcy"
    path.write_text(DRAW)
    stop = Stop()

    def progress(done):  # "Ctrl-C" once the original and the first generation are played
        if done >= 20 * (1 + 3):
            stop.interrupted = True

    r = evolve(path, generations=5, population=3, games=20, seed=5, progress=progress, stop=stop)
    full = evolve(path, generations=1, population=3, games=20, seed=5)
    assert r.stopped == "interrupted" and len(r.history) == 1 and full.stopped is None
    assert [(v.text, v.fitness) for v in r.best] == [(v.text, v.fitness) for v in full.best] and r.best
    assert compare(r, games=10, stop=stop) is None and r.comparison is None


def test_evolve_with_no_time_for_the_original_says_so(tmp_path):
    path = tmp_path / "draw.rcy"
    path.write_text(DRAW)
    r = runner.invoke(app, ["evolve", str(path), "-g", "1", "--games", "5", "--seconds", "0", "--no-progress"])
    assert (
        r.exit_code == 1
        and "the time limit ended before the original's games were played (--seconds 0)" in r.output
        and "Traceback" not in r.output
    )


def test_cli_interrupted_writes_what_was_found(tmp_path, monkeypatch):
    import recycle.study.evolve as ev

    path = tmp_path / "draw.rcy"
    path.write_text(DRAW)
    real = ev._make_batch

    def make_batch(archive, seen, rejected, seed, gen, *args, **kwargs):
        stop = args[-2]
        if gen == 2:  # Ctrl-C while the second generation is made
            stop.interrupted = True
            return []
        return real(archive, seen, rejected, seed, gen, *args, **kwargs)

    monkeypatch.setattr(ev, "_make_batch", make_batch)
    out = tmp_path / "out"
    r = runner.invoke(
        app,
        [
            "evolve",
            str(path),
            "-g",
            "4",
            "--population",
            "3",
            "--games",
            "10",
            "--keep",
            "2",
            "--no-progress",
            "-o",
            str(out),
        ],
    )
    assert r.exit_code == 130, r.output
    assert "interrupted after 1 of 4 generations: keeping what was found" in r.output
    assert [p.name for p in out.glob("variant-*.rcy")][:1] == ["variant-01.rcy"]
    assert json.loads((out / "report.json").read_text())["stopped"] == "interrupted"


def test_a_chunk_past_the_time_limit_is_left_unplayed():
    """A slow variant's chunk of games gives way to --seconds between its games."""
    g = recycle.loads(DRAW, "d.rcy")
    assert play_chunk(g, DRAW, "d.rcy", [1, 2], ["random", "random"], 1000, until=0.0) is None
    assert len(play_chunk(g, DRAW, "d.rcy", [1, 2], ["random", "random"], 1000, until=None)) == 2
