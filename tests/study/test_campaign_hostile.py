"""Campaigns against hostile input and faults (issues 39 and 40): plans too large to plan,
two campaigns on one Dask cluster, foreign and crafted databases, text that matplotlib would
read as markup, a full disk, a lost scheduler, and what reports say and compare."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

duckdb = pytest.importorskip("duckdb")

from recycle.study.campaign import Plan, PlanError, StoreError, report, run_campaign  # noqa: E402

from .test_campaign import PLAN  # noqa: E402 - the small two-variant plan both files play

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "games"


def _folder(tmp_path, plan=PLAN, game="schwimmen.rcy"):
    (tmp_path / game).write_text((GAMES / "schwimmen.rcy").read_text())
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
    folder = tmp_path_factory.mktemp("ref")
    run_campaign(_folder(folder), folder / "ref.duckdb", workers=1)
    return tables(folder / "ref.duckdb")


def _cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "recycle", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
        check=False,
    )


# -- 39.11: a plan too large to plan -----------------------------------------------------------


def test_a_plan_of_a_billion_chunks_is_refused_before_it_is_planned(tmp_path):
    plan = _folder(tmp_path, PLAN.replace("games = 24", "games = 1000000000").replace("chunk = 4", "chunk = 1"))
    with pytest.raises(PlanError, match=r"the plan has 2,000,000,000 chunks .* at most 100,000: make `chunk` larger"):
        Plan.from_toml(plan)
    r = _cli("campaign", "plan.toml", cwd=tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr and r.stderr.count("\n") == 1
    assert r.stderr.startswith("error: the plan has 2,000,000,000 chunks")


# -- 39.3: two campaigns on one Dask cluster -------------------------------------------------------


def test_two_campaigns_on_one_cluster_each_get_their_own_games(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    plan_a = _folder(tmp_path / "a")
    plan_b = _folder(tmp_path / "b", "max_steps = 10\n" + PLAN)  # the same names and seed, another limit
    run_campaign(plan_b, tmp_path / "b" / "alone.duckdb")
    # A's tasks stay on the cluster (as when both campaigns run at once)
    monkeypatch.setattr(distributed.Future, "release", lambda self, *a, **k: None)
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        run_campaign(plan_a, tmp_path / "a" / "a.duckdb", scheduler=client)
        run_b = run_campaign(plan_b, tmp_path / "b" / "b.duckdb", scheduler=client)
    games, _ = tables(tmp_path / "b" / "b.duckdb")
    assert sum(g[13] == "max_steps" for g in games) > len(games) // 2  # B's 10-step rule, not A's games
    assert tables(tmp_path / "b" / "b.duckdb") == tables(tmp_path / "b" / "alone.duckdb")
    assert run_b.chunks_run == 12 and not run_b.rejected


def test_a_result_is_checked_against_the_chunk_it_was_asked_for(tmp_path):
    from recycle.study.campaign.job import mismatch, run_chunk
    from recycle.study.campaign.run import prepare

    _, tasks_a = prepare(Plan.from_toml(_folder(tmp_path)))
    _, tasks_b = prepare(Plan.from_text("max_steps = 10\n" + PLAN, tmp_path))
    a, b = tasks_a[0], tasks_b[0]
    assert a.key == b.key and a.seed == b.seed and a.dask_key != b.dask_key
    res = run_chunk(a)
    assert mismatch(a, res) is None
    assert mismatch(b, res) == "the cluster returned the result of another task (another campaign's?)"
    res.columns["idx"][0] += 1
    assert mismatch(a, res) == "the result's games are not the chunk's (indexes or seeds differ)"
    res.columns["idx"].pop()
    assert mismatch(a, res) == "the result does not hold the 4 games of the chunk"
    assert mismatch(a, "junk") == "the cluster returned a str, not a chunk's result"


# -- 39.4 and 39.13: databases from someone else -------------------------------------------------


def _valid_db(path, extra_sql=()):
    """A small campaign database written by hand (two seats, a baseline and a variant), then
    ``extra_sql`` run on it."""
    from recycle.study.campaign import store

    con = store.connect(path)
    con.execute("INSERT INTO plan VALUES ('name', 'fake'), ('seed', '1'), ('games', '20'), ('chunk', '20')")
    for v, base in (("baseline", True), ("X=1", False)):
        con.execute("INSERT INTO cells VALUES ('g', ?, 'r', ?, '[]', 'random', 2, 'max', 1, 20)", [v, base])
        for i in range(20):
            con.execute(
                "INSERT INTO games (game, variant, lineup, chunk, idx, seed, scores, winners, decisions, "
                "options, lead_changes, settled_at, winner_gap, final_spread) "
                "VALUES ('g', ?, 'r', 0, ?, ?, [1, 0], ?, ?, ?, ?, 0.5, 1.0, 1.0)",
                [v, i, i, [i % 2], i % 5 + 1, 2 * (i % 5 + 1), i % 3],
            )
        con.execute(
            "INSERT INTO chunks (game, variant, lineup, chunk, seed, games, status) "
            "VALUES ('g', ?, 'r', 0, 1, 20, 'done')",
            [v],
        )
    for sql in extra_sql:
        con.execute(sql)
    con.close()
    return path


@pytest.mark.parametrize("reader", ["read_text('{secret}')", "glob('{folder}/*')"])
def test_a_database_whose_views_read_local_files_is_refused(tmp_path, reader):
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN PRIVATE KEY----- s3cr3t\n")
    source = reader.format(secret=secret, folder=tmp_path)
    column = "content" if "read_text" in source else "file"
    _valid_db(
        tmp_path / "evil.duckdb",
        ["DROP TABLE plan", f"CREATE VIEW plan AS SELECT 'name' AS key, {column} AS value FROM {source}"],
    )
    for extra in ([], ["--json"], ["--html", "r.html"]):
        r = _cli("report", "evil.duckdb", *extra, cwd=tmp_path)
        assert r.returncode == 1, r.stdout
        assert (
            r.stderr == "error: evil.duckdb is not a campaign database: it holds views (main.plan), which a "
            "campaign never writes and which are not read\n"
        )
        assert "s3cr3t" not in r.stdout and "id_rsa" not in r.stdout and not (tmp_path / "r.html").exists()


def test_a_foreign_database_is_read_without_file_access_or_macros(tmp_path):
    from recycle.study.campaign.foreign import open_foreign

    (tmp_path / "secret").write_text("s3cr3t")
    _valid_db(tmp_path / "m.duckdb", ["CREATE MACRO duckdb_views() AS TABLE SELECT 1 AS x WHERE false"])
    con = open_foreign(tmp_path / "m.duckdb")
    try:
        with pytest.raises(duckdb.Error, match="disabled by configuration"):
            con.execute(f"SELECT * FROM read_text('{tmp_path / 'secret'}')").fetchall()
        with pytest.raises(duckdb.Error, match="locked"):
            con.execute("SET enable_external_access = true")
    finally:
        con.close()
    with pytest.raises(StoreError, match=r"it holds macros \(main.duckdb_views\)"):
        report(tmp_path / "m.duckdb")


CRAFTED = [
    (["UPDATE cells SET settings = '{not json'"], "a cell's settings are not a JSON list"),
    (
        [
            (
                "INSERT INTO games (game, variant, lineup, chunk, idx, seed, scores, winners) VALUES ('nosuch', "
                "'baseline', 'r', 0, 0, 0, [1, 0], [0])"
            )
        ],
        "a game of no cell",
    ),
    (["UPDATE plan SET value = 'many' WHERE key = 'seed'"], "the plan's seed is not a number"),
    (["UPDATE cells SET nplayers = 100000"], "a cell with a missing or over-long name"),
    (["UPDATE games SET winners = [5] WHERE idx = 3"], "a game whose scores, winners or measures do not fit"),
    (["UPDATE games SET scores = [1] WHERE idx = 3"], "a game whose scores, winners or measures do not fit"),
    (["UPDATE games SET settled_at = 'nan'::DOUBLE WHERE idx = 3"], "do not fit its cell"),
    (["UPDATE games SET stopped_by = 'aliens' WHERE idx = 3"], "do not fit its cell"),
    (["UPDATE chunks SET status = 'maybe'"], "a chunk with a bad status"),
    (["INSERT INTO plan VALUES ('evil', 'x')"], "a plan row 'evil' is not one a campaign writes"),
    (["CREATE TABLE more (x INTEGER)"], r"it holds other tables \(main.more\)"),
    (["DROP TABLE chunks"], "no table chunks"),
    (
        [
            "DROP TABLE cells",
            (
                "CREATE TABLE cells (game TEXT, variant TEXT, lineup TEXT, baseline BOOLEAN, "
                "settings TEXT, players TEXT, nplayers INTEGER AS (2000000000), scoring TEXT, "
                "chunks INTEGER, games INTEGER)"
            ),
        ],
        "the table cells is not the campaign's",
    ),
]


@pytest.mark.parametrize("sql, message", CRAFTED)
def test_a_crafted_database_is_refused_with_what_is_wrong(tmp_path, sql, message):
    _valid_db(tmp_path / "c.duckdb", sql)
    with pytest.raises(StoreError, match=message):
        report(tmp_path / "c.duckdb")


def test_a_crafted_database_gives_one_line_through_the_command(tmp_path):
    _valid_db(tmp_path / "c.duckdb", ["UPDATE cells SET settings = '{not json'"])
    r = _cli("report", "c.duckdb", "--html", "x.html", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == "error: c.duckdb is not a valid campaign database: a cell's settings are not a JSON list\n"


def test_a_resume_refuses_a_database_with_views(tmp_path):
    plan = _folder(tmp_path)
    _valid_db(tmp_path / "plan.duckdb", ["CREATE VIEW v AS SELECT * FROM glob('/*')"])
    with pytest.raises(StoreError, match=r"holds views \(main.v\)"):
        run_campaign(plan, tmp_path / "plan.duckdb", resume=True)


# -- 39.13: a full disk ------------------------------------------------------------------------


def test_a_full_disk_is_one_line_and_exit_1_and_the_resume_is_exact(tmp_path, reference, monkeypatch):
    from typer.testing import CliRunner

    from recycle.cli.main import app
    from recycle.study.campaign import store

    _folder(tmp_path)
    real = store._write_chunk
    writes = []

    def full(con, res):
        writes.append(res.key)
        if len(writes) == 4:
            raise duckdb.IOException('IO Error: Could not write file "plan.duckdb.wal": No space left on device')
        return real(con, res)

    monkeypatch.setattr(store, "_write_chunk", full)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, ["campaign", "plan.toml", "-w", "1", "--no-progress"])
    assert r.exit_code == 1 and not isinstance(r.exception, duckdb.Error), r.exception
    assert r.stderr == (
        'error: cannot write to plan.duckdb: IO Error: Could not write file "plan.duckdb.wal": '
        "No space left on device (the chunks written before are kept: --resume to go on)\n"
    )
    assert len(tables(tmp_path / "plan.duckdb")[1]) == 3
    monkeypatch.setattr(store, "_write_chunk", real)
    run = run_campaign(tmp_path / "plan.toml", tmp_path / "plan.duckdb", resume=True)
    assert run.chunks_run == 9
    assert tables(tmp_path / "plan.duckdb") == reference


# -- 39: a Dask scheduler lost in the middle of a campaign ---------------------------------------

CLUSTER = """
import sys, time
from distributed import LocalCluster
cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1", protocol="tcp",
                       dashboard_address=None)
