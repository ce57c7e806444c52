"""The nodes of the integer and boolean forms (arithmetic, counts and scores, comparisons,
junctions and the quantifiers any/all), and reading an integer or a condition (``NumberReading``,
a mixin of ``flow.Elaborator``: ``int_`` and ``bool_`` find the form by its head). Each form's
own reading is kept with its meaning and native writer in its module of ``lang/forms``
(``form_arithmetic.py``, ``form_counting.py``, ``form_pid.py``, ``form_comparison.py``,
``form_logic.py``, ``form_quantifiers.py``)."""

from __future__ import annotations

from .sexpr import Scope, fail, is_storage_form
from ..syntax.reader import INT, VAR, Atom, SList
from .base import Const, Kind, Num, form_node

Add = form_node("Add", "operands", Kind.INT, "+", "(+ A B ...): the sum.")
Sub = form_node("Sub", "a b", Kind.INT, "-", "(- A B): the difference.")
Mul = form_node("Mul", "operands", Kind.INT, "*", "(* A B ...): the product.")
Div = form_node("Div", "a b", Kind.INT, "//", "(// A B): the quotient, toward zero.")
Mod = form_node("Mod", "a b", Kind.INT, "%", "(% A B): the remainder.")
Pow = form_node("Pow", "a b", Kind.INT, "^", "(^ A B): A to the power B.")
Tri = form_node("Tri", "n", Kind.INT, "tri", "(tri N): the N-th triangular number.")
Fib = form_node("Fib", "n", Kind.INT, "fib", "(fib N): the N-th Fibonacci number.")
Random = form_node("Random", "low high", Kind.INT, "random", "(random N) | (random A..B): low is None for 0..N.")
Size = form_node("Size", "collection", Kind.INT, "size", "(size COLLECTION): its number of elements.")
Sum = form_node("Sum", "location points", Kind.INT, "sum", "(sum LOCATION using POINTS): the cards' total.")
Score = form_node("Score", "card points", Kind.INT, "score", "(score CARD using POINTS): one card's score.")
ScoreMax = form_node("ScoreMax", "collection points", Kind.INT, "scoremax", "(scoremax C using POINTS).")
ScoreMin = form_node("ScoreMin", "collection points", Kind.INT, "scoremin", "(scoremin C using POINTS).")
Pid = form_node("Pid", "player", Kind.INT, "pid", "(pid PLAYER): the player's number.")

And = form_node("And", "conditions", Kind.BOOL, "and", "(and C C ...): all hold.")
Or = form_node("Or", "conditions", Kind.BOOL, "or", "(or C C ...): one holds.")
Not = form_node("Not", "condition", Kind.BOOL, "not", "(not C): it does not hold.")
Less = form_node("Less", "a b", Kind.BOOL, "<", "(< A B).")
Greater = form_node("Greater", "a b", Kind.BOOL, ">", "(> A B).")
AtMost = form_node("AtMost", "a b", Kind.BOOL, "<=", "(<= A B).")
AtLeast = form_node("AtLeast", "a b", Kind.BOOL, ">=", "(>= A B).")
Equal = form_node("Equal", "a b cards", Kind.BOOL, "==", "(== A B): cards is True when a card is compared.")
NotEqual = form_node("NotEqual", "a b cards", Kind.BOOL, "!=", "(!= A B): cards as for ==.")
Exists = form_node("Exists", "collection variable condition", Kind.BOOL, "any", "(any C 'V CONDITION).")
ForAll = form_node("ForAll", "collection variable condition", Kind.BOOL, "all", "(all C 'V CONDITION).")


class NumberReading:
    """Integers and conditions."""

    def int_(self, x, scope: Scope):
        if isinstance(x, Atom):
            if x.kind == INT:
                return Num(x.value, span=x.span, source=x)
            if x.kind == VAR:
                v = self.var(x, scope)
                if isinstance(v, Const) and not isinstance(v.value, int):
                    fail(f"'{x.value} is {_described(scope.lookup(x.value).value)}, not an integer", x)
                return v
            fail(f"expected an integer, got {x}", x)
        if not isinstance(x, SList) or not x.items:
            fail("expected an integer expression, got ()", x)
        if is_storage_form(x) == "sto":
            return self.storage("sto", x, scope)
        f = self.by_head(Kind.INT, x, scope)
        if f is not None:
            return f
        if x.head == "cardatt":
            fail(
                "expected an integer expression, got (cardatt ...): card attributes are names (EIGHT), not "
                "numbers; give them values with a point map and (score CARD using POINTS)",
                x,
            )
        fail(f"expected an integer expression, got {self.form_name(x)}", x)

    # -- conditions ------------------------------------------------------------------------
    def bool_(self, x, scope: Scope):
        if not isinstance(x, SList) or not x.items:
            fail(f"expected a condition, got {x if isinstance(x, Atom) else '()'}", x)
        f = self.by_head(Kind.BOOL, x, scope)
        if f is not None:
            return f
        fail(f"expected a condition, got {self.form_name(x)}", x)


def _described(value) -> str:
    """A declared constant's value as the compiler's messages name it (``describe_value``)."""
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a collection"
    return f"the integer {value}"
