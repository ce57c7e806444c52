"""Fuzzing the names of game files: a name is data, never code, and never stops a game.

A game file's name reaches error messages, transcripts and game records (and the native
module's docstring: tests/engine/test_native.py). Each input is a hostile name — quotes
that could end a docstring, backslashes, every kind of line break, NUL, bytes that are not
UTF-8, terminal escapes, bidirectional overrides, code, option-like and very long names —
and ``exercise_name`` checks, for a small valid game and a broken one:

* in memory (``loads``, any name): the game plays as with a plain name; the broken game's
  message is positioned, its first line one line of text;
* on disk, where the name can be a file name (no ``/`` or NUL, at most 255 bytes): the same
  through ``load``; a record of a game is written beside it, read back and replayed as
  identical;
* nothing is left behind: the folder holds only the files written on purpose (a name that ran
  would leave a file there, the worker's working folder during the input).

``name_inputs`` is the Hypothesis strategy; ``tools/fuzz.py --kind names`` runs it.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from ..engine.game import load, loads
from ..errors import RecycleError
from .fuzzing import FuzzFailure

# a small game that plays in a few milliseconds, and the same with an unbalanced form
GAME = """(game
 (setup (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 (do ((shuffle (game iloc STOCK))
      (all player 'P (move (top (game iloc STOCK)) (top ('P iloc HAND))))))
 (stage player (end (== (size (game iloc STOCK)) 0))
  (choice ((move (top (game iloc STOCK)) (top ((current player) iloc HAND))))))
 (scoring max (size ((current player) iloc HAND))))
"""
BROKEN = GAME.replace("(end (== ", "(end (== (")
SEED = 5

# pieces a name is made of: what could end a docstring, a string or a comment, break a line,
# change a terminal, pass for an option, or be code
PIECES = [
    '"""',
    "'''",
    '"',
    "'",
    "\\",
    "\\n",
    "\\x",
    "\\N{BULLET}",
    "\n",
    "\r",
    "\r\n",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x85",
    "\u2028",
    "\u2029",
    "\x00",
    "\x1b]0;pwned\x07",
    "\x1b[2J",
    "\x1b]8;;http://x\x1b\\",
    "\u202e",
    "\u200b",
    "\ufeff",
    "\x7f",
    "\x9b",
    ";",
    "#",
    "# -*- coding: latin-1 -*-",
    "{",
    "}",
    "%s",
    "{0}",
    "$(touch pwned)",
    "`touch pwned`",
    'open("pwned","w")',
    "__import__('os').system('touch pwned')",
    "-",
    "--help",
    "..",
    ".",
    " ",
    "\t",
    "♠",
    "é",
    "\U0001f0a1",
    "Simon's",
    "game",
    ".rcy",
]
RAW = [b"\xff", b"\xfe", b"\xc3", b"\xed\xa0\x80", b"\x80", b"\xc0\xaf"]  # not UTF-8 (lone surrogates)


