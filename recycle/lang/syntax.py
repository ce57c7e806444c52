"""Text to AST: a linear reader of the grammar in ``grammar.lark``, building positioned,
frozen nodes.

The AST is the s-expression structure of the file: ``SList`` for a parenthesised form
and ``Atom`` for a token, each with a ``Span``. The type-directed reading of forms (is
``(top X)`` a card or a location?) happens once, in the compiler, which reports
positioned errors for forms of the wrong shape.

``grammar.lark`` is the reference grammar: ``reference_parse`` reads a text with Lark and
the test suite checks that both readers build the same forms and report the same errors
(Lark's LALR parser reads about 100 KB/s, this reader about 1 MB/s, in linear time).
"""

from __future__ import annotations

import errno
import gc
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import RecycleFileError, RecycleSyntaxError, Span

MAX_NESTING = 200
MAX_SOURCE_BYTES = 1_000_000  # 80 times the largest game of the corpus; read in about 2 s
MAX_LITERAL = 2**63 - 1

# Atom kinds
INT, VAR, SYMBOL, OP, COMMA, COLON, DOTDOT = "int", "var", "symbol", "op", "comma", "colon", "dotdot"


@dataclass(frozen=True, slots=True)
class Atom:
    """One token: an integer, a 'VARIABLE, a keyword or NAME, an operator or punctuation."""

    kind: str
    value: object
    span: Span

    def __str__(self) -> str:
        return str(self.value) if self.kind != VAR else f"'{self.value}"

    @property
    def is_keyword(self) -> bool:
        return self.kind == SYMBOL and self.value.islower()

    @property
    def is_name(self) -> bool:
        return self.kind == SYMBOL and not self.value.islower()


