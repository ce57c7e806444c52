"""Mutated RECYCLE sources for fuzzing, and the check every input must pass.

Used by ``tests/study/test_fuzz_mutations.py`` and ``tools/fuzz.py``; it needs Hypothesis (the ``test``
extra). ``mutated_inputs()`` is a Hypothesis strategy: it takes a seed
game (every corpus game, when ``../shared/corpus/cardstock`` exists, and ``games/*.rcy``) or
nothing, and applies a few mutations: delete, duplicate, swap or replace tokens and
parentheses, insert random bytes or text, wrap a form in deep nesting, replace integers with
huge ones, truncate; the result is text or bytes (possibly not UTF-8).

``exercise(data)`` loads the input and, if it compiles, plays one random game with a small
step limit. It returns the outcome's name, or raises ``FuzzFailure`` when the interpreter
breaks its contract: a Python exception that is not a ``RecycleError``, an error message that
does not start with ``file:line:column:``, or an input that takes longer than the time bound.

``shaped_inputs(big)`` writes games whose work multiplies (nested loops, large ranges in
every expression context, very wide choices). Hand-edited game records are ``recordfuzz``'s;
the state-machine fuzzer (card conservation and views after every step) is ``statefuzz``.
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

from hypothesis import strategies as st

from ..errors import RecycleCompileError, RecycleError, RecycleRuntimeError, RecycleSyntaxError, StepLimitExceeded
from ..engine.game import load, loads

ROOT = Path(__file__).resolve().parents[2]  # the checkout: games/ and ../shared beside it
CORPUS = ROOT.parent / "shared" / "corpus" / "cardstock"
FILENAME = "fuzz.rcy"
MAX_STEPS = 2000
TIME_BOUND = 5.0  # seconds per input (load + one rollout)

OUTCOMES = ("ok", "syntax error", "compile error", "runtime error", "step limit")


def seed_files() -> list[Path]:
    """The games mutated: ``games/*.rcy`` and, when present, the corpus."""
    files = sorted((ROOT / "games").glob("*.rcy"))
    if CORPUS.is_dir():
        files += sorted(CORPUS.glob("*.rcy"))
    return files


SEEDS: list[tuple[str, str]] = [(p.stem, p.read_bytes().decode("utf-8")) for p in seed_files()]

# comments, whitespace, parentheses, and runs of anything else (atoms, operators, ', :, ..)
_TOKEN = re.compile(r";[^\n]*|\s+|[()]|[^\s();]+")
HUGE = [
    "99999999999999999999",
    "-99999999999999999999",
    "2147483648",
    "4294967296",
    "9" * 60,
    "0",
    "-1",
    "1e9",
    "00",
    "10000000",
]
WORDS = [
    "(",
    ")",
    "((",
    "))",
    "'",
    "'P",
    "..",
    ":",
    ",",
    "game",
    "stage",
    "player",
    "team",
    "choice",
    "do",
    "end",
    "all",
    "any",
    "let",
    "top",
    "bottom",
    "move",
    "remember",
    "forget",
    "repeat",
    "create",
    "deck",
    "iloc",
    "vloc",
    "hloc",
    "oloc",
    "mem",
    "sto",
    "str",
    "points",
    "sum",
    "filter",
    "union",
    "intersect",
    "disjunction",
    "partition",
    "runs",
    "subsets",
    "tuples",
    "sort",
    "random",
    "cycle",
    "owner",
    "other",
    "range",
    "tri",
    "fib",
    "^",
    "//",
    "%",
    "+",
    "-",
    "*",
    "==",
    "!=",
    "<",
    ">",
    ">=",
    "<=",
    "and",
    "or",
    "not",
    "max",
    "min",
    "size",
    "score",
    "actual",
    "cardatt",
    "swap",
    "inc",
    "dec",
    "set",
    "shuffle",
    "turn",
    "pass",
    "next",
    "current",
    "previous",
    "scoring",
    "declare",
    "setup",
    "players",
    "teams",
    "STOCK",
    "HAND",
    "0",
    "1",
    "-1",
    "3",
    "52",
    "\ufeff",
    "\u00e9",
    "\u2660",
    "\t",
    "\n",
    ";",
    '"',
    "\\",
    "\x00",
    "\r",
    "'",
    "1..",
    "..5",
    "'X'",
]


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _forms(toks: list[str]) -> list[tuple[int, int]]:
    """(start, end) token ranges of every balanced parenthesised form."""
    out, stack = [], []
    for i, t in enumerate(toks):
        if t == "(":
            stack.append(i)
        elif t == ")" and stack:
            out.append((stack.pop(), i + 1))
    return out


def _atoms(toks: list[str]) -> list[int]:
    return [i for i, t in enumerate(toks) if t not in "()" and not t.isspace() and not t.startswith(";")]


# structure-keeping mutations (the game still parses, often compiles, and runs into the
# runtime) are drawn more often than the ones that break the syntax
OPS = ["swap-atoms", "replace-atom", "huge", "int", "swap-forms", "delete-form", "duplicate-form", "move-form"] * 3 + [
    "delete",
    "duplicate",
    "swap",
    "replace",
    "delete-paren",
    "insert-paren",
    "insert-text",
    "nest",
    "nest-form",
    "truncate",
    "delete-span",
    "copy-span",
]


@st.composite
def mutated_inputs(draw, seeds=None) -> tuple[str, str | bytes]:
    """(a description, the input: text or bytes)."""
    seeds = SEEDS if seeds is None else seeds
    base = draw(st.sampled_from(["<empty>"] + [name for name, _ in seeds]))
    text = dict(seeds).get(base, "")
    toks = tokenize(text)
    ops = draw(st.lists(st.sampled_from(OPS), min_size=0 if text else 1, max_size=4))
    done = []
    for op in ops:
        n = len(toks)
        pos = draw(st.integers(0, max(n - 1, 0)))
        atoms = _atoms(toks)
        forms = _forms(toks)
        if op == "delete" and n:
            del toks[pos]
        elif op == "duplicate" and n:
            toks.insert(pos, toks[pos])
        elif op == "swap" and n > 1:
            other = draw(st.integers(0, n - 1))
            toks[pos], toks[other] = toks[other], toks[pos]
        elif op == "replace" and n:
            toks[pos] = draw(st.sampled_from(WORDS) | st.sampled_from(toks))
        elif op == "swap-atoms" and len(atoms) > 1:
            a, b = atoms[pos % len(atoms)], atoms[draw(st.integers(0, len(atoms) - 1))]
            toks[a], toks[b] = toks[b], toks[a]
        elif op == "replace-atom" and atoms:
            a = atoms[pos % len(atoms)]
            toks[a] = draw(
                st.sampled_from([w for w in WORDS if w not in "()"]) | st.sampled_from([toks[i] for i in atoms])
            )
        elif op == "int":
            ints = [i for i, t in enumerate(toks) if re.fullmatch(r"-?\d+", t)]
            if ints:
                toks[ints[pos % len(ints)]] = str(
                    draw(st.integers(-3, 60) | st.sampled_from([100, 1000, 65536, 10**6]))
                )
        elif op in ("swap-forms", "move-form") and len(forms) > 1:
            a, b = sorted([forms[pos % len(forms)], forms[draw(st.integers(0, len(forms) - 1))]])
            if a[1] <= b[0]:  # disjoint: exchange them (or move the first one to the second)
                fa, fb = toks[a[0] : a[1]], toks[b[0] : b[1]]
                if op == "swap-forms":
                    toks[b[0] : b[1]] = fa
                    toks[a[0] : a[1]] = fb
                else:
                    toks[b[0] : b[0]] = fa + [" "]
                    del toks[a[0] : a[1]]
        elif op == "delete-form" and forms:
            a, b = forms[pos % len(forms)]
            del toks[a:b]
        elif op == "duplicate-form" and forms:
            a, b = forms[pos % len(forms)]
            toks[b:b] = [" "] + toks[a:b]
        elif op == "nest-form" and forms:
            a, b = forms[pos % len(forms)]
            depth = draw(st.sampled_from([1, 2, 5, 30, 199]))
            toks[a:b] = ["(" * depth, *toks[a:b], ")" * depth]
        elif op == "delete-paren":
            parens = [i for i, t in enumerate(toks) if t in "()"]
            if parens:
                del toks[parens[pos % len(parens)]]
        elif op == "insert-paren":
            toks.insert(pos, draw(st.sampled_from(["(", ")", "()", "(()", "())"])))
        elif op == "insert-text":
            toks.insert(pos, draw(st.text(max_size=12) | st.sampled_from(WORDS)))
        elif op == "huge":
            ints = [i for i, t in enumerate(toks) if re.fullmatch(r"-?\d+", t)]
            big = draw(st.sampled_from(HUGE))
            if ints:
                toks[ints[pos % len(ints)]] = big
            else:
                toks.insert(pos, big)
        elif op == "nest":
            depth = draw(st.sampled_from([2, 10, 50, 150, 199, 200, 201, 1000, 5000]))
            end = draw(st.integers(pos, max(n, pos)))
            toks[pos:end] = ["(" * depth, *toks[pos:end], ")" * depth]
        elif op == "truncate" and n:
            del toks[pos:]
        elif op == "delete-span" and n:
            del toks[pos : pos + draw(st.integers(1, 40))]
        elif op == "copy-span" and n:
            span = toks[pos : pos + draw(st.integers(1, 60))]
            at = draw(st.integers(0, n))
            toks[at:at] = span
        else:
            continue
        done.append(f"{op}@{pos}")
    out: str | bytes = "".join(toks)
    if draw(st.integers(0, 9)) == 0:  # one in ten: bytes, maybe not UTF-8
        raw = out.encode("utf-8")
        if raw or draw(st.booleans()):
            junk = draw(
                st.binary(min_size=1, max_size=6)
                | st.sampled_from(
                    [b"\xff", b"\xfe\xff", b"\xc3", b"\xe2\x82", b"\x80", b"\xef\xbb\xbf", b"\x00", b"\xed\xa0\x80"]
                )
            )
            at = draw(st.integers(0, len(raw)))
            raw = raw[:at] + junk + raw[at:]
            done.append(f"bytes@{at}")
        out = raw
    return f"{base}: {', '.join(done) or 'unchanged'}", out


class FuzzFailure(AssertionError):
    """The interpreter broke its contract on an input."""


_POSITION = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): ")


def check_error_message(exc: RecycleError, filename: str) -> None:
    first = exc.format().splitlines()[0] if exc.format() else ""
    m = _POSITION.match(first)
    if not m or m.group("file") != filename or int(m.group("line")) < 1 or int(m.group("col")) < 1:
        raise FuzzFailure(f"{type(exc).__name__} message lacks '{filename}:line:column:': {first!r}")


def outcome_of(exc: RecycleError) -> str:
    if isinstance(exc, StepLimitExceeded):
        return "step limit"
    if isinstance(exc, RecycleSyntaxError):
        return "syntax error"
    if isinstance(exc, RecycleCompileError):
        return "compile error"
    if isinstance(exc, RecycleRuntimeError):
        return "runtime error"
    return "other RecycleError"


def exercise(
    data: str | bytes,
    seed: int = 0,
    max_steps: int = MAX_STEPS,
    time_bound: float | None = TIME_BOUND,
    max_work: int | None = None,
) -> str:
    """Load ``data`` (text via ``loads``, bytes via a temporary file and ``load``; with the
    work budget ``max_work``, by default the default) and play one game; return the
    outcome's name (``OUTCOMES``) or raise ``FuzzFailure``."""
    t0 = time.perf_counter()
    tmpdir = None
    try:
        try:
            if isinstance(data, bytes):
                tmpdir = tempfile.TemporaryDirectory(prefix="recycle-fuzz-")
                path = Path(tmpdir.name) / FILENAME
                path.write_bytes(data)
                filename = str(path)
                game = load(path, max_work=max_work)
            else:
                filename = FILENAME
                game = loads(data, FILENAME, max_work=max_work)
            game.play(seed=seed, max_steps=max_steps)
            result = "ok"
        except RecycleError as exc:
            check_error_message(exc, filename)
            result = outcome_of(exc)
        except Exception as exc:
            raise FuzzFailure(f"crash: {type(exc).__name__}: {exc}") from exc
    finally:
        if tmpdir is not None:
            tmpdir.cleanup()
    dt = time.perf_counter() - t0
    if time_bound is not None and dt > time_bound:
        raise FuzzFailure(f"slow: {dt:.1f} s (bound {time_bound} s), outcome {result}")
    return result


# -- hostile shapes: multiplying nests, ranges in every expression context, wide choices ----------
#
# Games whose work grows multiplicatively with their size: nested repeat/all/any/filter,
# ``(range 1..R)`` inside any/all/filter/sum/size in every place an expression goes (an end
# condition, a conditional, a ``set`` value, a ``let``, a repeat count, a move's index, a
# point map's award, scoring, a choice), choices of very many options, and actions repeated
# on a deck of up to 40,000 cards (shuffles, faros, swaps, moves from the bottom, new point
# maps). With ``big`` the ranges reach 200,000 and the nests four levels: every such input
# must end, or stop with a positioned error (the work budget, a limit), within the time
# bound. Without ``big`` the ranges stay small enough for any game to run in well under a
# second; the suite draws both (tests/study/test_fuzz_shapes.py).

SHAPE_SKELETON = """(game
 (setup (create players 2)
  (create deck (game iloc STOCK) {deck}))
 (do ((shuffle (game iloc STOCK))
      (all player 'P (repeat 2 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))
      (set (game points PTS) (((RANK : A) 1) ((SUIT : X) 2)))
      {setup}))
 (stage player (end (or (>= (game sto T) 3) {end}))
  {body}
  (do ((inc (game sto T)))))
 (scoring max {scoring}))
"""


@st.composite
def _range(draw, big: bool) -> str:
    hi = draw(
        st.sampled_from([200_000, 100_000, 50_000, 5_000, 300, 40, 3]) if big else st.sampled_from([1, 3, 12, 30])
    )
    lo = draw(st.sampled_from([1] * 8 + [0, -5]))  # a negative bound is refused (a compile error)
    return f"(range {lo}..{hi})"


@st.composite
def _collection(draw, big: bool, var: str) -> str:
    return draw(
        st.one_of(
            _range(big),
            st.sampled_from(
                [
                    "(game iloc STOCK)",
                    "((current player) iloc HAND)",
                    "player",
                    "(other player)",
                    "(union (game iloc STOCK) (game iloc STOCK))",
                ]
            ),
            st.builds(
                lambda r, c: f"(filter {r} '{var}F {c})",
                _range(big),
                st.sampled_from([f"(> '{var}F 2)", "(== 1 1)", f"(!= '{var}F 0)"]),
            ),
        )
    )


@st.composite
def _nested_bool(draw, big: bool, depth: int) -> str:
    """A condition whose work is the product of its collections' sizes."""
    var = f"I{depth}"
    coll = draw(_collection(big, var))
    if depth <= 1:
        body = draw(st.sampled_from(["(== 1 0)", "(== 1 1)", "(> (size (game iloc STOCK)) 100)"]))
    else:
        body = draw(_nested_bool(big, depth - 1))
    q = draw(st.sampled_from(["any", "all"]))
    return f"({q} {coll} '{var} {body})"


@st.composite
def _int_expr(draw, big: bool) -> str:
    depth = draw(st.integers(1, 4 if big else 2))
    return draw(
        st.one_of(
            st.builds(lambda r: f"(size {r})", _range(big)),
            st.builds(lambda c: f"(size (filter {c} 'Q {draw(_nested_bool(big, depth))}))", _range(big)),
            st.builds(
                lambda r: f"(sum (filter (game iloc STOCK) 'C (any {r} 'J (== 1 0))) using (game points PTS))",
                _range(big),
            ),
            st.just("(size (game iloc STOCK))"),
        )
    )


@st.composite
def _nested_action(draw, big: bool, depth: int) -> str:
    n = draw(st.sampled_from([100_000, 10_000, 1000, 2]) if big else st.sampled_from([0, 2, 10]))
    inner = "(inc (game sto X))" if depth <= 1 else draw(_nested_action(big, depth - 1))
    return draw(
        st.one_of(
            st.just(f"(repeat {n} {inner})"),
            st.builds(lambda c: f"(all {c} 'A{depth} {inner})", _collection(big, f"A{depth}")),
            st.builds(lambda c: f"(any {c} 'A{depth} {inner})", _collection(big, f"A{depth}")),
            st.builds(lambda b: f"({b} {inner})", _nested_bool(big, 1)),
        )
    )


DECK = "(deck (RANK (A, B, C, D)) (SUIT (X, Y)))"
BIG_ACTIONS = [
    "(shuffle (game iloc STOCK))",
    "(shuffle faro (game iloc STOCK) (game iloc PILE))",
    "(swap (game iloc STOCK) (game iloc PILE))",
    "(swap (bottom (game iloc STOCK)) (top (game iloc STOCK)))",
    "(move (bottom (game iloc STOCK)) (top (game iloc PILE)))",
    "(move (top (game iloc STOCK)) (bottom (game iloc STOCK)))",
    "(do ((inc (game sto X)) (set (game points Q) (((RANK : A) (game sto X))))))",
]


def big_deck(ranks: int, suits: int) -> str:
    """A deck of ``ranks * suits`` cards (RANK A..D and R5.., SUIT X, Y and S3..)."""
    r = ["A", "B", "C", "D"] + [f"R{k}" for k in range(5, ranks + 1)]
    s = ["X", "Y"] + [f"S{k}" for k in range(3, suits + 1)]
    return f"(deck (RANK ({', '.join(r)})) (SUIT ({', '.join(s)})))"


@st.composite
def shaped_inputs(draw, big: bool = True) -> tuple[str, str]:
    """(a description, the text of a game with multiplying nests, ranges in expression
    contexts, wide choices and actions on a huge deck)."""
    depth = draw(st.integers(1, 4 if big else 2))
    slots = {
        "setup": "(inc (game sto Z))",
        "end": "(== 1 0)",
        "body": "(do ((turn pass)))",
        "scoring": "(game sto X)",
        "deck": DECK,
    }
    where = draw(
        st.lists(
            st.sampled_from(
                [
                    "setup",
                    "end",
                    "cond",
                    "set",
                    "scoring",
                    "choice",
                    "wide",
                    "action",
                    "let",
                    "repeat",
                    "index",
                    "award",
                    "deck",
                ]
            ),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    for w in where:
        if w == "setup":
            slots["setup"] = draw(_nested_action(big, depth))
        elif w == "end":
            slots["end"] = draw(_nested_bool(big, depth))
        elif w == "cond":
            slots["body"] = f"(do (({draw(_nested_bool(big, depth))} (inc (game sto X)))))"
        elif w == "set":
            slots["body"] = f"(do ((set (game sto X) {draw(_int_expr(big))})))"
        elif w == "scoring":
            slots["scoring"] = draw(_int_expr(big))
        elif w == "choice":
            slots["body"] = (
                f"(choice ((any {draw(_range(big))} 'W (do (({draw(_nested_bool(big, depth))} "
                f"(inc (game sto X)))))) (turn pass)))"
            )
        elif w in ("let", "repeat", "index", "award"):
            v = draw(_int_expr(big))
            slots["body"] = "(do ({}))".format(
                {
                    "let": f"(let {v} 'L (set (game sto X) 'L))",
                    "repeat": f"(repeat {v} (inc (game sto X)))",
                    "index": f"(move (top (game iloc STOCK)) ({v} (game iloc PILE)))",
                    "award": f"(set (game points Q) (((RANK : A) {v}) ((SUIT : X) 1)))",
                }[w]
            )
        elif w == "deck":
            ranks, suits = draw(st.sampled_from([(200, 200), (100, 50), (20, 20)] if big else [(5, 4), (10, 3)]))
            slots["deck"] = big_deck(ranks, suits)
            n = draw(st.sampled_from([100_000, 2000, 10]) if big else st.sampled_from([2, 5]))
            slots["setup"] = f"(repeat {n} {draw(st.sampled_from(BIG_ACTIONS))})"
        elif w == "wide":
            k = draw(st.sampled_from([50_000, 300]) if big else st.sampled_from([3, 30]))
            tail = " ".join(["((== 1 1) (inc (game sto X)))"] * draw(st.sampled_from([0, 5, 1000] if big else [0, 5])))
            slots["body"] = f"(choice ((any (range 1..{k}) 'W (do ((set (game sto X) 'W) {tail})))))"
        else:
            slots["body"] = f"(do ({draw(_nested_action(big, depth))}))"
    return f"shapes({'big' if big else 'small'}): {', '.join(where)} depth {depth}", SHAPE_SKELETON.format(**slots)
