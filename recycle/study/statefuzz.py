"""The state-machine fuzzer: small random games, every invariant after every step.

``random_game(seed)`` writes a small game that shuffles cards around in every way the
language allows: moves from locations, views (filter, union, intersect, disjunction,
(top N L), sort) and mem locations (with and without ``actual``), to every place of a
location (itself included), swaps of locations and of cards, remember/forget, both
shuffles, ``repeat N`` and ``repeat all``, ``let`` views, ``all``/``any`` loops, conditions
and choices, with several owners (the game, the current/next/previous player, a player
variable). ``exercise_state(text, seed)`` plays it on the reference interpreter, watched
(every card event checks conservation, every decision every player's view), and once more
as a random rollout; both must play the same game, and a game that stops on an error must
stop alike, with every card still in one place.

Used by ``tests/engine/test_cards_conserved.py`` (a few hundred games) and ``tools/fuzz.py --state``
(long runs, e.g. ``-n 20000 --workers 2``).
"""

from __future__ import annotations

import random
import time

from ..errors import RecycleBug, RecycleCompileError, RecycleError
from ..engine.game import loads
from .fuzzing import FILENAME, FuzzFailure, check_error_message
from .invariants import (
    InvariantSink,
    InvariantViolation,
    check_conservation,
    check_views,
    on_decision as check_decision,
)

STATE_MAX_STEPS = 300
STATE_TIME_BOUND = 5.0  # seconds per game (both compilations, three plays)
STATE_OUTCOMES = ("ok", "compile error", "runtime error", "step limit")

_PHYS_KINDS = ("vloc", "iloc", "hloc", "oloc")
_NAMES = ("A", "B", "C")
_RANKS = ("A", "B", "C", "D")
_SUITS = ("X", "Y", "Z")


