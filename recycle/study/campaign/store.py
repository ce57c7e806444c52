"""The campaign's database: one DuckDB file, written by the coordinating process only.

Tables (docs/campaigns.md, "The database", lists every column):

- ``plan``: key/value rows: the plan's TOML text, its identity digest, seed, games, chunk.
- ``cells``: one row per variant × line-up of each game, with the variant's settings.
- ``chunks``: one row per finished chunk (``status`` 'done' or 'failed' with ``error``).
- ``games``: one row per game played.

A finished chunk is written in one transaction (its games and its ``chunks`` row), and
``chunks`` and ``games`` have primary keys, so a chunk is never counted twice and a
campaign killed at any moment loses at most the chunks not yet committed.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

from .job import COLUMNS, ChunkResult

SCHEMA = """
CREATE TABLE IF NOT EXISTS plan (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS cells (
    game TEXT, variant TEXT, lineup TEXT, baseline BOOLEAN, settings TEXT, players TEXT, nplayers INTEGER,
    scoring TEXT, chunks INTEGER, games INTEGER,
    PRIMARY KEY (game, variant, lineup));
CREATE TABLE IF NOT EXISTS chunks (
    game TEXT, variant TEXT, lineup TEXT, chunk INTEGER, seed BIGINT, games INTEGER, status TEXT, error TEXT,
    worker TEXT, seconds DOUBLE, finished TIMESTAMP,
    PRIMARY KEY (game, variant, lineup, chunk));
CREATE TABLE IF NOT EXISTS games (
    game TEXT, variant TEXT, lineup TEXT, chunk INTEGER, idx BIGINT, seed BIGINT,
    scores BIGINT[], winners INTEGER[], decisions INTEGER, choices INTEGER, options BIGINT, rounds INTEGER,
    steps BIGINT, stopped_by TEXT, lead_changes INTEGER, settled_at DOUBLE, winner_gap DOUBLE,
    final_spread DOUBLE,
    PRIMARY KEY (game, variant, lineup, idx));
"""


# the games table's columns after (game, variant, lineup, chunk), as read_csv gives them
CSV_TYPES = {
    "idx": "BIGINT",
    "seed": "BIGINT",
    "scores": "VARCHAR",
    "winners": "VARCHAR",
    "decisions": "INTEGER",
    "choices": "INTEGER",
    "options": "BIGINT",
    "rounds": "INTEGER",
    "steps": "BIGINT",
    "stopped_by": "VARCHAR",
    "lead_changes": "INTEGER",
    "settled_at": "DOUBLE",
    "winner_gap": "DOUBLE",
    "final_spread": "DOUBLE",
}


CSV_FROM = 500


class StoreError(RuntimeError):
    """A database that cannot be used (another campaign's, locked, not DuckDB)."""


def _duckdb():
    try:
        import duckdb
    except ImportError:
        raise StoreError("campaigns need 'duckdb', which is not installed: pip install -e '.[campaign]'") from None
    return duckdb


def connect(path, read_only: bool = False):
    """A connection to the database at ``path`` (created with the schema unless ``read_only``)."""
    duckdb = _duckdb()
    path = Path(path)
    if read_only and not path.is_file():
        raise StoreError(f"no campaign database at {path}")
    try:
        con = duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as exc:
        raise StoreError(f"cannot open the database {path}: {str(exc).splitlines()[0][:300]}") from None
    if not read_only:
        try:
            con.execute(SCHEMA)
        except duckdb.Error as exc:
            con.close()
            raise StoreError(f"{path} is not a campaign database: {str(exc).splitlines()[0][:300]}") from None
    return con


def plan_rows(con) -> dict:
    try:
        return dict(con.execute("SELECT key, value FROM plan").fetchall())
    except Exception as exc:  # noqa: BLE001 - duckdb.Error: no such table
        raise StoreError(f"not a campaign database: {str(exc).splitlines()[0][:200]}") from None


def begin(con, plan, cells: list[dict], resume: bool) -> set:
    """Record the plan and its cells (a new campaign) or check them (``resume``); return the
    keys of the chunks already finished."""
    have = plan_rows(con)
    if have:
        if not resume:
            raise StoreError("the database already holds a campaign: --resume to finish it, or --db for a new file")
        if have.get("identity") != plan.identity():
            raise StoreError(
                "the database holds another plan's campaign (games, variants, line-ups, seed, games "
                "or chunk differ): use the plan it was started with, or another --db"
            )
    else:
        rows = {
            "identity": plan.identity(),
            "toml": plan.source,
            "name": plan.name,
            "seed": str(plan.seed),
            "games": str(plan.games_per_cell),
            "chunk": str(plan.chunk),
            "max_steps": str(plan.max_steps),
            "max_work": "" if plan.max_work is None else str(plan.max_work),
            "heuristics": str(plan.heuristics).lower(),
            "started": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        }
        con.execute("BEGIN")
        con.executemany("INSERT INTO plan VALUES (?, ?)", list(rows.items()))
        con.executemany(
            "INSERT INTO cells VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    c["game"],
                    c["variant"],
                    c["lineup"],
                    c["baseline"],
                    json.dumps(c["settings"]),
                    c["players"],
                    c["nplayers"],
                    c["scoring"],
                    c["chunks"],
                    c["games"],
                )
                for c in cells
            ],
        )
        con.execute("COMMIT")
    return {tuple(r) for r in con.execute("SELECT game, variant, lineup, chunk FROM chunks").fetchall()}


