"""The RecycleError hierarchy: every user-facing failure carries a source span.

Errors format themselves as ``file:line:col: message`` followed by the source line and
a caret, so the CLI can print them without a Python traceback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# What ``printable`` escapes: every character that a terminal takes as a command or that
# changes how the text around it is shown, rather than showing itself --
#   C0 controls, DEL and C1 controls (ESC starts ANSI sequences: OSC 0 sets the window's
#   title, OSC 8 plants a link, OSC 52 writes the clipboard, CSI moves the cursor or clears
#   the screen; BEL rings; CR and BS overwrite what was printed; U+009B is a one-character
#   CSI on some terminals);
#   bidi formatting characters (U+061C, U+200E/U+200F, U+202A-U+202E, U+2066-U+2069): they
#   reorder the text shown, so a name could read as something it is not (the "Trojan
#   Source" trick: U+202E shows "rcy.exe" as "exe.ycr");
#   U+2028/U+2029 (line and paragraph separators): some terminals and editors break the
#   line there, so one line of output could pass for two (a forged "replay identical");
#   lone surrogates (JSON's "\ud800"): not text at all, and writing one stops the program
#   with UnicodeEncodeError.
# Everything else -- accented letters, suit symbols, emoji with their joiners -- is kept.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")
_KEPT = {"": _UNPRINTABLE}


def _escape(m: re.Match) -> str:
    # \u001b rather than \x1b: the same escape as JSON's, so that the JSON printed by
    # --json stays valid JSON (and means the same text) when a character in it is escaped
    return f"\\u{ord(m.group()):04x}"


def printable(text: str, keep: str = "") -> str:
    """``text`` safe to write to a terminal: control characters, bidi overrides, line
    separators and lone surrogates written as ``\\u001b``, ``\\u202e`` (the characters listed
    above ``_UNPRINTABLE``); ``keep`` names control characters to leave as they are (the CLI's
    output streams keep ``"\\n\\t"``). Every string that came from a game file or a record
    (game names, paths, descriptions, players, quoted source lines) goes through this
    before it reaches the terminal (``recycle.cli.printing``)."""
    pattern = _KEPT.get(keep)
    if pattern is None:
        kept = "".join(re.escape(c) for c in keep)
        pattern = _KEPT[keep] = re.compile(f"(?![{kept}]){_UNPRINTABLE.pattern}")
    return pattern.sub(_escape, text)


@dataclass(frozen=True, slots=True)
class Span:
    """Where a piece of RECYCLE text sits in its file (1-based line and column)."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


QUOTE_WIDTH = 160  # characters of a long source line quoted under a message


class RecycleError(Exception):
    """A problem with a RECYCLE game, reported to the user without a traceback."""

    kind = "error"

    def __init__(self, message: str, span: Span | None = None, source: str | None = None, form: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        self.source = source
        self.form = form

    def format(self) -> str:
        """The message with its position and, when the source is known, a caret line."""
        where = f"{printable(str(self.span))}: " if self.span else ""
        text = f"{where}{self.kind}: {self.message}"
        if self.form:
            text += f"\n  in the form ({self.form} ...)"
        if self.span and self.source is not None:
            lines = self.source.splitlines()
            if 1 <= self.span.line <= len(lines):
                line = lines[self.span.line - 1].expandtabs(1)
                width = 1
                if self.span.end_line == self.span.line:
                    width = max(1, self.span.end_column - self.span.column)
                col = self.span.column - 1
                if len(line) > QUOTE_WIDTH:  # a window of a long line around the place
                    start = max(0, col - QUOTE_WIDTH // 3)
                    clipped = line[start : start + QUOTE_WIDTH]
                    line = ("..." if start else "") + clipped + ("..." if start + QUOTE_WIDTH < len(line) else "")
                    col = col - start + (3 if start else 0)
                    width = min(width, QUOTE_WIDTH)
                # a control character in a comment is quoted escaped (the caret still under
                # its place): the quoted line must not drive the terminal
                col, width = len(printable(line[:col])), len(printable(line[col : col + width])) or 1
                line = printable(line)
                text += f"\n  {line}\n  {' ' * col}^{'~' * (width - 1)}"
        return text

    def __str__(self) -> str:
        return self.format()


class RecycleSyntaxError(RecycleError):
    """The text is not a well-formed RECYCLE game."""

    kind = "syntax error"


class RecycleFileError(RecycleSyntaxError):
    """A game file cannot be read (missing, a folder, too large): not a slip in its text."""

    kind = "error"


class RecycleCompileError(RecycleError):
    """A form is used where RECYCLE does not allow it, or has the wrong shape."""

    kind = "error"


class RecycleCompileErrors(RecycleCompileError):
    """Several independent compile errors of one file (``recycle check`` shows them all at
    once); its own message, position and form are the first one's."""

    def __init__(self, errors: list, more: bool = False):
        first = errors[0]
        super().__init__(first.message, first.span, first.source, first.form)
        self.errors = list(errors)
        self.more = more  # the search stopped at the limit: there may be more

    def format(self) -> str:
        parts = []
        for e in self.errors:
            if e.source is None:
                e.source = self.source
            parts.append(e.format())
        n = len(self.errors)
        tail = f"{n} error{'' if n == 1 else 's'}" + (f" (the first {n}; there may be more)" if self.more else "")
        return "\n".join(parts) + "\n" + tail


class RecycleRuntimeError(RecycleError):
    """The game went wrong while running (e.g. a move from an empty location)."""

    kind = "runtime error"


class StepLimitExceeded(RecycleRuntimeError):
    """The game did not end within the step limit."""

    kind = "step limit"


class RecycleBug(Exception):
    """An internal error: a bug in recycle itself, not in the game. Carries where in the
    game it happened (file, seed, decision, step) so that it can be reproduced."""

    def __init__(self, message: str, where: str = ""):
        super().__init__(message)
        self.message = message
        self.where = where

    def format(self) -> str:
        at = f" ({self.where})" if self.where else ""
        return f"internal error{at}: {self.message}\n  this is a bug in recycle, not in the game; please report it"

    def __str__(self) -> str:
        return self.format()


class TimeLimitExceeded(RecycleRuntimeError):
    """The game was stopped by the time limit (``--timeout``)."""

    kind = "time limit"
