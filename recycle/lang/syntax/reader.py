"""Text to AST: Lark's LALR parser of ``grammar.lark`` and a Transformer building
positioned, frozen nodes.

The AST is the s-expression structure of the file: ``SList`` for a parenthesised form
and ``Atom`` for a token, each with a ``Span``. The type-directed reading of forms (is
``(top X)`` a card or a location?) happens once, in the compiler, which reports
positioned errors for forms of the wrong shape.

Lark is the one reader (the design names it): its LALR parser is built once per process and
reads the largest corpus game (12 KB) in about 13 ms and dense text at about 250 KB/s, so
``MAX_SOURCE_BYTES`` is set so that ``recycle check`` of the largest file allowed, in its costliest
shape, takes under two seconds (reading is about half of it; ``study/largest.py``).
Before Lark reads, a scan of the parentheses rejects too deep nesting and unclosed forms
(judged by indentation), and after, Lark's errors become our positioned messages.
"""

from __future__ import annotations

import errno
import gc
import os
import re
import stat
import threading
from typing import Any
from dataclasses import dataclass
from pathlib import Path

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ...errors import RecycleFileError, RecycleSyntaxError, Span

MAX_NESTING = 200
MAX_SOURCE_BYTES = 150_000  # 12 times the largest corpus game; `recycle check` of the costliest such file takes about 1.3 s (tools/bench.py limits)
MAX_LITERAL = 2**63 - 1

# a comment that starts so is a structured comment (``notes``): names of options, storages' labels
NOTE_PREFIX = ";@"

# Atom kinds
INT, VAR, SYMBOL, OP, COMMA, COLON, DOTDOT = "int", "var", "symbol", "op", "comma", "colon", "dotdot"


@dataclass(frozen=True, slots=True)
class Atom:
    """One token: an integer, a 'VARIABLE, a keyword or NAME, an operator or punctuation."""

    kind: str
    value: Any  # an int for INT, else a str
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
    # the structured comments (``;@ ...``) in the order of the text: ``(Span, text after ";@")``,
    # read by ``notes.read_notes`` (the forms do not depend on them: older readers ignore them)
    notes: tuple = ()


# Python's str.splitlines() line boundaries: the error display quotes lines as it splits them,
# so positions count every one of them as a line break (``\r\n`` is one); all are white space
# to the reader, and a comment ends at any of them (a file with CR-only line endings reads
# as lines, not as one comment)
_BREAKS = "\n\r\f\v\x1c\x1d\x1e\x85\u2028\u2029"
_BREAK = re.compile("\r\n|[" + _BREAKS + "]")
_OTHER_BREAKS = re.compile("[" + _BREAKS[1:] + "]")
# Lark counts lines at "\n" only: the text it reads has every other break turned into "\n"
# ("\r\n" into " \n"), which keeps every offset and makes Lark's lines and columns ours
_TO_NEWLINE = str.maketrans({c: "\n" for c in _BREAKS[1:]})
_PARENS = re.compile("[()]|;[^" + _BREAKS + "]*")


def position(text: str, pos: int) -> tuple[int, int]:
    """The 1-based (line, column) of offset ``pos`` (line breaks as ``str.splitlines``)."""
    line, start = 1, 0
    for m in _BREAK.finditer(text, 0, pos):
        line, start = line + 1, m.end()
    return line, pos - start + 1


def _check_nesting(text: str, filename: str) -> None:
    """Reject absurdly deep or unclosed parentheses before Lark reads the text, with a position.

    The depth limit keeps every later walk of the tree (the compiler recurses) far from
    Python's recursion limit, whatever the file; an unclosed form is reported here because
    the form whose ')' is missing is better judged by indentation (``_unclosed``) than by
    where the file ends, which is all Lark could say."""
    depth = 0
    for m in _PARENS.finditer(text):
        ch = m.group()
        if ch == "(":
            depth += 1
            if depth > MAX_NESTING:
                line, col = position(text, m.start())
                raise RecycleSyntaxError(
                    f"forms are nested more than {MAX_NESTING} deep", Span(filename, line, col, line, col + 1), text
                )
        elif ch == ")" and depth:
            depth -= 1
    if depth:
        raise _unclosed(text, filename)


_HEAD = re.compile(r"\(\s*([A-Za-z][A-Za-z0-9_]*|==|!=|<=|>=|//|[<>+\-*%^])?")


def _closes(form: tuple, indent: int) -> bool:
    """Whether a line starting at column ``indent`` is out of ``form`` (line, column,
    indentation of its line, offset) by its indentation: at or left of the indentation of
    the line the form opens on, or aligned with the form's own '(' (a sibling)."""
    return form[1] == indent or form[2] >= indent