@st.composite
def name_inputs(draw) -> tuple[str, bytes]:
    """(a description, the bytes of a hostile file name)."""
    parts = draw(
        st.lists(
            st.one_of(
                st.sampled_from(PIECES).map(lambda p: p.encode("utf-8", "surrogatepass")),
                st.sampled_from(RAW),
                st.text(max_size=3).map(lambda t: t.encode("utf-8")),
            ),
            min_size=1,
            max_size=8,
        )
    )
    name = b"".join(parts)
    if draw(st.booleans()):
        name += b".rcy"
    if draw(st.integers(0, 9)) == 0:
        name = name * (1 + 300 // max(1, len(name)))  # a long name: past the 255 bytes of a file's
    return f"name {name[:60]!r}{'...' if len(name) > 60 else ''} ({len(name)} bytes)", name


class NameFailure(FuzzFailure):
    """A name changed a game, ran, broke a message or stopped a game (``kind``: "invariant",
    "divergence" or "crash")."""

    def __init__(self, kind: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind = kind


_PLAIN = {}


def _plain(text: str):
    """The game loaded under a plain name, and its score of seed ``SEED`` (made once)."""
    if text not in _PLAIN:
        g = loads(text, "plain.rcy")
        _PLAIN[text] = (g, g.play(seed=SEED).scores)
    return _PLAIN[text]


def _check_game(game, name: str) -> None:
    """The game ``game``, loaded as ``name``, is the plain-named one in all but the name."""
    plain, scores = _plain(GAME)
    if game.engine != plain.engine:
        raise NameFailure("divergence", f"engine {game.engine} under this name, {plain.engine} under a plain one")
    if game.play(seed=SEED).scores != scores:
        raise NameFailure("divergence", "the game plays differently under this name")


def _check_message(name: str, load_it) -> None:
    """Loading the broken game under ``name`` stops with a message positioned in ``name``."""
    try:
        load_it()
    except RecycleError as exc:
        if exc.span is None or exc.span.file != name or exc.span.line < 1:
            raise NameFailure("invariant", f"message not positioned in the file: {exc.format()[:120]!r}") from None
        return
    raise NameFailure("invariant", "the broken game loaded")


def _check_cli(folder: Path, name: bytes) -> None:
    """``recycle check`` of the broken game named ``name``: exit 1, no traceback, a first line
    ``NAME:LINE:COLUMN: ...``, and no control character but line ends in what it prints (a
    name's escapes must not reach the terminal)."""
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "recycle", "check", b"./" + name],
        cwd=folder,
        capture_output=True,
        timeout=120,
        env=dict(os.environ, PYTHONIOENCODING="utf-8"),
    )
    out = r.stdout + r.stderr
    if r.returncode != 1 or b"Traceback" in out:
        raise NameFailure("crash", f"recycle check exited {r.returncode}: {out[-300:]!r}")
    if not re.match(rb"^.+:\d+:\d+: ", r.stderr):
        raise NameFailure("invariant", f"recycle check's message is not positioned: {r.stderr[:160]!r}")
    bad = set(re.findall(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8\xa9\xae]", out))
    if bad:
        raise NameFailure("invariant", f"recycle check printed control characters {sorted(bad)!r}")


def _on_disk(name: bytes) -> bool:
    return b"/" not in name and b"\0" not in name and 0 < len(name) <= 255 and name not in (b".", b"..")


def exercise_name(name: bytes) -> str:
    """Run the checks of the module docstring on the file name ``name``; returns "ok", or
    "ok (memory only)" for a name no file can have; raises ``NameFailure``."""
    text_name = os.fsdecode(name) if b"\0" not in name else name.decode("utf-8", "surrogateescape")
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="recycle-namefuzz-") as tmp:
        os.chdir(tmp)  # a name that ran would write here
        try:
            try:
                _check_game(loads(GAME, text_name), text_name)
                _check_message(text_name, lambda: loads(BROKEN, text_name))
                if not _on_disk(name):
                    outcome = "ok (memory only)"
                else:
                    _disk(Path(tmp), name)
                    outcome = "ok"
            except NameFailure:
                raise
            except Exception as exc:
                raise NameFailure("crash", f"{type(exc).__name__}: {exc}") from exc
            left = sorted(os.listdir(tmp))
            if left != []:
                raise NameFailure("invariant", f"files left behind in the working folder: {left!r}")
        finally:
            os.chdir(here)
    return outcome


def _disk(folder: Path, name: bytes) -> None:
    """The checks through a file named ``name`` in ``folder``, and its record; removes both."""
    from ..players import make_players
    from .records import play_recorded, read_record, replay, write_record

    path = folder / os.fsdecode(name)
    path.write_text(GAME, encoding="utf-8")
    try:
        game = load(path)
        _check_game(game, str(path))
        players = make_players("random", game.nplayers)
        _, rec = play_recorded(game, players, SEED, path.name, ["random"] * game.nplayers)
        record_path = folder / "record.json"
        write_record(rec, record_path)
        try:
            again = replay(read_record(record_path), record_path=record_path)
            if again.problems:
                raise NameFailure("divergence", f"the record does not replay: {again.problems[0]}")
        finally:
            record_path.unlink()
        path.write_text(BROKEN, encoding="utf-8")
        _check_message(str(path), lambda: load(path))
        _check_cli(folder, name)
    finally:
        path.unlink()


__all__ = ["name_inputs", "exercise_name", "NameFailure", "GAME", "BROKEN"]