@dataclass(frozen=True, slots=True)
class SList:
    """A parenthesised form ``( item ... )``."""

    items: tuple
    span: Span

    @property
    def head(self) -> str | None:
        """The form's keyword, operator or name when its first item is an atom."""
        if self.items and isinstance(self.items[0], Atom) and self.items[0].kind in (SYMBOL, OP):
            return self.items[0].value
        return None

    def __str__(self) -> str:
        return "(" + " ".join(str(i) for i in self.items) + ")"


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A parsed file: its top-level forms, the text, and warnings about tolerated oddities."""

    forms: tuple
    text: str
    filename: str
    warnings: tuple


# Python's str.splitlines() line boundaries: the error display quotes lines as it splits them,
# so positions count every one of them as a line break (``\r\n`` is one); all are white space
# to the reader, and a comment ends at any of them (a file with CR-only line endings reads
# as lines, not as one comment)
_BREAKS = "\n\r\f\v\x1c\x1d\x1e\x85\u2028\u2029"
_BREAK = re.compile("\r\n|[" + _BREAKS + "]")
_OTHER_BREAKS = re.compile("[" + _BREAKS[1:] + "]")
# one token, after any spaces and tabs (folded into it: half as many matches to make)
_TOKEN = re.compile(
    "[ \t]*(?:(?P<ws>[" + _BREAKS + "][ \t" + _BREAKS + "]*)|(?P<comment>;[^" + _BREAKS + "]*)|(?P<lpar>\\()"
    "|(?P<rpar>\\))|(?P<int>[0-9]+)|(?P<var>'[A-Z][A-Z0-9_]*)|(?P<symbol>[A-Za-z][A-Za-z0-9_]*)"
    "|(?P<op>==|!=|<=|>=|//|[<>+\\-*%^])|(?P<comma>,)|(?P<colon>:)|(?P<dotdot>\\.\\.)|\\Z)")


def position(text: str, pos: int) -> tuple[int, int]:
    """The 1-based (line, column) of offset ``pos`` (line breaks as ``str.splitlines``)."""
    line, start = 1, 0
    for m in _BREAK.finditer(text, 0, pos):
        line, start = line + 1, m.end()
    return line, pos - start + 1


def _check_nesting(text: str, filename: str) -> None:
    """Reject unbalanced or absurdly deep parentheses before reading forms, with a position."""
    depth = 0
    opened: list[int] = []
    for m in re.finditer("[()]|;[^" + _BREAKS + "]*", text):
        ch = m.group()
        if ch == "(":
            depth += 1
            opened.append(m.start())
            if depth > MAX_NESTING:
                line, col = position(text, m.start())
                raise RecycleSyntaxError(
                    f"forms are nested more than {MAX_NESTING} deep", Span(filename, line, col, line, col + 1), text)
        elif ch == ")":
            if depth:
                depth -= 1
                opened.pop()
    if opened:
        line, col = position(text, opened[-1])
        raise RecycleSyntaxError(
            f"this '(' is never closed (expected ')' before the end of the file; {len(opened)} unclosed)",
            Span(filename, line, col, line, col + 1), text)


def decode_source(data: bytes, filename: str) -> str:
    """Bytes of a .rcy file to text: UTF-8, an optional byte-order mark dropped."""
    if len(data) > MAX_SOURCE_BYTES:
        raise RecycleSyntaxError(f"the file is larger than the limit of {MAX_SOURCE_BYTES:,} bytes",
                                 Span(filename, 1, 1, 1, 1))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8")  # valid up to the first bad byte
        line, col = position(before, len(before))
        raise RecycleSyntaxError(f"the file is not UTF-8 text (byte 0x{data[exc.start]:02x})",
                                 Span(filename, line, col, line, col + 1)) from None
    return text.removeprefix("\ufeff")


def _read(text: str, filename: str):
    """The top-level forms and the stray ')' tokens (as Spans) of ``text``: a linear reader of
    the grammar in ``grammar.lark`` (which tests/test_parse.py checks it against)."""
    line, start = 1, 0  # the current line and the offset where it starts
    stack: list[list] = []  # open lists: [lpar span parts, items...]
    top: list = []
    strays: list[Span] = []
    too_large: list = []
    pos = 0
    new = object.__new__
    set_ = object.__setattr__
    for m in _TOKEN.finditer(text):
        if m.start() != pos:  # finditer skipped what no token matches
            pos += len(text[pos:m.start()]) - len(text[pos:m.start()].lstrip(" \t"))
            raise _unexpected_character(text, pos, filename, line, pos - start + 1)
        kind = m.lastgroup
        end = m.end()
        if kind is None:  # spaces at the end of the text (the empty alternative)
            pos = end
            if end == len(text):
                break
            raise _unexpected_character(text, end, filename, line, end - start + 1)
        if kind == "ws":
            ws = m.group(kind)
            first = m.start(kind)
            if _OTHER_BREAKS.search(ws) is None:  # \n only: the usual case
                line += ws.count("\n")
                start = first + ws.rfind("\n") + 1
            else:
                for b in _BREAK.finditer(ws):
                    line, start = line + 1, first + b.end()
            pos = end
            continue
        if kind == "comment":
            pos = end
            continue
        tok = m.group(kind)
        col = end - len(tok) - start + 1
        if strays and kind != "rpar":
            raise RecycleSyntaxError(f"unexpected {tok!r}; expected ')'",
                                     Span(filename, line, col, line, col + len(tok)), text)
        if kind == "lpar":
            stack.append([line, col])
        elif kind == "rpar":
            if stack:
                frame = stack.pop()
                node = SList(tuple(frame[2:]), Span(filename, frame[0], frame[1], line, col + 1))
                (stack[-1] if stack else top).append(node)
            else:
                strays.append(Span(filename, line, col, line, col + 1))
        else:
            span = new(Span)
            set_(span, "file", filename)
            set_(span, "line", line)
            set_(span, "column", col)
            set_(span, "end_line", line)
            set_(span, "end_column", col + len(tok))
            if kind == "int":
                digits = tok.lstrip("0")
                if len(digits) > 19 or (len(digits) > 18 and int(digits) > MAX_LITERAL):
                    too_large.append((tok, span))
                    value = 0
                else:
                    value = int(tok)
            elif kind == "var":
                value = tok[1:]
            else:
                value = tok
            atom = new(Atom)
            set_(atom, "kind", _KINDS[kind])
            set_(atom, "value", value)
            set_(atom, "span", span)
            (stack[-1] if stack else top).append(atom)
        pos = end
    if pos != len(text):  # no match at all after pos
        pos += len(text[pos:]) - len(text[pos:].lstrip(" \t"))
        raise _unexpected_character(text, pos, filename, line, pos - start + 1)
    if stack:  # _check_nesting reports it first; kept for callers of _read alone
        l, c = stack[-1][:2]
        raise RecycleSyntaxError("unexpected end of file: expected ')'", Span(filename, l, c, l, c + 1), text)
    if too_large:
        tok, span = too_large[0]
        raise RecycleSyntaxError(f"the integer {tok[:24]}{'...' if len(tok) > 24 else ''} is beyond 64 bits "
                                 f"(at most {MAX_LITERAL})", span, text)
    return tuple(top), strays


_KINDS = {"int": INT, "var": VAR, "symbol": SYMBOL, "op": OP, "comma": COMMA, "colon": COLON, "dotdot": DOTDOT}


def _unexpected_character(text: str, pos: int, filename: str, line: int, col: int) -> RecycleSyntaxError:
    ch = text[pos]
    hint = ""
    if ch == "'":
        hint = " (a variable is a quote followed by a NAME, e.g. 'P)"
    elif ch.isdigit() or ch == ".":
        hint = " (ranges are written 1..5)"
    msg = f"unexpected character {ch!r}{hint}; expected '(', ')', a keyword, a NAME, an integer or a 'VARIABLE"
    return RecycleSyntaxError(msg, Span(filename, line, col, line, col + 1), text)


# the forms of a game after its head: one of these after the (game ...) form was cut off by a ')'
_GAME_PARTS = frozenset({"declare", "setup", "stage", "choice", "do", "scoring", "any", "all", "let"})


def parse_text(text: str, filename: str = "<string>") -> SourceFile:
    """Parse RECYCLE text into top-level forms; raise RecycleSyntaxError with file:line:col.

    Linear in the length of the text (about 1 MB/s)."""
    text = text.removeprefix("\ufeff")
    _check_nesting(text, filename)
    # the reader only allocates (no cycles): the cyclic collector, run again and again over
    # the growing tree, would make reading a large file quadratic
    collecting = gc.isenabled()
    gc.disable()
    try:
        forms, strays = _read(text, filename)
    finally:
        if collecting:
            gc.enable()
    warnings = []
    if strays:
        t = strays[0]
        warnings.append(f"{filename}:{t.line}:{t.column}: warning: {len(strays)} stray ')' after the game form ignored")
    if not forms:
        raise RecycleSyntaxError("the file holds no game: expected '(game ...)'", Span(filename, 1, 1, 1, 1), text)
    if len(forms) > 1 and isinstance(forms[0], SList) and forms[0].head == "game" \
            and isinstance(forms[1], SList) and forms[1].head in _GAME_PARTS:
        # one ')' too many inside the game closed it early: the rest of the game is left outside
        g, rest = forms[0].span, forms[1]
        outside = f"({rest.head} ...) at {rest.span.line}:{rest.span.column}"
        if strays:
            where = strays[0]
            msg = (f"this ')' closes nothing: one ')' too many earlier closed (game ...) at "
                   f"{g.end_line}:{g.end_column - 1}, leaving {outside} outside the game")
        else:
            where = Span(filename, g.end_line, g.end_column - 1, g.end_line, g.end_column)
            msg = f"this ')' closes (game ...) too early, leaving {outside} outside the game: one ')' too many?"
        raise RecycleSyntaxError(msg, where, text)
    if len(forms) > 1:
        s = forms[1].span
        warnings.append(f"{s}: warning: text after the game form ignored")
    return SourceFile(forms, text, filename, tuple(warnings))


def _os_reason(exc: OSError) -> str:
    """Why a file could not be read, in a few words ("no such file")."""
    reasons = {errno.ENOENT: "no such file", errno.EACCES: "permission denied", errno.EISDIR: "it is a folder",
               errno.ENOTDIR: "no such file (a part of the path is not a folder)"}
    return reasons.get(exc.errno) or (exc.strerror or str(exc)).lower()


def parse_file(path: str | Path) -> SourceFile:
    """Read and parse a .rcy file: a regular file of at most ``MAX_SOURCE_BYTES`` bytes (a
    FIFO, a device such as /dev/zero or a folder is refused before anything is read)."""
    data = read_source(path)
    return parse_text(decode_source(data, str(path)), str(path))


def read_source(path: str | Path) -> bytes:
    """The bytes of a .rcy file, unparsed: a regular file of at most ``MAX_SOURCE_BYTES``
    bytes (else ``RecycleFileError``; a FIFO, a device or a folder is refused before anything
    is read). ``recycle replay`` compares their hash with the record's before parsing them."""
    path = Path(path)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise RecycleFileError(f"cannot read {path}: {_os_reason(exc)}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = "it is a folder" if stat.S_ISDIR(st.st_mode) else "it is not a regular file"
            raise RecycleFileError(f"cannot read {path}: {what} (a game is a .rcy text file)")
        if st.st_size > MAX_SOURCE_BYTES:
            raise RecycleFileError(f"cannot read {path}: the file has {st.st_size:,} bytes, more than the "
                                     f"limit of {MAX_SOURCE_BYTES:,}")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_SOURCE_BYTES + 1)  # the file may have grown since
    except OSError as exc:
        raise RecycleFileError(f"cannot read {path}: {_os_reason(exc)}") from None
    finally:
        os.close(fd)
    return data


