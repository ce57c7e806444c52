"""A game record stepped through in the browser: the table after any number of its
decisions, from one seat's view (as that seat saw it) or with every card revealed."""

from __future__ import annotations

from pathlib import Path

from ..cli.table import narrative_lines, reveal_lines, storage_texts
from ..engine.game import load
from ..env.engines import synced, table_state
from ..study.records import game_path, read_record, source_hash
from .security import Refused, inside
from .table import location_rows, owner_name


def open_record(root: Path, rel: str):
    """The record ``rel`` and its game, both inside ``root`` (``Refused`` otherwise)."""
    path = inside(root, rel)
    try:
        record = read_record(path)
        # the game beside the record, else in a folder above it (a table saves its records
        # in records/ beside the game), never above the studio's folder
        folder = path.parent
        while True:
            gpath = game_path(record, None, folder)
            if gpath.is_file() or folder == root.resolve() or root.resolve() not in folder.parents:
                break
            folder = folder.parent
    except ValueError as exc:
        raise Refused(400, str(exc)) from None
    if root.resolve() not in gpath.resolve().parents:
        raise Refused(403, "the record's game is outside the studio's folder")
    game = load(gpath)
    return record, game, source_hash(game) == record.get("source_sha256")


def replay_view(root: Path, rel: str, step: int, seat: int | None, engine: str = "auto") -> dict:
    """The table after ``step`` decisions of the record ``rel``: as ``seat`` saw it, or
    revealed (``seat`` None); stepped by native code when the game builds here (``engine``:
    ``table_state``, the same view either way)."""
    record, game, same_file = open_record(root, rel)
    decisions = record["decisions"]
    step = max(0, min(step, len(decisions)))
    if seat is not None and not 0 <= seat < game.nplayers:
        raise Refused(400, f"{game.name} has seats 0 to {game.nplayers - 1}")
    events: list = []
    s = table_state(game, record["seed"], record.get("max_steps", 100_000), engine, record=events, track=True)
    log = []
    for d in decisions[:step]:
        if s.is_terminal() or s.num_options() != d["options"] or s.current_player() != d["player"]:
            raise Refused(409, f"the record does not replay on this game file at decision {d['index']}")
        log.append((s.decisions, d["player"], d["options"], d["chosen"]))
        s.apply(d["chosen"])
    synced(s)  # (a native state's events)
    names = [("you" if p == seat else str(n)) for p, n in enumerate(record["players"])]
    view = {
        "game": game.name,
        "deal": record["seed"],
        "steps": len(decisions),
        "step": step,
        "seat": seat,
        "players": names,
        "same_file": same_file,
        "over": s.is_terminal(),
        "decision": s.decisions,
    }
    if seat is None:
        rows = []
        for info in game.layout.infos:
            if info.index < len(s.locs) and s.locs[info.index]:
                owner = (
                    f"P{info.owner}"
                    if info.owner_kind == "player"
                    else (f"team T{info.owner}" if info.owner_kind == "team" else "table")
                )
                rows.append(
                    {
                        "owner": owner,
                        "name": info.name,
                        "count": len(s.locs[info.index]),
                        "cards": [game.card_name(c) for c in s.locs[info.index]],
                        "known": [],
                    }
                )
        view["locations"] = rows
        key = "revealed"
        obs = s.observation(0)
        view["history"] = [f"  {k}. P{d['player']} {d[key]}" for k, d in enumerate(decisions[:step], 1)]
    else:
        obs = s.observation(seat)
        view["locations"] = location_rows(obs, seat)
        view["history"] = narrative_lines(obs, events, log, 0, names, full=True)
    view["storages"] = [
        {"owner": owner_name(key, -1 if seat is None else seat), "text": text} for key, text in storage_texts(obs)
    ]
    view["reveal"] = reveal_lines(s, names) if s.is_terminal() else None
    return view
