"""Game records: one game written down so that it can be replayed and read.

A record is a JSON object: the game file (with a hash of its text), the deal number (the
seed: the same seed deals the same cards), the player of each seat, the deal as it stood
at the first decision, and every decision (who chose, which option of how many, in words).
``replay`` plays the recorded decisions back and checks that the game goes exactly the
same way; ``record_text`` gives the human-readable form, like CardShark's game record.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

FORMAT = "recycle-game-record"
VERSION = 1


def source_hash(game) -> str:
    return hashlib.sha256(game.source.text.encode("utf-8")).hexdigest()


class Recorder:
    """Collects a game as it is played: pass ``recorder.on_decision`` to ``PreparedGame.play``."""

    def __init__(self, game):
        self.game = game
        self.decisions: list[dict] = []
        self.deal: dict[str, list[str]] | None = None

    def on_decision(self, state, player, options, index) -> None:
        if self.deal is None:
            self.deal = deal_of(state)
        self.decisions.append({
            "index": state.decisions, "player": player, "chosen": index, "options": len(options),
            "description": options[index].render(-1),
            "revealed": options[index].render(None)})

    def finish(self, result, path, players: list[str], max_steps: int) -> dict:
        """The record of the finished game ``result`` (a ``GameResult``)."""
        from ..version import __version__

        g = self.game
        return {
            "format": FORMAT, "version": VERSION, "recycle": __version__,
            "game": str(path), "game_name": g.name, "source_sha256": source_hash(g),
            "seed": result.seed, "players": list(players), "max_steps": max_steps,
            "deal": self.deal or deal_of(result.state),
            "decisions": self.decisions,
            "scores": result.scores, "ranks": result.ranks, "winners": result.winners,
            "steps": result.steps, "total_decisions": result.decisions,
        }


def deal_of(state) -> dict[str, list[str]]:
    """Every non-empty physical location with its cards named (bottom first), all revealed."""
    from ..lang.values import MEMORY

    g = state.game
    out = {}
    for info in g.layout.infos:
        if info.index < len(state.locs) and state.locs[info.index] and info.visibility != MEMORY:
            out[info.label] = [g.card_name(c) for c in state.locs[info.index]]
    return out


def play_recorded(game, players, seed: int, path, specs: list[str], max_steps: int = 100_000,
                  describe: bool = False, reveal: bool = False):
    """Play one game and return ``(result, record)``."""
    rec = Recorder(game)
    result = game.play(players, seed=seed, record=True, describe=describe, reveal=reveal,
                       max_steps=max_steps, on_decision=rec.on_decision)
    return result, rec.finish(result, path, specs, max_steps)


def write_record(record: dict, out: str | Path) -> None:
    Path(out).write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def read_record(path: str | Path) -> dict:
    """Load a record; ``ValueError`` if the file is not a game record."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read game record {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a recycle game record")
    if data.get("version") != VERSION:
        raise ValueError(f"{path}: record version {data.get('version')} is not supported (expected {VERSION})")
    return data


def game_path(record: dict, record_path: str | Path | None = None) -> Path:
    """Where the recorded game file is: as recorded, else beside the record."""
    p = Path(record["game"])
    if p.exists() or record_path is None:
        return p
    near = Path(record_path).resolve().parent / p.name
    return near if near.exists() else p


@dataclass
class Replay:
    """The outcome of replaying a record."""

    game: object
    result: object
    record: dict
    replayed: dict
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not self.problems


def replay(record: dict, game=None, record_path=None, reveal: bool = False) -> Replay:
    """Play the record's decisions back (a ``ScriptedPlayer`` for every seat) and compare."""
    from ..engine.game import load
    from ..players import ScriptedPlayer

    warnings = []
    if game is None:
        game = load(game_path(record, record_path))
    if source_hash(game) != record.get("source_sha256"):
        warnings.append("warning: the game file changed since the record was made")
    script = ScriptedPlayer([d["chosen"] for d in record["decisions"] if d["options"] > 1])
    players = [script] * game.nplayers
    result, again = play_recorded(game, players, record["seed"], record["game"], record["players"],
                                  record.get("max_steps", 100_000), describe=True, reveal=reveal)
    problems = []
    for k, (a, b) in enumerate(zip(record["decisions"], again["decisions"])):
        if a != b:
            problems.append(f"decision {k + 1}: recorded {_short(a)}, replayed {_short(b)}")
            break
    if len(record["decisions"]) != len(again["decisions"]):
        problems.append(f"{len(record['decisions'])} decisions recorded, {len(again['decisions'])} replayed")
    for key in ("scores", "winners", "deal"):
        if record.get(key) != again[key]:
            problems.append(f"{key}: recorded {record.get(key)}, replayed {again[key]}")
    return Replay(game, result, record, again, problems, warnings)


def _short(d: dict) -> str:
    return f"P{d['player']} option {d['chosen'] + 1} of {d['options']} ({d['description']})"


def record_text(record: dict, reveal: bool = True) -> list[str]:
    """The record as a readable game record: deal number, seats, the deal, every decision, result."""
    lines = [f"Game record: {record['game_name']} ({record['game']})",
             f"Deal #{record['seed']}",
             "Players: " + ", ".join(f"P{p} {name}" for p, name in enumerate(record["players"]))]
    if reveal and record.get("deal"):
        lines.append("The deal (at the first decision):")
        width = max(len(k) for k in record["deal"])
        for label, cards in record["deal"].items():
            lines.append(f"  {label:<{width}}  {' '.join(cards)}")
    lines.append("Play:")
    key = "revealed" if reveal else "description"
    width = len(str(len(record["decisions"])))
    for k, d in enumerate(record["decisions"], 1):
        who = record["players"][d["player"]] if d["player"] < len(record["players"]) else "?"
        forced = "  (forced)" if d["options"] == 1 else ""
        lines.append(f"  {k:>{width}}. P{d['player']} [{who}] {d['chosen'] + 1}/{d['options']}: {d[key]}{forced}")
    lines.append("Final scores: " + ", ".join(f"P{p} {v}" for p, v in enumerate(record["scores"])))
    w = record["winners"]
    lines.append(f"Winner: P{w[0]}" if len(w) == 1 else "Tie for first: " + ", ".join(f"P{p}" for p in w))
    return lines
