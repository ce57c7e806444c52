"""Campaigns (recycle.study.campaign): plans, chunk seeds, local and Dask runs into DuckDB,
faults (a SIGKILLed worker, a killed and resumed campaign), reports with intervals."""

import hashlib
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

duckdb = pytest.importorskip("duckdb")

from recycle.lang.reading.constants import declared, with_constants, with_points  # noqa: E402
from recycle.lang.syntax.reader import parse_file  # noqa: E402
from recycle.study.campaign import Plan, PlanError, StoreError, chunk_seed, report, run_campaign  # noqa: E402
from recycle.study.intervals import holm, mean_diff, rate_diff, t_quantile  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "games"

PLAN = """
seed = 7
games = 24
chunk = 4

[[game]]
file = "schwimmen.rcy"
[game.vary]
NUMP = [5, 3]

[[lineup]]
name = "random"
players = "random"
"""

FAILING = """(game
 (declare 1 'START)
 (setup (create players 2) (create deck (game iloc STOCK) (deck (COLOR (A, B)))))
 (do ((set (game sto X) 'START)))
 (stage player (end (>= (game sto T) 4))
  (do ((inc (game sto T)) (set (game sto X) (+ (game sto X) (game sto X))))))
 (scoring max (game sto X)))
"""


def _folder(tmp_path, plan=PLAN, extra=None):
    (tmp_path / "schwimmen.rcy").write_text((GAMES / "schwimmen.rcy").read_text())
    for name, text in (extra or {}).items():
        (tmp_path / name).write_text(text)
    (tmp_path / "plan.toml").write_text(plan)
    return tmp_path / "plan.toml"


