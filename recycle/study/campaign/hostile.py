"""Hostile campaign plans and databases, made from a number, for ``tools/fuzz.py
--campaign-plans`` and ``--campaign-databases``.

Input ``i`` of a run with seed ``s`` is made by ``random.Random(s * 2**32 + i)``, so any failure
is made again from its number. ``exercise_plan`` and ``exercise_database`` return an outcome
(``refused``, ``ok``) or raise: an exception that is not a PlanError or StoreError is a crash.
A database exercise also fails (``Leak``) if the canary text of a local file reaches the report.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

CANARY = "CANARY-s3cr3t-9f8e7d"  # the text of a "private" file that a database must never get to show
GAME = Path(__file__).resolve().parents[3] / "games" / "schwimmen.rcy"
BASE_PLAN = {"seed": 7, "games": 4, "chunk": 2}
HOSTILE_TEXT = [
    "$\\frac$",
    "a$b$c$",
    "\x1b]0;title\x07",
    "\u202e",
    "x" * 5000,
    "",
    " ",
    "\x00",
    "../../etc/passwd",
    "/etc/passwd",
    "schwimmen.rcy\n",
    "'; DROP TABLE games; --",
    "\ud800",
    "名前",
    "%s%n",
]
HOSTILE_NUMBERS = [0, -1, 1, 2**62, -(2**62), 2**63, 10**9, 10**12, 10**15, 10**30, 3, 1000, 1.5, float("inf"), True]


class Leak(AssertionError):
    """The canary of a local file reached a report."""


# -- plans ---------------------------------------------------------------------------------------


def _value(rng: random.Random):
    kind = rng.randrange(6)
    if kind == 0:
        return rng.choice(HOSTILE_NUMBERS)
    if kind == 1:
        return rng.choice(HOSTILE_TEXT)
    if kind == 2:
        return [rng.choice(HOSTILE_NUMBERS) for _ in range(rng.choice([0, 1, 3, 2000]))]
    if kind == 3:
        return {"x": rng.choice(HOSTILE_TEXT)}
    if kind == 4:
        return rng.randrange(1, 6)
    return rng.choice([True, False])


def _toml(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "inf" if v == float("inf") else repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string (JSON escapes are TOML escapes)
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml(x)}" for k, x in v.items()) + "}"


def plan_input(i: int, seed: int = 0) -> str:
    """Plan number ``i``: the base plan with hostile keys, values, games, variants and line-ups."""
    rng = random.Random(seed * 2**32 + i)
    if rng.random() < 0.5:  # a plan that runs, with hostile names (they reach the tables and plots)
        name, lineup, game = (rng.choice(HOSTILE_TEXT[:4] + HOSTILE_TEXT[11:] + ["n"]) for _ in range(3))
        return (
            f"seed = {rng.randrange(100)}\ngames = {rng.randrange(1, 9)}\nchunk = {rng.randrange(1, 5)}\n"
            f'name = {_toml(name)}\n[[game]]\nfile = "schwimmen.rcy"\nname = {_toml(game)}\n[game.vary]\n'
            f"NUMP = {_toml(rng.choice([[5], [5, 3], [3, 4]]))}\n[[lineup]]\nname = {_toml(lineup)}\n"
            f"players = {_toml(rng.choice(['random', 'greedy,random']))}\n"
        )
    top = dict(BASE_PLAN)
    for _ in range(rng.randrange(4)):
        top[rng.choice(["seed", "games", "chunk", "max_steps", "max_work", "heuristics", "name", "extra"])] = _value(
            rng
        )
    lines = [f"{k} = {_toml(v)}" for k, v in top.items()]
    for _ in range(rng.choice([0, 1, 1, 2, 120])):
        game = {"file": rng.choice(["schwimmen.rcy"] * 4 + HOSTILE_TEXT + ["link.rcy", "sub/../schwimmen.rcy"])}
        if rng.random() < 0.3:
            game["name"] = rng.choice(HOSTILE_TEXT + ["g"])
        lines += ["[[game]]"] + [f"{k} = {_toml(v)}" for k, v in game.items()]
        if rng.random() < 0.6:
            lines.append("[game.vary]")
            for _ in range(rng.randrange(1, 4)):
                key = rng.choice(["NUMP", "players", "points SCORE", "NOPE", "$x$"])
                vals = rng.choice([[5, 3], [3, 4, 5], list(range(rng.choice([2, 40]))), [_value(rng)], []])
                lines.append(f"{json.dumps(key)} = {_toml(vals)}")
    for k in range(rng.choice([0, 1, 2, 101])):
        name = rng.choice(HOSTILE_TEXT + [f"l{k}"] * 8)
        players = rng.choice(["random", "greedy,random", "human", "ismcts:0", "nope", "random," * 300, "$"])
        lines += ["[[lineup]]", f"name = {_toml(name)}", f"players = {_toml(players)}"]
    text = "\n".join(lines) + "\n"
    if rng.random() < 0.1:  # broken TOML: cut or spliced
        cut = rng.randrange(len(text))
        text = text[:cut] + rng.choice(["", "[[", '"', "= =", "\x00"]) + text[cut + rng.randrange(8) :]
    return text


def exercise_plan(text: str, folder) -> str:
    """Read ``text`` as a plan in ``folder`` (schwimmen.rcy beside it, a link out of the folder);
    an accepted plan small enough is run and reported. ``refused`` or ``ok``."""
    from . import PlanError, StoreError, report, run_campaign
    from .plan import Plan
    from .run import prepare

    folder = Path(folder)
    shutil.copy(GAME, folder / "schwimmen.rcy")
    link = folder / "link.rcy"
    if not link.exists():
        try:
            link.symlink_to("/etc/hostname")
        except OSError:
            pass
    (folder / "plan.toml").write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        plan = Plan.from_toml(folder / "plan.toml")
        _, tasks = prepare(plan)
    except PlanError:
        return "refused"
    if sum(t.n for t in tasks) <= 64:
        try:
            run_campaign(plan, folder / "plan.duckdb")
            r = report(folder / "plan.duckdb")
        except StoreError:
            return "refused"
        r.text()
        r.to_json()
        r.write_plots(folder / "plots")
    return "ok"


# -- databases -----------------------------------------------------------------------------------


def database_edits(i: int, seed: int, canary: Path) -> tuple[list[str], bytes | None]:
    """``(SQL statements, byte damage)`` of database number ``i``: SQL run on a valid campaign
    database (views and macros reading ``canary``, rows with hostile values, tables changed),
    and sometimes bytes written over the file afterwards (``(offset, bytes)`` as a JSON list)."""
    rng = random.Random(seed * 2**32 + i)
    folder = canary.parent
    readers = [
        f"read_text('{canary}')",
        f"glob('{folder}/*')",
        f"read_csv('{canary}', header = false)",
        "range(100000000000)",
    ]
    column = {"read_text": "content", "glob": "file", "read_csv": "column0", "range": "range"}
    edits = []
    for _ in range(rng.randrange(1, 4)):
        kind = rng.randrange(7)
        reader = rng.choice(readers)
        col = column[reader.split("(")[0]]
        if kind == 0:
            table = rng.choice(["plan", "cells", "chunks", "games"])
            if table == "plan":
                edits += [
                    "DROP TABLE plan",
                    (f"CREATE VIEW plan AS SELECT 'name' AS key, {col}::TEXT AS value FROM {reader}"),
                ]
            else:
                edits.append(f"CREATE VIEW v{rng.randrange(99)} AS SELECT * FROM {reader}")
        elif kind == 1:
            name = rng.choice(["duckdb_tables", "duckdb_views", "duckdb_functions", "len", "avg", "m"])
            edits.append(f"CREATE OR REPLACE MACRO {name}() AS TABLE SELECT {col} FROM {reader}")
        elif kind == 2:
            table, col2 = rng.choice(
                [
                    ("cells", "nplayers"),
                    ("cells", "settings"),
                    ("cells", "chunks"),
                    ("cells", "scoring"),
                    ("cells", "game"),
                    ("games", "winners"),
                    ("games", "scores"),
                    ("games", "settled_at"),
                    ("games", "idx"),
                    ("games", "stopped_by"),
                    ("games", "decisions"),
                    ("games", "winner_gap"),
                    ("chunks", "status"),
                    ("chunks", "error"),
                    ("plan", "value"),
                ]
            )
            value = rng.choice(
                [
                    "NULL",
                    "-1",
                    "2147483647",
                    "'nan'::DOUBLE",
                    "'inf'::DOUBLE",
                    "'{bad json'",
                    "[99]",
                    "[]",
                    "[0, 0]",
                    "repeat('x', 100000)",
                    "'$\\frac$'",
                    "'\x1b[31m'",
                ]
            )
            edits.append(f"UPDATE {table} SET {col2} = {value}")
        elif kind == 3:
            edits.append(
                rng.choice(
                    [
                        (
                            "INSERT INTO games (game, variant, lineup, chunk, idx, seed) "
                            "VALUES ('nosuch', 'baseline', 'r', 0, 0, 0)"
                        ),
                        "INSERT INTO plan VALUES ('toml', repeat('y', 2000000))",
                        (
                            "INSERT INTO cells SELECT 'g' || i, 'v', 'l', true, '[]', 'random', 64, 'max', "
                            "100000, 1000000000 FROM range(20000) t(i)"
                        ),
                    ]
                )
            )
        elif kind == 4:
            edits += rng.choice(
                [
                    ["DROP TABLE chunks"],
                    ["CREATE TABLE extra (x INTEGER)"],
                    ["ALTER TABLE games ADD COLUMN z INTEGER"],
                    ["ALTER TABLE cells DROP COLUMN settings"],
                ]
            )
        elif kind == 5:
            edits.append("CREATE SEQUENCE s START 1")
        else:
            edits.append(f"CREATE TABLE t{rng.randrange(99)} AS SELECT {col}::TEXT AS x FROM {reader} LIMIT 3")
    damage = None
    if rng.random() < 0.15:
        damage = json.dumps([rng.randrange(0, 300_000), rng.randbytes(rng.choice([1, 8, 4096])).hex()]).encode()
    return edits, damage


def make_database(template: Path, path: Path, edits: list[str], damage: bytes | None) -> None:
    """``template`` copied to ``path`` with ``edits`` run on it (those DuckDB refuses are
    skipped) and ``damage`` written over its bytes."""
    import duckdb

    shutil.copy(template, path)
    con = duckdb.connect(str(path))
    try:
        for sql in edits:
            try:
                con.execute(sql)
            except duckdb.Error:
                pass
    finally:
        con.close()
    if damage:
        offset, hexed = json.loads(damage)
        with open(path, "r+b") as fh:
            size = fh.seek(0, 2)
            fh.seek(min(offset, max(size - 1, 0)))
            fh.write(bytes.fromhex(hexed))


def exercise_database(path, html: bool = False) -> str:
    """Report the database at ``path`` as ``recycle report`` does: ``refused`` (StoreError) or
    ``ok``; Leak if the canary shows in the text, JSON or HTML."""
    from . import StoreError, report

    try:
        r = report(path)
    except StoreError as exc:
        if CANARY in str(exc):
            raise Leak(f"the canary is in the message: {str(exc)[:200]}") from None
        return "refused"
    out = r.text() + r.to_json() + (r.html() if html else "")
    if CANARY in out:
        raise Leak("the canary of a local file is in the report")
    return "ok"


def template_database(folder: Path) -> Path:
    """A small finished campaign (schwimmen, two variants, one line-up) to damage."""
    from . import run_campaign

    folder = Path(folder)
    shutil.copy(GAME, folder / "schwimmen.rcy")
    (folder / "t.toml").write_text(
        'seed = 1\ngames = 4\nchunk = 2\n[[game]]\nfile = "schwimmen.rcy"\n'
        '[game.vary]\nNUMP = [5, 3]\n[[lineup]]\nname = "r"\nplayers = "random"\n'
    )
    run_campaign(folder / "t.toml", folder / "t.duckdb")
    return folder / "t.duckdb"