def _dedents(text: str, limit: int = 10_000) -> list[tuple]:
    """The lines that dedent out of a still-open form: ``(form, line)`` pairs, ``form`` as
    (line, column, indentation of its line, offset) and ``line`` as (number, column of its
    first token, offset of that token), in the order of the text (at most ``limit``)."""
    open_: list[tuple[int, int, int, int]] = []
    found: list[tuple] = []
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        body = line.lstrip(" \t")
        indent = len(line) - len(body) + 1
        if body[:1] not in ("", ")", ";") and not body[:1].isspace():
            for form in reversed(open_):  # the innermost form this line's indentation closes
                if _closes(form, indent):
                    found.append((form, (number, indent, offset + indent - 1)))
                    if len(found) >= limit:
                        return found
                    break
        for m in _PARENS.finditer(line):
            if m.group() == "(":
                open_.append((number, m.start() + 1, indent, offset + m.start()))
            elif m.group() == ")" and open_:
                open_.pop()
        offset += len(line)
    return found


def _misaligned(text: str) -> int:
    """How many lines start at a different depth of parentheses than the line before them at
    the same indentation (with no line indented less between them): 0 in a well-indented file.

    A missing ')' in the middle of a file shifts the depth of every line after it, so the
    next line at its form's indentation counts (one for each level up to the top); a ')'
    inserted at the wrong place counts as much, and one missing at the very end of the file
    counts nothing. So the place for a missing ')' that makes this fewer is convincing, and
    when no place does, the ')' belongs at the end of the file."""
    depth = count = 0
    levels: list[tuple[int, int]] = []  # (indentation, depth) of the last line at each indentation
    for line in text.splitlines(keepends=True):
        body = line.lstrip(" \t")
        indent = len(line) - len(body)
        closing = len(body) - len(body.lstrip(")"))  # a ')' put before the line's first form
        if closing and body[closing : closing + 1] not in ("", ";") and not body[closing : closing + 1].isspace():
            depth = max(0, depth - closing)
            body, line = body[closing:], line[:indent] + line[indent + closing :]
        if body[:1] not in ("", ")", ";") and not body[:1].isspace():
            while levels and levels[-1][0] > indent:
                levels.pop()
            if levels and levels[-1][0] == indent:
                count += levels[-1][1] != depth
                levels[-1] = (indent, depth)
            else:
                levels.append((indent, depth))
        for m in _PARENS.finditer(line):
            if m.group() == "(":
                depth += 1
            elif m.group() == ")" and depth:
                depth -= 1
    return count


