"""The studio's Study view: a game's page, its skill ladder and ``balance``, each a run of the
studio's own (``recycle.studio.jobs``: a worker process in the person's lane, with its
progress, its time limit and Cancel).

``study_options`` checks what a request asks for (every field from outside: bounded numbers,
short strings, the player kinds and the ``--vary``/``--target`` specs parsed by the same code as
the command line) before a process is started; ``run_study`` is what the worker runs. The
page is built in the worker, written into a temporary folder there and sent back as its
files (base64); the studio keeps them in memory, with the run, and serves them from
``/api/jobs/{id}/page/{name}`` (``page_file``) — a name that is not one of the page's own
files is refused, and the page is served with a policy that runs no script at all.
"""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path

from .security import Refused

KINDS = ("page", "ladder", "balance")
MAX_PAGE_BYTES = 10_000_000  # a page's files together, in base64 (a huge flow graph is refused, not kept)
MAX_SPECS = 12  # --vary or --target specs in one request
PAGE_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".gv": "text/plain; charset=utf-8",
}
# the page is the game's, escaped (recycle/study/page_render.py): its own inline style, its
# figures from here, and no script of any kind
PAGE_CSP = (
    "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)


def _int(data: dict, name: str, default: int, low: int, high: int) -> int:
    v = data.get(name)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
        raise Refused(400, f"{name} must be an integer from {low} to {high}")
    return v


def _str(data: dict, name: str, default: str, longest: int = 200) -> str:
    v = data.get(name)
    if v is None:
        return default
    if not isinstance(v, str) or len(v) > longest:
        raise Refused(400, f"{name} must be a string of at most {longest} characters")
    return v


def _specs(data: dict, name: str) -> list[str]:
    v = data.get(name)
    if v is None:
        return []
    if not isinstance(v, list) or len(v) > MAX_SPECS or not all(isinstance(s, str) and len(s) <= 200 for s in v):
        raise Refused(400, f"{name} must be a list of at most {MAX_SPECS} short strings")
    return [s for s in v if s.strip()]


def _players(spec: str, nplayers: int) -> None:
    from ..players import make_players

    if "human" in spec:
        raise Refused(400, "players: a run has computer players only; play a game yourself in Play")
    try:
        make_players(spec, nplayers)
    except ValueError as exc:
        raise Refused(400, f"players: {exc}") from None


def study_options(kind: str, data: dict, game) -> dict:
    """The options of a Study run, checked (``Refused`` with a message for anything amiss)."""
    if kind == "page":
        players = _str(data, "players", "").strip() or "ismcts:20"
        _players(players, game.nplayers)
        return {"players": players}
    if kind == "ladder":
        from ..study.ladder import LadderError, ladder_rungs

        if game.nplayers < 2:
            raise Refused(422, f"{game.name} is a game of one player: there is no one to beat")
        try:
            rungs = ladder_rungs(_str(data, "players", "random,ismcts:8"), _int(data, "doublings", 2, 1, 4))
        except LadderError as exc:
            raise Refused(400, str(exc)) from None
        for r in rungs:
            _players(r, 1)
        return {"rungs": rungs}
    from ..study.balance_spec import BalanceError, parse_targets, parse_varies

    try:
        knobs = parse_varies(_specs(data, "vary"), game)
        targets = parse_targets(_specs(data, "target"))
    except BalanceError as exc:
        raise Refused(400, str(exc)) from None
    return {
        "vary": [f"{k.name}={k.values[0]}..{k.values[-1]}:{k.values[1] - k.values[0] if len(k.values) > 1 else 1}"
                 for k in knobs],
        "target": [t.text for t in targets],
        "iterations": _int(data, "iterations", 12, 1, 200),
        "final_games": _int(data, "final_games", 100, 1, 2000),
    }  # fmt: skip


class StudyError(Exception):
    """A Study run that could not give a result (no time for one game, a page too large): a message."""


def run_study(kind: str, game, job, n: int, seed: int, seconds: float, options: dict) -> dict:
    """The Study run ``kind`` of ``game`` (the worker's side): a JSON-ready result with ``lines``;
    ``StudyError`` when the time ran out before there was anything to show."""
    try:
        return _run(kind, game, job, n, seed, seconds, options)
    except TimeoutError as exc:
        raise StudyError(f"{exc}: give it more seconds or fewer games") from None


def _run(kind: str, game, job, n: int, seed: int, seconds: float, options: dict) -> dict:
    if kind == "page":
        return _page(game, job, n, seed, seconds, options)
    if kind == "ladder":
        from ..study.ladder import ladder_games, ladder_lines, run_ladder

        rungs = options["rungs"]
        job.total = ladder_games(len(rungs), n, game.nplayers)
        lad = run_ladder(game, rungs, n, seed, progress=job.tick, seconds=seconds)
        job.done = lad.games_played
        return {"kind": "ladder", "lines": ladder_lines(lad), "ladder": lad.to_dict()}
    from ..study.balance import balance, report_lines, total_games
    from ..study.balance_spec import parse_targets, parse_varies
    from ..study.stopping import Stop

    knobs, targets = parse_varies(options["vary"], game), parse_targets(options["target"])
    iterations, final = options["iterations"], options["final_games"]
    job.total = total_games(iterations, n, final, 3)
    r = balance(game, knobs, targets, iterations, n, final, seed=seed, progress=job.tick, stop=Stop(seconds))
    return {"kind": "balance", "lines": report_lines(r), "balance": r.to_json()}


def page_sizes(n: int) -> dict:
    """The later sections of a page built here (luck traces, skill ladder): ``recycle page
    --quick``'s, never more games than the ``n`` asked for the Valet figures."""
    from ..study.page_measures import page_sizes as cli_sizes

    sizes = cli_sizes(quick=True)
    sizes["luck_games"] = min(n, sizes["luck_games"])
    sizes["ladder_games"] = min(n, sizes["ladder_games"])
    return sizes


def _page(game, job, n: int, seed: int, seconds: float, options: dict) -> dict:
    from ..study.page import build_page, write_page
    from ..study.page_measures import extra_games

    sizes = page_sizes(n)
    job.total = 2 * n + extra_games(game, sizes)
    specs = [s.strip() for s in options["players"].split(",") if s.strip()]
    page = build_page(
        game, n, seed, specs, seconds=seconds, progress=lambda done, total: job.tick(done),
        lint_seconds=min(5.0, seconds / 4), sizes=sizes,
    )  # fmt: skip
    job.done = page.random_games + page.estimated_games + page.measured_games + page.ladder.get("games_played", 0)
    files = {}
    with tempfile.TemporaryDirectory(prefix="recycle-page-") as tmp:
        for path in write_page(page, Path(tmp) / "page"):
            if path.suffix in PAGE_TYPES:
                files[path.name] = base64.b64encode(path.read_bytes()).decode("ascii")
    if sum(len(v) for v in files.values()) > MAX_PAGE_BYTES:
        raise StudyError(f"the page's files pass {MAX_PAGE_BYTES:,} bytes: too large to show here")
    lines = [
        f"page of {page.game}: {page.random_games} random games, {page.estimated_games} games of "
        f"{seat_players(page.players)}" + (f" (stopped: {page.stopped})" if page.stopped else ""),
    ] + measure_lines(page)
    return {"kind": "page", "lines": lines, "files": files, "stopped": page.stopped}


def seat_players(players: list[str]) -> str:
    """The seats' players as the person typed them: one name when every seat has the same."""
    return players[0] if len(set(players)) == 1 else ",".join(players)


def measure_lines(page) -> list[str]:
    """The later sections of ``page`` in a line each: what was measured, or that it was not."""
    lad, lk, h = page.ladder, page.luck, page.heuristics
    lines = [
        f"skill ladder: {len(lad['rungs'])} rungs ({', '.join(lad['rungs'])}), skill depth {lad['depth']}"
        if lad
        else "skill ladder: not measured (no time left, or a game of one player)"
    ]
    if not lk:
        return lines + ["luck and skill: not measured (no time left)"]
    share = "the belief never moved" if lk["luck_share"] is None else f"luck share {lk['luck_share']:.0%}"
    su = page.suspense
    return lines + [
        f"luck and skill ({page.measured_games} games): {share}",
        f"suspense {su['suspense_per_game']:.2f} and surprise {su['surprise_per_game']:.2f} per game",
        "heuristics: "
        + ", ".join(
            f"{k.replace('_', ' ')} {h[k]:.2f}"
            for k in ("meaningful_moves", "killer_move", "clarity", "coolness", "stability")
        ),
    ]


def page_file(job, name: str) -> tuple[bytes, str]:
    """One file of a finished page run: ``(its bytes, its media type)``, or ``Refused``."""
    if job is None or job.kind != "page":
        raise Refused(404, "no such page")
    if job.status != "done" or not job.result:
        raise Refused(409, "the page is not built yet")
    files = job.result.get("files") or {}
    kind = PAGE_TYPES.get(Path(name).suffix)
    if name not in files or kind is None or "/" in name:
        raise Refused(404, "no such file in the page")
    return base64.b64decode(files[name]), kind
