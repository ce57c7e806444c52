"""The ``analyze``, ``duplicate`` and ``replay`` commands (registered into ``recycle.cli``).

recycle analyze GAME -n 500 --players random [--skilled ismcts:50] [--hidden] [--json|--csv] [--plots DIR]
recycle duplicate GAME --players pimc:100,random --deals 100 [--json]
recycle replay game.json [--text] [--reveal]
"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..errors import RecycleBug, RecycleError
from .options import (
    GameArg,
    NumPlayersOpt,
    JsonOpt,
    MaxStepsOpt,
    MaxWorkOpt,
    ProgressOpt,
    SeedOpt,
    TimeoutOpt,
    WorkersOpt,
)
from .analysis_text import csv_rows, duplicate_lines, game_rows, plan_line, text_lines
from .outputs import check_file, check_folder, failed_write, write_file


def _specs(spec: str | None, game) -> list[str]:
    from ..players import make_players

    try:
        pl = make_players(spec, game.nplayers)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    names = [getattr(p, "name", type(p).__name__) for p in pl]
    if "human" in names:
        _no_person()
    return names


def _no_person() -> None:
    typer.echo(
        "error: a person plays one game at a time: `recycle play` or `recycle run --players human,...`", err=True
    )
    raise typer.Exit(2)


def _check_spec(spec: str) -> None:
    """A player kind for the commands that play many games: it must exist, and not be a person."""
    from ..players import make_player

    try:
        player = make_player(spec)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if getattr(player, "name", None) == "human":
        _no_person()


def _nothing_played(exc: TimeoutError, timeout: float) -> None:
    typer.echo(f"error: {exc} (--timeout {timeout:g})", err=True)
    raise typer.Exit(1) from None


def register(app: typer.Typer, fail, load) -> None:
    """Add the commands to ``app``; ``fail`` reports a RecycleError, ``load`` loads a game."""

    @app.command()
    def analyze(
        game: GameArg,
        n: Annotated[int, typer.Option("-n", "--games", min=1, help="Number of games to analyse.")] = 500,
        seed: SeedOpt = 0,
        players: Annotated[
            str | None,
            typer.Option(
                "--players",
                help="Players per seat for the main games, comma-separated (the last one repeats; "
                "default random), e.g. pimc:50,random.",
            ),
        ] = None,
        skilled: Annotated[
            str | None,
            typer.Option(
                "--skilled",
                help="Also measure skill: this player in each seat in turn against random players, e.g. ismcts:100.",
            ),
        ] = None,
        hidden: Annotated[
            bool,
            typer.Option(
                "--hidden",
                help="Also measure what hidden information is worth: omniscient (cheating) vs ismcts "
                "at the --skilled budget.",
            ),
        ] = False,
        information: Annotated[
            bool,
            typer.Option(
                "--information",
                help="Instead of the analysis: for each location a seat may not see, the seat's "
                "win rate when its ISMCTS player (the --skilled budget, default ismcts:50) "
                "also sees that one location, against the same player without it; -n games "
                "per measurement, the other seats --players (default random).",
            ),
        ] = False,
        seat: Annotated[
            list[int] | None,
            typer.Option(
                "--seat",
                min=0,
                help="With --information: measure this seat only (repeat for more; default every seat).",
                show_default=False,
            ),
        ] = None,
        skill_games: Annotated[
            int, typer.Option("--skill-games", min=1, help="Games for each skill / hidden-information measurement.")
        ] = 100,
        values: Annotated[
            str,
            typer.Option(
                "--values",
                help="What 'who leads' is measured with: scoring (the game's scoring expression at "
                "each decision) or winprob:N (each player's win probability, N random rollouts "
                "from the true state at each decision).",
            ),
        ] = "scoring",
        luck: Annotated[
            bool,
            typer.Option(
                "--luck",
                help="Also measure luck and skill, suspense and surprise and CardStock's heuristics: "
                "--luck-games games of the --skilled player (default ismcts:50) in every seat, with "
                "--rollouts playouts per option at each decision point (docs/analysis.md).",
            ),
        ] = False,
        luck_games: Annotated[int, typer.Option("--luck-games", min=1, help="Games traced for --luck.")] = 20,
        luck_rollouts: Annotated[
            int, typer.Option("--rollouts", min=1, max=10_000, help="Playouts per option for --luck.")
        ] = 16,
        max_steps: MaxStepsOpt = 100_000,
        workers: WorkersOpt = 1,
        as_json: JsonOpt = False,
        as_csv: Annotated[
            bool, typer.Option("--csv", help="Print the measures as CSV (metric, seat, value, ci_low, ci_high).")
        ] = False,
        games_csv: Annotated[
            Path | None,
            typer.Option("--games-csv", help="Write one CSV row per game to this file.", show_default=False),
        ] = None,
        plots: Annotated[
            Path | None,
            typer.Option(
                "--plots", help="Write PNG plots (branching, score over time) into this folder.", show_default=False
            ),
        ] = None,
        progress: ProgressOpt = True,
        timeout: TimeoutOpt = None,
        max_work: MaxWorkOpt = None,
        num_players: NumPlayersOpt = None,
        engine: Annotated[
            str,
            typer.Option(
                "--engine",
                help="What steps the traced games: auto (native code wherever it traces them: random "
                "players' games) or reference (the reference interpreter); the same analysis.",
            ),
        ] = "auto",
    ):
        """Play many games and report fairness, length, branching, ties, lead changes, decisiveness,
        drama, skill and the value of hidden information (see docs/analysis.md)."""
        from ..study.analysis import analyze as run_analysis
        from ..study.plots import write_plots
        from ..study.parallel import progress_bar

        from ..study.analysis import parse_values

        if skilled:
            _check_spec(skilled)
        if information:
            _information(
                game,
                n,
                seed,
                players,
                skilled,
                seat,
                max_steps,
                workers,
                as_json,
                progress,
                timeout,
                max_work,
                num_players,
                fail,
                load,
            )
            return
        if seat:
            typer.echo("error: --seat goes with --information", err=True)
            raise typer.Exit(2)
        check_file(games_csv, "CSV file")
        check_folder(plots, "--plots")
        try:
            rollouts = parse_values(values)
            from ..engine.game import check_engine

            check_engine(engine, ("auto", "reference"))
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        try:
            g = load(game, max_work, num_players)
            specs = _specs(players, g)
            extra = (1 if skilled else 0) + (2 if hidden else 0)
            total = n + skill_games * extra
            typer.echo(plan_line(g.name, n, specs, skilled, hidden, skill_games, rollouts), err=True)
            with progress_bar(total, f"{g.name}: analysing", enabled=progress and not (as_json or as_csv)) as upd:
                a = run_analysis(
                    g,
                    n,
                    seed,
                    specs,
                    max_steps,
                    skilled=skilled,
                    hidden=hidden,
                    skill_games=skill_games,
                    workers=workers,
                    progress=upd,
                    values=values,
                    timeout=timeout,
                    interruptible=True,
                    engine=engine,
                ).to_dict()
        except (RecycleError, RecycleBug) as exc:
            fail(exc)
            return
        except TimeoutError as exc:
            _nothing_played(exc, timeout)
        measured = None
        if luck and not a["interrupted"]:
            bar = progress and not (as_json or as_csv)
            measured = _luck(
                g, luck_games, seed, skilled, luck_rollouts, max_steps, workers, bar, timeout, a["seconds"]
            )
            if measured == "interrupted" or (measured is not None and measured.stopped == "interrupted"):
                a["interrupted"] = True  # reported, then exit 130 as for the main games
            if measured == "interrupted":
                measured = None
            a["luck"] = measured.to_dict(per_game=False) if measured else None
        if a.get("stopped_by_time_limit"):
            typer.echo(f"stopped by the time limit: {a['total_games_played']} of {total} games played", err=True)
        if a["interrupted"]:
            typer.echo(f"interrupted after {a['total_games_played']:,} of {total:,} games", err=True)
        if games_csv is not None:
            buf = io.StringIO()
            csv.writer(buf).writerows(game_rows(a))
            write_file(games_csv, buf.getvalue(), newline="")
        if plots is not None:
            try:
                paths = write_plots(a, plots)
            except OSError as exc:
                failed_write(plots, exc)
            if not (as_json or as_csv):
                for p in paths:
                    typer.echo(f"wrote {p}")
        a.pop("games_detail", None)
        if as_json:
            typer.echo(json.dumps(a))
        elif as_csv:
            csv.writer(sys.stdout, lineterminator="\n").writerows(csv_rows(a))
        else:
            for line in text_lines(a):
                typer.echo(line)
            if measured is not None:
                from ..study.measures import measures_lines

                for line in measures_lines(measured):
                    typer.echo(line)
        if a["interrupted"]:
            raise typer.Exit(130)  # Ctrl-C's status, after the games finished are reported

    @app.command()
    def duplicate(
        game: GameArg,
        players: Annotated[
            str,
            typer.Option(
                "--players",
                help="Players per seat, comma-separated (the last one repeats), e.g. ismcts:100,random: "
                "the kinds compared; every deal is replayed with the seats rotated.",
            ),
        ],
        deals: Annotated[int, typer.Option("--deals", min=1, help="Number of deals.")] = 100,
        seed: SeedOpt = 0,
        max_steps: MaxStepsOpt = 100_000,
        workers: WorkersOpt = 1,
        as_json: JsonOpt = False,
        progress: ProgressOpt = True,
        timeout: TimeoutOpt = None,
        max_work: MaxWorkOpt = None,
        num_players: NumPlayersOpt = None,
    ):
        """Duplicate play: each deal is played once per rotation of the seats, so the luck of the
        deal cancels; reports each player kind's mean score difference and win rate."""
        from ..study.duplicate import duplicate as run_duplicate
        from ..study.parallel import progress_bar

        kinds = [p.strip() for p in players.split(",") if p.strip()]
        for k in kinds:
            _check_spec(k)
        try:
            g = load(game, max_work, num_players)
            if not 1 <= len(kinds) <= g.nplayers:
                typer.echo(f"error: give between 1 and {g.nplayers} player kinds for {g.name}", err=True)
                raise typer.Exit(2)
            with progress_bar(deals * g.nplayers, f"{g.name}: duplicate", enabled=progress and not as_json) as upd:
                d = run_duplicate(
                    g, kinds, deals, seed, max_steps, workers, progress=upd, timeout=timeout, interruptible=True
                )
        except (RecycleError, RecycleBug) as exc:
            fail(exc)
            return
        except TimeoutError as exc:
            _nothing_played(exc, timeout)
        if d["stopped_by_time_limit"]:
            typer.echo(
                f"stopped by the time limit: {d['deals']} of {d['deals_requested']} deals played in every rotation",
                err=True,
            )
        if d["interrupted"]:
            typer.echo(
                f"interrupted after {d['deals']:,} of {d['deals_requested']:,} deals played in every rotation", err=True
            )
        if as_json:
            typer.echo(json.dumps(d))
        else:
            for line in duplicate_lines(d):
                typer.echo(line)
        if d["interrupted"]:
            raise typer.Exit(130)

    @app.command()
    def replay(
        record: Annotated[
            Path, typer.Argument(help="A game record written by `recycle run --record`.", show_default=False)
        ],
        text: Annotated[
            bool,
            typer.Option(
                "--text",
                help="Print the readable game record at once (the deal, "
                "every decision in the game's words, the result): "
                "the recorded choices are played back, as with "
                "--scripted.",
            ),
        ] = False,
        reveal: Annotated[bool, typer.Option("--reveal", help="Show hidden cards.")] = False,
        force: Annotated[
            bool,
            typer.Option("--force", help="Replay even if the game file is not the recorded one (its hash differs)."),
        ] = False,
        scripted: Annotated[
            bool,
            typer.Option(
                "--scripted",
                help="Play the recorded choices back without "
                "running the computer players again (faster; "
                "does not check who chose).",
            ),
        ] = False,
        max_work: Annotated[
            int | None,
            typer.Option(
                "--max-work", min=1, help="The work budget of the game (default: the recorded one).", show_default=False
            ),
        ] = None,
        game_folder: Annotated[
            Path | None,
            typer.Option(
                "--game-folder",
                help="Look for the recorded game file in this folder instead of the record's "
                "folder (the record's game path is read inside it).",
                show_default=False,
            ),
        ] = None,
    ):
        """Play a recorded game again and check that it goes exactly as recorded (exit 1 if not).

        The game file is looked for only inside the record's folder (or --game-folder): a
        record naming a file elsewhere (an absolute path, '..', a symbolic link out) is
        refused, and the file's hash is checked before it is read as a game. The same deal
        is played by the same players (computer players are run again; a person's recorded
        choices are replayed). With --text the recorded choices are played back without running
        the players (as --scripted), so the readable record is printed at once."""
        from ..study.records import EarlierGenerator, decision_words, read_record, record_text
        from ..study.records import replay as run_replay
        from ..engine.transcript import transcript
        from ..study.engine_use import engine_line

        if game_folder is not None and not game_folder.is_dir():
            typer.echo(f"error: --game-folder {game_folder}: no such folder", err=True)
            raise typer.Exit(2)
        try:
            rec = read_record(record)
        except ValueError as exc:
            typer.echo(f"error: {exc}", err=True)
            # a record of the earlier generator is no bad input: it just cannot be played again
            raise typer.Exit(1 if isinstance(exc, EarlierGenerator) else 2) from None
        try:
            rp = run_replay(
                rec,
                record_path=record,
                reveal=reveal,
                force=force,
                scripted=scripted or text,
                max_work=max_work,
                game_folder=game_folder,
            )
        except (RecycleError, RecycleBug) as exc:
            fail(exc)
            return
        except (ValueError, OSError) as exc:
            typer.echo(f"error: the record does not replay: {exc}", err=True)
            raise typer.Exit(1) from None
        for w in rp.warnings:
            typer.echo(w, err=True)
        if text:
            lines = record_text(rec, reveal=reveal, words=decision_words(rp.result))
        else:
            lines = transcript(rp.game, rp.result, reveal=reveal)
        for line in lines:
            typer.echo(line)
        # which engine replayed it: after the transcript, as `recycle run` says it; beside the
        # readable record (--text), which is the record's own text, on stderr
        typer.echo(engine_line(rp.result.engine, rp.playouts), err=text)
        if rp.problems:
            for p in rp.problems:
                typer.echo(f"replay differs: {p}", err=True)
            raise typer.Exit(1)
        outcome = "unfinished" if rec.get("unfinished") else f"scores {' '.join(map(str, rec['scores']))}"
        how = (
            " (the recorded choices played back; without --text the players are run again)"
            if text and not scripted
            else ""
        )
        typer.echo(
            f"replay identical to the record: deal #{rec['seed']}, {len(rec['decisions'])} decisions, {outcome}{how}",
            err=True,
        )


