"""Text to AST: the Lark grammar and a Transformer building positioned, frozen nodes.

The AST is the s-expression structure of the file: ``SList`` for a parenthesised form
and ``Atom`` for a token, each with a ``Span``. The type-directed reading of forms (is
``(top X)`` a card or a location?) happens once, in the compiler, which reports
positioned errors for forms of the wrong shape.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import RecycleSyntaxError, Span

MAX_NESTING = 200
MAX_SOURCE_BYTES = 2_000_000
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


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark.open("grammar.lark", rel_to=__file__, parser="lalr", propagate_positions=True,
                     maybe_placeholders=False)


class _ToAst(Transformer):
    def __init__(self, filename: str):
        super().__init__()
        self.filename = filename
        self.too_large: list[Token] = []

    def _span(self, tok: Token) -> Span:
        return Span(self.filename, tok.line, tok.column, tok.end_line, tok.end_column)

    def int(self, children):
        (tok,) = children
        if len(tok) > 18 and int(tok) > MAX_LITERAL:
            self.too_large.append(tok)
        return Atom(INT, int(tok), self._span(tok))

    def var(self, children):
        (tok,) = children
        return Atom(VAR, str(tok)[1:], self._span(tok))

    def symbol(self, children):
        (tok,) = children
        return Atom(SYMBOL, str(tok), self._span(tok))

    def op(self, children):
        (tok,) = children
        return Atom(OP, str(tok), self._span(tok))

    def comma(self, children):
        return Atom(COMMA, ",", self._span(children[0]))

    def colon(self, children):
        return Atom(COLON, ":", self._span(children[0]))

    def dotdot(self, children):
        return Atom(DOTDOT, "..", self._span(children[0]))

    def list(self, children):
        lpar, *items, rpar = children
        return SList(tuple(items), Span(self.filename, lpar.line, lpar.column, rpar.end_line,
                                        rpar.end_column))

    def start(self, children):
        forms = tuple(c for c in children if not isinstance(c, Token))
        strays = [c for c in children if isinstance(c, Token)]
        return forms, strays


def _check_nesting(text: str, filename: str) -> None:
    """Reject unbalanced or absurdly deep parentheses before Lark sees them, with a position."""
    depth = 0
    opened: list[tuple[int, int]] = []
    line, col = 1, 0
    in_comment = False
    for ch in text:
        col += 1
        if ch == "\n":
            line, col, in_comment = line + 1, 0, False
            continue
        if in_comment:
            continue
        if ch == ";":
            in_comment = True
        elif ch == "(":
            depth += 1
            opened.append((line, col))
            if depth > MAX_NESTING:
                raise RecycleSyntaxError(
                    f"forms are nested more than {MAX_NESTING} deep", Span(filename, line, col, line, col + 1), text)
        elif ch == ")":
            if depth:
                depth -= 1
                opened.pop()
    if opened:
        l, c = opened[-1]
        raise RecycleSyntaxError(
            f"this '(' is never closed (expected ')' before the end of the file; {len(opened)} unclosed)",
            Span(filename, l, c, l, c + 1), text)


def decode_source(data: bytes, filename: str) -> str:
    """Bytes of a .rcy file to text: UTF-8, an optional byte-order mark dropped."""
    if len(data) > MAX_SOURCE_BYTES:
        raise RecycleSyntaxError(f"file is larger than {MAX_SOURCE_BYTES} bytes", Span(filename, 1, 1, 1, 1))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        raise RecycleSyntaxError(f"the file is not UTF-8 text (byte 0x{data[exc.start]:02x})",
                                 Span(filename, line, col, line, col + 1)) from None
    return text.removeprefix("\ufeff")


def parse_text(text: str, filename: str = "<string>") -> SourceFile:
    """Parse RECYCLE text into top-level forms; raise RecycleSyntaxError with file:line:col."""
    text = text.removeprefix("\ufeff")
    _check_nesting(text, filename)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, filename) from None
    to_ast = _ToAst(filename)
    forms, strays = to_ast.transform(tree)
    if to_ast.too_large:
        t = to_ast.too_large[0]
        raise RecycleSyntaxError(f"the integer {str(t)[:24]}{'...' if len(t) > 24 else ''} is beyond 64 bits "
                                 f"(at most {MAX_LITERAL})", to_ast._span(t), text)
    warnings = []
    if strays:
        t = strays[0]
        warnings.append(f"{filename}:{t.line}:{t.column}: warning: {len(strays)} stray ')' after the game form ignored")
    if not forms:
        raise RecycleSyntaxError("the file holds no game: expected '(game ...)'", Span(filename, 1, 1, 1, 1), text)
    if len(forms) > 1:
        s = forms[1].span
        warnings.append(f"{s}: warning: text after the game form ignored")
    return SourceFile(forms, text, filename, tuple(warnings))


def parse_file(path: str | Path) -> SourceFile:
    """Read and parse a .rcy file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RecycleSyntaxError(f"cannot read {path}: {exc.strerror}") from None
    return parse_text(decode_source(data, str(path)), str(path))


_TOKEN_WORDS = {
    "RPAR": "')'", "LPAR": "'('", "INT": "an integer", "VAR": "a 'VARIABLE", "SYMBOL": "a keyword or NAME",
    "OP": "an operator", "COMMA": "','", "COLON": "':'", "DOTDOT": "'..'", "$END": "the end of the file",
}


def _syntax_error(exc: UnexpectedInput, text: str, filename: str) -> RecycleSyntaxError:
    line, col = exc.line if exc.line and exc.line > 0 else 1, exc.column if exc.column and exc.column > 0 else 1
    span = Span(filename, line, col, line, col + 1)
    if isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else "?"
        hint = ""
        if ch == "'":
            hint = " (a variable is a quote followed by a NAME, e.g. 'P)"
        elif ch.isdigit() or ch == ".":
            hint = " (ranges are written 1..5)"
        msg = f"unexpected character {ch!r}{hint}; expected '(', ')', a keyword, a NAME, an integer or a 'VARIABLE"
    elif isinstance(exc, UnexpectedEOF):
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
