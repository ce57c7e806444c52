"""The one writer of the command line: standard output and standard error made printable.

A game file's name, a record's descriptions, players and paths, a source line quoted under
an error: text from a file that someone else may have written reaches the terminal in
many places (``typer.echo``, ``print``, CSV rows, rich). Rather than escape each of them,
and trust every future ``print`` to remember, every command runs with ``sys.stdout`` and
``sys.stderr`` wrapped in a ``PrintableStream`` that passes each write through
``recycle.errors.printable`` (keeping line breaks and tabs): no control character, bidi
override or line separator gets through, whatever printed it.

Output that means to drive the terminal -- the colours and redraws of rich in ``recycle
play`` and the progress bars -- is written to the wrapped stream itself (``terminal_of``),
and that code escapes the text it shows with ``printable`` itself.
"""

from __future__ import annotations

import io
import sys

from ..errors import printable

KEEP = "\n\t"  # line breaks and tabs: the shape of the output


class PrintableStream(io.TextIOBase):
    """A text stream writing to ``terminal`` everything made printable (see the module
    docstring); it has the encoding, errors and ``isatty`` of the stream it wraps."""

    def __init__(self, terminal):
        super().__init__()
        self.terminal = terminal  # what is wrapped: for output that drives the terminal on purpose

    def write(self, text) -> int:
        if not isinstance(text, str):  # typer tells text streams from binary ones by this TypeError
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.terminal.write(printable(text, KEEP))
        return len(text)

    def flush(self) -> None:
        self.terminal.flush()

    def isatty(self) -> bool:
        try:
            return self.terminal.isatty()
        except (AttributeError, ValueError):
            return False

    def fileno(self) -> int:
        return self.terminal.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self):
        return getattr(self.terminal, "encoding", "utf-8")

    @property
    def errors(self):
        return getattr(self.terminal, "errors", "strict")


def terminal_of(stream):
    """The stream under a ``PrintableStream`` (``stream`` itself if it is not one)."""
    return getattr(stream, "terminal", stream) if isinstance(stream, PrintableStream) else stream


def install() -> callable:
    """Wrap ``sys.stdout`` and ``sys.stderr`` (once); returns what puts them back."""
    saved = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, PrintableStream) and sys.stdout is not None:
        sys.stdout = PrintableStream(sys.stdout)
    if not isinstance(sys.stderr, PrintableStream) and sys.stderr is not None:
        sys.stderr = PrintableStream(sys.stderr)

    def restore() -> None:
        if isinstance(sys.stdout, PrintableStream):
            sys.stdout.flush()
        if isinstance(sys.stderr, PrintableStream):
            sys.stderr.flush()
        sys.stdout, sys.stderr = saved

    return restore