def _luck(g, games, seed, skilled, rollouts, max_steps, workers, bar, timeout, spent):
    """``analyze --luck``: luck and skill, suspense and surprise, the heuristics (study.measures),
    within what is left of ``--timeout``; Ctrl-C keeps the games traced. The ``Measures``, None
    when no game was traced in time, ``"interrupted"`` when Ctrl-C came before the first."""
    from ..study.measures import DEFAULT_PLAYERS, measure
    from ..study.parallel import progress_bar

    left = None if timeout is None else max(0.0, timeout - spent)
    spec = skilled or DEFAULT_PLAYERS
    typer.echo(f"tracing {games} games of {spec} ({rollouts} playouts per option) for luck and skill", err=True)
    try:
        with progress_bar(games, f"{g.name}: luck and skill", enabled=bar) as upd:
            m = measure(g, games, seed, [spec], rollouts, max_steps, workers, upd, left, interruptible=True)
    except TimeoutError:
        typer.echo("luck and skill: no game traced in the time left", err=True)
        return None
    except KeyboardInterrupt:
        typer.echo("luck and skill: interrupted before a game was traced", err=True)
        return "interrupted"
    if m.stopped:
        typer.echo(f"luck and skill over {m.finished} of {games} games ({m.stopped})", err=True)
    return m


