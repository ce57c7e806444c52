"""The ``recycle`` command line: a thin layer over the Python API.

recycle run GAME --seed 7 [--reveal]      one game, as a transcript
recycle simulate GAME -n 10000 [--json]   random rollouts and statistics
recycle check GAME                        parse and compile only
(analyze, duplicate, replay: see analysis.py; graph, tree: graph.py; page: page.py)
"""

from __future__ import annotations

import errno
import io
import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..errors import RecycleBug, RecycleError
from .options import GameArg, MaxStepsOpt, MaxWorkOpt, NumPlayersOpt, PlayersOpt, SeedOpt, TimeoutOpt, WorkersOpt
from .outputs import check_file, failed_write
from .printing import install as install_printable, terminal_of

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Run, simulate and analyse card games written in RECYCLE.",
)

_debug = False


def _show_version(value: bool) -> None:
    if value:
        from ..version import __version__

        typer.echo(f"recycle {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    ctx: typer.Context,
    debug: Annotated[bool, typer.Option("--debug", help="Show Python tracebacks on errors.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_show_version, is_eager=True, help="Print recycle's version and exit.")
    ] = False,
):
    global _debug
    _debug = debug
    _fit_output_encoding()
    # every command writes through the printable streams (recycle.cli.printing): text from
    # a game file or a record cannot drive the terminal, whichever line printed it
    ctx.call_on_close(install_printable())


PLAYER_LINES = {
    "random": "chooses uniformly among the legal options (fast; the default)",
    "greedy": "one move ahead: the option that scores best right after it, over sampled worlds",
    "pimc": "perfect-information Monte Carlo: sampled worlds, every option played out at random",
    "ismcts": "information-set Monte Carlo tree search over sampled worlds (the strongest fair player)",
    "omniscient": "the same search, but it CHEATS: it sees every hidden card (to measure what hiding is worth)",
    "human": "a person at this terminal (recycle play, or recycle run --players human,...)",
}


@app.command("players")
def players_command():
    """List the player kinds for --players, with a line each and their budgets.

    --players takes one kind per seat, comma-separated, and the last one repeats:
    `--players ismcts:200,random` seats ISMCTS in seat 0 and random players in all the
    others; `kind:N` sets a budget of N iterations. Every command that plays games
    (run, simulate, analyze, duplicate, play) reads --players this way.
    """
    from ..players import player_kinds

    for kind, cls in player_kinds().items():
        budget = getattr(cls, "default_budget", None)
        text = PLAYER_LINES.get(kind) or (cls.__doc__ or "").strip().splitlines()[0]
        budget_text = f"budget {budget} by default, {kind}:N sets it" if budget else "no budget"
        typer.echo(f"{kind:<11} {text}")
        typer.echo(f"{'':<11} ({budget_text})")
    typer.echo(
        "--players: one kind per seat, comma-separated; the last one repeats "
        "(ismcts:200,random = ISMCTS in seat 0, random in the others)"
    )


def _fit_output_encoding() -> None:
    """On an output that cannot encode suit symbols (PYTHONIOENCODING=latin-1, an ASCII
    terminal), print cards as ``10S`` and arrows as ``->``; anything else that still cannot
    be encoded is replaced rather than stopping the program."""
    from ..engine.transcript import use_ascii

    for stream in (terminal_of(sys.stdout), terminal_of(sys.stderr)):
        try:
            "♠♥♦♣→⇄×—".encode(stream.encoding or "ascii")
        except (UnicodeEncodeError, LookupError):
            use_ascii()
            if hasattr(stream, "reconfigure"):
                stream.reconfigure(errors="replace")


def _fail(exc: RecycleError | RecycleBug) -> None:
    """Report a game's error (exit status 1) or an internal error of recycle (status 2)."""
    if _debug:
        raise exc
    typer.echo(exc.format(), err=True)
    raise typer.Exit(2 if isinstance(exc, RecycleBug) else 1)


def _load(path: Path, max_work: int | None = None, num_players: int | None = None):
    """The game of ``path``; ``max_work`` (``--max-work``): the work budget of each of its games;
    ``num_players`` (``--num-players``): play it with that many players."""
    from ..engine.game import PreparedGame, load

    if num_players is None:
        game = load(path, max_work=max_work)
    else:
        from ..lang.reading.player_count import with_player_count
        from ..lang.syntax.reader import parse_file

        game = PreparedGame(with_player_count(parse_file(path), num_players), max_work=max_work)
    for w in game.warnings:
        typer.echo(w, err=True)
    return game


def _players(spec: str | None, game, people: bool = False, seed: int = 0):
    """The players of ``spec``; ``people``: a ``human`` seat is asked at this terminal
    (else refused: many games are no game for a person)."""
    from ..players import make_players

    try:
        pl = make_players(spec, game.nplayers)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    specs = [getattr(p, "name", type(p).__name__) for p in pl]
    if "human" in specs:
        if not people:
            typer.echo(
                "error: a person plays one game at a time: `recycle play` or `recycle run --players human,...`",
                err=True,
            )
            raise typer.Exit(2)
        from .play import attach_people

        attach_people(pl, specs, game, seed)
    return pl


TAIL_LINES = 40


def _print_tail(lines: list[str]) -> None:
    """The transcript of a game stopped by an error: its first line and its last lines."""
    typer.echo(lines[0])
    body = lines[1:]
    if len(body) > TAIL_LINES:
        typer.echo(f"... ({len(body) - TAIL_LINES} earlier lines left out)")
        body = body[-TAIL_LINES:]
    for line in body:
        typer.echo(line)


@app.command()
def run(
    game: GameArg,
    seed: SeedOpt = 0,
    reveal: Annotated[bool, typer.Option("--reveal", help="Show hidden cards in the transcript.")] = False,
    players: PlayersOpt = None,
    max_steps: MaxStepsOpt = 100_000,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    record: Annotated[
        Path | None,
        typer.Option(
            "--record", help="Also write a game record (JSON) that `recycle replay` plays back.", show_default=False
        ),
    ] = None,
    timeout: TimeoutOpt = None,
    max_work: MaxWorkOpt = None,
    num_players: NumPlayersOpt = None,
    engine: Annotated[
        str,
        typer.Option(
            help="What steps the game: auto (native machine code where it builds the game, else the "
            "reference interpreter), native, reference. Both engines play the same game."
        ),
    ] = "auto",
):
    """Play one game and print a transcript: decisions, card movements, scores, winners."""
    from ..engine.transcript import transcript
    from ..study.engine_use import engine_line, game_playouts

    _check_engine(engine)
    check_file(record, "game record")
    if record is not None and num_players is not None:
        typer.echo("error: --record replays the game file as it is; it cannot be used with --num-players", err=True)
        raise typer.Exit(2)
    try:
        g = _load(game, max_work, num_players)
        pl = _players(players, g, people=True, seed=seed)
        if record is not None:
            from ..study.records import play_recorded, write_record

            result, rec = play_recorded(
                g,
                pl,
                seed,
                game,
                [getattr(p, "name", type(p).__name__) for p in pl],
                max_steps,
                describe=True,
                reveal=reveal,
                timeout=timeout,
                engine=engine,
            )
            try:
                elsewhere = write_record(rec, record)
            except OSError as exc:
                failed_write(record, exc)
            if elsewhere is not None:
                typer.echo(
                    f"note: the game is not in the record's folder: replay it with "
                    f"`recycle replay {record} --game-folder {elsewhere}`",
                    err=True,
                )
        else:
            result = g.play(
                pl,
                seed=seed,
                record=True,
                describe=True,
                reveal=reveal,
                max_steps=max_steps,
                timeout=timeout,
                engine=engine,
            )
    except (RecycleError, RecycleBug) as exc:
        partial = getattr(exc, "partial", None)
        if partial is not None and not as_json:
            _print_tail(transcript(g, partial, reveal=reveal))
        _fail(exc)
        return
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "game": g.name,
                    "seed": seed,
                    "scores": result.scores,
                    "ranks": result.ranks,
                    "winners": result.winners,
                    "decisions": result.decisions,
                    "choices": [[d.player, d.chosen, d.options, d.description] for d in result.choices],
                    "engine": result.engine,
                    "playouts_engine": game_playouts(pl),
                },
                ensure_ascii=False,
            )
        )
        return
    for line in transcript(g, result, reveal=reveal):
        typer.echo(line)
    typer.echo(engine_line(result.engine, game_playouts(pl)))