print(cluster.scheduler_address, flush=True)
time.sleep(600)
"""


def _cluster(tmp_path):
    """A scheduler and a worker in a process of their own (on loopback), and its address."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", CLUSTER],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    address = proc.stdout.readline().strip()
    assert address.startswith("tcp://127.0.0.1:"), address
    return proc, address


@pytest.mark.parametrize("how", ["SIGKILL", pytest.param("SIGSTOP", marks=pytest.mark.slow)])
def test_a_lost_scheduler_stops_the_run_and_resume_finishes_elsewhere(tmp_path, reference, monkeypatch, how):
    pytest.importorskip("distributed")
    from recycle.study.campaign import run as run_module

    monkeypatch.setattr(run_module, "SCHEDULER_LOST_AFTER", 3.0)
    monkeypatch.setattr(run_module, "PING_TIMEOUT", 1.0)
    plan = _folder(tmp_path)
    first, address = _cluster(tmp_path)
    second = None
    try:

        def kill_after_two(p):
            if p.chunks_done >= 2 and first.poll() is None and not stopped:
                # the scheduler and its worker die at once, or stop answering with the connection open
                os.kill(first.pid, getattr(signal, how))
                stopped.append(how)

        stopped = []

        with pytest.raises(
            StoreError,
            match=r"lost the Dask scheduler tcp://127\.0\.0\.1:\d+ \((the connection "
            r"broke|no answer for 3 s)\): the finished chunks are kept; run "
            r"the same command with --resume",
        ):
            run_campaign(plan, tmp_path / "plan.duckdb", scheduler=address, progress=kill_after_two)
        kept = len(tables(tmp_path / "plan.duckdb")[1])
        assert 2 <= kept < 12
        second, address2 = _cluster(tmp_path)
        run = run_campaign(plan, tmp_path / "plan.duckdb", scheduler=address2, resume=True)
        assert run.chunks_run == 12 - kept and run.lost == 0
        assert tables(tmp_path / "plan.duckdb") == reference
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()


