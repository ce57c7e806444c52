"""Campaigns against hostile input and faults (issues 39 and 40): plans too large to plan,
two campaigns on one Dask cluster, foreign and crafted databases, text that matplotlib would
read as markup, a full disk, a lost scheduler, and what reports say and compare."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

duckdb = pytest.importorskip("duckdb")

from recycle.study.campaign import Plan, PlanError, StoreError, report, run_campaign  # noqa: E402

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


def _folder(tmp_path, plan=PLAN, game="schwimmen.rcy"):
    (tmp_path / game).write_text((GAMES / "schwimmen.rcy").read_text())
    (tmp_path / "plan.toml").write_text(plan)
    return tmp_path / "plan.toml"


def tables(db):
    con = duckdb.connect(str(db), read_only=True)
    try:
        games = con.execute("SELECT * FROM games ORDER BY game, variant, lineup, idx").fetchall()
        chunks = con.execute("SELECT game, variant, lineup, chunk, seed, games, status, error FROM chunks "
                             "ORDER BY ALL").fetchall()
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
    return subprocess.run([sys.executable, "-m", "recycle", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


# -- 39.11: a plan too large to plan -----------------------------------------------------------

def test_a_plan_of_a_billion_chunks_is_refused_before_it_is_planned(tmp_path):
    plan = _folder(tmp_path, PLAN.replace("games = 24", "games = 1000000000").replace("chunk = 4", "chunk = 1"))
    with pytest.raises(PlanError, match=r"the plan has 2,000,000,000 chunks .* at most 100,000: make `chunk` larger"):
        Plan.from_toml(plan)
    r = _cli("campaign", "plan.toml", cwd=tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr and r.stderr.count("\n") == 1
    assert r.stderr.startswith("error: the plan has 2,000,000,000 chunks")