def _check_engine(engine: str) -> None:
    """Exit 2 with a message for an ``--engine`` that is not one (recycle/native/choose.py)."""
    from ..native.choose import check_engine

    try:
        check_engine(engine)
    except ValueError as exc:
        typer.echo(f"error: --engine: {exc}", err=True)
        raise typer.Exit(2) from None


def _say_building(g, players, engine: str) -> None:
    """With ``--engine native``, say on stderr when the game is built rather than loaded from
    the cache (a fraction of a second: ``auto`` builds as silently)."""
    from ..native import available, native_ready
    from ..native.choose import all_random

    if engine == "native" and all_random(players) and available() and not native_ready(g):
        typer.echo(f"recycle: building {g.name} into machine code (once: later runs load it from the cache)", err=True)


@app.command()
def simulate(
    game: GameArg,
    n: Annotated[int, typer.Option("-n", "--games", min=1, help="Number of rollouts.")] = 1000,
    seed: SeedOpt = 0,
    players: PlayersOpt = None,
    max_steps: MaxStepsOpt = 100_000,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help=(
                "Print one JSON object. win_rate is per seat and every player tied for best counts a "
                "win, so the rates can add up to more than 1; tie_rate counts games with two or more "
                "sides (teams, or players where there are none) tied for best."
            ),
        ),
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar (on a terminal).")] = True,
    workers: WorkersOpt = 1,
    timeout: TimeoutOpt = None,
    max_work: MaxWorkOpt = None,
    num_players: NumPlayersOpt = None,
    engine: Annotated[
        str,
        typer.Option(
            help=(
                "What plays random players' games: auto (native machine code where it can play the game, "
                "else the reference interpreter), native, reference. Both engines play the same games."
            )
        ),
    ] = "auto",
    threads: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=64,
            help=(
                "Threads sharing the native rollouts (default: the cores here; the statistics are the same "
                "for any number, and the output says how many played)."
            ),
            show_default=False,
        ),
    ] = None,
):
    """Play N games (random players unless --players) and print statistics: win rates, decisions, options."""
    from ..study.parallel import progress_bar
    from ..study.stats import simulate as run_simulation

    _check_engine(engine)
    try:
        g = _load(game, max_work, num_players)
        pl = _players(players, g)
        _say_building(g, pl, engine)
        with progress_bar(n, g.name, enabled=progress and not as_json) as update:

            def tick(i):
                if workers > 1 or i % 50 == 49 or i == n - 1:
                    update(i + 1)

            stats = run_simulation(
                g,
                n,
                seed,
                pl,
                max_steps,
                workers=workers,
                progress=tick if update else None,
                keep_records=False,
                timeout=timeout,
                interruptible=True,
                engine=engine,
                threads=threads,
            )
    except (RecycleError, RecycleBug) as exc:
        _fail(exc)
        return
    if as_json:
        # (the text output's "played by" line says it; a missing compiler was said already, once)
        if stats.engine_note and "needs" not in stats.engine_note:
            typer.echo(f"recycle: {g.name} is played by the reference interpreter: {stats.engine_note}", err=True)
        if stats.stopped == "interrupted":
            typer.echo(f"interrupted after {stats.played:,} of {n:,} games", err=True)
        typer.echo(json.dumps(stats.to_dict()))
    else:
        typer.echo(str(stats))
    if stats.stopped == "interrupted":
        raise typer.Exit(130)  # the shell's status for Ctrl-C, after the games finished are reported