# -- 39.12: text from outside in plots -------------------------------------------------------------

MARKUP = "x$\\frac$y"  # an unbalanced math expression: matplotlib raised ValueError on it


def test_dollars_in_a_game_files_name_reach_the_plots_as_text(tmp_path):
    game = tmp_path / f"{MARKUP}.rcy"
    game.write_text((GAMES / "schwimmen.rcy").read_text())
    r = _cli("analyze", game.name, "-n", "6", "--plots", "plots", cwd=tmp_path)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == [f"{MARKUP}-branching.png", f"{MARKUP}-scores.png"]


@pytest.mark.slow  # (3-4 s: the fast suite must stay under 5 minutes on 2 cores)
def test_dollars_in_a_plans_names_reach_the_report_plots_as_text(tmp_path):
    from recycle.study.plots import plot_text

    plan = (
        PLAN.replace('name = "random"', f'name = "{MARKUP.replace(chr(92), chr(92) * 2)}"')
        + '[[lineup]]\nname = "$^$"\nplayers = "random"\n'
    )
    run_campaign(_folder(tmp_path, plan.replace("games = 24", "games = 8")), tmp_path / "p.duckdb")
    r = _cli("report", "p.duckdb", "--plots", "plots", "--html", "r.html", cwd=tmp_path)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert len(list((tmp_path / "plots").glob("*.png"))) == 3
    assert (tmp_path / "r.html").read_text().count("<img") == 3
    assert plot_text("a$b\x1b") == "a\\$b\\u001b"