class GameMaker:
    """Writes one random small game (``text()``) from a ``random.Random``."""

    def __init__(self, rng, nplayers: int | None = None):
        self.r = rng
        self.n = nplayers or rng.choice((2, 2, 3, 4))
        self.fresh = 0
        # how often the shapes the language refuses are drawn (a move out of or into a mem
        # location, a swap or faro with one, a faro of a location with itself): one game in
        # ten draws them twenty times as often, so most games run and the refusals are tried
        self.refused = 20.0 if rng.random() < 0.1 else 1.0

    # -- helpers ---------------------------------------------------------------------------
    def pick(self, *weighted):
        """``pick((w, value_or_callable), ...)``: one of the values, by weight."""
        total = sum(w for w, _ in weighted)
        x = self.r.random() * total
        for w, v in weighted:
            x -= w
            if x < 0:
                return v() if callable(v) else v
        v = weighted[-1][1]
        return v() if callable(v) else v

    def var(self, prefix: str) -> str:
        self.fresh += 1
        return f"'{prefix}{self.fresh}"

    def small(self, hi: int = 3) -> int:
        return self.r.randint(0, hi)

    # -- locations ---------------------------------------------------------------------------
    def owner(self, ctx) -> str:
        opts = [
            (4, "game"),
            (2, "(current player)"),
            (1, "(next player)"),
            (1, "(previous player)"),
            (1, "(0 player)"),
            (1, f"({self.n - 1} player)"),
        ]
        if ctx["players"]:
            opts.append((3, self.r.choice(ctx["players"])))
        return self.pick(*opts)

    def phys(self, ctx) -> str:
        x = self.r.random()
        if ctx["locs"] and x < 0.15:
            return self.r.choice(ctx["locs"])
        if x > 0.8:  # where the decks are
            return self.r.choice(("(game iloc S)", "(game iloc S)", "(game vloc D)"))
        return f"({self.owner(ctx)} {self.r.choice(_PHYS_KINDS)} {self.r.choice(_NAMES)})"

    def mem(self, ctx) -> str:
        if ctx["mems"] and self.r.random() < 0.15:
            return self.r.choice(ctx["mems"])
        owner = self.pick((3, "game"), (1, "(current player)"), (1, lambda: self.owner(ctx)))
        return f"({owner} mem {self.r.choice(('M', 'N'))})"

    def anyloc(self, ctx) -> str:
        return self.pick((4, lambda: self.phys(ctx)), (1, lambda: self.mem(ctx)))

    def view(self, ctx) -> str:
        if ctx["views"] and self.r.random() < 0.2:
            return self.r.choice(ctx["views"])
        c = self.var("C")
        return self.pick(
            (4, lambda: f"(filter {self.anyloc(ctx)} {c} {self.card_cond(ctx, c)})"),
            (2, lambda: f"(union {self.anyloc(ctx)} {self.anyloc(ctx)})"),
            (1, lambda: f"(intersect {self.anyloc(ctx)} {self.anyloc(ctx)})"),
            (1, lambda: f"(disjunction {self.anyloc(ctx)} {self.anyloc(ctx)})"),
            (2, lambda: f"({self.r.choice(('top', 'bottom'))} {self.pick((3, 0), (3, 1), (1, 2))} {self.anyloc(ctx)})"),
            (1, lambda: f"(sort {self.anyloc(ctx)} using (game points P))"),
            (1, lambda: self.all_players_union(ctx)),
        )

    def all_players_union(self, ctx) -> str:
        p = self.var("P")
        return f"(union (all player {p} ({p} {self.r.choice(_PHYS_KINDS + ('mem',))} {self.r.choice(_NAMES)})))"

    def collection(self, ctx) -> str:
        return self.pick((3, lambda: self.phys(ctx)), (1, lambda: self.mem(ctx)), (2, lambda: self.view(ctx)))

    # -- cards and conditions ----------------------------------------------------------------
    def card_cond(self, ctx, c: str) -> str:
        return self.pick(
            (3, lambda: f"(== (cardatt RANK {c}) {self.r.choice(_RANKS)})"),
            (2, lambda: f"(!= (cardatt SUIT {c}) {self.r.choice(_SUITS)})"),
            (2, lambda: f"(> (score {c} using (game points P)) {self.small(2)})"),
            (1, "(== 1 1)"),
            (1, lambda: f"(< (size {self.phys(ctx)}) {self.small(4)})"),
        )

    def cond(self, ctx) -> str:
        c = self.var("C")
        return self.pick(
            (4, lambda: f"(> (size {self.collection(ctx)}) {self.small(1)})"),
            (1, lambda: f"(== (size {self.collection(ctx)}) 0)"),
            (1, lambda: f"(< (game sto T) {self.small(4)})"),
            (2, lambda: f"(any {self.collection(ctx)} {c} {self.card_cond(ctx, c)})"),
            (1, lambda: f"(all {self.collection(ctx)} {c} {self.card_cond(ctx, c)})"),
            (1, lambda: f"(and {self.cond(ctx)} {self.cond(ctx)})"),
            (1, lambda: f"(not {self.cond(ctx)})"),
        )

    def source(self, ctx, guards: list | None = None) -> str:
        """A card to move, swap or remember; the condition that it exists (when known) is
        appended to ``guards``."""
        guards = [] if guards is None else guards

        def at(loc: str, where: str | None = None, actual: bool = False) -> str:
            where = where or self.pick((6, "top"), (2, "bottom"), (2, lambda: str(self.small(2))))
            k = int(where) if where.isdigit() else 0
            guards.append(f"(> (size {loc}) {k})")
            return f"(actual ({where} {loc}))" if actual else f"({where} {loc})"

        opts = [
            (10, lambda: at(self.phys(ctx))),
            (3, lambda: at(self.view(ctx), self.r.choice(("top", "bottom")))),
            (3, lambda: at(self.mem(ctx), actual=True)),
            (1, lambda: at(self.phys(ctx), "top", actual=True)),
            (1, lambda: self.extreme(ctx, guards)),
            # refused: a card taken out of a mem location without actual
            (0.05 * self.refused, lambda: at(self.mem(ctx), "top")),
        ]
        if ctx["cards"]:
            opts.append((5, lambda: self.r.choice(ctx["cards"])))
        return self.pick(*opts)

    def extreme(self, ctx, guards: list) -> str:
        loc = self.collection(ctx)
        guards.append(f"(> (size {loc}) 0)")
        return f"({self.r.choice(('max', 'min'))} {loc} using (game points P))"

    def guarded(self, guards: list, action: str) -> str:
        """``action`` under its guards, most of the time (an unguarded one may fail: that is
        exercised too)."""
        if guards and self.r.random() < 0.8:
            cond = guards[0] if len(guards) == 1 else f"(and {' '.join(guards)})"
            return f"({cond} {action})"
        return action

    def place(self, ctx, loc: str | None = None) -> str:
        loc = loc or self.pick((300, lambda: self.phys(ctx)), (self.refused, lambda: self.mem(ctx)))  # refused
        where = self.pick((5, "top"), (2, "bottom"), (2, lambda: str(self.small(1))))
        if where.isdigit() and self.r.random() < 0.8:
            # an index within the destination (it is evaluated after the card left)
            where = f"(% {self.small(5)} (+ 1 (size {loc})))"
        return f"({where} {loc})"

    # -- actions -----------------------------------------------------------------------------
    def move(self, ctx) -> str:
        guards: list = []
        src = self.source(ctx, guards)
        return self.guarded(guards, f"(move {src} {self.place(ctx)})")

    def swap_cards(self, ctx) -> str:
        guards: list = []
        a, b = self.source(ctx, guards), self.source(ctx, guards)
        return self.guarded(guards, f"(swap {a} {b})")

    def remember(self, ctx) -> str:
        guards: list = []
        a = self.source(ctx, guards)
        return self.guarded(guards, f"(remember {a} {self.place(ctx, self.mem(ctx))})")

    def forget(self, ctx) -> str:
        m = self.mem(ctx)
        where = self.pick((4, "top"), (2, "bottom"), (1, "0"), (1, "1"))
        return self.guarded([f"(> (size {m}) {1 if where == '1' else 0})"], f"(forget ({where} {m}))")

    def primitive(self, ctx) -> str:
        """An action (maybe under a condition) that ``repeat N`` may repeat."""
        return self.pick(
            (10, lambda: self.move(ctx)),
            (
                2,
                lambda: (
                    f"(swap {self.phys(ctx)} {self.pick((40, lambda: self.phys(ctx)), (self.refused, lambda: self.mem(ctx)))})"
                ),
            ),
            (3, lambda: self.swap_cards(ctx)),
            (3, lambda: self.remember(ctx)),
            (2, lambda: self.forget(ctx)),
            (2, lambda: f"(shuffle {self.anyloc(ctx)})"),
            (2, lambda: f"(shuffle faro {self.faro_loc(ctx)} {self.faro_loc(ctx)})"),
            (1, "(inc (game sto U))"),
            (0.3, lambda: f"(create deck {self.phys(ctx)} (deck (RANK (Q, K))))"),
            (0.5, "(cycle next next)"),
            (2, lambda: self.same_place(ctx)),
            (0.1 * self.refused, lambda: self.remember_then_move(ctx)),
        )

    def remember_then_move(self, ctx) -> str:
        """Remember a card, then take it out of memory without ``actual`` (refused: it used to
        move the card while its old place kept it)."""
        m, src = self.mem(ctx), self.phys(ctx)
        where = self.r.choice(("top", "bottom", "0"))
        return f"((> (size {src}) 0) (do ((remember (top {src}) (top {m})) (move ({where} {m}) {self.place(ctx)}))))"

    def same_place(self, ctx) -> str:
        """A location with itself: moves within it, swaps with itself, a faro with itself
        (refused)."""
        loc = self.phys(ctx)
        return self.pick(
            (3, lambda: f"((> (size {loc}) 0) (move (top {loc}) (bottom {loc})))"),
            (2, lambda: f"((> (size {loc}) 0) (move (bottom {loc}) (top {loc})))"),
            (2, lambda: f"((> (size {loc}) 1) (move (1 {loc}) ((% {self.small(4)} (size {loc})) {loc})))"),
            (2, lambda: f"(repeat all (move ({self.r.choice(('top', 'bottom'))} {loc}) {self.place(ctx, loc)}))"),
            (2, lambda: f"(swap {loc} {loc})"),
            (2, lambda: f"((> (size {loc}) 0) (swap (top {loc}) (bottom {loc})))"),
            (0.3 * self.refused, lambda: f"(shuffle faro {loc} {loc})"),
        )

    def action(self, ctx, depth: int = 0) -> str:
        if depth >= 3:
            return self.primitive(ctx)
        d = depth + 1
        return self.pick(
            (8, lambda: self.primitive(ctx)),
            (3, lambda: f"(repeat {self.small(4)} {self.primitive(ctx)})"),
            (3, lambda: f"(repeat all (move {self.repeat_all_source(ctx)} {self.place(ctx)}))"),
            (1, lambda: f"(repeat all (forget ({self.r.choice(('top', 'bottom'))} {self.mem(ctx)})))"),
            (4, lambda: f"({self.cond(ctx)} {self.action(ctx, d)})"),
            (2, lambda: f"(do ({self.action(ctx, d)} {self.action(ctx, d)}))"),
            (2, lambda: self.for_players(ctx, d)),
            (2, lambda: self.for_cards(ctx, d)),
            (2, lambda: self.let(ctx, d)),
        )

    def repeat_all_source(self, ctx) -> str:
        where = self.r.choice(("top", "bottom"))
        return self.pick(
            (4, lambda: f"({where} {self.phys(ctx)})"),
            (2, lambda: f"({where} {self.view(ctx)})"),
            (1, lambda: f"(actual ({where} {self.mem(ctx)}))"),
        )

    def faro_loc(self, ctx) -> str:
        # the same location twice, or a mem location, is refused
        return self.pick((100, lambda: self.phys(ctx)), (self.refused, lambda: self.mem(ctx)))

    def for_players(self, ctx, depth: int) -> str:
        p = self.var("P")
        inner = dict(ctx, players=ctx["players"] + [p])
        who = self.pick((3, "player"), (1, "(other player)"))
        return f"({self.r.choice(('all', 'any'))} {who} {p} {self.action(inner, depth)})"

    def for_cards(self, ctx, depth: int) -> str:
        c = self.var("C")
        inner = dict(ctx, cards=ctx["cards"] + [c])
        return f"({self.r.choice(('all', 'any'))} {self.collection(ctx)} {c} {self.action(inner, depth)})"

    def let(self, ctx, depth: int) -> str:
        v = self.var("V")
        kind = self.pick((3, "views"), (2, "locs"), (1, "mems"))
        value = {"views": lambda: self.view(ctx), "locs": lambda: self.phys(ctx), "mems": lambda: self.mem(ctx)}[kind]()
        inner = dict(ctx, **{kind: ctx[kind] + [v]})
        body = self.pick(
            (3, lambda: self.action(inner, depth)),
            (
                2,
                lambda: (
                    f"(repeat all (move (top {v}) {self.place(inner)}))"
                    if kind != "mems"
                    else f"(repeat all (move (actual (top {v})) {self.place(inner)}))"
                ),
            ),
        )
        return f"(let {value} {v} {body})"

    def option(self, ctx) -> str:
        c = self.var("C")
        inner = dict(ctx, cards=ctx["cards"] + [c])
        return self.pick(
            (4, lambda: self.action(ctx, 1)),
            (
                4,
                lambda: (
                    f"(any {self.collection(ctx)} {c} {self.pick((3, lambda: self.move(inner)), (1, lambda: self.action(inner, 2)))})"
                ),
            ),
            (1, lambda: f"(do ({self.action(ctx, 2)} {self.action(ctx, 2)}))"),
        )

    def choice(self, ctx) -> str:
        opts = [self.option(ctx) for _ in range(self.r.randint(1, 3))]
        if self.r.random() < 0.95:  # without it, a choice may have no option: an error
            opts.append("(turn pass)")
        return f"(choice ({' '.join(opts)}))"

    # -- the game ------------------------------------------------------------------------------
    def deck(self) -> str:
        ranks = ", ".join(_RANKS[: self.r.randint(1, 4)])
        suits = ", ".join(_SUITS[: self.r.randint(1, 3)])
        return f"(deck (RANK ({ranks})) (SUIT ({suits})))"

    def text(self) -> str:
        ctx = {"cards": [], "players": [], "locs": [], "mems": [], "views": []}
        decks = [f"(create deck (game iloc S) {self.deck()})"]
        if self.r.random() < 0.4:
            decks.append(f"(create deck TWO (game vloc D) {self.deck()})")
        p = self.var("P")
        deal = (
            f"(all player {p} (repeat {self.r.randint(0, 3)} (({'> (size (game iloc S)) 0'}) "
            f"(move (top (game iloc S)) (top ({p} {self.r.choice(_PHYS_KINDS)} A))))))"
        )
        start = [
            "(set (game points P) (((RANK : A) 1) ((RANK : B) 2) ((SUIT : X) 3) ((RANK : C) 3)))",
            "(shuffle (game iloc S))",
            deal,
        ]
        start += [self.action(ctx) for _ in range(self.r.randint(0, 3))]
        flow = [f"(do ({' '.join(start)}))"]
        if self.r.random() < 0.3:
            flow.append(self.choice(ctx))
        body = []
        for _ in range(self.r.randint(1, 3)):
            body.append(self.pick((3, lambda: self.choice(ctx)), (2, lambda: f"(do ({self.action(ctx)}))")))
        body.append("(do ((inc (game sto T))))")
        rounds = self.r.randint(1, 6)
        flow.append(f"(stage player (end (>= (game sto T) {rounds})) {' '.join(body)})")
        if self.r.random() < 0.3:
            flow.append(f"(do ({self.action(ctx)}))")
        scoring = self.r.choice(
            [
                "(size ((current player) iloc A))",
                "(sum ((current player) vloc A) using (game points P))",
                "(game sto U)",
            ]
        )
        return (
            f"(game\n (setup (create players {self.n})\n  {' '.join(decks)})\n "
            + "\n ".join(flow)
            + f"\n (scoring max {scoring}))\n"
        )


