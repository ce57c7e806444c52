"""Reading a campaign database that someone else may have written (``recycle report``).

A DuckDB file can hold more than tables: views and macros that run when they are read
(``read_text('~/.ssh/id_rsa')``, ``glob``, a cross join of a billion rows), and values that no
campaign writes. So a database is opened read-only with DuckDB's file system, extensions and
configuration locked (``open_foreign``); it must hold exactly the four tables of
``store.SCHEMA`` — no view, no macro, no other table, each table as the schema declares it, no
generated column — and every row must be one a campaign writes (``check_rows``). Anything else
is a StoreError that says what is wrong; the report is computed only afterwards.
"""

from __future__ import annotations

import json

from .plan import MAX_CELLS, MAX_CHUNKS, MAX_GAMES
from .store import SCHEMA, StoreError, _duckdb

# DuckDB's settings for a file from outside: no file system (read_text, glob, read_csv, COPY,
# ATTACH), no extension loaded or installed, and settings that the file's SQL cannot change
LOCKED = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "allow_unsigned_extensions": False,
    "lock_configuration": True,
}
MAX_SEATS = 64  # players of a cell (a game of recycle has far fewer)
MAX_TEXT = 1000  # a name of a game, variant or line-up, a line-up's players
MAX_ERROR = 10_000  # a failed chunk's message (run_chunk keeps 2000 characters)
PLAN_KEYS = {"identity", "toml", "name", "seed", "games", "chunk", "max_steps", "max_work", "heuristics", "started"}
LIMITS = ("max_steps", "max_work", "events")  # stopped_by


def open_foreign(path):
    """A read-only connection to the database at ``path`` with external access disabled."""
    from pathlib import Path

    duckdb = _duckdb()
    path = Path(path)
    if not path.is_file():
        raise StoreError(f"no campaign database at {path}")
    try:
        return duckdb.connect(str(path), read_only=True, config=dict(LOCKED))
    except duckdb.Error as exc:
        raise StoreError(f"cannot open the database {path}: {str(exc).splitlines()[0][:300]}") from None


def _expected_tables() -> dict:
    """``{table: its CREATE statement}`` as this DuckDB writes ``store.SCHEMA``."""
    duckdb = _duckdb()
    con = duckdb.connect(":memory:", config=dict(LOCKED))
    try:
        con.execute(SCHEMA)
        return dict(con.execute("SELECT table_name, sql FROM system.main.duckdb_tables()").fetchall())
    finally:
        con.close()


def check_schema(con, db) -> None:
    """Refuse a database whose catalog is not exactly the campaign schema. The catalog is read
    through ``system.main`` so that a macro of the file cannot stand in for it."""
    views = con.execute(
        "SELECT schema_name, view_name FROM system.main.duckdb_views() WHERE NOT internal LIMIT 5"
    ).fetchall()
    if views:
        raise StoreError(
            f"{db} is not a campaign database: it holds views ({_names(views)}), which a campaign "
            "never writes and which are not read"
        )
    macros = con.execute(
        "SELECT schema_name, function_name FROM system.main.duckdb_functions() WHERE NOT internal LIMIT 5"
    ).fetchall()
    if macros:
        raise StoreError(
            f"{db} is not a campaign database: it holds macros ({_names(macros)}), which a campaign never writes"
        )
    have = con.execute(
        "SELECT schema_name, table_name, sql FROM system.main.duckdb_tables() WHERE NOT internal "
        "AND NOT temporary LIMIT 100"
    ).fetchall()
    want = _expected_tables()
    extra = [(s, t) for s, t, _ in have if s != "main" or t not in want]
    if extra:
        raise StoreError(f"{db} is not a campaign database: it holds other tables ({_names(extra)})")
    sql = {t: q for _, t, q in have}
    missing = sorted(set(want) - set(sql))
    if missing:
        raise StoreError(f"{db} is not a campaign database: no table {', '.join(missing)}")
    for table, create in want.items():
        if sql[table] != create:
            raise StoreError(
                f"{db} is not a campaign database: the table {table} is not the campaign's "
                f"(its columns, types or keys differ)"
            )


def _names(rows) -> str:
    return ", ".join(".".join(str(x)[:60] for x in r) for r in rows)