# -- 40.8: what reports say, compare and how wide they are ------------------------------------------

LINEUPS = (
    PLAN.replace("games = 24", "games = 16").replace("chunk = 4", "chunk = 8")
    + '[[lineup]]\nname = "greedy"\nplayers = "greedy,random"\n'
)


@pytest.fixture(scope="module")
def two_lineups(tmp_path_factory):
    """Schwimmen (its score is set only when a round ends, after the last decision) with two
    line-ups and two variants."""
    folder = tmp_path_factory.mktemp("lineups")
    run_campaign(_folder(folder, LINEUPS), folder / "l.duckdb")
    return report(folder / "l.duckdb"), folder


def test_a_score_that_never_moves_in_play_is_not_measurable_not_zero(two_lineups):
    r, _ = two_lineups
    text = r.text()
    assert "lead_changes  not measurable (the score does not move during play)" in text
    assert "decisiveness  not measurable (the score does not move during play)" in text
    assert "0.00 [0.00, 0.00]" not in text
    assert all("lead_changes" not in c.measures and "decisions" in c.measures for c in r.cells)
    assert not [x for x in r.comparisons if x.measure in ("lead_changes", "decisiveness", "drama", "comebacks")]
    assert "<p class=na>lead changes, decisiveness, drama, comebacks: not measurable in any cell" in r.html()


