"""The ``evolve`` command (registered into ``recycle.cli``): search variants of a game.

    recycle evolve GAME --generations 20 --population 24 --games 2000 -o evolved/ [--json]
    recycle evolve GAME --generations 1000 --seconds 600 -o evolved/   # a budget in seconds

``--seconds`` (or Ctrl-C) ends the search early: what was found is still measured again (in
the time left for it), written and reported; after Ctrl-C the exit status is 130.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import RecycleBug, RecycleError, printable
from .options import GameArg, JsonOpt, MaxStepsOpt, MaxWorkOpt, NumPlayersOpt, ProgressOpt, SeedOpt, WorkersOpt
from .outputs import check_folder, emit_search


def _weights(spec: str | None) -> dict | None:
    """``fairness=2,drama=1`` → weights (the terms not named keep their default)."""
    from ..study.evolve import WEIGHTS

    if not spec:
        return None
    out = dict(WEIGHTS)
    for part in spec.split(","):
        name, _, value = part.strip().partition("=")
        if name not in WEIGHTS:
            raise ValueError(f"unknown fitness term {printable(name)!r} in --weights; known: {', '.join(WEIGHTS)}")
        try:
            out[name] = float(value)
        except ValueError:
            raise ValueError(f"bad weight {printable(part.strip())!r}: expected NAME=NUMBER") from None
        if not out[name] >= 0 or out[name] == float("inf"):
            raise ValueError(f"bad weight {printable(part.strip())!r}: a weight is a number 0 or more")
    if not sum(out.values()):
        raise ValueError("--weights: at least one weight must be more than 0")
    return out


def _length(spec: str | None) -> tuple | None:
    if not spec:
        return None
    lo, sep, hi = spec.partition(":")
    try:
        low, high = float(lo), float(hi)
    except ValueError:
        raise ValueError(f"bad --length {printable(spec)!r}: expected MIN:MAX, e.g. 200:600") from None
    if not sep or not 0 <= low <= high or high == float("inf"):
        raise ValueError(f"bad --length {printable(spec)!r}: expected MIN:MAX with 0 <= MIN <= MAX")
    return (low, high)


def register(app: typer.Typer, fail, load) -> None:
    """Add the command to ``app``; ``fail`` reports a RecycleError, ``load`` loads a game."""

    @app.command()
    def evolve(
        game: GameArg,
        generations: Annotated[
            int, typer.Option("--generations", "-g", min=0, max=10_000, help="Generations of the search.")
        ] = 10,
        population: Annotated[
            int, typer.Option("--population", min=1, max=10_000, help="New valid variants per generation.")
        ] = 12,
        games: Annotated[int, typer.Option("--games", "-n", min=1, help="Games per variant evaluated.")] = 200,
        out: Annotated[
            Path | None,
            typer.Option(
                "-o",
                "--out",
                help="Write variant-NN.rcy, report.txt and report.json into this folder.",
                show_default=False,
            ),
        ] = None,
        keep: Annotated[
            int, typer.Option("--keep", min=1, max=99, help="How many of the best variants to write and compare.")
        ] = 5,
        players: Annotated[
            str | None,
            typer.Option(
                "--players",
                help="Players per seat for the evaluation games, comma-separated (the last one "
                "repeats; default random).",
            ),
        ] = None,
        weights: Annotated[
            str | None,
            typer.Option(
                "--weights",
                help="Weights of the fitness terms, e.g. fairness=2,drama=1,lead_changes=1,length=1 "
                "(see docs/evolve.md).",
            ),
        ] = None,
        length: Annotated[
            str | None,
            typer.Option(
                "--length",
                help="MIN:MAX mean decisions (rounds for a game without decisions) counted as ideal "
                "(default: half to twice the original's).",
            ),
        ] = None,
        operators: Annotated[
            str | None,
            typer.Option(
                "--operators",
                help="Mutation operators, comma-separated (default all): constant, points, "
                "threshold, drop-option, duplicate-option.",
            ),
        ] = None,
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
                help="A budget in seconds: the search stops in time for the best variants to be measured "
                "again, and what was found is written and reported (as after Ctrl-C).",
            ),
        ] = None,
    ):
        """Search variants of a game (MAP-Elites over game length and decisiveness), keep the
        fittest, measure them again beside the original and write them as .rcy files
        (see docs/evolve.md)."""
        from ..study.evolve import OPERATORS, compare
        from ..study.evolve import evolve as run_evolve
        from ..study.parallel import progress_bar
        from ..study.stopping import Stop
        from .analysis import _specs

        check_folder(out, "-o")
        try:
            w = _weights(weights)
            rng = _length(length)
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        ops = [o.strip() for o in operators.split(",") if o.strip()] if operators else None
        for o in ops or []:
            if o not in OPERATORS:
                typer.echo(
                    f"error: unknown mutation operator {printable(o)!r}; known: {', '.join(OPERATORS)}", err=True
                )
                raise typer.Exit(2)
        try:
            g = load(game, max_work, num_players)
            specs = _specs(players, g)
            total = (1 + generations * population + keep + 1) * games
            budget = f", at most {seconds:g} s" if seconds is not None else ""
            typer.echo(
                f"evolving {g.name}: {generations} generations of {population} variants, {games:,} games "
                f"each ({','.join(specs)}){budget}",
                err=True,
            )
            with (
                progress_bar(total, f"{g.name}: evolving", enabled=progress and not as_json) as upd,
                Stop(seconds, interruptible=True) as stop,
            ):
                r = run_evolve(
                    g,
                    generations,
                    population,
                    games,
                    seed,
                    workers,
                    specs,
                    keep,
                    w,
                    rng,
                    ops,
                    max_steps,
                    progress=upd,
                    stop=stop,
                    compare_games=(keep + 1) * games,
                )
                if r.stopped != "interrupted":
                    searched = (1 + generations * population) * games
                    compare(r, games, workers, progress=(lambda k: upd(searched + k)) if upd else None, stop=stop)
        except (RecycleError, RecycleBug) as exc:
            fail(exc)
            return
        except KeyboardInterrupt:
            typer.echo("interrupted before the original's games were played: nothing to report", err=True)
            raise typer.Exit(130) from None
        except TimeoutError as exc:
            typer.echo(f"error: {exc} (--seconds {seconds:g})", err=True)
            raise typer.Exit(1) from None
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        if r.stopped:
            gens = len(r.history)
            typer.echo(
                f"{'interrupted' if r.stopped == 'interrupted' else 'time budget reached'} after "
                f"{gens} of {generations} generations: keeping what was found",
                err=True,
            )
        lines = report_lines(r)
        emit_search(r, lines, out, as_json)


def report_lines(r) -> list[str]:
    """The comparison of the best variants with the original, side by side (text)."""
    c = r.comparison
    s = r.settings
    from ..study.engine_use import engine_line

    lines = [
        f"{r.game}: {s['generations']} generations × {s['population']} variants, {s['games']} games each "
        f"(seed {r.seed}, players {','.join(s['players'])}); {len(r.archive)} archive cells filled",
        engine_line(r.engine, r.playouts_engine),
    ]
    if r.rejected:
        lines.append("rejected variants: " + ", ".join(f"{k} {v}" for k, v in sorted(r.rejected.items())))
    if not r.best:
        lines.append("no valid variant was found")
    if c is None:
        return lines
    rows = c["rows"]
    names = ["original"] + [f"variant-{k:02d}" for k in range(1, len(rows))]
    if c.get("not_measured"):
        lines.append(
            "not measured again (the time ran out): "
            + ", ".join(f"variant-{k:02d}" for k in range(len(rows), len(r.best) + 1))
        )
    lines.append(f"measured again on {c['games']} fresh deals (seed {c['seed']}); 95% intervals in brackets")
    lines.append(f"{'':<22}" + "".join(f"{n:>22}" for n in names))

    def row(label, cells):
        lines.append(f"{label:<22}" + "".join(f"{x:>22}" for x in cells))

    seats = max(len(x["analysis"]["seats"]) for x in rows)  # a variant may change the number of players
    row("players", [str(len(x["analysis"]["seats"])) for x in rows])
    row("fitness", [f"{x['fitness']:.3f}" for x in rows])
    row("fitness in the search", [f"{x['fitness_in_search']:.3f}" for x in rows])
    for term in ("fairness", "drama", "lead_changes", "length"):
        row(f"  term {term}", [f"{x['terms'][term]:.3f}" for x in rows])
    for p in range(seats):
        row(f"P{p} win rate", [_win_rate(x["analysis"]["seats"], p) for x in rows])
    row("fairness p-value", [f"{x['analysis']['fairness']['p_value']:.3f}" for x in rows])
    row(
        "ties",
        [
            f"{x['analysis']['ties']['rate']:.1%} [{x['analysis']['ties']['ci'][0]:.0%},"
            f"{x['analysis']['ties']['ci'][1]:.0%}]"
            for x in rows
        ],
    )
    row(
        "decisions",
        [
            f"{x['analysis']['length']['decisions']['mean']:.1f} (sd {x['analysis']['length']['decisions']['sd']:.0f})"
            for x in rows
        ],
    )
    row("rounds", [f"{x['analysis']['length']['rounds']['mean']:.1f}" for x in rows])
    row("lead changes", [f"{x['measures']['lead_changes']:.2f}" for x in rows])
    row("drama", [f"{x['measures']['drama']:.2f}" for x in rows])
    row("decisiveness", [f"{x['measures']['decisiveness']:.2f}" for x in rows])
    row("step-limit hits", [str(x["analysis"]["step_limit_hits"]) for x in rows])
    for k, x in enumerate(rows[1:], 1):
        lines.append(f"variant-{k:02d}: " + "; ".join(x["changes"]))
    return lines


def _win_rate(seats: list, p: int) -> str:
    """Seat ``p``'s win rate with its interval, or a dash where the variant has no such seat."""
    if p >= len(seats):
        return "-"
    s = seats[p]
    return f"{s['win_rate']:.1%} [{s['win_rate_ci'][0]:.0%},{s['win_rate_ci'][1]:.0%}]"