def tables(db):
    con = duckdb.connect(str(db), read_only=True)
    try:
        games = con.execute("SELECT * FROM games ORDER BY game, variant, lineup, idx").fetchall()
        chunks = con.execute(
            "SELECT game, variant, lineup, chunk, seed, games, status, error FROM chunks ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()
    return games, chunks


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An undisturbed run of PLAN in this process (workers=1)."""
    folder = tmp_path_factory.mktemp("ref")
    plan = _folder(folder)
    run = run_campaign(plan, folder / "ref.duckdb", workers=1)
    assert (run.chunks, run.chunks_run, run.games, run.chunks_failed) == (12, 12, 48, 0)
    return tables(folder / "ref.duckdb")


# -- variants of a game --------------------------------------------------------------------


def test_declared_constants_and_point_maps_are_set_in_the_text():
    hearts = parse_file(GAMES / "hearts.rcy")
    assert declared(hearts) == {"GOAL": "int", "DEDUCT_SHOOT": "int"}
    v = with_constants(hearts, {"GOAL": 50})
    assert " (declare 50 'GOAL)" in v.text and "(declare 100 'GOAL)" not in v.text
    v = with_points(v, "PENALTY", "(((SUIT : HEARTS) 2) ((RANK : Q) (SUIT : SPADES) 13))")
    assert "(((SUIT : HEARTS) 2) ((RANK : Q) (SUIT : SPADES) 13))" in v.text
    from recycle.engine.game import PreparedGame

    plain, doubled = PreparedGame(hearts), PreparedGame(v)
    a, b = plain.play(seed=5).scores, doubled.play(seed=5).scores
    assert a != b and len(b) == 4
    eights = parse_file(GAMES / "crazy-eights.rcy")
    assert "(declare (HEARTS, SPADES) 'SUITS)" in with_constants(eights, {"SUITS": ["HEARTS", "SPADES"]}).text


@pytest.mark.parametrize(
    "values, message",
    [
        ({"NOPE": 1}, "declares no constant 'NOPE (it declares: DEDUCT_SHOOT, GOAL)"),
        ({"GOAL": "FIFTY"}, "'GOAL is declared as an integer"),
        ({"GOAL": True}, "'GOAL is declared as an integer"),
    ],
)
def test_a_constant_the_game_does_not_declare_or_a_wrong_value_is_refused(values, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        with_constants(parse_file(GAMES / "hearts.rcy"), values)


def test_a_point_map_the_game_does_not_set_is_refused():
    with pytest.raises(ValueError, match="sets no point map NOPE"):
        with_points(parse_file(GAMES / "hearts.rcy"), "NOPE", "(((SUIT : HEARTS) 2))")


# -- plans ---------------------------------------------------------------------------------


def test_variants_are_every_combination_named_by_what_differs_from_the_baseline(tmp_path):
    (tmp_path / "hearts.rcy").write_text((GAMES / "hearts.rcy").read_text())
    plan = Plan.from_text(
        'games = 10\n[[game]]\nfile = "hearts.rcy"\n[game.vary]\nGOAL = [100, 50]\n'
        'DEDUCT_SHOOT = [0, 1]\n[[lineup]]\nname = "r"\nplayers = "random"\n',
        tmp_path,
    )
    names = [(v.name, v.baseline) for v in plan.variants(plan.games[0])]
    assert names == [
        ("baseline", True),
        ("DEDUCT_SHOOT=1", False),
        ("GOAL=50", False),
        ("GOAL=50,DEDUCT_SHOOT=1", False),
    ]
    assert plan.chunks_of(None) == [(0, 0, 10)]


def test_the_chunk_seed_is_the_documented_hash():
    digest = hashlib.sha256(b"recycle-campaign\x001\x00hearts\x00GOAL=50\x00random\x003").digest()
    assert chunk_seed(1, "hearts", "GOAL=50", "random", 3) == int.from_bytes(digest[:8], "big") >> 21
    assert chunk_seed(1, "hearts", "GOAL=50", "random", 3) != chunk_seed(1, "hearts", "GOAL=50", "random", 4)
    assert chunk_seed(1, "hearts", "GOAL=50", "random", 3) < 2**43


@pytest.mark.parametrize(
    "plan, message",
    [
        ("games = [", "not valid TOML"),
        (
            "games = 10\nbogus = 1\n[[game]]\nfile='schwimmen.rcy'\n[[lineup]]\nname='r'",
            "unknown key in the plan: bogus",
        ),
        ("[[game]]\nfile='schwimmen.rcy'\n[[lineup]]\nname='r'", "needs `games = NUMBER`"),
        ("games = 0\n[[game]]\nfile='schwimmen.rcy'\n[[lineup]]\nname='r'", "`games` must be an integer from 1"),
        ("games = 5\n[[lineup]]\nname='r'", r"at least one \[\[game\]\]"),
        ("games = 5\n[[game]]\nfile='/etc/passwd'\n[[lineup]]\nname='r'", "relative to the plan's folder"),
        ("games = 5\n[[game]]\nfile='../x/schwimmen.rcy'\n[[lineup]]\nname='r'", "outside the plan's folder"),
        ("games = 5\n[[game]]\nfile='missing.rcy'\n[[lineup]]\nname='r'", "missing.rcy"),
        (
            "games = 5\n[[game]]\nfile='schwimmen.rcy'\n[game.vary]\nGOAL=[1,2]\n[[lineup]]\nname='r'",
            "declares no constant 'GOAL",
        ),
        ("games = 5\n[[game]]\nfile='schwimmen.rcy'\n[[lineup]]\nname='r'\nplayers='human'", "without people"),
        ("games = 5\n[[game]]\nfile='schwimmen.rcy'\n[[lineup]]\nname='r'\nplayers='wizard'", "line-up 'r'"),
    ],
)
def test_a_bad_plan_is_refused_with_its_reason(tmp_path, plan, message):
    _folder(tmp_path, plan)
    with pytest.raises(PlanError, match=message):
        Plan.from_toml(tmp_path / "plan.toml")


# -- runs ----------------------------------------------------------------------------------


def test_the_tables_do_not_depend_on_the_number_of_workers(tmp_path, reference):
    games, chunks = reference
    assert len(games) == 48 and len(chunks) == 12
    assert {(g[1], g[0]) for g in games} == {("baseline", "schwimmen"), ("NUMP=3", "schwimmen")}
    assert {len(g[6]) for g in games if g[1] == "NUMP=3"} == {3}  # scores: one per seat
    run = run_campaign(_folder(tmp_path), tmp_path / "two.duckdb", workers=2)
    assert run.chunks_run == 12 and len(run.workers) >= 1
    assert tables(tmp_path / "two.duckdb") == reference


def test_a_row_replays_from_its_seed(reference):
    import recycle

    game = recycle.load(GAMES / "schwimmen.rcy")
    row = next(g for g in reference[0] if g[1] == "baseline" and g[4] == 5)
    assert row[5] == chunk_seed(7, "schwimmen", "baseline", "random", 1) * 1_000_003 + 1
    assert game.play(seed=row[5]).scores == row[6]


def test_a_sigkilled_worker_gives_the_same_tables(tmp_path, reference):
    import multiprocessing

    killed = []

    def kill_one(state):
        if state.chunks_done >= 2 and not killed:
            children = multiprocessing.active_children()
            assert children
            os.kill(children[0].pid, signal.SIGKILL)
            killed.append(children[0].pid)

    run = run_campaign(_folder(tmp_path), tmp_path / "k.duckdb", workers=2, progress=kill_one)
    assert killed and run.restarts >= 1 and run.chunks_run == 12
    assert tables(tmp_path / "k.duckdb") == reference


@pytest.mark.slow  # (3-4 s: the fast suite must stay under 5 minutes on 2 cores)
def test_a_killed_campaign_resumes_to_the_same_tables(tmp_path, reference):
    plan = _folder(tmp_path, PLAN.replace("chunk = 4", "chunk = 1"))  # 48 chunks: time to kill it midway
    db = tmp_path / "r.duckdb"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "recycle", "campaign", str(plan), "--db", str(db), "-w", "1"]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    line = proc.stderr.readline()  # the first chunk is in the database
    assert line.startswith("campaign: chunks 1/48"), line
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = duckdb.connect(str(db), read_only=True).execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert 1 <= done < 48
    again = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert again.returncode == 1 and "--resume" in again.stderr
    resumed = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{48 - done} chunk(s) run now" in resumed.stdout
    undisturbed = tmp_path / "undisturbed.duckdb"
    run_campaign(plan, undisturbed, workers=1)
    assert tables(db) == tables(undisturbed)
    assert len(tables(db)[0]) == 48


def test_a_resumed_campaign_equals_an_undisturbed_one(tmp_path, reference):
    """Half the chunks, then the rest with resume: game for game the reference."""
    plan = Plan.from_toml(_folder(tmp_path))
    db = tmp_path / "half.duckdb"
    stop = []

    def halt(state):
        if state.chunks_done == 6:
            stop.append(1)
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_campaign(plan, db, workers=1, progress=halt)
    assert len(tables(db)[1]) == 6
    with pytest.raises(StoreError, match="--resume"):
        run_campaign(plan, db)
    other = Plan.from_toml(_folder(tmp_path, PLAN.replace("seed = 7", "seed = 8")))
    with pytest.raises(StoreError, match="another plan's campaign"):
        run_campaign(other, db, resume=True)
    run = run_campaign(plan, db, resume=True)
    assert run.chunks_run == 6
    assert tables(db) == reference


def test_a_dask_cluster_gives_the_local_tables(tmp_path, reference):
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        run = run_campaign(_folder(tmp_path), tmp_path / "d.duckdb", scheduler=cluster.scheduler_address)
        assert run.chunks_run == 12 and run.lost == 0
        assert all(w.startswith("tcp://127.0.0.1:") for w in run.workers)
        client.close()
    assert tables(tmp_path / "d.duckdb") == reference


def test_a_failing_chunk_is_recorded_and_the_others_go_on(tmp_path):
    plan = _folder(
        tmp_path,
        'games = 6\nchunk = 3\n[[game]]\nfile = "fail.rcy"\n[game.vary]\n'
        'START = [1, 4611686018427387904]\n[[lineup]]\nname = "r"\nplayers = "random"\n',
        {"fail.rcy": FAILING},
    )
    run = run_campaign(plan, tmp_path / "f.duckdb")
    assert run.chunks_run == 4 and run.chunks_failed == 2
    assert all("overflow" in f[4] and f[1] == "START=4611686018427387904" for f in run.failures)
    games, chunks = tables(tmp_path / "f.duckdb")
    assert len(games) == 6 and {c[6] for c in chunks} == {"done", "failed"}
    r = report(tmp_path / "f.duckdb")
    assert r.cell("fail", "START=4611686018427387904", "r").chunks_failed == 2
    assert "failed chunk 0 of fail" in r.text()


# -- reports -------------------------------------------------------------------------------


def test_statistics_against_cases_worked_by_hand():
    assert t_quantile(0.975, 9) == pytest.approx(2.262157, abs=1e-6)
    assert t_quantile(0.975, 1) == pytest.approx(12.706205, abs=1e-5)
    # 60 of 100 against 50 of 100: Newcombe's interval from the Wilson intervals
    d = rate_diff(60, 100, 50, 100)
    assert d["ci"] == pytest.approx([-0.0373, 0.2321], abs=1e-4)
    assert d["effect"] == pytest.approx(2 * math.asin(math.sqrt(0.6)) - 2 * math.asin(math.sqrt(0.5)))
    assert d["p"] == pytest.approx(0.1552, abs=1e-4)  # z = 0.1/sqrt(0.55*0.45*0.02) = 1.4213
    m = mean_diff(1.0, 1.0, 10, 0.0, 1.0, 10)  # Welch: df 18, t = 1/sqrt(0.2)
    assert m["ci"] == pytest.approx([1 - 2.100922 * math.sqrt(0.2), 1 + 2.100922 * math.sqrt(0.2)], abs=1e-5)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def _fake_db(path):
    """A campaign database written by hand: seat 0 wins 50 of 100 games in the baseline, 70
    of 100 in the variant; decisions 1..10 ten times each."""
    from recycle.study.campaign import store

    con = store.connect(path)
    con.execute("INSERT INTO plan VALUES ('name', 'fake'), ('seed', '1'), ('games', '100'), ('chunk', '100')")
    for v, base in (("baseline", True), ("X=1", False)):
        con.execute("INSERT INTO cells VALUES ('g', ?, 'r', ?, '[]', 'random', 2, 'max', 1, 100)", [v, base])
        wins = 50 if base else 70
        for i in range(100):
            con.execute(
                "INSERT INTO games (game, variant, lineup, chunk, idx, seed, scores, winners, decisions, "
                "options) VALUES ('g', ?, 'r', 0, ?, ?, [1, 0], ?, ?, ?)",
                [v, i, i, [0] if i < wins else [1], i % 10 + 1, 2 * (i % 10 + 1)],
            )
        con.execute(
            "INSERT INTO chunks (game, variant, lineup, chunk, seed, games, status) "
            "VALUES ('g', ?, 'r', 0, 1, 100, 'done')",
            [v],
        )
    con.close()


def test_report_intervals_in_a_known_case(tmp_path):
    _fake_db(tmp_path / "fake.duckdb")
    r = report(tmp_path / "fake.duckdb")
    base = r.cell("g", "baseline", "r")
    w = base.win_rate[0]
    # Wilson, 50 of 100: (0.5 + 1.96²/200 ± 1.96·sqrt(0.25/100 + 1.96²/40000)) / (1 + 1.96²/100)
    assert (w.value, w.lo, w.hi) == pytest.approx((0.5, 0.40383, 0.59617), abs=1e-5)
    dec = base.measures["decisions"]  # 1..10 ten times: mean 5.5, sd sqrt(8.25·100/99), t(0.975, 99) = 1.98422
    half = 1.984217 * math.sqrt(825 / 99) / 10
    assert (dec.value, dec.lo, dec.hi) == pytest.approx((5.5, 5.5 - half, 5.5 + half), abs=1e-5)
    assert base.measures["branching"].value == pytest.approx(2.0)
    assert base.measures["ties"].value == 0.0
    comp = {x.measure: x for x in r.comparisons}
    assert comp["win_rate P0"].diff == pytest.approx(0.2)
    assert comp["win_rate P0"].beyond_chance  # p 0.0039 before, Holm's factor at most 6
    assert not comp["decisions"].beyond_chance and comp["decisions"].diff == 0
    m = len(r.comparisons)
    assert comp["win_rate P0"].p < comp["win_rate P0"].p_holm <= m * comp["win_rate P0"].p


def test_report_renders_as_text_json_html_and_plots(tmp_path):
    import json

    _fake_db(tmp_path / "fake.duckdb")
    r = report(tmp_path / "fake.duckdb")
    assert "g · X=1 · r (random)" in r.text() and "win_rate P0" in r.text()
    d = json.loads(r.to_json())
    assert d["complete"] and d["plan"]["seed"] == 1 and d["correction"] == "holm"
    page = r.html()
    assert page.count("<img") == 3 and "class=sig" in page
    paths = r.write_plots(tmp_path / "plots")
    assert sorted(p.name for p in paths) == ["g-measures.png", "g-vs-baseline.png", "g-win-rates.png"]
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in paths)


def test_the_commands_refuse_bad_input_with_a_message(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "recycle", *args], capture_output=True, text=True, env=env, cwd=tmp_path
        )

    (tmp_path / "bad.toml").write_text("games = 'many'\n")
    r = run("campaign", "bad.toml")
    assert r.returncode == 1 and "error: `games` must be an integer" in r.stderr and "Traceback" not in r.stderr
    r = run("report", "missing.duckdb")
    assert r.returncode == 1 and "no campaign database at missing.duckdb" in r.stderr
    (tmp_path / "junk.duckdb").write_text("junk")
    r = run("report", "junk.duckdb")
    assert r.returncode == 1 and "cannot open the database" in r.stderr and "Traceback" not in r.stderr
    r = run("campaign", "bad.toml", "--scheduler", "tcp://127.0.0.1:1", "-w", "2")
    assert r.returncode == 2 and "--workers counts local processes" in r.stderr


def test_a_missing_duckdb_says_which_extra_installs_it(monkeypatch, tmp_path):
    from recycle.study.campaign import store

    monkeypatch.setitem(sys.modules, "duckdb", None)  # as if it were not installed
    with pytest.raises(StoreError, match=r"need 'duckdb', which is not installed: pip install -e '\.\[campaign\]'"):
        store.connect(tmp_path / "x.duckdb")


def test_the_worked_example_plan_reads():
    plan = Plan.from_toml(GAMES / "hearts-variants.toml")
    assert [v.name for v in plan.variants(plan.games[0])] == [
        "baseline",
        "DEDUCT_SHOOT=1",
        "GOAL=50",
        "GOAL=50,DEDUCT_SHOOT=1",
    ]
    assert (plan.seed, plan.games_per_cell, plan.chunk, plan.name) == (1, 500, 100, "hearts-variants")


def test_big_chunks_go_in_through_csv_with_the_same_rows(tmp_path, reference, monkeypatch):
    from recycle.study.campaign import store

    monkeypatch.setattr(store, "CSV_FROM", 1)  # every chunk through the CSV file
    run_campaign(_folder(tmp_path), tmp_path / "csv.duckdb", workers=1)
    assert tables(tmp_path / "csv.duckdb") == reference
    assert not list(Path(__import__("tempfile").gettempdir()).glob("recycle-chunk-*.csv"))
