"""Mutated RECYCLE sources for fuzzing, and the check every input must pass.

Used by ``tests/test_fuzz.py`` and ``tools/fuzz.py``; it needs Hypothesis (the ``test``
extra). ``mutated_inputs()`` is a Hypothesis strategy: it takes a seed
game (every corpus game, when ``../shared/corpus/cardstock`` exists, and ``games/*.rcy``) or
nothing, and applies a few mutations: delete, duplicate, swap or replace tokens and
parentheses, insert random bytes or text, wrap a form in deep nesting, replace integers with
huge ones, truncate; the result is text or bytes (possibly not UTF-8).

``exercise(data)`` loads the input and, if it compiles, plays one random game with a small
step limit. It returns the outcome's name, or raises ``FuzzFailure`` when the interpreter
breaks its contract: a Python exception that is not a ``RecycleError``, an error message that
does not start with ``file:line:column:``, or an input that takes longer than the time bound.
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
HUGE = ["99999999999999999999", "-99999999999999999999", "2147483648", "4294967296", "9" * 60, "0", "-1",
        "1e9", "00", "10000000"]
WORDS = ["(", ")", "((", "))", "'", "'P", "..", ":", ",", "game", "stage", "player", "team", "choice", "do",
         "end", "all", "any", "let", "top", "bottom", "move", "remember", "forget", "repeat", "create", "deck",
         "iloc", "vloc", "hloc", "oloc", "mem", "sto", "str", "points", "sum", "filter", "union", "intersect",
         "disjunction", "partition", "runs", "subsets", "tuples", "sort", "random", "cycle", "owner", "other",
         "range", "tri", "fib", "^", "//", "%", "+", "-", "*", "==", "!=", "<", ">", ">=", "<=", "and", "or",
         "not", "max", "min", "size", "score", "actual", "cardatt", "swap", "inc", "dec", "set", "shuffle",
         "turn", "pass", "next", "current", "previous", "scoring", "declare", "setup", "players", "teams",
         "STOCK", "HAND", "0", "1", "-1", "3", "52", "\ufeff", "\u00e9", "\u2660", "\t", "\n", ";", '"', "\\",
         "\x00", "\r", "'", "1..", "..5", "'X'"]


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
OPS = (["swap-atoms", "replace-atom", "huge", "int", "swap-forms", "delete-form", "duplicate-form",
        "move-form"] * 3
       + ["delete", "duplicate", "swap", "replace", "delete-paren", "insert-paren", "insert-text", "nest",
          "nest-form", "truncate", "delete-span", "copy-span"])


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
            toks[a] = draw(st.sampled_from([w for w in WORDS if w not in "()"]) | st.sampled_from([toks[i] for i in atoms]))
        elif op == "int":
            ints = [i for i, t in enumerate(toks) if re.fullmatch(r"-?\d+", t)]
            if ints:
                toks[ints[pos % len(ints)]] = str(draw(st.integers(-3, 60) | st.sampled_from([100, 1000, 65536, 10**6])))
        elif op in ("swap-forms", "move-form") and len(forms) > 1:
            a, b = sorted([forms[pos % len(forms)], forms[draw(st.integers(0, len(forms) - 1))]])
            if a[1] <= b[0]:  # disjoint: exchange them (or move the first one to the second)
                fa, fb = toks[a[0]:a[1]], toks[b[0]:b[1]]
                if op == "swap-forms":
                    toks[b[0]:b[1]] = fa
                    toks[a[0]:a[1]] = fb
                else:
                    toks[b[0]:b[0]] = fa + [" "]
                    del toks[a[0]:a[1]]
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
            del toks[pos:pos + draw(st.integers(1, 40))]
        elif op == "copy-span" and n:
            span = toks[pos:pos + draw(st.integers(1, 60))]
            at = draw(st.integers(0, n))
            toks[at:at] = span
        else:
            continue
        done.append(f"{op}@{pos}")
    out: str | bytes = "".join(toks)
    if draw(st.integers(0, 9)) == 0:  # one in ten: bytes, maybe not UTF-8
        raw = out.encode("utf-8")
        if raw or draw(st.booleans()):
            junk = draw(st.binary(min_size=1, max_size=6) | st.sampled_from(
                [b"\xff", b"\xfe\xff", b"\xc3", b"\xe2\x82", b"\x80", b"\xef\xbb\xbf", b"\x00", b"\xed\xa0\x80"]))
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


def exercise(data: str | bytes, seed: int = 0, max_steps: int = MAX_STEPS,
             time_bound: float | None = TIME_BOUND) -> str:
    """Load ``data`` (text via ``loads``, bytes via a temporary file and ``load``) and play one
    game; return the outcome's name (``OUTCOMES``) or raise ``FuzzFailure``."""
    t0 = time.perf_counter()
    tmpdir = None
    try:
        try:
            if isinstance(data, bytes):
                tmpdir = tempfile.TemporaryDirectory(prefix="recycle-fuzz-")
                path = Path(tmpdir.name) / FILENAME
                path.write_bytes(data)
                filename = str(path)
                game = load(path)
            else:
                filename = FILENAME
                game = loads(data, FILENAME)
            game.play(seed=seed, max_steps=max_steps)
            result = "ok"
        except RecycleError as exc:
            check_error_message(exc, filename)
            result = outcome_of(exc)
        except Exception as exc:  # noqa: BLE001 - this is what we are looking for
            raise FuzzFailure(f"crash: {type(exc).__name__}: {exc}") from exc
    finally:
        if tmpdir is not None:
            tmpdir.cleanup()
    dt = time.perf_counter() - t0
    if time_bound is not None and dt > time_bound:
        raise FuzzFailure(f"slow: {dt:.1f} s (bound {time_bound} s), outcome {result}")
    return result