def _unclosed(text: str, filename: str) -> RecycleSyntaxError:
    """The error for a text that ends with unclosed forms, naming the form whose ')' is
    missing as an editor judges it: by indentation, not by where the file ends.

    A form's body is indented deeper than the line it opens on; a line that starts (not with
    ')') at or left of that indentation, or aligned with the form's '(', is out of the form
    (``_closes``; the line's indentation counts, not the form's column, because a form opened
    mid-line, as ``(end`` in ``(stage player (end``, often indents its body from the start of
    the line). Every line that dedents out of a still-open form is a candidate place for the
    missing ')'. Real games have a few such lines even when correct, so the candidate chosen
    is the one where inserting the ')' leaves the fewest lines at a depth that disagrees with
    their indentation (``_misaligned``), then the fewest dedenting lines (the earliest on a
    tie). In ``(game`` / ``  (stage ...`` (its ')' missing) / ``  (scoring ...)`` the ')'
    belongs before ``(scoring``, and the stage is named. Only a candidate that leaves fewer
    misaligned lines than the text itself is convincing: otherwise (the most common slip, the
    file's last ')' forgotten) the outermost unclosed form is named, with ')' to add at the
    end of the file. Deleting one ')' at the end of a line of the shipped games, 87% of the
    forms named are the one whose ')' was deleted and 1.5% are the outermost form (measured
    once; the tests check the first stage and setup block of each game); deleting the last ')', the outermost
    form is named in every one (tested)."""
    found = _dedents(text)
    if found:
        misaligned = _misaligned(text)
        best = None
        first: dict = {}  # the first line out of each form: later ones are the same form closed later
        for form, follower in found:
            first.setdefault(form, follower)
        # each candidate re-reads the whole text twice: at most about 8 MB read for a large file
        for form, follower in list(first.items())[-max(1, min(40, 4_000_000 // max(1, len(text)))) :]:
            fixed = text[: follower[2]] + ")" + text[follower[2] :]
            score = (_misaligned(fixed), len(_dedents(fixed, 1000)))
            if best is None or score < best[0]:
                best = (score, form, follower)
        if best[0][0] < misaligned:  # type: ignore[index]  # a follower was found: best is set
            return _not_closed(text, filename, best[1], best[2])  # type: ignore[index]
    open_ = []
    for m in _PARENS.finditer(text):
        if m.group() == "(":
            open_.append(m.start())
        elif m.group() == ")" and open_:
            open_.pop()
    line, col = position(text, open_[0])
    opened = _HEAD.match(text, open_[0])
    head = opened.group(1) if opened else None
    what = f"({head} ...)" if head else "this '('"
    if len(open_) == 1:
        advice = "add ')' at the end of the file"
    else:
        advice = (
            f"{len(open_)} forms are left open, this one and {len(open_) - 1} inside it: add ')' at the end "
            "of the file and where each of the others ends"
        )
    return RecycleSyntaxError(f"{what} is never closed: {advice}", Span(filename, line, col, line, col + 1), text)


def _not_closed(text: str, filename: str, form: tuple, follower: tuple) -> RecycleSyntaxError:
    """The message naming ``form`` (line, column, indentation, offset) as not closed before the
    ``follower`` line (line, column, offset)."""
    line, col, _, at = form
    head = _HEAD.match(text, at).group(1)  # type: ignore[union-attr]  # _HEAD matches anywhere (its group may be empty)
    what = f"the ({head} ...)" if head else "the form"
    outer = re.search(r"\(\s*([A-Za-z][A-Za-z0-9_]*)\s*$", text[text.rfind("\n", 0, at) + 1 : at])
    if not head and outer:  # the list of a (choice ( or (do (
        what = f"the '(' of ({outer.group(1)} ("
    follow = text[follower[2] :].split(None, 1)[0]
    if follow.startswith("("):
        follow = "(" + (_HEAD.match(text, follower[2]).group(1) or "") + " ..."  # type: ignore[union-attr]
    return RecycleSyntaxError(
        f"{what} opened on line {line} is never closed: add its ')' before line {follower[0]}, whose "
        f"{follow} is indented as outside it",
        Span(filename, line, col, line, col + 1),
        text,
    )


def decode_source(data: bytes, filename: str) -> str:
    """Bytes of a .rcy file to text: UTF-8, an optional byte-order mark dropped."""
    if len(data) > MAX_SOURCE_BYTES:
        raise RecycleSyntaxError(
            f"the file is larger than the limit of {MAX_SOURCE_BYTES:,} bytes", Span(filename, 1, 1, 1, 1)
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8")  # valid up to the first bad byte
        line, col = position(before, len(before))
        raise RecycleSyntaxError(
            f"the file is not UTF-8 text (byte 0x{data[exc.start]:02x})", Span(filename, line, col, line, col + 1)
        ) from None
    return text.removeprefix("\ufeff")


class _ToAst(Transformer):
    """Lark's reductions to the positioned AST, called by the LALR parser as it reduces (no
    tree is built, and nothing recurses however deep the forms): positions come from the
    tokens (``line``, ``column``, ``end_line``, ``end_column``, what ``propagate_positions``
    would copy into a ``meta``), a list's from its two parentheses."""

    def __init__(self):
        super().__init__()
        self.file = "<string>"
        self.too_large: list = []  # integer tokens beyond 64 bits, reported after the parse
        self.notes: list = []  # the structured comments (``;@``), as Lark's lexer passes them

    def comment(self, tok):
        """Lark's lexer callback for every (ignored) comment: keep the structured ones."""
        if tok.startswith(NOTE_PREFIX):
            self.notes.append((self._span(tok), str(tok)[len(NOTE_PREFIX) :]))
        return tok

    def _span(self, tok) -> Span:
        return Span(self.file, tok.line, tok.column, tok.end_line, tok.end_column)

    def int(self, children):
        (tok,) = children
        digits = tok.lstrip("0")
        if len(digits) > 19 or (len(digits) > 18 and int(digits) > MAX_LITERAL):
            self.too_large.append(tok)
            return Atom(INT, 0, self._span(tok))
        return Atom(INT, int(tok), self._span(tok))

    def var(self, children):
        return Atom(VAR, children[0][1:], self._span(children[0]))

    def symbol(self, children):
        return Atom(SYMBOL, str(children[0]), self._span(children[0]))

    def op(self, children):
        return Atom(OP, str(children[0]), self._span(children[0]))

    def comma(self, children):
        return Atom(COMMA, ",", self._span(children[0]))

    def colon(self, children):
        return Atom(COLON, ":", self._span(children[0]))

    def dotdot(self, children):
        return Atom(DOTDOT, "..", self._span(children[0]))

    def list(self, children):
        lpar, rpar = children[0], children[-1]
        items = tuple(children[1:-1])
        span = Span(self.file, lpar.line, lpar.column, rpar.end_line, rpar.end_column)
        if len(items) == 4 and items[1].__class__ is Atom and items[1].value in _LOCATION_KINDS:
            return _family_member(items, span)
        return SList(items, span)

    def start(self, children):
        return (
            tuple(c for c in children if not isinstance(c, Token)),
            [self._span(c) for c in children if isinstance(c, Token)],
        )


_LOCATION_KINDS = frozenset({"vloc", "iloc", "hloc", "oloc", "mem"})  # values.KINDS
MAX_MEMBER = 999  # the members of a family of locations are numbered 0..MAX_MEMBER


def _family_member(items: tuple, span: Span) -> SList:
    """``(OWNER KIND NAME INDEX)``, a member of a family of locations, as the location it
    names: ``(OWNER KIND NAME[3])`` for a literal index, else ``(OWNER KIND (member NAME
    INDEX))``, a computed name (docs/reference.md, Families of locations). Everything after
    reading then sees an ordinary location."""
    owner, kind, name, index = items
    if not (name.__class__ is Atom and name.kind == SYMBOL and name.value.isupper()):
        return SList(items, span)  # not a family: the compiler says what is wrong
    where = Span(name.span.file, name.span.line, name.span.column, index.span.end_line, index.span.end_column)
    if index.__class__ is Atom and index.kind == INT and index.value <= MAX_MEMBER:
        return SList((owner, kind, Atom(SYMBOL, f"{name.value}[{index.value}]", where)), span)
    return SList((owner, kind, SList((Atom(SYMBOL, "member", name.span), name, index), where)), span)


_PARSER: list = []  # the one Lark parser of the process, built on first use
_PARSING = threading.Lock()  # the parser's transformer holds the file being read


def _parser():
    """Lark's LALR parser of ``grammar.lark``, built once per process (about 20 ms)."""
    if not _PARSER:
        to_ast = _ToAst()
        _PARSER.append(
            (
                Lark.open(
                    "grammar.lark",
                    rel_to=__file__,
                    parser="lalr",
                    lexer="basic",
                    transformer=to_ast,
                    maybe_placeholders=False,
                    lexer_callbacks={"COMMENT": to_ast.comment},
                ),
                to_ast,
            )
        )
    return _PARSER[0]


def _lark_read(text: str, filename: str):
    """``(forms, stray ')' spans, structured comments)`` of ``text`` as Lark reads it; Lark's errors become
    RecycleSyntaxErrors with the position and what was expected, in words."""
    lark_text = text.replace("\r\n", " \n").translate(_TO_NEWLINE) if _OTHER_BREAKS.search(text) else text
    with _PARSING:
        parser, to_ast = _parser()
        to_ast.file, to_ast.too_large, to_ast.notes = filename, [], []
        try:
            forms, strays = parser.parse(lark_text)
        except UnexpectedInput as exc:
            raise _lark_error(exc, text, filename) from None
        too_large, notes = to_ast.too_large, tuple(to_ast.notes)
    if too_large:
        t = too_large[0]
        raise RecycleSyntaxError(
            f"the integer {t[:24]}{'...' if len(t) > 24 else ''} is beyond 64 bits (at most {MAX_LITERAL})",
            Span(filename, t.line, t.column, t.end_line, t.end_column),
            text,
        )
    return forms, strays, notes


# Lark's terminals (grammar.lark) in words
_TOKEN_WORDS = {
    "RPAR": "')'",
    "LPAR": "'('",
    "INT": "an integer",
    "VAR": "a 'VARIABLE",
    "SYMBOL": "a keyword or NAME",
    "OP": "an operator",
    "COMMA": "','",
    "COLON": "':'",
    "DOTDOT": "'..'",
    "$END": "the end of the file",
}


def _unexpected_character(text: str, pos: int, filename: str, line: int, col: int) -> RecycleSyntaxError:
    """A character no token of the grammar starts with, and a hint when it looks like a slip."""
    ch = text[pos]
    hint = ""
    if ch == "'":
        hint = " (a variable is a quote followed by a NAME, e.g. 'P)"
    elif ch.isdigit() or ch == ".":
        hint = " (ranges are written 1..5)"
    msg = f"unexpected character {ch!r}{hint}; expected '(', ')', a keyword, a NAME, an integer or a 'VARIABLE"
    return RecycleSyntaxError(msg, Span(filename, line, col, line, col + 1), text)


def _lark_error(exc: UnexpectedInput, text: str, filename: str) -> RecycleSyntaxError:
    """One of Lark's errors as ours: file:line:column, what was found and what was expected."""
    line = exc.line if exc.line and exc.line > 0 else 1
    col = exc.column if exc.column and exc.column > 0 else 1
    span = Span(filename, line, col, line, col + 1)
    if isinstance(exc, UnexpectedCharacters):
        return _unexpected_character(text, exc.pos_in_stream, filename, line, col)  # type: ignore[arg-type]  # set on UnexpectedCharacters
    expected = " or ".join(sorted({_TOKEN_WORDS.get(t, t) for t in exc.expected}))  # type: ignore[attr-defined]  # UnexpectedToken and UnexpectedEOF have it
    if isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        tok = exc.token
        span = Span(filename, tok.line, tok.column, tok.end_line or line, tok.end_column or col + 1)
        return RecycleSyntaxError(f"unexpected {str(tok)!r}; expected {expected}", span, text)
    # the end of the file (unclosed forms are reported before Lark reads, by _check_nesting)
    return RecycleSyntaxError(f"unexpected end of file; expected {expected}", span, text)


# the forms of a game after its head: one of these after the (game ...) form was cut off by a ')'
_GAME_PARTS = frozenset({"declare", "setup", "stage", "choice", "do", "scoring", "any", "all", "let"})


def parse_text(text: str, filename: str = "<string>") -> SourceFile:
    """Parse RECYCLE text into top-level forms; raise RecycleSyntaxError with file:line:col.

    Linear in the length of the text (about 250 KB/s of dense forms)."""
    text = text.removeprefix("\ufeff")
    _check_nesting(text, filename)
    # the Transformer only allocates (no cycles): the cyclic collector, run again and again over
    # the growing tree, would make reading a large file quadratic
    collecting = gc.isenabled()
    gc.disable()
    try:
        forms, strays, notes = _lark_read(text, filename)
    finally:
        if collecting:
            gc.enable()
    warnings = []
    if strays:
        t = strays[0]
        warnings.append(f"{filename}:{t.line}:{t.column}: warning: {len(strays)} stray ')' after the game form ignored")
    if not forms:
        raise RecycleSyntaxError("the file holds no game: expected '(game ...)'", Span(filename, 1, 1, 1, 1), text)
    if (
        len(forms) > 1
        and isinstance(forms[0], SList)
        and forms[0].head == "game"
        and isinstance(forms[1], SList)
        and forms[1].head in _GAME_PARTS
    ):
        # one ')' too many inside the game closed it early: the rest of the game is left outside
        g, rest = forms[0].span, forms[1]
        outside = f"({rest.head} ...) at {rest.span.line}:{rest.span.column}"
        if strays:
            where = strays[0]
            msg = (
                f"this ')' closes nothing: one ')' too many earlier closed (game ...) at "
                f"{g.end_line}:{g.end_column - 1}, leaving {outside} outside the game"
            )
        else:
            where = Span(filename, g.end_line, g.end_column - 1, g.end_line, g.end_column)
            msg = f"this ')' closes (game ...) too early, leaving {outside} outside the game: one ')' too many?"
        raise RecycleSyntaxError(msg, where, text)
    if len(forms) > 1:
        s = forms[1].span
        warnings.append(f"{s}: warning: text after the game form ignored")
    return SourceFile(forms, text, filename, tuple(warnings), notes)


def _os_reason(exc: OSError) -> str:
    """Why a file could not be read, in a few words ("no such file")."""
    reasons = {
        errno.ENOENT: "no such file",
        errno.EACCES: "permission denied",
        errno.EISDIR: "it is a folder",
        errno.ENOTDIR: "no such file (a part of the path is not a folder)",
    }
    return reasons.get(exc.errno) or (exc.strerror or str(exc)).lower()  # type: ignore[arg-type]  # None is simply not a key


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
            raise RecycleFileError(
                f"cannot read {path}: the file has {st.st_size:,} bytes, more than the limit of {MAX_SOURCE_BYTES:,}"
            )
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_SOURCE_BYTES + 1)  # the file may have grown since
    except OSError as exc:
        raise RecycleFileError(f"cannot read {path}: {_os_reason(exc)}") from None
    finally:
        os.close(fd)
    return data
