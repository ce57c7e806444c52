"""Output files of the commands: checked before any game is played, written without tracebacks.

``check_file(path)`` refuses, with a clear message and exit status 2, a path whose folder is
missing, a path that is a folder, or a folder we may not write into — before the work that
would produce the file. ``write_file(path, text)`` turns an error while writing (a full
device, a file that vanished) into a message and exit status 1.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer


def _refuse(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def check_file(path: Path | None, what: str = "file") -> None:
    """Can a ``what`` be written at ``path``? Exit 2 with the reason if not (None: nothing to check)."""
    if path is None or str(path) == "-":
        return
    path = Path(path)
    if path.is_dir():
        _refuse(f"cannot write the {what} {path}: it is a folder")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        _refuse(f"cannot write the {what} {path}: the folder {parent} does not exist")
    if path.exists() and not path.is_file():
        _refuse(f"cannot write the {what} {path}: it is not a regular file")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        _refuse(f"cannot write the {what} {path}: permission denied")


def check_folder(path: Path | None, what: str = "folder") -> None:
    """Can files be written into the folder ``path`` (made if missing)? Exit 2 if not."""
    if path is None:
        return
    path = Path(path)
    if path.exists() and not path.is_dir():
        _refuse(f"cannot write into {path}: it is a file, not a folder ({what})")
    existing = path
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK):
        _refuse(f"cannot write into {path}: permission denied")


def write_file(path: Path, text: str, newline: str | None = None) -> None:
    """Write ``text`` to ``path`` (UTF-8); a failure is a message and exit status 1."""
    try:
        with open(path, "w", encoding="utf-8", newline=newline) as fh:
            fh.write(text)
    except OSError as exc:
        typer.echo(f"error: cannot write {path}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None


def failed_write(path, exc: OSError) -> None:
    """Report an ``OSError`` from writing ``path`` and exit with status 1."""
    typer.echo(f"error: cannot write {path}: {exc.strerror or exc}", err=True)
    raise typer.Exit(1) from None


def emit_search(r, lines: list[str], out: Path | None, as_json: bool) -> None:
    """What a search (``evolve``, ``balance``) found: its variants and report written into
    ``out`` (when given), its report (or ``--json``) printed, and exit 130 after Ctrl-C, the
    shell's status for it, once what was found is written."""
    import json

    if out is not None:
        try:
            paths = r.write(out)
        except OSError as exc:
            failed_write(out, exc)
        write_file(out / "report.txt", "\n".join(lines) + "\n")
        write_file(out / "report.json", json.dumps(r.to_json(), indent=1) + "\n")
        if not as_json:
            for p in paths:
                typer.echo(f"wrote {p}", err=True)
    if as_json:
        typer.echo(json.dumps(r.to_json()))
    else:
        for line in lines:
            typer.echo(line)
    if r.stopped == "interrupted":
        raise typer.Exit(130)