def test_line_ups_are_compared_with_the_first_line_up(two_lineups):
    r, _ = two_lineups
    vs = [x for x in r.comparisons if x.against == "line-up"]
    assert {(x.variant, x.lineup, x.reference) for x in vs} == {
        ("baseline", "greedy", "random"),
        ("NUMP=3", "greedy", "random"),
    }
    assert {"win_rate P0", "decisions"} <= {x.measure for x in vs}
    p0 = next(x for x in vs if x.variant == "baseline" and x.measure == "win_rate P0")
    assert (p0.baseline_value, p0.value) == (
        r.cell("schwimmen", "baseline", "random").win_rate[0].value,
        r.cell("schwimmen", "baseline", "greedy").win_rate[0].value,
    )
    assert "line-ups against the first line-up (random):" in r.text()
    assert "<h3>line-ups against the first line-up</h3>" in r.html()
    assert all(x.reference == "baseline" for x in r.comparisons if x.against == "baseline")


def test_the_html_report_is_no_wider_than_the_window(two_lineups):
    import shutil

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium to render the page")
    r, folder = two_lineups
    probe = "<script>document.title = 'W' + document.documentElement.scrollWidth + 'x' + innerWidth</script>"
    page = folder / "probe.html"
    page.write_text(r.html().replace("</body>", probe + "</body>"), encoding="utf-8")
    out = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1280,900",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    import re

    m = re.search(r"<title>W(\d+)x(\d+)</title>", out.stdout)
    assert m, out.stderr[-500:]
    width, window = int(m.group(1)), int(m.group(2))
    assert width <= window


# -- tools/fuzz.py's campaign surfaces ------------------------------------------------------------


def test_the_campaign_fuzz_inputs_are_made_again_from_their_number_and_pass(tmp_path):
    from recycle.study.campaign import hostile

    assert hostile.plan_input(3, 1) == hostile.plan_input(3, 1) != hostile.plan_input(4, 1)
    template = hostile.template_database(tmp_path)
    canary = tmp_path / "id_rsa"
    canary.write_text(hostile.CANARY)
    outcomes = set()
    for i in range(12):
        edits, damage = hostile.database_edits(i, 0, canary)
        assert (edits, damage) == hostile.database_edits(i, 0, canary)
        hostile.make_database(template, tmp_path / f"{i}.duckdb", edits, damage)
        outcomes.add(hostile.exercise_database(tmp_path / f"{i}.duckdb"))
    assert outcomes <= {"refused", "ok"} and "refused" in outcomes
    plan_folder = tmp_path / "p"
    plan_folder.mkdir()
    assert (
        hostile.exercise_plan(
            'seed = 1\ngames = 2\nchunk = 1\nname = "$\\\\frac$"\n[[game]]\nfile = '
            '"schwimmen.rcy"\n[[lineup]]\nname = "a$b$"\n',
            plan_folder,
        )
        == "ok"
    )
    assert (
        hostile.exercise_plan('games = 2\n[[game]]\nfile = "link.rcy"\n[[lineup]]\nname = "r"\n', plan_folder)
        == "refused"
    )


@pytest.mark.slow  # (5-6 s: the fast suite must stay under 5 minutes on 2 cores)
def test_a_database_of_many_cells_draws_figures_of_a_bounded_size(tmp_path):
    from recycle.study.campaign.render import figures

    long = "v" * 900
    _valid_db(
        tmp_path / "big.duckdb",
        [
            f"INSERT INTO cells SELECT 'g', '{long}' || i, 'r', false, '[]', 'random', 64, 'max', 1, 2 FROM range(300) t(i)",
            (
                "INSERT INTO games (game, variant, lineup, chunk, idx, seed, scores, winners, decisions, options) "
                f"SELECT 'g', '{long}' || i, 'r', 0, k, k, list_transform(range(64), lambda x: 0), [k], 3, 6 "
                "FROM range(300) t(i), range(2) u(k)"
            ),
        ],
    )
    r = report(tmp_path / "big.duckdb")
    assert len(r.cells) == 302
    import matplotlib.pyplot as plt

    for _name, fig in figures(r):
        width, height = fig.get_size_inches()
        assert width <= 30 and height <= 40
        plt.close(fig)