@app.command()
def check(
    game: GameArg,
    strict: Annotated[bool, typer.Option("--strict", help="Exit with status 1 when there are warnings.")] = False,
    max_work: MaxWorkOpt = None,
):
    """Parse and compile a game without running it; report errors with file:line:column.

    Also warns of likely slips that still compile: a location that never receives cards
    (a misspelt name?) and a storage that is read but never set. (The setup is run once, to
    make the cards, within --max-work.)
    """
    from ..lang.reading.lint import lint

    try:
        g = _load(game, max_work)
    except (RecycleError, RecycleBug) as exc:
        _fail(exc)
        return
    found = lint(g.nodes) + list(g.note_warnings)
    for w in found:
        typer.echo(str(w), err=True)
    locs = sorted({f"{k[1]} ({k[0]})" for k in g.layout.loc_base})
    note = f", {len(found)} warning{'s' if len(found) != 1 else ''}" if found else ""
    typer.echo(f"{game}: ok — {g.nplayers} players, locations: {', '.join(locs)}{note}")
    if strict and (found or g.warnings):
        raise typer.Exit(1)


def _register_extensions() -> None:
    """Commands that live in their own modules (graphs, analysis, env, play) register themselves here."""
    from . import analysis, balance, campaign, compile, env, evolve, graph, ladder, page, play, solve, studio

    for mod in (graph, analysis, env, play, compile, evolve, campaign, studio, page, ladder, balance, solve):
        mod.register(app, fail=_fail, load=_load)


