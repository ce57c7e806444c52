"""The ``balance`` command (registered into ``recycle.cli``): search a game's constants toward targets.

    recycle balance games/hearts.rcy --vary GOAL=50..150 --target first_player=0.25 --target decisions=60..90
    recycle balance GAME --vary GOAL=5..30 --vary BONUS=0..6 --target decisions=17 --seconds 60 -o balanced/ --json

A thin layer over recycle/study/balance.py (``balance``, ``report_lines``) and
recycle/study/balance_spec.py (``parse_varies``, ``parse_targets``). ``--seconds`` (or Ctrl-C)
ends the search early: what was found is still measured again, written and reported; after
Ctrl-C the exit status is 130.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import RecycleBug, RecycleError
from .options import GameArg, JsonOpt, MaxStepsOpt, MaxWorkOpt, NumPlayersOpt, ProgressOpt, SeedOpt, WorkersOpt
from .outputs import check_folder, emit_search


def _error(message: str, code: int = 1) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def register(app: typer.Typer, fail, load) -> None:
    """Add the ``balance`` command to ``app``; ``fail`` reports a RecycleError, ``load`` loads a game."""

    @app.command()
    def balance(
        game: GameArg,
        vary: Annotated[
            list[str],
            typer.Option(
                "--vary",
                help="A declared constant or point-map value and its range: NAME=LO..HI or NAME=LO..HI:STEP "
                "(repeat for several; a name not in the game is refused with the list of what can vary).",
                show_default=False,
            ),
        ] = [],  # noqa: B006 - typer reads the default; it is never changed
        target: Annotated[
            list[str],
            typer.Option(
                "--target",
                help="A measure and what it should be: first_player=0.25, decisions=60..90, score_gap=..5, "
                "ties=0..0.05, ladder=ordered (repeat for several; docs/balance.md).",
                show_default=False,
            ),
        ] = [],  # noqa: B006
        iterations: Annotated[
            int, typer.Option("--iterations", "-i", min=1, max=100_000, help="Variants played by the search.")
        ] = 60,
        games: Annotated[int, typer.Option("--games", "-n", min=1, help="Games per variant in the search.")] = 100,
        final_games: Annotated[
            int, typer.Option("--final-games", min=1, help="Games of the final measurement of each best variant.")
        ] = 400,
        keep: Annotated[int, typer.Option("--keep", min=1, max=99, help="How many of the best variants to keep.")] = 3,
        out: Annotated[
            Path | None,
            typer.Option(
                "-o", "--out", help="Write variant-NN.rcy and report.json into this folder.", show_default=False
            ),
        ] = None,
        players: Annotated[
            str | None,
            typer.Option("--players", help="Players per seat, comma-separated (the last one repeats; default random)."),
        ] = None,
        engine: Annotated[
            str,
            typer.Option(
                "--engine",
                help="auto (native code wherever a variant builds, else the reference interpreter), native, reference.",
            ),
        ] = "auto",
        ladder: Annotated[
            str,
            typer.Option("--ladder", help="The rungs a ladder target plays, comma-separated, bottom first."),
        ] = "random,ismcts:8,ismcts:16",
        ladder_games: Annotated[
            int, typer.Option("--ladder-games", min=1, help="Games per pair of rungs for a ladder target.")
        ] = 12,
        seed: SeedOpt = 0,
        max_steps: MaxStepsOpt = 100_000,
        workers: WorkersOpt = 1,
        as_json: JsonOpt = False,
        progress: ProgressOpt = True,
        max_work: MaxWorkOpt = None,
        num_players: NumPlayersOpt = None,
        seconds: Annotated[
            float | None,
            typer.Option(
                "--seconds",
                "--timeout",
                min=0,
                show_default=False,
                help="A budget in seconds: the search stops in time for the best variants to be measured again "
                "(as after Ctrl-C, what was found is written and reported).",
            ),
        ] = None,
    ):
        """Search declared constants and point-map values toward the designer's targets with NTBEA,
        measure the best variants again with 95% intervals and write them as .rcy files
        (see docs/balance.md)."""
        from ..engine.game import check_engine
        from ..players import make_players
        from ..study.balance import balance as run_balance
        from ..study.balance import report_lines, total_games
        from ..study.balance_spec import BalanceError, parse_targets, parse_varies
        from ..study.parallel import progress_bar
        from ..study.stats import ENGINES
        from ..study.stopping import Stop

        check_folder(out, "-o")
        try:
            targets = parse_targets(target)
            check_engine(engine, ENGINES)
        except ValueError as exc:
            _error(str(exc))
        rungs = [r.strip() for r in ladder.split(",") if r.strip()]
        if any(t.measure == "ladder" for t in targets) and len(rungs) < 2:
            _error("--ladder needs at least two rungs, e.g. random,ismcts:8,ismcts:16")
        if not game.is_file():
            _error(f"cannot read the game {game}: " + ("it is a folder" if game.is_dir() else "no such file"))
        try:
            g = load(game, max_work, num_players)
            knobs = parse_varies(vary, g)
            specs = [getattr(p, "name", type(p).__name__) for p in make_players(players, g.nplayers)]
            for r in rungs:
                make_players(r, 1)
            if "human" in specs + rungs:
                _error("a person plays one game at a time: balance plays many")
            total = total_games(iterations, games, final_games, keep)
            budget = f", at most {seconds:g} s" if seconds is not None else ""
            typer.echo(
                f"balancing {g.name}: {iterations} variants of {games:,} games ({','.join(specs)}), "
                f"the best {keep} measured again on {final_games:,}{budget}",
                err=True,
            )
            with (
                progress_bar(total, f"{g.name}: balancing", enabled=progress and not as_json) as upd,
                Stop(seconds, interruptible=True) as stop,
            ):
                r = run_balance(
                    g,
                    knobs,
                    targets,
                    iterations,
                    games,
                    final_games,
                    keep,
                    seed,
                    specs,
                    workers,
                    engine,
                    max_steps,
                    tuple(rungs),
                    ladder_games,
                    progress=upd,
                    stop=stop,
                )
        except (RecycleError, RecycleBug) as exc:
            fail(exc)
            return
        except BalanceError as exc:
            _error(str(exc))
        except KeyboardInterrupt:
            typer.echo("interrupted before one variant was played: nothing to report", err=True)
            raise typer.Exit(130) from None
        except TimeoutError as exc:
            _error(f"{exc} (--seconds {seconds:g})")
        except ValueError as exc:
            _error(str(exc))
        except OSError as exc:
            _error(f"cannot read the game {game}: {exc.strerror or exc}")
        if r.stopped:
            why = "interrupted" if r.stopped == "interrupted" else "time budget reached"
            typer.echo(f"{why} after {len(r.history)} of {iterations} evaluations: keeping what was found", err=True)
        lines = report_lines(r)
        emit_search(r, lines, out, as_json)
