"""A campaign's plan: games, their variants, player line-ups, games per cell, a seed (TOML).

A *cell* is one variant of one game played by one line-up; it is split into *chunks* of
``chunk`` games, the unit of work. Every chunk's seed is derived from the plan's seed and
the chunk's place (``chunk_seed``), so the games do not depend on how many workers ran them
or in which order. docs/campaigns.md describes the format with a commented example.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

MAX_GAMES = 10**9  # games per cell
MAX_CHUNK = 1_000_000  # game seeds of one chunk stay apart from the next chunk's (chunk_seed)
MAX_VARIANTS = 1000
MAX_LINEUPS = 100
MAX_GAME_ENTRIES = 100  # [[game]] tables
MAX_CELLS = 10_000  # variants x line-ups over all games
MAX_CHUNKS = 100_000  # chunks of the whole plan: each is a task held in memory and a row of `chunks`
SEED_BITS = 43  # a chunk's seed; its games' seeds, seed * 1_000_003 + k, stay below 2**63
PLAYERS_KEY = "players"  # [game.vary] players = [4, 3]: the -p number of players
POINTS_PREFIX = "points "  # [game.vary] "points PENALTY" = ["(((SUIT : HEARTS) 2))", ...]
TOP_KEYS = {"seed", "games", "chunk", "max_steps", "max_work", "heuristics", "game", "lineup", "name"}


class PlanError(ValueError):
    """A plan that cannot be run, with the reason (shown to the user as it is)."""


@dataclass(frozen=True)
class Variant:
    """One variant of a game: ``settings`` are ``(key, value)`` pairs, in the plan's order;
    the name lists the settings that differ from the baseline (the first values)."""

    game: str
    name: str
    settings: tuple
    baseline: bool


@dataclass(frozen=True)
class Lineup:
    name: str
    players: str


@dataclass(frozen=True)
class Cell:
    game: str
    variant: str
    lineup: str


@dataclass(frozen=True)
class GameEntry:
    """A game of the plan: its name (the file's stem), file, text and varied settings."""

    name: str
    file: str
    text: str
    vary: tuple  # ((key, (value, ...)), ...)


@dataclass
class Plan:
    """A parsed, checked plan. ``Plan.from_toml(path)`` reads one."""

    seed: int
    games_per_cell: int
    chunk: int
    games: list[GameEntry]
    lineups: list[Lineup]
    max_steps: int = 100_000
    max_work: int | None = None
    heuristics: bool = True
    name: str = "campaign"
    source: str = ""
    nplayers: dict = field(default_factory=dict)  # (game, variant) -> its number of players

    @classmethod
    def from_toml(cls, path) -> Plan:
        """Read and check the plan at ``path``; its game files are named relative to its folder."""
        path = Path(path)
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise PlanError(f"cannot read the plan {path}: {exc.strerror or exc}") from None
        if len(raw) > 1_000_000:
            raise PlanError(f"the plan {path} is larger than 1 MB")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise PlanError(f"the plan {path} is not UTF-8 text") from None
        return cls.from_text(text, path.parent, default_name=path.stem)

    @classmethod
    def from_text(cls, text: str, folder, default_name: str = "campaign") -> Plan:
        """A plan from TOML ``text``, its game files relative to ``folder``."""
        try:
            d = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise PlanError(f"the plan is not valid TOML: {exc}") from None
        unknown = sorted(set(d) - TOP_KEYS)
        if unknown:
            raise PlanError(
                f"unknown key{'s' if len(unknown) > 1 else ''} in the plan: {', '.join(unknown)} "
                f"(known: {', '.join(sorted(TOP_KEYS))})"
            )
        plan = cls(
            seed=_int(d, "seed", 0, -(2**62), 2**62),
            games_per_cell=_int(d, "games", None, 1, MAX_GAMES),
            chunk=_int(d, "chunk", 1000, 1, MAX_CHUNK),
            games=[],
            lineups=[],
            max_steps=_int(d, "max_steps", 100_000, 1, 10**12),
            max_work=_int(d, "max_work", None, 1, 10**15),
            heuristics=_bool(d, "heuristics", True),
            name=_name(d, default_name),
            source=text,
        )
        tables = _tables(d, "game")
        if len(tables) > MAX_GAME_ENTRIES:
            raise PlanError(f"more than {MAX_GAME_ENTRIES} [[game]] tables")
        plan.games = [_game(g, Path(folder)) for g in tables]
        names = [g.name for g in plan.games]
        if len(set(names)) < len(names):
            raise PlanError("two [[game]] entries have the same name: give one a `name`")
        plan.lineups = [_lineup(x) for x in _tables(d, "lineup")]
        lnames = [x.name for x in plan.lineups]
        if len(set(lnames)) < len(lnames):
            raise PlanError("two [[lineup]] entries have the same name")
        if len(plan.lineups) > MAX_LINEUPS:
            raise PlanError(f"more than {MAX_LINEUPS} line-ups")
        plan.check_size()
        return plan

    def check_size(self) -> None:
        """Refuse a plan whose cells or chunks are too many to plan, counted without listing
        them (``games = 10^9, chunk = 1`` would otherwise list a billion chunks)."""
        cells = sum(math.prod(len(vals) for _, vals in g.vary) for g in self.games) * len(self.lineups)
        if cells > MAX_CELLS:
            raise PlanError(f"the plan has {cells:,} cells (variants x line-ups); at most {MAX_CELLS:,}")
        chunks = cells * math.ceil(self.games_per_cell / self.chunk)
        if chunks > MAX_CHUNKS:
            raise PlanError(
                f"the plan has {chunks:,} chunks ({cells:,} cells x {self.games_per_cell:,} games "
                f"/ chunk {self.chunk:,}); at most {MAX_CHUNKS:,}: make `chunk` larger or `games` "
                "smaller"
            )

    # -- the cells and chunks ----------------------------------------------------------------
    def variants(self, game: GameEntry) -> list[Variant]:
        """Every combination of the game's varied values; the first is the baseline."""
        keys = [k for k, _ in game.vary]
        out = []
        for combo in itertools.product(*(vals for _, vals in game.vary)):
            settings = tuple(zip(keys, combo))
            differ = [(k, v) for (k, v), (_, vals) in zip(settings, game.vary) if v != vals[0]]
            name = ",".join(f"{k}={_show(v)}" for k, v in differ) or "baseline"
            out.append(Variant(game.name, name, settings, not differ))
        return out

    def cells(self) -> list[tuple[GameEntry, Variant, Lineup]]:
        return [(g, v, ln) for g in self.games for v in self.variants(g) for ln in self.lineups]

    def chunks_of(self, cell: Cell) -> list[tuple[int, int, int]]:
        """``(chunk index, first game index in the cell, games)`` of a cell."""
        n, size = self.games_per_cell, self.chunk
        return [(c, c * size, min(size, n - c * size)) for c in range(math.ceil(n / size))]

    def identity(self) -> str:
        """A digest of everything that decides the games (not the plan's comments or layout):
        a campaign resumed with another plan is refused."""
        body = {
            "seed": self.seed,
            "games": self.games_per_cell,
            "chunk": self.chunk,
            "max_steps": self.max_steps,
            "max_work": self.max_work,
            "heuristics": self.heuristics,
            "game": [[g.name, hashlib.sha256(g.text.encode()).hexdigest(), repr(g.vary)] for g in self.games],
            "lineup": [[x.name, x.players] for x in self.lineups],
        }
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def chunk_seed(seed: int, game: str, variant: str, lineup: str, chunk: int) -> int:
    """The seed of a chunk: the first 43 bits of SHA-256 of
    ``"recycle-campaign\\0{seed}\\0{game}\\0{variant}\\0{lineup}\\0{chunk}"``. Game ``k`` of
    the chunk is played with ``seed * 1_000_003 + k`` (``rollout_seed``), the seeds
    ``recycle simulate --seed SEED`` plays, so any row of the database can be replayed
    with ``recycle run GAME --seed ROW_SEED``."""
    key = "\0".join(["recycle-campaign", str(seed), game, variant, lineup, str(chunk)]).encode("utf-8", "replace")
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") >> (64 - SEED_BITS)


def _show(v) -> str:
    if isinstance(v, (list, tuple)):
        return "(" + ",".join(map(str, v)) + ")"
    return " ".join(str(v).split())


def _tables(d: dict, key: str) -> list[dict]:
    xs = d.get(key)
    if not isinstance(xs, list) or not xs or not all(isinstance(x, dict) for x in xs):
        raise PlanError(f"the plan needs at least one [[{key}]] table")
    return xs


def _int(d: dict, key: str, default, lo: int, hi: int):
    v = d.get(key, default)
    if v is None and default is None and key == "max_work":
        return None
    if v is None:
        raise PlanError(f"the plan needs `{key} = NUMBER`")
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise PlanError(f"`{key}` must be an integer from {lo:,} to {hi:,}, not {v!r}")
    return v


def _name(d: dict, default: str) -> str:
    v = d.get("name", default)
    if not isinstance(v, str) or not v.strip() or len(v) > 100:
        raise PlanError("`name` must be text, up to 100 characters")
    return v


def _bool(d: dict, key: str, default: bool) -> bool:
    v = d.get(key, default)
    if not isinstance(v, bool):
        raise PlanError(f"`{key}` must be true or false, not {v!r}")
    return v


def _lineup(x: dict) -> Lineup:
    extra = sorted(set(x) - {"name", "players"})
    if extra:
        raise PlanError(f"unknown key in a [[lineup]]: {', '.join(extra)} (known: name, players)")
    name, players = x.get("name"), x.get("players", "random")
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        raise PlanError("every [[lineup]] needs a `name` (text, up to 100 characters)")
    if not isinstance(players, str) or not players.strip() or len(players) > 1000:
        raise PlanError(f'the line-up {name!r} needs `players` like "ismcts:100,random"')
    from ...players import make_player

    for spec in players.split(","):
        try:
            p = make_player(spec.strip())
        except ValueError as exc:
            raise PlanError(f"line-up {name!r}: {exc}") from None
        if getattr(p, "name", None) == "human":
            raise PlanError(f"line-up {name!r}: a campaign plays without people (no `human` seat)")
    return Lineup(name.strip(), players.strip())


def _game(x: dict, folder: Path) -> GameEntry:
    from ...lang.syntax.reader import parse_file

    extra = sorted(set(x) - {"file", "name", "vary"})
    if extra:
        raise PlanError(f"unknown key in a [[game]]: {', '.join(extra)} (known: file, name, vary)")
    file = x.get("file")
    if not isinstance(file, str) or not file:
        raise PlanError('every [[game]] needs `file = "PATH"` (relative to the plan\'s folder)')
    rel = Path(file)
    if rel.is_absolute() or rel.drive:
        raise PlanError(f"the game file {file!r} must be named relative to the plan's folder")
    path = folder / rel
    try:
        inside = path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError, ValueError):
        inside = False
    if not inside:
        raise PlanError(f"the game file {file!r} is outside the plan's folder")
    from ...errors import RecycleError

    try:
        source = parse_file(path)
    except RecycleError as exc:
        raise PlanError(exc.format()) from None
    name = x.get("name", Path(file).stem)
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        raise PlanError(f"the name of the game {file!r} must be text, up to 100 characters")
    vary = x.get("vary", {})
    if not isinstance(vary, dict):
        raise PlanError(f"[game.vary] of {name!r} must be a table of KEY = [VALUES]")
    pairs = []
    total = 1
    for key, vals in vary.items():
        if not isinstance(vals, list) or not vals:
            raise PlanError(f"[game.vary] {key} of {name!r}: give a list of values, the baseline's first")
        if any(vals.count(v) > 1 for v in vals):
            raise PlanError(f"[game.vary] {key} of {name!r} lists a value twice")
        pairs.append((key, tuple(tuple(v) if isinstance(v, list) else v for v in vals)))
        total *= len(vals)
        if total > MAX_VARIANTS:
            raise PlanError(f"{name!r} has more than {MAX_VARIANTS} variants")
    entry = GameEntry(name.strip(), file, source.text, tuple(pairs))
    for key, vals in pairs:  # each value on its own: a wrong name or kind is told now
        for v in vals:
            try:
                variant_source(entry, ((key, v),))
            except ValueError as exc:
                raise PlanError(f"{name}: {exc}") from None
    return entry


def variant_source(game: GameEntry, settings: tuple):
    """The ``SourceFile`` of a variant: declared constants, then point maps, then the
    number of players (``players``). ValueError for a setting that does not fit the game."""
    from ...errors import RecycleError
    from ...lang.reading.constants import with_constants, with_points
    from ...lang.reading.player_count import with_player_count
    from ...lang.syntax.reader import parse_text

    source = parse_text(game.text, game.file)
    consts = {
        k: (list(v) if isinstance(v, tuple) else v)
        for k, v in settings
        if k != PLAYERS_KEY and not k.startswith(POINTS_PREFIX)
    }
    try:
        if consts:
            source = with_constants(source, consts)
        for k, v in settings:
            if k.startswith(POINTS_PREFIX):
                if not isinstance(v, str):
                    raise ValueError(f"{k}: give the awards as RECYCLE text in a string")
                source = with_points(source, k[len(POINTS_PREFIX) :].strip(), v)
        for k, v in settings:
            if k == PLAYERS_KEY:
                if isinstance(v, bool) or not isinstance(v, int):
                    raise ValueError(f"players: give a number of players, not {v!r}")
                source = with_player_count(source, v)
    except RecycleError as exc:
        raise ValueError(exc.format()) from None
    return source