def write_chunk(con, res: ChunkResult, db="the database") -> bool:
    """Write a finished chunk and its games in one transaction; False if it was already there
    (a chunk run twice, after a lost worker, is counted once). A write that fails (a full
    disk) is rolled back and raised as StoreError: the chunks written before it are kept."""
    duckdb = _duckdb()
    try:
        return _write_chunk(con, res)
    except (duckdb.Error, OSError) as exc:
        raise StoreError(
            f"cannot write to {db}: {_first_line(exc)} (the chunks written before are kept: --resume to go on)"
        ) from None


def close(con, db="the database") -> None:
    """Close a connection; a failure to write the last of the file (a full disk) is a StoreError."""
    duckdb = _duckdb()
    try:
        con.close()
    except (duckdb.Error, OSError) as exc:
        raise StoreError(f"cannot write to {db}: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc) if not isinstance(exc, OSError) or not exc.strerror else exc.strerror
    return (text.splitlines() or [type(exc).__name__])[0][:300]


def _write_chunk(con, res: ChunkResult) -> bool:
    game, variant, lineup, chunk = res.key
    con.execute("BEGIN")
    try:
        if con.execute(
            "SELECT 1 FROM chunks WHERE game = ? AND variant = ? AND lineup = ? AND chunk = ?", list(res.key)
        ).fetchone():
            con.execute("ROLLBACK")
            return False
        games = 0
        if res.error is None and res.columns.get("idx"):
            games = len(res.columns["idx"])
            _insert_games(con, res)
        con.execute(
            "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                game,
                variant,
                lineup,
                chunk,
                res.seed,
                games,
                "failed" if res.error else "done",
                res.error,
                res.worker,
                res.seconds,
                _dt.datetime.now(_dt.UTC).replace(tzinfo=None),
            ],
        )
        con.execute("COMMIT")
    except BaseException:
        try:
            con.execute("ROLLBACK")
        except Exception:  # noqa: BLE001 - the transaction is already gone
            pass
        raise
    return True


def _insert_games(con, res: ChunkResult) -> None:
    """Insert a chunk's games through a CSV file that DuckDB reads: about 3 times faster per
    game than Python lists as parameters (the coordinator's writing is what a big cluster
    waits on: docs/campaigns.md, "Measured"), but a few milliseconds more per chunk, so a
    chunk of fewer than ``CSV_FROM`` games goes in as lists."""
    import csv
    import os
    import tempfile

    cols = res.columns
    if len(cols["idx"]) < CSV_FROM:  # a small chunk: the file would cost more than it saves
        params = dict(zip(("game", "variant", "lineup", "chunk"), res.key))
        params.update({c: cols[c] for c in COLUMNS})
        con.execute(
            "INSERT INTO games SELECT $game, $variant, $lineup, $chunk, " + ", ".join(f"unnest(${c})" for c in COLUMNS),
            params,
        )
        return
    fd, name = tempfile.mkstemp(prefix="recycle-chunk-", suffix=".csv")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as fh:
            lists = {"scores", "winners"}
            csv.writer(fh).writerows(
                zip(*([None if v is None else str(v) for v in cols[c]] if c in lists else cols[c] for c in COLUMNS))
            )
        casts = ", ".join(
            f"{c}::BIGINT[]" if c == "scores" else f"{c}::INTEGER[]" if c == "winners" else c for c in COLUMNS
        )
        types = "{" + ", ".join(f"'{c}': '{t}'" for c, t in CSV_TYPES.items()) + "}"
        con.execute(
            f"INSERT INTO games SELECT ?, ?, ?, ?, {casts} FROM read_csv(?, header = false, "
            f"columns = {types}, quote = '\"', escape = '\"', nullstr = '')",
            [*res.key, name],
        )
    finally:
        os.unlink(name)
