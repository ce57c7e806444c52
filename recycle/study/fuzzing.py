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
every expression context, very wide choices); ``record_inputs()`` edits a genuine game
record by hand, and ``exercise_record(data, tampered)`` reads and replays it. The
state-machine fuzzer (card conservation and views after every step) is ``statefuzz``.
"""

from __future__ import annotations

import json
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


# -- game records: hand-edited JSON fed to read_record / replay ----------------------------------

RECORD_GAME = ROOT / "games" / "schwimmen.rcy"
RECORD_SEED = 7


def base_record() -> tuple[str, dict]:
    """(the game's text, a genuine record of one game of it, its game path ``game.rcy``)."""
    global _BASE_RECORD
    if _BASE_RECORD is None:
        from ..players import make_players
        from .records import play_recorded

        text = RECORD_GAME.read_text(encoding="utf-8")
        game = loads(text, str(RECORD_GAME))
        players = make_players("random", game.nplayers)
        _, rec = play_recorded(game, players, RECORD_SEED, "game.rcy", ["random"] * game.nplayers)
        _BASE_RECORD = (text, rec)
    text, rec = _BASE_RECORD
    return text, json.loads(json.dumps(rec))


_BASE_RECORD = None
_JUNK = [
    None,
    True,
    7.0,
    -7,
    0,
    -1,
    2**63,
    10**400,
    "",
    "7",
    "x" * 5000,
    [],
    {},
    [1, 2],
    {"a": 1},
    "\u0000",
    "/dev/zero",
    "/",
    ".",
    "..",
    "../../../../etc/passwd",
    "game.rcy\u0000",
    "nonexistent.rcy",
]
# fields whose change must make the replay fail (or be refused): it would otherwise accept tampering
DETERMINING = ("seed", "source_sha256", "decisions", "deal", "scores", "winners")
HUGE_DECISIONS = 4000  # the most decisions a "huge" edit makes (about 600 KB of JSON)


@st.composite
def record_inputs(draw) -> tuple[str, bytes, str]:
    """(a description, the bytes of a record edited by hand, the field it tampers with or "")."""
    _, rec = base_record()
    ops = draw(
        st.lists(
            st.sampled_from(
                [
                    "delete",
                    "junk",
                    "seed",
                    "players",
                    "sha",
                    "decision",
                    "decisions",
                    "game",
                    "nest",
                    "max_steps",
                    "deal",
                    "scores",
                    "bytes",
                    "truncate",
                ]
            ),
            min_size=1,
            max_size=3,
        )
    )
    done = []
    raw = None
    for op in ops:
        keys = sorted(rec) if isinstance(rec, dict) else []
        if op == "delete" and keys:
            k = draw(st.sampled_from(keys))
            del rec[k]
            done.append(f"delete {k}")
        elif op == "junk" and keys:
            k = draw(st.sampled_from(keys))
            rec[k] = draw(st.sampled_from(_JUNK))
            done.append(f"{k}={str(rec[k])[:20]!r}")
        elif op == "seed" and isinstance(rec, dict):
            rec["seed"] = draw(
                st.sampled_from(
                    [-RECORD_SEED, RECORD_SEED + 1, float(RECORD_SEED), str(RECORD_SEED), 2**64 + RECORD_SEED, -(2**63)]
                )
            )
            done.append(f"seed={rec['seed']!r}")
        elif op == "players" and isinstance(rec, dict):
            pl = rec.get("players")
            choice = draw(st.sampled_from(["shorten", "longer", "greedy", "unknown", "budget", "empty", "type"]))
            if choice == "shorten" and isinstance(pl, list) and pl:
                rec["players"] = pl[:-1]
            elif choice == "longer" and isinstance(pl, list):
                rec["players"] = pl + ["random"]
            elif choice == "greedy" and isinstance(pl, list) and pl:
                rec["players"] = ["greedy"] + pl[1:]
            elif choice == "unknown" and isinstance(pl, list) and pl:
                rec["players"] = ["nobody"] + pl[1:]
            elif choice == "budget" and isinstance(pl, list) and pl:
                rec["players"] = [
                    draw(st.sampled_from(["pimc:0", "pimc:-1", "ismcts:99999999", "random:3", "pimc:1e9"]))
                ] + pl[1:]
            elif choice == "empty":
                rec["players"] = []
            else:
                rec["players"] = "random"
            done.append(f"players {choice}")
        elif op == "sha" and isinstance(rec, dict):
            rec["source_sha256"] = draw(st.sampled_from(["0" * 64, "f" * 64, "", "0" * 63, "G" * 64]))
            done.append("sha")
        elif op == "decision" and isinstance(rec, dict) and isinstance(rec.get("decisions"), list) and rec["decisions"]:
            k = draw(st.integers(0, len(rec["decisions"]) - 1))
            d = rec["decisions"][k]
            if isinstance(d, dict):
                field = draw(st.sampled_from(["chosen", "options", "player", "index", "description", "revealed"]))
                value = draw(st.sampled_from([-1, 0, 1, 2, 10**6, 2**64, 1.0, "1", None, [], "x"]))
                if d.get(field) != value:
                    d[field] = value
                done.append(f"decisions/{k}/{field}={value!r}")
        elif op == "decisions" and isinstance(rec, dict) and isinstance(rec.get("decisions"), list):
            how = draw(st.sampled_from(["drop-last", "drop-first", "double", "empty", "reverse", "huge"]))
            d = rec["decisions"]
            # "huge": 200 times over, but never past HUGE_DECISIONS (two "huge" edits made a
            # 90 MB record, three would make 18 GB)
            new = {
                "drop-last": d[:-1],
                "drop-first": d[1:],
                "double": d + d,
                "empty": [],
                "reverse": d[::-1],
                "huge": d * max(1, min(200, HUGE_DECISIONS // max(1, len(d)))),
            }[how]
            if new != d:
                rec["decisions"] = new
            done.append(f"decisions {how}")
        elif op == "game" and isinstance(rec, dict):
            rec["game"] = draw(
                st.sampled_from(
                    [
                        "/dev/zero",
                        "/dev/null",
                        "/",
                        ".",
                        "missing.rcy",
                        "game.rcy/",
                        "./game.rcy",
                        "a" * 5000,
                        "game.json",
                        "/proc/self/mem",
                    ]
                )
            )
            done.append(f"game={rec['game'][:20]!r}")
        elif op == "nest":
            depth = draw(st.sampled_from([100, 1000, 100_000]))
            raw = ("[" * depth + "]" * depth).encode()
            if draw(st.booleans()):
                raw = (
                    '{"format": "recycle-game-record", "version": 1, "decisions": ' + "[" * depth + "]" * depth + "}"
                ).encode()
            done.append(f"nest {depth}")
        elif op == "max_steps" and isinstance(rec, dict):
            rec["max_steps"] = draw(st.sampled_from([0, 1, 2, -5, 10**12, 2**63]))
            done.append(f"max_steps={rec['max_steps']}")
        elif op == "deal" and isinstance(rec, dict) and isinstance(rec.get("deal"), dict) and rec["deal"]:
            k = draw(st.sampled_from(sorted(rec["deal"])))
            rec["deal"][k] = list(reversed(rec["deal"][k])) if len(rec["deal"][k]) > 1 else ["nope"]
            done.append(f"deal {k}")
        elif op == "scores" and isinstance(rec, dict) and isinstance(rec.get("scores"), list) and rec["scores"]:
            rec["scores"] = [s + 1 if isinstance(s, int) else 0 for s in rec["scores"]]
            done.append("scores")
        elif op == "bytes":
            body = raw if raw is not None else json.dumps(rec, ensure_ascii=False).encode("utf-8")
            at = draw(st.integers(0, len(body)))
            raw = (
                body[:at]
                + draw(st.sampled_from([b"\xff", b"\x00", b"\xef\xbb\xbf", b"}", b"{", b",", b"\\"]))
                + body[at:]
            )
            done.append(f"bytes@{at}")
        elif op == "truncate":
            body = raw if raw is not None else json.dumps(rec, ensure_ascii=False).encode("utf-8")
            raw = body[: draw(st.integers(0, len(body)))]
            done.append("truncate")
    if raw is None:
        raw = json.dumps(rec, ensure_ascii=False).encode("utf-8")
    try:  # what the record says once read (edited bytes may still be JSON)
        final = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        final = None
    return f"record: {', '.join(done) or 'unchanged'}", raw, tampered_field(final)


def tampered_field(rec) -> str:
    """The first field that determines the game which ``rec`` changed from the genuine
    record ("" if none: e.g. an edit undone by another)."""
    _, orig = base_record()
    if not isinstance(rec, dict):
        return ""
    for k in DETERMINING:
        if k in rec and json.dumps(rec[k], sort_keys=True) != json.dumps(orig[k], sort_keys=True):
            return k
    if isinstance(rec.get("players"), list) and len(rec["players"]) != len(orig["players"]):
        return "players"
    return ""


def exercise_record(data: bytes, tampered: str = "", time_bound: float | None = TIME_BOUND) -> str:
    """Write ``data`` as a record beside the recorded game, then read it (``read_record``),
    replay it (scripted, then with its players run again) and print it (``record_text``).

    Returns "refused" (``ValueError``: not a valid record, or it cannot be replayed), "error"
    (the game stopped on a ``RecycleError``), "differs" (the replay reports problems) or
    "identical". Raises ``FuzzFailure``: a crash (any other exception), a record that tampers
    with what determines the game yet replays as identical, or a slow input."""
    from .records import read_record, record_text, replay

    t0 = time.perf_counter()
    text, _ = base_record()
    with tempfile.TemporaryDirectory(prefix="recycle-fuzz-") as tmp:
        (Path(tmp) / "game.rcy").write_text(text, encoding="utf-8")
        path = Path(tmp) / "record.json"
        path.write_bytes(data)
        try:
            try:
                rec = read_record(path)
            except ValueError:
                return _timed(t0, time_bound, "refused")
            record_text(rec, reveal=True)
            record_text(rec, reveal=False)
            outcome = "identical"
            for scripted in (True, False):
                try:
                    rp = replay(rec, record_path=path, scripted=scripted)
                except (ValueError, OSError):
                    return _timed(t0, time_bound, "refused")
                except RecycleError:
                    return _timed(t0, time_bound, "error")
                if not rp.identical:
                    outcome = "differs"
                elif tampered:
                    raise FuzzFailure(
                        f"tampering accepted: the record changes {tampered} and "
                        f"replays as identical ({'scripted' if scripted else 'players run again'})"
                    )
        except FuzzFailure:
            raise
        except Exception as exc:
            raise FuzzFailure(f"crash: {type(exc).__name__}: {str(exc)[:300]}") from exc
    return _timed(t0, time_bound, outcome)


def _timed(t0: float, time_bound: float | None, outcome: str) -> str:
    dt = time.perf_counter() - t0
    if time_bound is not None and dt > time_bound:
        raise FuzzFailure(f"slow: {dt:.1f} s (bound {time_bound} s), outcome {outcome}")
    return outcome
