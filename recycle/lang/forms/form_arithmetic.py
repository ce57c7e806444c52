"""The arithmetic forms ``+ - * // % ^``, ``tri``, ``fib`` and ``random``: integers from integers.

Each form is kept whole here, registered together as this module is imported (``flow.py``
imports every ``form_*.py``): its node (``lang/nodes/numbers.py``, the vocabulary every reader
shares), its reading of the s-expression (``read_*``: the shape checks and positioned errors),
its meaning in the reference interpreter (``ArithmeticForms``: 64-bit integers, C# division),
its facts (the ``@form`` record) and its native writer (``write_*``: ``^``, ``tri``, ``fib`` and
``random`` have none, so the native writer declines a game using them).
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.numbers import Add, Div, Fib, Mod, Mul, Pow, Random, Sub, Tri
from ..nodes.sexpr import Scope, fail, is_atom
from ..syntax.reader import DOTDOT, SList
from .registry import Kind, family, form
from .runtime import MAX_INT, c_div, rt_error
from .writers import native


# -- readings ----------------------------------------------------------------------------------


def operands(e, x: SList, scope: Scope, op: str, takes_more: bool = False) -> tuple:
    """The two integers of ``(OP A B)``, read by the elaborator ``e`` (``takes_more``: + and *,
    which take more, read by ``read_chain`` when they have more)."""
    if len(x.items) != 3:
        if takes_more:
            fail(f"({op} A B ...) takes two or more integers", x, op)
        more = " (only + and * take more)" if len(x.items) > 3 else ""
        fail(f"({op} A B) takes exactly two integers{more}", x, op)
    return e.int_(x.items[1], scope), e.int_(x.items[2], scope)


def read_chain(cls: type) -> Callable:
    """The reading of ``(+ A B ...)`` or ``(* A B ...)``: two or more integers."""
    op = cls.HEAD

    def read(e, x: SList, scope: Scope):
        parts = [e.int_(i, scope) for i in x.items[1:]] if len(x.items) > 3 else operands(e, x, scope, op, True)
        return cls(tuple(parts), span=x.span, source=x)

    return read


def read_pair(cls: type) -> Callable:
    """The reading of ``(OP A B)``: exactly two integers."""
    op = cls.HEAD

    def read(e, x: SList, scope: Scope):
        return cls(*operands(e, x, scope, op), span=x.span, source=x)

    return read


def read_one(cls: type) -> Callable:
    """The reading of ``(OP N)``: one integer."""

    def read(e, x: SList, scope: Scope):
        e.arity(x, 2)
        return cls(e.int_(x.items[1], scope), span=x.span, source=x)

    return read


def read_random(e, x: SList, scope: Scope) -> Random:
    """``(random N)`` (low None) or ``(random A..B)``."""
    items = x.items
    if len(items) == 2:
        return Random(None, e.int_(items[1], scope), span=x.span, source=x)
    if len(items) == 4 and is_atom(items[2], DOTDOT):
        return Random(e.int_(items[1], scope), e.int_(items[3], scope), span=x.span, source=x)
    fail("expected (random N) or (random A..B)", x, "random")


# -- meanings in the reference interpreter -----------------------------------------------------


@family
class ArithmeticForms:
    """The arithmetic forms of the compiler (a mixin of ``FlowCompiler``)."""

    def int_operands(self, a, b, scope: Scope):
        """The operands A and B → (A closure, B closure, B's constant value or None)."""
        return self.c_int(a, scope), self.c_int(b, scope), self.const_value(b, scope)

    def int_chain(self, x, scope: Scope, add: bool) -> Callable:
        """(+ A B C ...) / (* A B C ...): three or more operands, the result checked once
        (an error beyond 64 bits)."""
        op = x.HEAD
        parts = [self.c_int(i, scope) for i in x.operands]
        span = x.span

        def chain(s, e):
            if add:
                r = 0
                for f in parts:
                    r += f(s, e)
            else:
                r = 1
                for f in parts:
                    r *= f(s, e)
            if -MAX_INT <= r <= MAX_INT:
                return r
            rt_error("integer overflow (beyond 64 bits)", span, op)

        return chain

    # + and - check the 64-bit range too: (set X (+ X X)) in a loop would otherwise grow
    # without bound
    @form("+", "(+ A B) | (+ A B C ...)", Kind.INT, pure=True, node=Add, reads=read_chain(Add))
    def int_add(self, x: Add, scope: Scope) -> Callable:
        """(+ A B) | (+ A B C ...)

        The sum of two or more integers (an error when it is beyond 64 bits)."""
        if len(x.operands) > 2:
            return self.int_chain(x, scope, True)
        a, b, cb = self.int_operands(*x.operands, scope)
        span = x.span
        if cb is not None:

            def add_const(s, e):
                r = a(s, e) + cb
                if -MAX_INT <= r <= MAX_INT:
                    return r
                rt_error("integer overflow (beyond 64 bits)", span, "+")

            return add_const

        def add(s, e):
            r = a(s, e) + b(s, e)
            if -MAX_INT <= r <= MAX_INT:
                return r
            rt_error("integer overflow (beyond 64 bits)", span, "+")

        return add

    @form("-", "(- A B)", Kind.INT, pure=True, node=Sub, reads=read_pair(Sub))
    def int_sub(self, x: Sub, scope: Scope) -> Callable:
        """(- A B)

        A minus B (an error beyond 64 bits)."""
        a, b, cb = self.int_operands(x.a, x.b, scope)
        span = x.span
        if cb is not None:

            def sub_const(s, e):
                r = a(s, e) - cb
                if -MAX_INT <= r <= MAX_INT:
                    return r
                rt_error("integer overflow (beyond 64 bits)", span, "-")

            return sub_const

        def sub(s, e):
            r = a(s, e) - b(s, e)
            if -MAX_INT <= r <= MAX_INT:
                return r
            rt_error("integer overflow (beyond 64 bits)", span, "-")

        return sub

    @form("*", "(* A B) | (* A B C ...)", Kind.INT, pure=True, node=Mul, reads=read_chain(Mul))
    def int_mul(self, x: Mul, scope: Scope) -> Callable:
        """(* A B) | (* A B C ...)

        The product of two or more integers (an error beyond 64 bits)."""
        if len(x.operands) > 2:
            return self.int_chain(x, scope, False)
        a, b, _ = self.int_operands(*x.operands, scope)
        span = x.span

        def mul(s, e):
            r = a(s, e) * b(s, e)
            if -MAX_INT <= r <= MAX_INT:
                return r
            rt_error("integer overflow (beyond 64 bits)", span, "*")

        return mul

    @form("//", "(// A B)", Kind.INT, pure=True, node=Div, reads=read_pair(Div))
    def int_div(self, x: Div, scope: Scope) -> Callable:
        """(// A B)

        Integer division truncating toward zero (C# semantics); division by zero is an
        error."""
        a, b, _ = self.int_operands(x.a, x.b, scope)
        span = x.span

        def div(s, e):
            p, q = a(s, e), b(s, e)
            if q == 0:
                rt_error("division by zero", span, "//")
            return c_div(p, q)

        return div

    @form("%", "(% A B)", Kind.INT, pure=True, node=Mod, reads=read_pair(Mod))
    def int_mod(self, x: Mod, scope: Scope) -> Callable:
        """(% A B)

        The remainder of A // B, with the sign of A (C# semantics); by zero is an error."""
        a, b, _ = self.int_operands(x.a, x.b, scope)
        span = x.span

        def mod(s, e):
            p, q = a(s, e), b(s, e)
            if q == 0:
                rt_error("division by zero", span, "%")
            return p - q * c_div(p, q)

        return mod

    @form("^", "(^ A B)", Kind.INT, pure=True, node=Pow, reads=read_pair(Pow))
    def int_pow(self, x: Pow, scope: Scope) -> Callable:
        """(^ A B)

        A to the power B; a negative exponent, or a result beyond 64 bits, is an error."""
        a, b, _ = self.int_operands(x.a, x.b, scope)
        span = x.span

        def power(s, e):
            p, q = a(s, e), b(s, e)
            if q < 0:
                rt_error(f"negative exponent {q}", span, "^")
            if abs(p) > 1 and q > 63:
                rt_error("integer overflow (beyond 64 bits)", span, "^")
            r = p**q
            if -MAX_INT <= r <= MAX_INT:
                return r
            rt_error("integer overflow (beyond 64 bits)", span, "^")

        return power

    @form("tri", "(tri N)", Kind.INT, pure=True, node=Tri, reads=read_one(Tri))
    def int_tri(self, x: Tri, scope: Scope) -> Callable:
        """(tri N)

        The N-th triangular number, N(N+1)/2."""
        f = self.c_int(x.n, scope)
        span = x.span

        def tri(s, e):
            n = f(s, e)
            r = n * (n + 1) // 2
            if -MAX_INT <= r <= MAX_INT:
                return r
            rt_error(f"integer overflow (beyond 64 bits): tri of {n}", span, "tri")

        return tri

    @form("fib", "(fib N)", Kind.INT, pure=True, node=Fib, reads=read_one(Fib))
    def int_fib(self, x: Fib, scope: Scope) -> Callable:
        """(fib N)

        The N-th Fibonacci number (fib 0 = 0, fib 1 = fib 2 = 1), for N in 0..90."""
        f = self.c_int(x.n, scope)
        span = x.span

        def fib(s, e):
            n = f(s, e)
            if n < 0 or n > 90:
                rt_error(f"fib of {n} is out of range (0..90)", span, "fib")
            a, b = 0, 1
            for _ in range(n):
                a, b = b, a + b
            return a

        return fib

    @form("random", "(random N) | (random A..B)", Kind.INT, draws=True, node=Random, reads=read_random)
    def int_random(self, x: Random, scope: Scope) -> Callable:
        """(random N) | (random A..B)

        A uniformly random integer in 0..N, or in A..B, both ends included."""
        span = x.span
        if x.low is None:
            hi = self.c_int(x.high, scope)

            def rand(s, e):
                n = hi(s, e)
                if n < 0:
                    rt_error(f"(random {n}) needs a non-negative bound", span, "random")
                return int(s.rng.random() * (n + 1))

            return rand
        lo, hi = self.c_int(x.low, scope), self.c_int(x.high, scope)

        def rand_range(s, e):
            a, b = lo(s, e), hi(s, e)
            if b < a:
                rt_error(f"(random {a}..{b}) is an empty range", span, "random")
            return a + int(s.rng.random() * (b - a + 1))

        return rand_range


# -- native writers ----------------------------------------------------------------------------


@native(Kind.INT, Add, Mul)
def write_add_mul(w, x, sc) -> str:
    """The native code of ``(+ ...)`` or ``(* ...)``: the operands folded by ``add_ck`` or
    ``mul_ck`` (64-bit integers; beyond the reference's range the reference replays the game)."""
    fn = "add_ck" if isinstance(x, Add) else "mul_ck"
    parts = [w.int_(i, sc) for i in x.operands]
    code = parts[0]
    for p in parts[1:]:
        code = f"{fn}(ctr, {code}, {p})"
    return code


@native(Kind.INT, Sub)
def write_sub(w, x, sc) -> str:
    """The native code of ``(- A B)`` (``sub_ck``, as ``write_add_mul``)."""
    return f"sub_ck(ctr, {w.int_(x.a, sc)}, {w.int_(x.b, sc)})"


@native(Kind.INT, Div, Mod)
def write_div_mod(w, x, sc) -> str:
    """C#'s division and remainder (as ``int_div`` and ``int_mod`` above); by zero, the rollout
    is played again by Python for the message."""
    fn = "c_div" if isinstance(x, Div) else "c_mod"
    return f"{fn}(ctr, {w.int_(x.a, sc)}, {w.int_(x.b, sc)})"
