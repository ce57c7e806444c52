"""Analysis: measures agree with simulate, heuristics on known traces, outputs, workers, duplicate."""

import csv
import io
import json

import pytest
from typer.testing import CliRunner

import recycle
from recycle.study.analysis_result import Analysis, BranchingPoint
from recycle.study.analysis import analyze, chi2_sf, game_heuristics, wilson
from recycle.study.duplicate import duplicate
from recycle.cli import app
from recycle.study.stats import simulate

from ..conftest import GAMES, tiny

runner = CliRunner()
SCHWIMMEN = str(GAMES / "schwimmen.rcy")
TIMING = ("seconds", "rollouts_per_second", "engine")  # (and which engine played)


def _strip(d):
    return {k: v for k, v in d.items() if k not in TIMING}


# -- small statistics --------------------------------------------------------------------------


def test_chi_square_and_wilson_known_values():
    assert chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, abs=1e-6)
    assert chi2_sf(9.487729036781154, 4) == pytest.approx(0.05, abs=1e-6)
    assert chi2_sf(0.7107230213973239, 4) == pytest.approx(0.95, abs=1e-6)
    assert chi2_sf(40.0, 3) < 1e-7
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0


# -- heuristics of one game --------------------------------------------------------------------


def test_heuristics_of_a_known_trace():
    # P1 wins; P0 leads, then P1, then P0 again, then P1 for good from the 4th decision
    g = {"trace": [[0, 0], [2, 0], [2, 5], [6, 5], [6, 8], [7, 9]], "final": [7, 10], "winners": [1]}
    h = game_heuristics(g, higher=True)
    assert h["lead_changes"] == 3  # P0 → P1 → P0 → P1 (the tie at the start is not a leader)
    assert h["settled_at"] == pytest.approx(4 / 6)  # from the 5th of 6 decisions on
    assert h["winner_gap"] == 2  # 2 points behind at decision 2
    assert h["final_spread"] == 3
    # lower is better: the same numbers read the other way round
    h = game_heuristics({"trace": [[3, 1]], "final": [2, 1], "winners": [1]}, higher=False)
    assert h["settled_at"] == 0.0 and h["lead_changes"] == 0 and h["winner_gap"] == 0


# -- the analysis ------------------------------------------------------------------------------


def test_analysis_agrees_with_simulate_on_the_same_games():
    g = recycle.load(SCHWIMMEN)
    a = analyze(g, n=60, seed=4, keep_games=False)  # an Analysis (dataclasses all the way down)
    s = simulate(g, 60, 4)
    assert [x.win_rate for x in a.seats] == pytest.approx(s.win_rate)
    assert a.length.decisions.mean == pytest.approx(s.decisions["mean"])
    assert a.branching.options_per_decision == pytest.approx(s.options_per_decision)
    assert a.ties.rate == pytest.approx(s.tie_rate)
    assert sum(x.win_share for x in a.seats) == pytest.approx(1.0)
    # Schwimmen sets the scores only at the end: the winner is settled by the final scoring
    assert a.scores.settled_at == 1.0 and a.scores.lead_changes.mean == 0
    assert a.length.choices.mean < a.length.decisions.mean
    assert len(a.branching.by_decile) == 10
    assert a.branching.by_index[0] == BranchingPoint(decision=1, games=60, mean=2.0, p10=2.0, p90=2.0)
    assert a.skill is None and a.hidden_information is None and a.games_detail is None
    # the dict (the JSON of recycle analyze --json) has the keys it always had, in their order
    d = a.to_dict()
    assert list(d) == [
        "game", "games", "finished", "step_limit_hits", "seed", "players", "scoring", "values", "seats",
        "fairness", "ties", "length", "branching", "scores", "skill", "hidden_information", "seconds",
        "interrupted", "total_games_played", "stopped_by_time_limit", "engine", "playouts_engine",
    ]  # fmt: skip
    assert d["branching"]["by_index"][0] == {"decision": 1, "games": 60, "mean": 2.0, "p10": 2.0, "p90": 2.0}
    assert Analysis.from_dict(d) == a


def test_rounds_count_turns_of_the_outermost_stage():
    g = tiny(
        """(stage player (end (== (game sto T) 6))
                  (do ((inc (game sto T))))
                  (stage player (end (== (game sto U) 2))
                    (choice ((inc (game sto U)) (inc (game sto U)))))
                  (do ((set (game sto U) 0))))""",
        players=2,
    )
    a = analyze(g, n=3, seed=0).to_dict()
    assert a["length"]["rounds"]["mean"] == 6
    assert a["length"]["turns_by_stage_depth"] == [6, 12]
    assert a["length"]["decisions"]["mean"] == 12


