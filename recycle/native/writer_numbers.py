"""What the native writers of the integer and boolean forms (``lang/forms/form_arithmetic.py``,
``form_counting.py``, ``form_comparison.py``, ``form_logic.py``, ``form_quantifiers.py``,
``form_pid.py``) reach of the native engine through their writer object: a module of lang/
does not import recycle.native, so ``Writer`` (``writer.py``) takes these as a mixin."""

from __future__ import annotations

from ..lang.nodes.base import Const, Num, Var
from .purity import analyse, canonical, walk

INT_LIMIT = 9223372036854775807  # the reference's integers: within +-INT_LIMIT (runtime.py)


def _constant(v) -> bool:
    """Is an entry of a native scope a declared constant, not a local nor unbound? (``is_constant``
    of ``writer.py``, which this mixin of its ``Writer`` cannot import.)"""
    return v is not None and not hasattr(v, "type")


class NumbersWriterTools:
    """The native engine's helpers the integer and boolean forms' writers call on ``w``."""

    def remembered(self, x, sc, compute: str) -> str | None:
        """A call of ``compute`` that answers again from memory while the one location the form
        reads, and the point maps, are unchanged (``purity.py`` decides, from the syntax, that
        the form is such a function of that location's cards). None when it is not."""
        found = analyse(x, lambda name: _constant(sc.lookup(name)))
        if found is None or len(found[0]) != 1:
            return None
        # Two conditions alike but for the variable naming the location answer alike for the same
        # cards: they share a site (Schwimmen's two stages end on the same test of every hand)
        here = canonical(found[0][0])
        consts = sorted(
            {
                (a.name, repr(sc.lookup(a.name).value))
                for a in walk(x)
                if isinstance(a, (Var, Const)) and _constant(sc.lookup(a.name))
            }
        )
        key = (canonical(x, here), tuple(consts))
        site = self.memo_keys.get(key)
        if site is None:
            site = self.memo_keys[key] = self.memo_sites
            self.memo_sites += 1
        params = sc.params()
        with self.function(
            "remembered",
            params,
            f"({type(x).HEAD} ...) at line {x.span.line}, remembered by the version of the location it reads",
        ):
            self.line(f"where = {self.phys(found[0][0], sc)}")
            with self.block(
                f"if memo[{site}, where, 0] == ver[where] and memo[{site}, where, 1] == ver[POINTS_EPOCH]:"
            ):
                self.line(f"return memo[{site}, where, 2] != 0")
            self.line(f"answer = {compute}")
            with self.block("if ctr[STATUS] == 0:"):
                self.line(f"memo[{site}, where, 0] = ver[where]")
                self.line(f"memo[{site}, where, 1] = ver[POINTS_EPOCH]")
                self.line(f"memo[{site}, where, 2] = 1 if answer else 0")
            self.line("return answer")
        return self.fns[-1].call(*params)

    def sums_fit(self) -> bool:
        """Can no ``(sum CARDS using POINTS)`` of this game leave 64 bits? True when every point
        map the game sets gives literal points and every card of the deck scoring the most a
        card can (each award it could match) still sums within the reference's range: the sum
        is then written unchecked (Schwimmen's hands, Hearts' tricks); a computed award or a wide
        map's sum is checked (``score_sum``: the reference interpreter says the exact error)."""
        got = getattr(self, "_sums_fit", None)
        if got is None:
            from ..lang.nodes.actions import SetPoints

            most = 0
            got = True
            for x in walk(self.gnode):
                if isinstance(x, SetPoints):
                    if not all(isinstance(a.points, Num) for a in x.awards):
                        got = False
                        break
                    most = max(most, sum(abs(int(a.points.value)) for a in x.awards))
            got = got and most * max(len(self.game.card_attrs), 1) <= INT_LIMIT
            self._sums_fit = got
        return got
