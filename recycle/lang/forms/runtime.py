"""What compiled closures call as a game runs: positioned runtime errors, the work budget and
its units (``State.work``, ``DEFAULT_MAX_WORK``), the integers' range, and how a value is
named in a message. Facts a closure carries for the compiler to fuse it (``tag``) too.
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import RecycleRuntimeError, Span, StepLimitExceeded
from .values import Card, Groups, PLoc, PlayerId, TeamId

MAX_INT = 2**63 - 1
MAX_TUPLE = 64
# a leaf form (one without a loop of the game inside: sum, partition of a location) reading at
# most SMALL cards is paid for by the form's own unit of work; beyond, each card costs a unit
SMALL = 8  # (written out as 8 in expr_int's sum)
# an action on a location of more than SCAN cards pays for them (measured to cost about what
# a unit of work costs elsewhere): shifting them (an insertion or removal away from the top,
# a C memmove) one unit per 256 (``n >> 8``), searching them for a card one per 16 (``n >> 4``),
# rewriting their places (a whole-location swap) one per 8 (``n >> 3``); a shuffle or faro of
# more than SMALL cards pays one unit per card
SCAN = 128
MAX_NAMES = 5_000  # distinct names of locations (or of storages of one sort) a game may compute
# The work budget of one game (``State.work``): every loop iteration costs the number of
# forms of its body (repeat, all, any, filter, a stage's turns), every card or group an
# expression handles costs one (union, sort, sum, partition, tuples ...), every option a
# choice lists costs one. Sized so that a game that exhausts it stops within about ten
# seconds (docs/language.md, "Limits"); ``max_work`` raises it.
DEFAULT_MAX_WORK = 10_000_000


def n_cards(n: int) -> str:
    """``1 card``, ``5 cards``."""
    return f"{n} card" if n == 1 else f"{n} cards"


def empty_location(verb: str, label: str, nplayers: int) -> str:
    """The message of taking a card from an empty location, naming the number of players:
    a deal that runs out of cards is most often a game played by more than it was written for."""
    return f"{verb} from the empty location {label} (with {nplayers} player{'s' if nplayers != 1 else ''})"


def rt_error(message: str, span: Span, form: str | None = None):
    """Raise a positioned runtime error (called from closures)."""
    raise RecycleRuntimeError(message, span, form=form)


def out_of_work(s, span, form: str):
    """Stop a game that did more work than its budget allows (``State.max_work``; the
    budget: ``DEFAULT_MAX_WORK``)."""
    raise StepLimitExceeded(
        f"the game did more than its limit of {s.max_work:,} units of work (loop iterations, "
        f"cards and options handled); raise max_work (--max-work) if it is meant to",
        span,
        form=form,
    )


def charge(s, k: int, span, form: str) -> None:
    """Take ``k`` units from the state's work budget, stopping the game when it runs out."""
    s.work -= k
    if s.work < 0:
        out_of_work(s, span, form)


def describe_value(v) -> str:
    """A value as a message names it: ``the integer 3``, ``a card``, ``location #4`` ..."""
    if isinstance(v, PLoc):
        return f"location #{v.idx}"
    if isinstance(v, Groups):
        return "a list of groups"
    if isinstance(v, Card):
        return "a card"
    if isinstance(v, PlayerId):
        return "a player"
    if isinstance(v, TeamId):
        return "a team"
    if isinstance(v, bool):
        return "a condition's value"
    if isinstance(v, int):
        return f"the integer {v}"
    if isinstance(v, str):
        return f"the string {v!r}"
    if isinstance(v, list):
        return "a collection"
    if isinstance(v, range):
        return "a range of integers"
    if v is None:
        return "no value"
    return type(v).__name__


def c_div(a: int, b: int) -> int:
    """Integer division truncating toward zero (C# semantics)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def tag(f: Callable, **facts) -> Callable:
    """Attach facts about a closure's shape (e.g. ``sto_slot``) so callers can fuse it."""
    f.__dict__.update(facts)
    return f
