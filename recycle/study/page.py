"""A game's page, as the Valet testbed publishes one: ``recycle page GAME -o DIR``.

A page shows the game's name and summary (its ``;@ summary:`` notes, else its opening ``;;``
comments), four figures — the information-flow graph (one random rollout), the branching factor
per decision point (random games), the decision spread and the lead history (games between
look-ahead players: recycle/study/estimates.py) — the simulation lint's findings
(recycle/study/simlint.py) and the code with line numbers. ``build_page`` plays the games and
returns a ``GamePage`` (plain data: ``to_dict`` is the JSON); ``write_page`` writes it as an
HTML page with its PNG/SVG figures and each figure's numbers in a JSON file beside it
(recycle/study/page_render.py). The definitions, and where they differ from Valet's, are in
docs/analysis.md ("A game's page").

Everything of the game is untrusted: its name becomes a file name only through
``safe_name``; its text, summary and lint messages reach the page only HTML-escaped.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..engine.game import rollout_seed
from .estimates import decision_spread, estimate_game, lead_history
from .intervals import Z95
from .page_measures import add_measures, extra_games
from .parallel import map_games
from .stopping import Stop

DEFAULT_GAMES = 100
DEFAULT_PLAYERS = "ismcts"
QUICK_GAMES, QUICK_PLAYERS = 20, "ismcts:50"
# the branching figure's smoothed mean: decisions up to SMOOTHING away count, those exactly
# SMOOTHING away half, so that a game alternating between two kinds of decision (Schwimmen:
# an exchange of 11 options, then whether to close) gives a flat line, not a zig-zag
SMOOTHING = 3
LINT_SECONDS = 30.0  # at most: the lint plays its 300 random games within it (a page is the same every time)
MAX_NAME = 60  # characters of a page's folder name
MAX_SUMMARY = 4000  # characters of the summary shown


class PageError(Exception):
    """A page that cannot be written (its folder is a link or a file): a message, exit 1."""


@dataclass
class GamePage:
    """A game's page: who played what, and each figure's data (see the module docstring).

    ``branching``: ``{"games", "per_game": [[options at decision 1, 2, ...], ...],
    "by_decision": [{"decision", "games", "mean", "low", "high", "smooth", "smooth_low",
    "smooth_high"}], "engine"}`` (``engine``: what played the random games, "native" wherever
    the game builds: recycle/native/option_counts.py); ``spread`` and ``lead``: recycle/study/estimates.py; ``flow``: the
    information-flow graph as networkx node-link JSON (``flow_dot``: its DOT text); ``lint``:
    ``{"games", "findings"}``. ``stopped``: None, ``"time"`` (``seconds`` ran out) or
    ``"interrupted"`` (Ctrl-C); the figures are then over the games played."""

    game: str
    file: str
    summary: str
    source: str
    nplayers: int
    scoring: str
    seed: int
    games: int
    players: list
    random_games: int = 0
    estimated_games: int = 0
    # what stepped the look-ahead players' games ("native", "reference", "native and reference";
    # None: none played): recycle/study/estimates.py; their searches are native wherever they build
    estimates_engine: str | None = None
    branching: dict = field(default_factory=dict)
    spread: dict = field(default_factory=dict)
    lead: dict = field(default_factory=dict)
    flow: dict = field(default_factory=dict)
    flow_dot: str = ""
    lint: dict = field(default_factory=dict)
    # recycle/study/page_measures.py: the traced games' luck, suspense and heuristics
    # (recycle/study/measures.py), the skill ladder (Ladder.to_dict()); empty when not measured
    measured_games: int = 0
    prior: list = field(default_factory=list)
    luck: dict = field(default_factory=dict)
    suspense: dict = field(default_factory=dict)
    heuristics: dict = field(default_factory=dict)
    ladder: dict = field(default_factory=dict)
    stopped: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict:
        """The page's data as JSON-ready plain data (the DOT text left out: the graph is ``flow``)."""
        d = asdict(self)
        d.pop("flow_dot")
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


def game_summary(game) -> str:
    """The game's summary: its ``;@ summary:`` notes, else the ``;;`` comment lines at the top
    of its file (before the first form), one line each; at most ``MAX_SUMMARY`` characters."""
    words = getattr(getattr(game, "words", None), "summary", "")
    if not words:
        lines = []
        for line in game.source.text.splitlines():
            s = line.strip()
            if s.startswith(";") and not s.startswith(";@"):
                lines.append(s.lstrip(";").strip())
            elif s:
                break
        words = "\n".join(x for x in lines if x)
    return words[:MAX_SUMMARY]