_TOKEN_WORDS = {
    "RPAR": "')'", "LPAR": "'('", "INT": "an integer", "VAR": "a 'VARIABLE", "SYMBOL": "a keyword or NAME",
    "OP": "an operator", "COMMA": "','", "COLON": "':'", "DOTDOT": "'..'", "$END": "the end of the file",
}
_LARK: list = []


def reference_parse(text: str, filename: str = "<string>"):
    """``(forms, stray ')' spans)`` of ``text`` read by Lark from ``grammar.lark`` (for the tests
    that check the reader against the grammar); raises RecycleSyntaxError like ``_read``.
    Lines end at ``\\n`` only here."""
    from lark import Lark, Token, Transformer
    from lark.exceptions import UnexpectedInput

    if not _LARK:
        _LARK.append(Lark.open("grammar.lark", rel_to=__file__, parser="lalr", maybe_placeholders=False))

    def span(tok) -> Span:
        return Span(filename, tok.line, tok.column, tok.end_line, tok.end_column)

    class ToAst(Transformer):
        too_large: list = []

        def int(self, children):
            (tok,) = children
            digits = str(tok).lstrip("0")
            if len(digits) > 19 or (len(digits) > 18 and int(digits) > MAX_LITERAL):
                self.too_large.append(tok)
                return Atom(INT, 0, span(tok))
            return Atom(INT, int(tok), span(tok))

        def var(self, children):
            return Atom(VAR, str(children[0])[1:], span(children[0]))

        def symbol(self, children):
            return Atom(SYMBOL, str(children[0]), span(children[0]))

        def op(self, children):
            return Atom(OP, str(children[0]), span(children[0]))

        def comma(self, children):
            return Atom(COMMA, ",", span(children[0]))

        def colon(self, children):
            return Atom(COLON, ":", span(children[0]))

        def dotdot(self, children):
            return Atom(DOTDOT, "..", span(children[0]))

        def list(self, children):
            lpar, *items, rpar = children
            return SList(tuple(items), Span(filename, lpar.line, lpar.column, rpar.end_line, rpar.end_column))

        def start(self, children):
            return (tuple(c for c in children if not isinstance(c, Token)),
                    [span(c) for c in children if isinstance(c, Token)])

    try:
        tree = _LARK[0].parse(text)
    except UnexpectedInput as exc:
        raise _lark_error(exc, text, filename) from None
    to_ast = ToAst()
    to_ast.too_large = []
    forms, strays = to_ast.transform(tree)
    if to_ast.too_large:
        t = to_ast.too_large[0]
        raise RecycleSyntaxError(f"the integer {str(t)[:24]}{'...' if len(t) > 24 else ''} is beyond 64 bits "
                                 f"(at most {MAX_LITERAL})", span(t), text)
    return forms, strays


def _lark_error(exc, text: str, filename: str) -> RecycleSyntaxError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    line, col = exc.line if exc.line and exc.line > 0 else 1, exc.column if exc.column and exc.column > 0 else 1
    span = Span(filename, line, col, line, col + 1)
    if isinstance(exc, UnexpectedCharacters):
        return _unexpected_character(text, exc.pos_in_stream, filename, line, col)
    if isinstance(exc, UnexpectedEOF):
        msg = "unexpected end of file: expected ')'"
    elif isinstance(exc, UnexpectedToken):
        got = "the end of the file" if exc.token.type == "$END" else repr(str(exc.token))
        expected = sorted({_TOKEN_WORDS.get(t, t) for t in exc.expected})
        if exc.token.type == "$END":
            msg = f"unexpected end of file; expected {', '.join(expected)}"
        else:
            msg = f"unexpected {got}; expected {' or '.join(expected)}"
            span = Span(filename, exc.token.line, exc.token.column, exc.token.end_line or line,
                        exc.token.end_column or col + 1)
    else:  # pragma: no cover - lark has no other kinds today
        msg = str(exc).splitlines()[0]
    return RecycleSyntaxError(msg, span, text)