def random_game(seed: int) -> str:
    """The text of state-machine game number ``seed`` (the same seed, the same text)."""
    return GameMaker(random.Random(seed)).text()


class StateFailure(FuzzFailure):
    """A state-machine game broke an invariant (``kind``: "invariant", "divergence", "crash",
    "bad message" or "slow")."""

    def __init__(self, kind: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind = kind


def _places(state, history: bool = True) -> dict:
    out = {
        "decisions": state.decisions,
        "options_total": state.options_total,
        "steps": state.steps,
        "card_loc": [int(x) for x in state.card_loc],
        "locs": [[int(c) for c in lst] for lst in state.locs],
        "scores": None if state.scores is None else list(state.scores),
    }
    if history:
        out["history"] = list(state.history)
    return out


def _invariant_cause(exc):
    """The ``InvariantViolation`` an event sink raised inside the game, if that is what
    ``exc`` (a ``RecycleBug`` wrapping it) is."""
    while exc is not None:
        if isinstance(exc, InvariantViolation):
            return exc
        exc = exc.__cause__
    return None


def _checked_run(game, seed: int, max_steps: int, filename: str) -> dict:
    """One watched game (random players): conservation after every card event, views and
    conservation at every decision and at the end (also of a game stopped by an error)."""
    trace = []

    def watch(state, p, options, i):
        trace.append((p, len(options), i))
        check_decision(state, p, options, i)

    sink = InvariantSink()
    try:
        try:
            r = game.play(seed=seed, max_steps=max_steps, record=sink, on_decision=watch)
        except RecycleError as exc:
            check_error_message(exc, filename)
            partial = getattr(exc, "partial", None)
            if partial is not None:  # a stopped game keeps every card in one place
                check_conservation(partial.state)
            return {
                "outcome": ("error", type(exc).__name__, str(exc)),
                "trace": trace,
                "state": _places(partial.state) if partial is not None else None,
            }
        check_conservation(r.state)
        check_views(r.state)
    except InvariantViolation as exc:
        raise StateFailure("invariant", str(exc)) from None
    except RecycleBug as exc:
        inv = _invariant_cause(exc)
        if inv is not None:
            raise StateFailure("invariant", str(inv)) from None
        raise StateFailure("crash", f"RecycleBug: {exc.message} ({exc.where})") from exc
    return {"outcome": ("ok", r.scores, r.winners), "trace": trace, "state": _places(r.state)}


def _rollout(game, seed: int, max_steps: int):
    """The inline random rollout (the simulation hot path): its outcome and final places."""
    try:
        s = game.random_rollout(seed, max_steps=max_steps)
    except RecycleError as exc:
        return ("error", type(exc).__name__, str(exc))
    try:
        check_conservation(s)
    except InvariantViolation as exc:
        raise StateFailure("invariant", f"random_rollout: {exc}") from None
    return ("ok", list(s.scores), _places(s, history=False))


def exercise_state(
    text: str, seed: int = 0, max_steps: int = STATE_MAX_STEPS, time_bound: float | None = STATE_TIME_BOUND
) -> str:
    """Load a game on the reference interpreter, play ``seed`` watched and as a random
    rollout, checking every invariant; return the outcome (``STATE_OUTCOMES``) or raise
    ``StateFailure``. (Until issue 41 the fast and the plain paths were compared too: there
    is one path now.)"""
    t0 = time.perf_counter()
    try:
        try:
            game = loads(text, FILENAME)
        except RecycleError as exc:
            check_error_message(exc, FILENAME)
            # the kind of error by its class (several compile errors are compile errors too)
            game = ("error", "compile error" if isinstance(exc, RecycleCompileError) else "syntax error", str(exc))
        if isinstance(game, tuple):
            outcome = game[1]
        else:
            a = _checked_run(game, seed, max_steps, FILENAME)
            c = _rollout(game, seed, max_steps)
            if a["outcome"][0] == "ok":
                want = ("ok", a["outcome"][1], {k: v for k, v in a["state"].items() if k != "history"})
            else:
                want = a["outcome"]
            if c != want:
                raise StateFailure(
                    "divergence", f"random_rollout differs from the watched game: {str(c)[:300]} vs {str(want)[:300]}"
                )
            kind = a["outcome"][1] if a["outcome"][0] == "error" else "ok"
            outcome = {"ok": "ok", "StepLimitExceeded": "step limit"}.get(kind, "runtime error")
    except StateFailure:
        raise
    except FuzzFailure as exc:
        raise StateFailure("bad message", str(exc)) from None
    except RecycleBug as exc:
        raise StateFailure("crash", f"RecycleBug: {exc.message}") from exc
    except Exception as exc:
        raise StateFailure("crash", f"{type(exc).__name__}: {exc}") from exc
    dt = time.perf_counter() - t0
    if time_bound is not None and dt > time_bound:
        raise StateFailure("slow", f"{dt:.1f} s (bound {time_bound} s), outcome {outcome}")
    return outcome