def test_a_player_who_leads_again_starts_a_new_round():
    # like a trick winner leading the next trick: the outer stage keeps its current player
    g = tiny(
        """(stage player (end (== (game sto T) 3))
                  (stage player (end (== (game sto U) 2))
                    (choice ((inc (game sto U)) (inc (game sto U)))))
                  (do ((set (game sto U) 0) (inc (game sto T)) (cycle next current))))""",
        players=3,
    )
    a = analyze(g, n=2, seed=0).to_dict()
    assert a["length"]["turns_by_stage_depth"] == [3, 6]
    assert a["length"]["rounds"]["mean"] == 3


def test_win_probability_values_make_drama_measurable():
    g = recycle.load(SCHWIMMEN)
    a = analyze(g, n=12, seed=2, values="winprob:4").to_dict()
    sc = a["scores"]
    assert a["values"] == "winprob:4"
    assert 0.0 <= sc["settled_at"] < 1.0 and sc["lead_changes"]["mean"] > 0
    assert sc["drama"] > 0.0
    for game in a["games_detail"]:
        for v in game["trace"]:
            assert sum(v) == pytest.approx(1.0)


def test_skill_and_hidden_information():
    g = recycle.load(SCHWIMMEN)
    a = analyze(g, n=5, seed=1, skilled="pimc:10", hidden=True, skill_games=10).to_dict()
    s = a["skill"]
    assert s["player"] == "pimc:10" and s["games"] == 10
    assert s["skill"] == pytest.approx(s["win_rate"] - s["random_seat_win_rate"])
    h = a["hidden_information"]
    assert h["ismcts"]["player"] == "ismcts:10" and h["omniscient"]["player"] == "omniscient:10"
    assert h["value"] == pytest.approx(h["omniscient"]["win_rate"] - h["ismcts"]["win_rate"])


def test_workers_do_not_change_the_results():
    g = recycle.load(SCHWIMMEN)
    one = analyze(g, n=16, seed=3, specs=["greedy:1", "random"], workers=1, values="winprob:2").to_dict()
    two = analyze(g, n=16, seed=3, specs=["greedy:1", "random"], workers=2, values="winprob:2").to_dict()
    assert json.dumps(_strip(one), sort_keys=True) == json.dumps(_strip(two), sort_keys=True)
    s1, s2 = simulate(g, 300, 9, workers=1).to_dict(), simulate(g, 300, 9, workers=2).to_dict()
    assert _strip(s1) == _strip(s2)


def test_worker_processes_play_natively_and_give_the_same_statistics():
    """With the native engine, "auto" plays natively in worker processes too (each loads the
    machine code from the cache folder, or builds it: a fraction of a second), the figures those
    of the reference interpreter."""
    import recycle.native.engine as native_engine

    if not native_engine.available():
        pytest.skip("the native engine needs NumPy and a C compiler")
    g = recycle.load(SCHWIMMEN)
    stats = simulate(g, 30, 4, workers=2)
    assert stats.engine == "native"
    want = simulate(g, 30, 4, engine="reference")
    assert want.engine == "reference"
    assert _strip(stats.to_dict()) == _strip(want.to_dict())


