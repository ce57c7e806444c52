"""The statements of the native subset, as C (the ``Statements`` half of ``cexpr.Instance``)."""

from __future__ import annotations

import ast
import re

from .ctext import TranslateError, comment
from .ctyping import SCALARS, VOID, Arr, arith, c_type

_BINOPS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
}


class Statements:
    """Emitting a typed function's body (the typing and expressions: ``cexpr.Instance``)."""

    def emit(self) -> str:
        """The C definition of this instance."""
        self.lines: list[str] = []
        self.cursor = self.node.lineno + 1
        body = self.node.body
        doc = ast.get_docstring(self.node, clean=True)
        head = []
        if doc:
            head.append(comment(" ".join(doc.split())))
            self.cursor = body[0].end_lineno + 1
            body = body[1:]
        head.append(self.prototype() + " {")
        for n in sorted(self.types):
            t = self.types[n]
            if n in self.params or isinstance(t, tuple):
                continue
            head.append(f"    {c_type(t)} {self.name(n)};")
        self.block(body, 1)
        if self.ret != VOID:
            zero = "{0}" if isinstance(self.ret, (tuple, Arr)) else "0"
            if isinstance(self.ret, (tuple, Arr)):
                self.lines.append(f"    {{ {c_type(self.ret)} rc_z = {zero}; return rc_z; }}")
            else:
                self.lines.append("    return 0;")
        return "\n".join(head + self.lines + ["}"])

    def prototype(self) -> str:
        params = []
        for p in self.params:
            t = self.types[p]
            if isinstance(t, tuple):
                params += [f"{c_type(x)} {self.name(p)}__{i}" for i, x in enumerate(t)]
            else:
                params.append(f"{c_type(t)} {self.name(p)}")
        return f"static {c_type(self.ret)} {self.cname}({', '.join(params) or 'void'})"

    def out(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def comments_to(self, line: int, depth: int) -> None:
        for k in range(self.cursor, line):
            got = self.src.comment_line(k)
            if got is not None:
                self.out(depth, comment(got))
        self.cursor = max(self.cursor, line)

    def trailing(self, st) -> str:
        got = self.src.trailing(st)
        return " " + comment(got) if got else ""

    def block(self, stmts, depth: int) -> None:
        for st in stmts:
            self.comments_to(st.lineno, depth)
            m = getattr(self, "s_" + type(st).__name__, None)
            if m is None:
                raise TranslateError(f"{self.node.name}: {type(st).__name__} outside the subset (line {st.lineno})")
            m(st, depth)
            self.cursor = max(self.cursor, (st.end_lineno or st.lineno) + 1)

    def simple(self, st, depth: int, text: str) -> None:
        self.out(depth, text + self.trailing(st))

    def s_Pass(self, st, depth):
        self.simple(st, depth, ";")

    def s_Break(self, st, depth):
        self.simple(st, depth, "break;")

    def s_Continue(self, st, depth):
        self.simple(st, depth, "continue;")

    def s_Expr(self, st, depth):
        if isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
            self.out(depth, comment(" ".join(st.value.value.split())))
            return
        code, _ = self.expr(st.value)
        self.simple(st, depth, f"{code};")

    def s_Return(self, st, depth):
        if st.value is None:
            if self.bare_returns_zero and self.ret in SCALARS:
                self.simple(st, depth, "return 0;")
                return
            if self.bare_returns_zero:
                raise TranslateError(f"{self.node.name}: returns a {self.ret} and nothing")
            self.simple(st, depth, "return;")
            return
        code, t = self.expr(st.value)
        if isinstance(self.ret, tuple):
            parts = self.parts(code, t, depth)
            fields = " ".join(f"rc_r.f{i} = {p};" for i, p in enumerate(parts))
            self.simple(st, depth, f"{{ {c_type(self.ret)} rc_r; {fields} return rc_r; }}")
        elif t != self.ret and self.ret in SCALARS:
            self.simple(st, depth, f"return ({c_type(self.ret)})({code});")
        else:
            self.simple(st, depth, f"return {code};")

    def parts(self, code, t, depth) -> list[str]:
        """The parts of a tuple value (a struct result is held in a temporary first)."""
        if isinstance(code, list):
            return code
        self.tmp += 1
        tmp = f"rc_t{self.tmp}"
        self.out(depth, f"{c_type(t)} {tmp} = {code};")
        return [f"{tmp}.f{i}" for i in range(len(t))]

    def target(self, target) -> str:
        if isinstance(target, ast.Name):
            t = self.types.get(target.id)
            if isinstance(t, tuple):
                raise TranslateError(f"{self.node.name}: a tuple held in {target.id} (line {target.lineno})")
            return self.name(target.id)
        if isinstance(target, ast.Subscript):
            code, t = self.expr(target)
            if t not in SCALARS:
                raise TranslateError(f"{self.node.name}: assigning a row (line {target.lineno})")
            m = re.fullmatch(r"\(\(long long\)(.*)\)", code)
            return m.group(1) if m else code
        raise TranslateError(f"{self.node.name}: an assignment outside the subset (line {target.lineno})")

    def s_Assign(self, st, depth):
        code, t = self.expr(st.value)
        for tgt in st.targets:
            if isinstance(tgt, ast.Tuple):
                parts = self.parts(code, t, depth)
                if len(st.targets) > 1 or (len(parts) > 1 and isinstance(code, list)):
                    # a, b = b, a: every part worked out before any is assigned
                    self.out(depth, "{")
                    tmps = []
                    for p, pt in zip(parts, t):
                        self.tmp += 1
                        tmps.append(f"rc_p{self.tmp}")
                        self.out(depth + 1, f"{c_type(pt)} {tmps[-1]} = {p};")
                    for x, tmp in zip(tgt.elts, tmps):
                        self.out(depth + 1, f"{self.target(x)} = {tmp};")
                    self.simple(st, depth, "}")
                else:
                    for x, p in zip(tgt.elts, parts):
                        self.out(depth, f"{self.target(x)} = {p};")
            else:
                if isinstance(t, tuple):
                    raise TranslateError(f"{self.node.name}: a tuple held in one name (line {st.lineno})")
                self.simple(st, depth, f"{self.target(tgt)} = {code};")

    def s_AugAssign(self, st, depth):
        op = _BINOPS[type(st.op)]
        tgt = self.target(st.target)
        value, tv = self.expr(st.value)
        if op in ("//", "%", "**", "/"):
            cur, tc = self.expr(st.target)
            t = arith(tc, tv, op)
            fn = {"//": "rc_floordiv", "%": "rc_mod", "**": "rc_pow"}.get(op)
            rhs = f"((double)({cur}) / (double)({value}))" if op == "/" else f"{fn}_{t}({cur}, {value})"
            self.simple(st, depth, f"{tgt} = {rhs};")
        else:
            self.simple(st, depth, f"{tgt} {op}= {value};")

    def s_If(self, st, depth):
        cond, _ = self.expr(st.test)
        self.out(depth, f"if ({cond}) {{" + self.trailing(st))
        self.cursor = st.lineno + 1
        self.block(st.body, depth + 1)
        orelse = st.orelse
        while len(orelse) == 1 and isinstance(orelse[0], ast.If):
            nxt = orelse[0]
            self.comments_to(nxt.lineno, depth + 1)
            cond, _ = self.expr(nxt.test)
            self.out(depth, f"}} else if ({cond}) {{" + self.trailing(nxt))
            self.cursor = nxt.lineno + 1
            self.block(nxt.body, depth + 1)
            orelse = nxt.orelse
        if orelse:
            self.out(depth, "} else {")
            self.block(orelse, depth + 1)
        self.out(depth, "}")

    def s_While(self, st, depth):
        if st.orelse:
            raise TranslateError(f"{self.node.name}: while ... else (line {st.lineno})")
        if isinstance(st.test, ast.Constant) and st.test.value is True:
            self.out(depth, "for (;;) {" + self.trailing(st))
        else:
            cond, _ = self.expr(st.test)
            self.out(depth, f"while ({cond}) {{" + self.trailing(st))
        self.cursor = st.lineno + 1
        self.block(st.body, depth + 1)
        self.out(depth, "}")

    def s_For(self, st, depth):
        it = st.iter
        if (
            st.orelse
            or not isinstance(st.target, ast.Name)
            or not isinstance(it, ast.Call)
            or not isinstance(it.func, ast.Name)
            or self.resolve(it.func.id) is not range
            or not 1 <= len(it.args) <= 3
        ):
            raise TranslateError(f"{self.node.name}: a for loop other than over range (line {st.lineno})")
        args = [self.expr(a)[0] for a in it.args]
        start, stop, step = ("0LL", args[0], "1LL") if len(args) == 1 else (args[0], args[1], "1LL")
        if len(args) == 3:
            step = args[2]
        self.tmp += 1
        k = self.tmp
        var = self.name(st.target.id)
        try:
            sv = ast.literal_eval(it.args[2]) if len(args) == 3 else 1
        except ValueError:
            sv = None
        if isinstance(sv, int):
            cond = f"rc_i{k} < rc_e{k}" if sv > 0 else f"rc_i{k} > rc_e{k}"
        else:
            cond = f"(rc_s{k} > 0 ? rc_i{k} < rc_e{k} : rc_i{k} > rc_e{k})"
        self.out(depth, f"{{ long long rc_e{k} = {stop}, rc_s{k} = {step}; (void)rc_s{k};" + self.trailing(st))
        self.out(depth, f"for (long long rc_i{k} = {start}; {cond}; rc_i{k} += rc_s{k}) {{")
        self.out(depth + 1, f"{var} = rc_i{k};")
        self.cursor = st.lineno + 1
        self.block(st.body, depth + 1)
        self.out(depth, "}}")
