"""The ``page`` command (registered into ``recycle.cli``): a game's page as Valet publishes one.

    recycle page games/schwimmen.rcy -o pages/schwimmen/      the page: HTML + PNG/SVG + JSON
    recycle page GAME1.rcy GAME2.rcy -o pages/                a page per game and an index
    recycle page GAME --quick -o DIR                          20 games, ismcts:50 (seconds)
    recycle page GAME --json                                  the figures' data on stdout

A thin layer over recycle/study/page.py (``build_page``, ``write_page``, ``write_pages``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import RecycleBug, RecycleError
from .options import MaxStepsOpt, MaxWorkOpt, SeedOpt, WorkersOpt


def _error(message: str, code: int = 1) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def register(app: typer.Typer, fail, load) -> None:
    """Add the ``page`` command to ``app``; ``fail`` reports a RecycleError, ``load`` loads a game."""

    @app.command()
    def page(
        games: Annotated[
            list[Path], typer.Argument(help="RECYCLE game files (.rcy): one page each.", show_default=False)
        ],
        output: Annotated[
            Path | None,
            typer.Option(
                "--output",
                "-o",
                help="The folder to write into: the page itself for one game; for several, a "
                "folder per game and index.html.",
                show_default=False,
            ),
        ] = None,
        n: Annotated[
            int | None,
            typer.Option(
                "--games",
                "-n",
                min=1,
                help="Random games for the branching, and as many games between the "
                "look-ahead players for the spread and lead history [default: 100; "
                "--quick: 20].",
                show_default=False,
            ),
        ] = None,
        seed: SeedOpt = 0,
        players: Annotated[
            str | None,
            typer.Option(
                "--players",
                help="The look-ahead players whose estimates make the spread and lead history, one "
                "per seat, comma-separated, the last repeats [default: ismcts; --quick: "
                "ismcts:50]. Players that keep no estimates (random, greedy) add none.",
                show_default=False,
            ),
        ] = None,
        quick: Annotated[
            bool,
            typer.Option(
                "--quick", help="A first look in seconds: 20 games, ismcts:50 (unless -n or --players say otherwise)."
            ),
        ] = False,
        seconds: Annotated[
            float | None,
            typer.Option(
                "--seconds",
                min=0,
                help="Time budget per game page: no game is started after it; the page is "
                "over the games played and says so.",
                show_default=False,
            ),
        ] = None,
        as_json: Annotated[
            bool,
            typer.Option("--json", help="Print the figures' data as JSON (one object per line, one line per game)."),
        ] = False,
        progress: Annotated[bool, typer.Option(help="Show a progress bar (on a terminal).")] = True,
        workers: WorkersOpt = 1,
        max_steps: MaxStepsOpt = 100_000,
        max_work: MaxWorkOpt = None,
    ):
        """Make a game's page: its information-flow graph, branching factor per decision point,
        decision spread and lead history (from the look-ahead players' own estimates), the
        simulation lint's findings and its code (see docs/page.md)."""
        from ..players import make_players
        from ..study.page import (
            DEFAULT_GAMES,
            DEFAULT_PLAYERS,
            QUICK_GAMES,
            QUICK_PLAYERS,
            PageError,
            build_page,
            check_folder,
            write_page,
            write_pages,
        )
        from ..study.page_measures import extra_games, page_sizes
        from ..study.parallel import progress_bar

        if output is None and not as_json:
            _error("say where the page goes (-o FOLDER), or print its data with --json", 2)
        count = n if n is not None else (QUICK_GAMES if quick else DEFAULT_GAMES)
        spec = players or (QUICK_PLAYERS if quick else DEFAULT_PLAYERS)
        if output is not None:
            try:
                check_folder(output)
                for name in ("index.html",) if len(games) > 1 else ():
                    check_folder(output / name)
            except PageError as exc:
                _error(str(exc))
        for path in games:
            if not path.is_file():
                _error(f"cannot read the game {path}: " + ("it is a folder" if path.is_dir() else "no such file"))
        pages = []
        interrupted = False
        for path in games:
            try:
                g = load(path, max_work)
                try:
                    specs = [getattr(p, "name", type(p).__name__) for p in make_players(spec, g.nplayers)]
                except ValueError as exc:
                    _error(str(exc), 2)
                if "human" in specs:
                    _error("a page's games are played by computer players, not by a person", 2)
                sizes = page_sizes(quick)
                typer.echo(
                    f"page of {g.name}: {count} random games, then {count} games of {','.join(specs)}, "
                    f"{sizes['luck_games']} traced for luck and skill, and a skill ladder",
                    err=True,
                )
                total = 2 * count + extra_games(g, sizes)
                with progress_bar(total, f"{g.name}: page", enabled=progress and not as_json) as upd:
                    p = build_page(
                        g,
                        count,
                        seed,
                        specs,
                        seconds,
                        max_steps,
                        workers,
                        progress=(lambda done, total: upd(done)) if upd else None,
                        interruptible=True,
                        sizes=sizes,
                    )
            except (RecycleError, RecycleBug) as exc:
                fail(exc)
                return
            except OSError as exc:
                _error(f"cannot read the game {path}: {exc.strerror or exc}")
            if p.stopped:
                why = "interrupted" if p.stopped == "interrupted" else "stopped by --seconds"
                typer.echo(
                    f"{why}: {p.random_games} of {count} random games, {p.estimated_games} of {count} "
                    f"games of {','.join(specs)}",
                    err=True,
                )
            pages.append(p)
            if as_json:
                typer.echo(p.to_json())
            if p.stopped == "interrupted":
                interrupted = True
                break  # Ctrl-C stops the run: the pages done so far are written
        if output is not None:
            try:
                if len(games) == 1:
                    write_page(pages[0], output)
                    typer.echo(f"wrote {output / 'index.html'}", err=as_json)
                else:
                    paths = write_pages(pages, output)
                    typer.echo(f"wrote {paths[0]} ({len(pages)} pages)", err=as_json)
            except PageError as exc:
                _error(str(exc))
        if interrupted:
            raise typer.Exit(130)