_register_extensions()


def main() -> None:
    """Console entry point."""
    _attach_closed_streams()
    install_printable()  # also around what is printed after the command (an internal error)
    try:
        try:
            app()
        finally:
            _flush_output()  # text still buffered (csv.writer, a last line) fails here, not at exit
    except RecycleBug as exc:
        if _debug:
            raise
        typer.echo(exc.format(), err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)
    except OSError as exc:
        if not _is_output_error(exc):
            raise
        _cannot_write(exc)
    except SystemExit as exc:
        # typer turns Ctrl-C into a silent exit 130; say why the command stopped
        if exc.code == 130 and isinstance(getattr(exc.__context__, "__cause__", None), KeyboardInterrupt):
            _say("interrupted")
        raise


# errors of a write to a standard stream: a full disk, a closed or broken pipe, a lost device
_OUTPUT_ERRNOS = {errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EBADF, errno.EFBIG, errno.EDQUOT, errno.ENXIO}


def _is_output_error(exc: OSError) -> bool:
    """Did ``exc`` come from writing the standard output or error? The commands report their
    own files' errors (``outputs.py``); an ``OSError`` without a file name and with a write's
    errno that reaches the entry point is the standard streams'."""
    return exc.filename is None and exc.errno in _OUTPUT_ERRNOS


def _cannot_write(exc: OSError) -> None:
    """Report an output that cannot be written and exit with status 1.

    A broken pipe (``recycle ... | head``) is the reader having read enough: it exits 1
    without a word, as typer does, rather than print an error under the lines ``head``
    showed (a shell pipeline's own tools die silently of SIGPIPE)."""
    if exc.errno != errno.EPIPE:
        _say(f"error: cannot write the output: {exc.strerror or exc}")
    _silence_output()
    sys.exit(1)


def _say(text: str) -> None:
    """``text`` on the standard error, if it can still be written."""
    try:
        print(text, file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass


def _silence_output() -> None:
    """Point the standard streams at the null device so that the interpreter's own flush at
    exit does not fail again (with "Exception ignored ... OSError")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.stdout, sys.stderr):
            try:
                os.dup2(devnull, stream.fileno())
            except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
                pass
    except OSError:
        pass


def _flush_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()


class _ClosedOutput(io.RawIOBase):
    """A standard stream that was closed when recycle started (``recycle ... >&-``): writing
    to it fails like writing to a closed descriptor, so that a command that prints says
    it cannot, while one that prints nothing (``run --record``, ``graph -o``) still works."""

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        raise OSError(errno.EBADF, "the standard output is closed")


def _attach_closed_streams() -> None:
    """Python sets ``sys.stdout`` / ``sys.stderr`` to None when the descriptor is closed;
    put a stream there that fails when written (and whose ``encoding`` can be read)."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            # unbuffered: a write fails at once, and nothing is left to fail again at exit
            setattr(sys, name, io.TextIOWrapper(_ClosedOutput(), encoding="utf-8", write_through=True))