def test_cli_analyze_json_csv_and_plots(tmp_path):
    r = runner.invoke(app, ["analyze", SCHWIMMEN, "-n", "20", "--seed", "1", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    for key in ("seats", "fairness", "ties", "length", "branching", "scores", "skill", "hidden_information"):
        assert key in d
    assert len(d["seats"]) == 5 and d["finished"] == 20
    r = runner.invoke(
        app,
        [
            "analyze",
            SCHWIMMEN,
            "-n",
            "20",
            "--seed",
            "1",
            "--csv",
            "--plots",
            str(tmp_path),
            "--games-csv",
            str(tmp_path / "games.csv"),
        ],
    )
    assert r.exit_code == 0, r.output
    rows = list(csv.reader(io.StringIO(r.stdout)))
    assert rows[0] == ["metric", "seat", "value", "ci_low", "ci_high"]
    win = {int(row[1]): float(row[2]) for row in rows if row[0] == "win_rate"}
    assert win == pytest.approx({s["seat"]: s["win_rate"] for s in d["seats"]})
    for name in ("schwimmen-branching.png", "schwimmen-scores.png"):
        data = (tmp_path / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    games = list(csv.reader((tmp_path / "games.csv").read_text().splitlines()))
    assert len(games) == 21 and games[0][0] == "seed"
    bad = runner.invoke(app, ["analyze", SCHWIMMEN, "-n", "2", "--values", "nonsense"])
    assert bad.exit_code == 2


def test_plots_draw_the_bands_their_titles_promise():
    """The branching plot fills its 10–90% band (and draws its edges, so a band without width
    still shows); every win-probability curve and the winner's gap have a 95% confidence band."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.collections import PolyCollection
    import matplotlib.pyplot as plt

    from recycle.study.plots import branching_figure, trend_figure

    g = recycle.load(SCHWIMMEN)
    a = analyze(g, n=12, seed=1, values="winprob:1").to_dict()
    fig = branching_figure(a)
    ax = fig.axes[0]
    assert "10–90% band" in ax.get_title()
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 1 and bands[0].get_label() == "10–90% of games"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["10–90% of games", "mean"]
    assert len(ax.lines) == 3  # the 10th and 90th percentile edges and the mean
    rows = [r for r in a["branching"]["by_index"] if r["games"] >= max(1, a["finished"] // 10)]
    assert list(ax.lines[0].get_ydata()) == [r["p10"] for r in rows]
    assert list(ax.lines[1].get_ydata()) == [r["p90"] for r in rows]
    plt.close(fig)
    fig, name = trend_figure(a)
    assert name == "winprob"
    left, right = fig.axes
    assert "95% confidence band" in left.get_title() and "95% confidence band" in right.get_title()
    seats = len(a["seats"])
    assert len(left.lines) == seats
    assert len([c for c in left.collections if isinstance(c, PolyCollection)]) == seats
    assert len([c for c in right.collections if isinstance(c, PolyCollection)]) == 1
    for line, band in zip(left.lines, [c for c in left.collections if isinstance(c, PolyCollection)]):
        assert matplotlib.colors.same_color(line.get_color(), band.get_facecolor()[0][:3])
        ys = band.get_paths()[0].vertices[:, 1]
        assert ys.min() >= 0 and ys.max() <= 1  # probabilities: the band stays within 0..1
        assert ys.max() > ys.min()  # a real band, not a line
    plt.close(fig)


# -- duplicate play ----------------------------------------------------------------------------


def test_duplicate_rotates_the_seats_over_each_deal():
    g = recycle.load(SCHWIMMEN)
    d = duplicate(g, ["pimc:5", "random"], deals=3, seed=2)
    assert d["games_played"] == 15 and d["rotations"] == 5
    rows = {r["player"]: r for r in d["players"]}
    # pattern A B B B B (the last kind repeats) over 5 rotations: A sits 1 of 5 seats in every game
    assert rows["pimc:5"]["seat_games"] == 15 and rows["random"]["seat_games"] == 60
    # differences from the table mean, weighted by seat-games, cancel out
    assert 15 * rows["pimc:5"]["score_diff"] + 60 * rows["random"]["score_diff"] == pytest.approx(0, abs=1e-9)
    h = d["head_to_head"]
    assert h["score_diff"] == pytest.approx(rows["pimc:5"]["score_diff"] - rows["random"]["score_diff"])


def test_duplicate_of_identical_players_is_even_and_repeated_kinds_merge():
    g = recycle.load(SCHWIMMEN)
    d = duplicate(g, ["random", "random"], deals=4, seed=0)
    assert [r["player"] for r in d["players"]] == ["random"]
    assert d["players"][0]["score_diff"] == pytest.approx(0)


def test_cli_duplicate_workers_give_the_same_json():
    args = ["duplicate", SCHWIMMEN, "--players", "greedy:1,random", "--deals", "6", "--seed", "5", "--json"]
    one = runner.invoke(app, args)
    two = runner.invoke(app, args + ["--workers", "2"])
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    assert _strip(json.loads(one.stdout)) == _strip(json.loads(two.stdout))
    r = runner.invoke(app, ["duplicate", SCHWIMMEN, "--players", "random", "--deals", "2"])
    assert r.exit_code == 0 and "random" in r.stdout
    r = runner.invoke(app, ["duplicate", SCHWIMMEN, "--players", "nobody", "--deals", "2"])
    assert r.exit_code == 2
