"""The ``ladder`` command (registered into ``recycle.cli``): a game's skill ladder and skill depth.

    recycle ladder games/hearts.rcy --players random,ismcts:25 --doublings 6
    recycle ladder GAME --players random,ismcts:10 --doublings 3 --games 40 --plot ladder.png --json

A thin layer over recycle/study/ladder.py (``ladder_rungs``, ``run_ladder``, ``ladder_lines``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import RecycleBug, RecycleError
from .options import GameArg, JsonOpt, MaxStepsOpt, MaxWorkOpt, ProgressOpt, SeedOpt, WorkersOpt
from .outputs import check_file, failed_write


def _error(message: str, code: int = 1) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def register(app: typer.Typer, fail, load) -> None:
    """Add the ``ladder`` command to ``app``; ``fail`` reports a RecycleError, ``load`` loads a game."""

    @app.command()
    def ladder(
        game: GameArg,
        players: Annotated[
            str,
            typer.Option(
                "--players",
                help="The bottom rung and the first look-ahead rung with its budget, e.g. "
                "random,ismcts:25: the ladder is random, ismcts:25, ismcts:50, ismcts:100, ...",
            ),
        ] = "random,ismcts:25",
        doublings: Annotated[
            int, typer.Option("--doublings", help="How many times the look-ahead rung's budget is doubled (1 to 10).")
        ] = 3,
        n: Annotated[
            int,
            typer.Option(
                "--games",
                "-n",
                min=1,
                help="Games per pair of rungs (rounded up to whole deals, each played in every rotation of the seats).",
            ),
        ] = 100,
        seed: SeedOpt = 0,
        seconds: Annotated[
            float | None,
            typer.Option(
                "--seconds",
                min=0,
                help="Time budget: no game is started after it; the ladder is over the deals "
                "every pair finished, and says so.",
                show_default=False,
            ),
        ] = None,
        plot: Annotated[
            Path | None,
            typer.Option("--plot", help="Write a PNG of the win-rate matrix and the ratings.", show_default=False),
        ] = None,
        as_json: JsonOpt = False,
        progress: ProgressOpt = True,
        workers: WorkersOpt = 1,
        max_steps: MaxStepsOpt = 100_000,
        max_work: MaxWorkOpt = None,
    ):
        """The skill ladder: every pair of rungs (random, then a look-ahead player with its budget
        doubled again and again) plays duplicate matches; prints the win-rate matrix with 95%
        intervals, the skill depth (the rungs told apart at 95%) and Elo ratings (docs/analysis.md)."""
        from ..study.ladder import LadderError, ladder_games, ladder_lines, ladder_rungs, run_ladder
        from ..study.parallel import progress_bar

        try:
            rungs = ladder_rungs(players, doublings)
        except LadderError as exc:
            _error(str(exc))
        check_file(plot, "plot")
        if not game.is_file():
            _error(f"cannot read the game {game}: " + ("it is a folder" if game.is_dir() else "no such file"))
        try:
            g = load(game, max_work)
            total = ladder_games(len(rungs), n, g.nplayers)
            typer.echo(f"ladder of {g.name}: {len(rungs)} rungs ({', '.join(rungs)}), {total:,} games", err=True)
            with progress_bar(total, f"{g.name}: ladder", enabled=progress and not as_json) as upd:
                lad = run_ladder(
                    g, rungs, n, seed, max_steps, workers, progress=upd, seconds=seconds, interruptible=True
                )
        except (RecycleError, RecycleBug) as exc:
            fail(exc)
            return
        except LadderError as exc:
            _error(str(exc))
        except TimeoutError as exc:
            _error(f"{exc} (--seconds {seconds:g})")
        except OSError as exc:
            _error(f"cannot read the game {game}: {exc.strerror or exc}")
        if lad.stopped:
            why = "interrupted" if lad.stopped == "interrupted" else "stopped by --seconds"
            typer.echo(f"{why}: {lad.deals} of {lad.deals_requested} deals played by every pair", err=True)
        if as_json:
            typer.echo(lad.to_json())
        else:
            for line in ladder_lines(lad):
                typer.echo(line)
        if plot is not None:
            from ..study.ladder_plot import write_ladder_plot

            try:
                write_ladder_plot(lad, plot)
            except OSError as exc:
                failed_write(plot, exc)
            typer.echo(f"wrote {plot}", err=True)
        if lad.stopped == "interrupted":
            raise typer.Exit(130)
