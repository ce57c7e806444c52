"""The ``campaign`` and ``report`` commands (registered into ``recycle.cli``).

recycle campaign plan.toml [--db FILE] [--workers N | --scheduler tcp://HOST:8786] [--resume]
recycle report plan.duckdb [--json] [--html FILE] [--plots DIR]
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from ..errors import printable
from .options import MAX_WORKERS, JsonOpt, ProgressOpt
from .outputs import check_file, check_folder, write_file

LINE_EVERY = 10.0  # seconds between progress lines when stderr is not a terminal (a batch job's log)


def _status(p) -> str:
    left = p.seconds_left
    eta = "?" if left is None else time.strftime("%H:%M:%S", time.gmtime(left))
    done = p.chunks_before + p.chunks_done
    failed = f" ({p.chunks_failed} failed)" if p.chunks_failed else ""
    return (
        f"chunks {done:,}/{p.chunks_total:,}{failed} · games {p.games_done:,}/{p.games_total:,} · "
        f"{p.games_per_second:,.0f} games/s · {eta} left · workers seen {len(p.workers)}"
        + (f" · pools restarted {p.restarts}" if p.restarts else "")
    )


class _Progress:
    """A live status line on a terminal; elsewhere a line every LINE_EVERY seconds."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.last = 0.0
        self.live = None

    def __enter__(self):
        if self.enabled and self.tty:
            from rich.console import Console
            from rich.live import Live

            terminal = getattr(sys.stderr, "terminal", sys.stderr)
            self.live = Live("", console=Console(file=terminal), transient=True, refresh_per_second=4)
            self.live.__enter__()
        return self

    def __call__(self, p) -> None:
        if not self.enabled:
            return
        if self.live is not None:
            from rich.text import Text

            self.live.update(Text(_status(p)))
            return
        now = time.monotonic()
        if p.chunks_done and (
            now - self.last >= LINE_EVERY or p.chunks_done == 1 or p.chunks_before + p.chunks_done == p.chunks_total
        ):
            self.last = now
            typer.echo(f"campaign: {_status(p)}", err=True)

    def __exit__(self, *exc):
        if self.live is not None:
            self.live.__exit__(*exc)


def register(app: typer.Typer, fail, load) -> None:
    """Add the commands to ``app``."""

    @app.command()
    def campaign(
        plan: Annotated[
            Path, typer.Argument(help="The campaign's plan (TOML; docs/campaigns.md).", show_default=False)
        ],
        db: Annotated[
            Path | None,
            typer.Option(
                "--db", help="The DuckDB file of results (default: the plan's name with .duckdb).", show_default=False
            ),
        ] = None,
        scheduler: Annotated[
            str | None,
            typer.Option(
                "--scheduler",
                help="Run on the Dask cluster of this scheduler (tcp://HOST:8786) instead of local processes.",
                show_default=False,
            ),
        ] = None,
        workers: Annotated[
            int | None,
            typer.Option(
                "--workers",
                "-w",
                min=1,
                max=MAX_WORKERS,
                help="Worker processes (results do not depend on their number; default: one per CPU).",
                show_default=False,
            ),
        ] = None,
        resume: Annotated[
            bool,
            typer.Option(
                "--resume", help="Go on with the database of an interrupted campaign: only the missing chunks."
            ),
        ] = False,
        as_json: JsonOpt = False,
        progress: ProgressOpt = True,
    ):
        """Run a campaign: every game × variant × line-up of the plan, in chunks, into a DuckDB file."""
        from ..study.campaign import PlanError, StoreError, run_campaign
        from ..study.campaign.plan import Plan

        if scheduler is not None and workers is not None:
            typer.echo(
                "error: --workers counts local processes; with --scheduler the cluster's workers run the chunks",
                err=True,
            )
            raise typer.Exit(2)
        path = db if db is not None else plan.with_suffix(".duckdb")
        check_file(path, "database")
        try:
            p = Plan.from_toml(plan)
            with _Progress(progress and not as_json) as show:
                run = run_campaign(
                    p, path, scheduler=scheduler, workers=workers or (os.cpu_count() or 1), resume=resume, progress=show
                )
        except (PlanError, StoreError) as exc:
            typer.echo(f"error: {printable(str(exc), keep=chr(10))}", err=True)
            raise typer.Exit(1) from None
        except OSError as exc:  # a scheduler that cannot be reached, a full disk
            typer.echo(f"error: {printable(str(exc))[:500]}", err=True)
            raise typer.Exit(1) from None
        if as_json:
            typer.echo(json.dumps(run.__dict__))
        else:
            typer.echo(
                printable(
                    f"{run.db}: {run.chunks_run} chunk(s) run now ({run.games:,} games in "
                    f"{run.seconds:.1f} s), {run.chunks} in the plan; workers: {len(run.workers)}"
                )
            )
        for g, v, ln, ch, err in run.failures:
            typer.echo(printable(f"failed: {g} · {v} · {ln} chunk {ch}: {err}"), err=True)
        for g, v, ln, ch, why in run.rejected:
            typer.echo(printable(f"error: not stored: {g} · {v} · {ln} chunk {ch}: {why}"), err=True)
        if run.lost:
            typer.echo(
                f"error: the cluster could not run {run.lost} chunk(s): run the same command with --resume", err=True
            )
        if run.failures or run.lost or run.rejected:
            raise typer.Exit(1)

    @app.command()
    def report(
        db: Annotated[Path, typer.Argument(help="A campaign's DuckDB file.", show_default=False)],
        as_json: JsonOpt = False,
        html: Annotated[
            Path | None,
            typer.Option(
                "--html", help="Write the report as one HTML page (tables and plots) to this file.", show_default=False
            ),
        ] = None,
        plots: Annotated[
            Path | None, typer.Option("--plots", help="Write PNG plots into this folder.", show_default=False)
        ] = None,
    ):
        """Report a campaign: every measure per variant and line-up with its 95% interval, and each
        variant against the baseline (difference, interval, effect size, Holm-corrected p)."""
        from ..study.campaign import StoreError
        from ..study.campaign import report as make_report

        check_file(html, "HTML report")
        check_folder(plots, "--plots")
        try:
            r = make_report(db)
        except StoreError as exc:
            typer.echo(f"error: {printable(str(exc), keep=chr(10))}", err=True)
            raise typer.Exit(1) from None
        if html is not None:
            write_file(html, r.html())
        if plots is not None:
            try:
                r.write_plots(plots)
            except OSError as exc:
                typer.echo(f"error: cannot write the plots into {plots}: {exc.strerror or exc}", err=True)
                raise typer.Exit(1) from None
        typer.echo(r.to_json() if as_json else r.text())
