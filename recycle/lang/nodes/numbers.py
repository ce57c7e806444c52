"""Reading integers and conditions into nodes (``NumberReading``, a mixin of
``flow.Elaborator``): arithmetic, counts and scores, comparisons, junctions and the
quantifiers any/all. Each reading mirrors the compiler's (``lang/forms/expr_int.py``,
``expr_bool.py``) and raises its messages."""

from __future__ import annotations

from .sexpr import Scope, fail, head_of, is_atom, is_storage_form, kw
from ..syntax.reader import DOTDOT, INT, VAR, Atom, SList
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

_ORDER = {"<": Less, ">": Greater, "<=": AtMost, ">=": AtLeast}


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

    def operands(self, x: SList, scope: Scope):
        op = x.items[0].value
        if len(x.items) != 3:
            if op in ("+", "*"):
                fail(f"({op} A B ...) takes two or more integers", x, op)
            more = " (only + and * take more)" if len(x.items) > 3 else ""
            fail(f"({op} A B) takes exactly two integers{more}", x, op)
        return self.int_(x.items[1], scope), self.int_(x.items[2], scope)

    def e_int_add(self, x, scope):
        parts = [self.int_(i, scope) for i in x.items[1:]] if len(x.items) > 3 else self.operands(x, scope)
        return Add(tuple(parts), span=x.span, source=x)

    def e_int_mul(self, x, scope):
        parts = [self.int_(i, scope) for i in x.items[1:]] if len(x.items) > 3 else self.operands(x, scope)
        return Mul(tuple(parts), span=x.span, source=x)

    def e_int_sub(self, x, scope):
        return Sub(*self.operands(x, scope), span=x.span, source=x)

    def e_int_div(self, x, scope):
        return Div(*self.operands(x, scope), span=x.span, source=x)

    def e_int_mod(self, x, scope):
        return Mod(*self.operands(x, scope), span=x.span, source=x)

    def e_int_pow(self, x, scope):
        return Pow(*self.operands(x, scope), span=x.span, source=x)

    def e_int_tri(self, x, scope):
        self.arity(x, 2)
        return Tri(self.int_(x.items[1], scope), span=x.span, source=x)

    def e_int_fib(self, x, scope):
        self.arity(x, 2)
        return Fib(self.int_(x.items[1], scope), span=x.span, source=x)

    def e_int_random(self, x, scope):
        items = x.items
        if len(items) == 2:
            return Random(None, self.int_(items[1], scope), span=x.span, source=x)
        if len(items) == 4 and is_atom(items[2], DOTDOT):
            return Random(self.int_(items[1], scope), self.int_(items[3], scope), span=x.span, source=x)
        fail("expected (random N) or (random A..B)", x, "random")

    def e_int_size(self, x, scope):
        self.arity(x, 2)
        c = x.items[1]
        if (
            isinstance(c, SList)
            and len(c.items) == 2
            and isinstance(c.items[0], Atom)
            and (c.items[0].value in ("top", "bottom") or c.items[0].kind == INT)
        ):
            inner = c.items[1]
            if self.is_location(inner) or (isinstance(inner, SList) and inner.head in self.VIEWS_OF_LOCATIONS):
                fail(f"size counts a location or a group list; ({c.items[0].value} L) is a card", c, "size")
        if self.is_location(c):
            return Size(self.cards(c, scope), span=x.span, source=x)
        return Size(self.coll(c, scope), span=x.span, source=x)

    def e_int_sum(self, x, scope):
        if len(x.items) != 4 or not kw(x.items[2], "using"):
            fail("expected (sum LOCATION using POINTS)", x, "sum")
        return Sum(self.cards(x.items[1], scope), self.points(x.items[3], scope), span=x.span, source=x)

    def e_int_score(self, x, scope):
        if len(x.items) != 4 or not kw(x.items[2], "using"):
            fail("expected (score CARD using POINTS)", x, "score")
        return Score(self.card(x.items[1], scope, optional=True), self.points(x.items[3], scope), span=x.span, source=x)

    def score_extreme(self, x, scope, cls, head):
        if len(x.items) != 4 or not kw(x.items[2], "using"):
            fail(f"expected ({head} COLLECTION using POINTS)", x, head)
        return cls(self.cards(x.items[1], scope), self.points(x.items[3], scope), span=x.span, source=x)

    def e_int_scoremax(self, x, scope):
        return self.score_extreme(x, scope, ScoreMax, "scoremax")

    def e_int_scoremin(self, x, scope):
        return self.score_extreme(x, scope, ScoreMin, "scoremin")

    def e_int_pid(self, x, scope):
        self.arity(x, 2)
        return Pid(self.player(x.items[1], scope), span=x.span, source=x)

    # -- conditions ------------------------------------------------------------------------
    def bool_(self, x, scope: Scope):
        if not isinstance(x, SList) or not x.items:
            fail(f"expected a condition, got {x if isinstance(x, Atom) else '()'}", x)
        f = self.by_head(Kind.BOOL, x, scope)
        if f is not None:
            return f
        fail(f"expected a condition, got {self.form_name(x)}", x)

    def conditions(self, x, scope):
        h = head_of(x)
        if len(x.items) < 3:
            fail(f"({h} ...) takes two or more conditions", x, h)
        return tuple(self.bool_(i, scope) for i in x.items[1:])

    def e_bool_and(self, x, scope):
        return And(self.conditions(x, scope), span=x.span, source=x)

    def e_bool_or(self, x, scope):
        return Or(self.conditions(x, scope), span=x.span, source=x)

    def e_bool_not(self, x, scope):
        self.arity(x, 2)
        return Not(self.bool_(x.items[1], scope), span=x.span, source=x)

    def order(self, x, scope):
        h = head_of(x)
        if len(x.items) != 3:
            fail(f"({h} A B) compares two integers", x, h)
        return _ORDER[h](self.int_(x.items[1], scope), self.int_(x.items[2], scope), span=x.span, source=x)

    e_bool_lt = e_bool_gt = e_bool_le = e_bool_ge = order

    def equal(self, x, scope, cls):
        h = head_of(x)
        if len(x.items) != 3:
            fail(f"({h} A B) compares two values", x, h)
        a, b = x.items[1:]
        if self.is_card_ref(a) or self.is_card_ref(b):
            read = [self.card(i, scope, optional=self.is_card_ref(i)) for i in (a, b)]
            return cls(read[0], read[1], True, span=x.span, source=x)
        return cls(self.value(a, scope), self.value(b, scope), False, span=x.span, source=x)

    def e_bool_eq(self, x, scope):
        return self.equal(x, scope, Equal)

    def e_bool_ne(self, x, scope):
        return self.equal(x, scope, NotEqual)

    def is_card_ref(self, x) -> bool:
        if not isinstance(x, SList) or not x.items:
            return False
        h = head_of(x)
        if h in self.forms.only[Kind.CARD]:
            return True
        if (h in ("top", "bottom") or is_atom(x.items[0], INT)) and len(x.items) == 2:
            return not kw(x.items[1], "player", "team") and not self.is_groups_form(x.items[1])
        return False

    def e_bool_any(self, x, scope):
        return Exists(*self.binder(x, scope, self.bool_), span=x.span, source=x)

    def e_bool_all(self, x, scope):
        return ForAll(*self.binder(x, scope, self.bool_), span=x.span, source=x)


def _described(value) -> str:
    """A declared constant's value as the compiler's messages name it (``describe_value``)."""
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a collection"
    return f"the integer {value}"