def safe_name(name: str, taken: set | None = None) -> str:
    """A folder name for a page from a game's (untrusted) name: lower-case letters, digits, ``-``
    and ``_`` only, at most ``MAX_NAME`` characters, never empty or starting with ``.`` or ``-``;
    ``-2``, ``-3``... added when ``taken`` holds it already (it is added to ``taken``)."""
    base = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-_")[:MAX_NAME].strip("-_") or "game"
    out, k = base, 2
    while taken is not None and out in taken:
        out, k = f"{base}-{k}", k + 1
    if taken is not None:
        taken.add(out)
    return out


def branching(records: list[dict], half: int = SMOOTHING) -> dict:
    """The branching figure's data from random games (``native.option_counts.random_options``
    or ``analysis.trace_game``: their ``limit`` and ``options``): each
    game's options per decision, and per decision number the mean with its 95% band and the
    same smoothed: the games' decisions up to ``half`` decision numbers away, those exactly
    ``half`` away weighted one half (``smooth``, ``smooth_low``, ``smooth_high``)."""
    done = [r for r in records if not r["limit"]]
    per_game = [list(r["options"]) for r in done]
    by_k: dict = {}
    for opts in per_game:
        for k, o in enumerate(opts, 1):
            by_k.setdefault(k, []).append(o)
    rows = []
    for k in sorted(by_k):
        xs = by_k[k]
        n = len(xs)
        m = sum(xs) / n
        var = sum((x - m) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
        rows.append(
            {
                "decision": k,
                "games": n,
                "mean": m,
                "low": m - Z95 * math.sqrt(var / n),
                "high": m + Z95 * math.sqrt(var / n),
                "_sum": sum(xs),
                "_sq": sum(x * x for x in xs),
            }
        )
    for j, row in enumerate(rows):
        n = total = squares = 0.0
        for i in range(max(0, j - half), min(len(rows), j + half + 1)):
            w = 0.5 if abs(i - j) == half else 1.0
            n += w * rows[i]["games"]
            total += w * rows[i]["_sum"]
            squares += w * rows[i]["_sq"]
        m = total / n
        var = max(0.0, squares / n - m * m) * n / (n - 1) if n > 1 else 0.0
        row["smooth"], row["smooth_low"], row["smooth_high"] = (
            m,
            m - Z95 * math.sqrt(var / n),
            m + Z95 * math.sqrt(var / n),
        )
    for row in rows:
        del row["_sum"], row["_sq"]
    return {"games": len(done), "per_game": per_game, "by_decision": rows}


def build_page(
    game,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    players: list[str] | None = None,
    seconds: float | None = None,
    max_steps: int = 100_000,
    workers: int = 1,
    progress=None,
    interruptible: bool = False,
    lint_seconds: float = LINT_SECONDS,
    sizes: dict | None = None,
) -> GamePage:
    """Play the page's games and return its ``GamePage``: ``games`` random games for the
    branching, then ``games`` games between ``players`` (one spec per seat, the last repeats;
    ISMCTS by default) for the decision spread and lead history. ``seconds``: no game is started
    after that time (with ``interruptible``, nor after Ctrl-C); the figures are then over the
    games played (``stopped``). ``progress(done, total)`` is told of each game. ``sizes``: the
    luck traces' and the skill ladder's (``page_measures.page_sizes(quick)``, as ``recycle page``
    gives them; by default none is played and those sections say so)."""
    from .simlint import simulation_lint
    from ..native.option_counts import random_options, stepping_engine
    from .engine_use import combined
    from .graphs import flow_graph, to_dot, to_json

    t0 = time.perf_counter()
    specs = list(players or [DEFAULT_PLAYERS])
    specs = [specs[min(p, len(specs) - 1)] for p in range(game.nplayers)]
    page = GamePage(
        game=game.name,
        file=Path(game.source.filename).name,
        summary=game_summary(game),
        source=game.source.text,
        nplayers=game.nplayers,
        scoring="max" if game.scoring_max else "min",
        seed=seed,
        games=games,
        players=specs,
    )
    seeds = [rollout_seed(seed, i) for i in range(games)]
    sizes = sizes or {}
    total = 2 * games + extra_games(game, sizes)
    with Stop(seconds, interruptible, t0) as stop:
        G = flow_graph(game, rollouts=1, seed=seed, max_steps=max_steps)
        page.flow, page.flow_dot = to_json(G), to_dot(G)
        tick = (lambda base: lambda done: progress(base + done, total)) if progress else (lambda base: None)
        # native code steps the random games wherever the game builds (recycle/native/option_counts.py)
        engine = stepping_engine(game)
        traced = map_games(game, random_options, [(sd, max_steps, engine) for sd in seeds], workers, tick(0), stop=stop)
        page.random_games, page.branching = len(traced), branching(traced)
        page.branching["engine"] = combined(r["engine"] for r in traced)
        estimated: list = []
        if not stop():
            estimated = map_games(
                game, estimate_game, [(specs, sd, max_steps) for sd in seeds], workers, tick(games), stop=stop
            )
        page.estimated_games = len(estimated)
        page.estimates_engine = combined(e.get("engine") for e in estimated if not e.get("limit"))
        page.spread = decision_spread(estimated)
        page.lead = lead_history(estimated, game.nplayers, game.scoring_max)
        complete = add_measures(page, game, specs, seed, stop, workers, max_steps, tick(2 * games), sizes)
        if stop.interrupted:
            page.stopped = "interrupted"
        elif len(traced) < games or len(estimated) < games or not complete:
            page.stopped = "time"
        # the lint is short (``lint_seconds``) and runs even after the time limit: a page
        # without it would hide what it found
        page.lint = simulation_lint(game, seed=seed, seconds=lint_seconds, stop=(lambda: stop.interrupted))
    page.seconds = time.perf_counter() - t0
    return page


# -- writing -------------------------------------------------------------------------------


def check_folder(path: Path) -> None:
    """Refuse (``PageError``) a page folder that is a link, or that exists and is no folder."""
    path = Path(path)
    if path.is_symlink():
        raise PageError(f"cannot write the page into {path}: it is a symbolic link")
    if path.exists() and not path.is_dir():
        raise PageError(f"cannot write the page into {path}: it is a file, not a folder")


def make_folder(path: Path) -> Path:
    """``path`` made if missing (its parents too), refused if it is a link or a file."""
    check_folder(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PageError(f"cannot make the folder {path}: {exc.strerror or exc}") from None
    check_folder(path)
    return path


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``, never through a symbolic link planted there (O_NOFOLLOW)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        raise PageError(f"cannot write {path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


def write_page(page: GamePage, folder) -> list[Path]:
    """Write ``page`` into ``folder`` (made if missing): ``index.html``, the figures
    (``flow.svg``, ``branching.png``, ``spread.png``, ``lead.png``), each figure's numbers
    (``flow.json``, ``branching.json``, ``spread.json``, ``lead.json``, ``lint.json``) and
    ``page.json`` (all of it). Returns the paths written."""
    from .page_render import figures, page_html

    out = make_folder(Path(folder))
    written = []
    for name, data in figures(page).items():
        write_bytes(out / name, data)
        written.append(out / name)
    for name in ("flow", "branching", "spread", "lead", "lint", "luck", "suspense", "heuristics", "ladder"):
        if name in ("luck", "suspense", "heuristics", "ladder") and not getattr(page, name):
            continue
        write_bytes(out / f"{name}.json", json.dumps(getattr(page, name), ensure_ascii=False).encode("utf-8"))
        written.append(out / f"{name}.json")
    write_bytes(out / "page.json", page.to_json().encode("utf-8"))
    write_bytes(out / "index.html", page_html(page, {p.name for p in written}).encode("utf-8"))
    return written + [out / "page.json", out / "index.html"]


def write_pages(pages: list[GamePage], folder) -> list[Path]:
    """A page per game in a folder of its own (``safe_name`` of its name) under ``folder``,
    and ``index.html`` there linking to them. Returns the index's path and the pages' folders."""
    from .page_render import index_html

    out = make_folder(Path(folder))
    taken: set = {"index.html"}
    entries = []
    for page in pages:
        name = safe_name(page.game, taken)
        write_page(page, out / name)
        entries.append((name, page))
    write_bytes(out / "index.html", index_html(entries).encode("utf-8"))
    return [out / "index.html"] + [out / n for n, _ in entries]