def _information(
    game,
    n,
    seed,
    players,
    skilled,
    seats,
    max_steps,
    workers,
    as_json,
    progress,
    timeout,
    max_work,
    num_players,
    fail,
    load,
) -> None:
    """``analyze --information``: the value of seeing each hidden location (study.information)."""
    from ..study.information import DEFAULT_BUDGET, hidden_locations, information_lines, information_value
    from ..study.parallel import progress_bar

    budget = DEFAULT_BUDGET
    if skilled:
        kind, _, b = skilled.partition(":")
        if kind.strip() != "ismcts":
            typer.echo(
                "error: --information measures an ISMCTS player: give its budget as --skilled ismcts:N", err=True
            )
            raise typer.Exit(2)
        budget = int(b) if b else budget
    try:
        g = load(game, max_work, num_players)
        others = _specs(players, g)
        for s in seats or []:
            if s >= g.nplayers:
                typer.echo(f"error: --seat {s}: {g.name} has seats 0 to {g.nplayers - 1}", err=True)
                raise typer.Exit(2)
        chosen = sorted(set(seats)) if seats else list(range(g.nplayers))
        where = hidden_locations(g, seed, max_steps)
        total = n * sum(1 + len(where[s]) for s in chosen if where[s])
        typer.echo(
            f"analysing {g.name}: the value of each hidden location, {total:,} games "
            f"(ismcts:{budget} in seats {','.join(map(str, chosen))})",
            err=True,
        )
        with progress_bar(total, f"{g.name}: information", enabled=progress and not as_json) as upd:
            a = information_value(g, n, seed, budget, others, chosen, where, max_steps, workers, upd, timeout)
    except (RecycleError, RecycleBug) as exc:
        fail(exc)
        return
    except TimeoutError as exc:
        _nothing_played(exc, timeout)
    if a["stopped_by_time_limit"]:
        typer.echo(f"stopped by the time limit: {a['games_played']} of {total} games played", err=True)
    if as_json:
        typer.echo(json.dumps(a))
    else:
        for line in information_lines(a):
            typer.echo(line)


# -- text and CSV ----------------------------------------------------------------------------------