def check_rows(con, db) -> None:
    """Refuse a database with a row that no campaign writes: counts past the plan's bounds,
    text too long, settings that are not JSON, seats, scores and winners that do not fit the
    cell, measures out of their range, games or chunks of no cell."""

    def bad(what: str, sql: str, args=()) -> None:
        row = con.execute(sql, list(args)).fetchone()
        if row and row[0]:
            raise StoreError(f"{db} is not a valid campaign database: {what}")

    bad("too many plan rows", "SELECT count(*) > 100 FROM plan")
    for key, value in con.execute("SELECT key, value FROM plan").fetchall():
        if key not in PLAN_KEYS or not isinstance(value, str) or len(value) > 1_000_000:
            raise StoreError(
                f"{db} is not a valid campaign database: a plan row {str(key)[:40]!r} is not one a campaign writes"
            )
    plan = dict(con.execute("SELECT key, value FROM plan").fetchall())
    for key, hi in (("seed", 2**62), ("games", MAX_GAMES), ("chunk", 10**6)):
        if key in plan:
            try:
                v = int(plan[key])
            except ValueError:
                v = None
            if v is None or not -hi <= v <= hi:
                raise StoreError(
                    f"{db} is not a valid campaign database: the plan's {key} is not a number of at most {hi:,}"
                )
    bad(f"more than {MAX_CELLS:,} cells", f"SELECT count(*) > {MAX_CELLS} FROM cells")
    bad(f"more than {MAX_CHUNKS:,} chunks", f"SELECT count(*) > {MAX_CHUNKS} FROM chunks")
    bad(
        "a cell with a missing or over-long name, players, seats, scoring or counts",
        f"SELECT count(*) FROM cells WHERE game IS NULL OR variant IS NULL OR lineup IS NULL OR baseline IS NULL "
        f"OR players IS NULL OR settings IS NULL OR len(game) > {MAX_TEXT} OR len(variant) > {MAX_TEXT} "
        f"OR len(lineup) > {MAX_TEXT} OR len(players) > {MAX_TEXT} OR len(settings) > 100000 "
        f"OR nplayers IS NULL OR nplayers NOT BETWEEN 1 AND {MAX_SEATS} OR scoring NOT IN ('max', 'min') "
        f"OR scoring IS NULL OR chunks IS NULL OR chunks NOT BETWEEN 0 AND {MAX_CHUNKS} OR games IS NULL "
        f"OR games NOT BETWEEN 0 AND {MAX_GAMES}",
    )
    for (settings,) in con.execute("SELECT settings FROM cells").fetchall():
        try:
            ok = isinstance(json.loads(settings), list)
        except (ValueError, RecursionError):
            ok = False
        if not ok:
            raise StoreError(f"{db} is not a valid campaign database: a cell's settings are not a JSON list")
    bad(
        "a chunk of no cell, or with a bad status, index or message",
        "SELECT count(*) FROM chunks k ANTI JOIN cells c USING (game, variant, lineup)",
    )
    bad(
        "a chunk with a bad status, index, game count or message",
        f"SELECT count(*) FROM chunks WHERE status IS NULL OR status NOT IN ('done', 'failed') OR chunk IS NULL "
        f"OR chunk < 0 OR games < 0 OR len(error) > {MAX_ERROR} OR len(worker) > {MAX_TEXT}",
    )
    bad("a game of no cell", "SELECT count(*) FROM games g ANTI JOIN cells c USING (game, variant, lineup)")
    limits = ", ".join(f"'{x}'" for x in LIMITS)
    bad(
        "a game whose scores, winners or measures do not fit its cell (seats, ranges, limits)",
        "SELECT count(*) FROM games g JOIN cells c USING (game, variant, lineup) WHERE "
        f"g.idx IS NULL OR g.idx < 0 OR (g.stopped_by IS NOT NULL AND g.stopped_by NOT IN ({limits})) "
        "OR (g.stopped_by IS NULL AND (g.scores IS NULL OR g.winners IS NULL OR len(g.scores) != c.nplayers "
        "OR len(g.winners) NOT BETWEEN 1 AND c.nplayers OR len(list_distinct(g.winners)) != len(g.winners) "
        "OR list_min(g.winners) < 0 OR list_max(g.winners) >= c.nplayers "
        "OR list_contains(g.scores, NULL) OR list_contains(g.winners, NULL))) "
        "OR g.decisions < 0 OR g.choices < 0 OR g.choices > g.decisions OR g.options < 0 OR g.rounds < 0 "
        "OR g.steps < 0 OR g.lead_changes < 0 OR NOT (g.settled_at BETWEEN 0 AND 1) "
        "OR NOT isfinite(g.winner_gap) OR g.winner_gap < 0 OR NOT isfinite(g.final_spread) OR g.final_spread < 0",
    )
