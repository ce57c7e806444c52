"""Exact game theory on a small game: ``recycle solve GAME``.

``solve(path)`` makes the game's OpenSpiel form with chance as the rules draw it
(``openspiel_game(path, chance="rules")``), walks its whole tree once (chance nodes with
their exact probabilities), and runs CFR+ (regret matching+, alternating updates, the
average weighted by iteration) on that table of histories and information states; a
constant-sum game's exact value comes from the sequence-form LP (``seqform.py``). It reports
the value of each seat (exact, and under CFR+'s average policy), the exploitability of the average policy
(OpenSpiel's: the mean over the players of what a best response gains) at each
checkpoint, the number of information states, and the average policy in the game's words.

The walker takes any ``pyspiel`` game (``solve_game``), so the tests solve OpenSpiel's own
``kuhn_poker`` with the same code and compare. Two-player games only (CFR+'s guarantee).
A game whose tree is estimated (random descents, Knuth's estimator) at more than
``max_nodes`` histories is refused with that estimate, before any walking.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import numpy as np

MAX_NODES = 2_000_000
CHECKPOINTS = (1, 10, 100, 1000, 10_000, 100_000)


class TooLarge(ValueError):
    """The game's tree is too large to walk (the message gives the estimate)."""


@dataclass
class InfoSet:
    """One information state: its player, its words, and its actions' words."""

    player: int
    key: str
    words: str
    actions: list[str]


@dataclass
class Tree:
    """The game's histories as arrays (node 0 is the root)."""

    kind: list = field(default_factory=list)  # "t" terminal, "c" chance, "d" decision
    children: list = field(default_factory=list)
    probs: list = field(default_factory=list)  # chance: the children's probabilities
    infoset: list = field(default_factory=list)  # decision: its information state's index
    utility: list = field(default_factory=list)  # terminal: the returns
    infosets: list = field(default_factory=list)


@dataclass
class SolveResult:
    """What ``solve`` found."""

    game: str
    reward: str
    players: int
    histories: int
    terminals: int
    chance_nodes: int
    infosets: list[int]  # per player
    iterations: int
    seconds: float  # CFR+ (with its checkpoints' evaluations)
    value: list[float]  # per seat, under the average policy
    exploitability: list[tuple[int, float]]  # (iterations, exploitability) at each checkpoint
    strategy: list[dict]  # {"player", "infostate", "actions": {words: probability}}
    utility_sums: list[float] = field(default_factory=list)  # the distinct sums of returns
    exact_value: list[float] | None = None  # per seat, by the sequence-form LP (constant-sum games)
    walk_seconds: float = 0.0  # the estimate and the walk of the tree
    lp_seconds: float = 0.0

    def table(self) -> str:
        """The average policy in the game's words, one information state a line."""
        lines = []
        for row in self.strategy:
            acts = ", ".join(f"{a}: {p:.3f}" for a, p in row["actions"].items())
            lines.append(f"P{row['player']} {row['infostate']} -> {acts}")
        return "\n".join(lines)

    def text(self) -> str:
        """The report ``recycle solve`` prints."""
        sums = ", ".join(f"{x:g}" for x in self.utility_sums)
        out = [
            f"{self.game} (reward={self.reward}): {self.histories:,} histories, {self.terminals:,} terminals, "
            f"{self.chance_nodes:,} chance nodes; returns sum to {sums} "
            f"({'constant-sum' if len(self.utility_sums) == 1 else 'general-sum'})",
            "information states: " + ", ".join(f"P{p} {n}" for p, n in enumerate(self.infosets)),
            f"times: walk {self.walk_seconds:.1f} s, LP {self.lp_seconds:.1f} s, "
            f"CFR+ {self.iterations:,} iterations {self.seconds:.1f} s",
            "value of the average policy: " + ", ".join(f"P{p} {v:+.6f}" for p, v in enumerate(self.value)),
            "exploitability of the average policy: " + ", ".join(f"{it:,}: {e:.6f}" for it, e in self.exploitability),
            "strategy (average policy):",
        ]
        if self.exact_value is not None:
            exact = ", ".join(f"P{p} {v:+.6f}" for p, v in enumerate(self.exact_value))
            out.insert(3, f"game value (sequence-form LP, exact): {exact}")
        return "\n".join(out) + "\n" + self.table()

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return asdict(self)


def estimate_size(game, descents: int = 200, seed: int = 0) -> float:
    """Knuth's estimate of the number of histories: the mean over random descents of the
    sum of the products of the branching factors along the way."""
    rng = random.Random(seed)
    total = 0.0
    for _ in range(descents):
        s = game.new_initial_state()
        width, count = 1.0, 1.0
        while not s.is_terminal():
            acts = [a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()
            width *= len(acts)
            count += width
            s.apply_action(rng.choice(acts))
        total += count
    return total / descents


def _words(state, player: int) -> str:
    """An information state in the game's words: the cards the player sees and the choices so far."""
    s = state.recycle_state() if hasattr(state, "recycle_state") else None
    if s is None:
        return state.information_state_string(player)
    from .rules import card_name

    spec = state._core.spec
    seen = []
    for label, cards in s.observation(player).locations().items():
        shown = [card_name(spec, c) for c in cards if c is not None]
        if shown:
            seen.append(f"{label} {' '.join(shown)}")
    return "with " + ("; ".join(seen) or "nothing seen")


def _short(words: str) -> str:
    """An option's words, short: its first action, ``set MOVE(P0) to BET`` as ``BET``."""
    first = words.split(";", maxsplit=1)[0].strip()
    if first.startswith("set ") and " to " in first:
        return first.rsplit(" to ", 1)[1]
    return first


def build_tree(game, max_nodes: int = MAX_NODES, deadline: float | None = None) -> Tree:
    """Every history of ``game`` (a pyspiel game), chance included."""
    tree = Tree()
    index: dict = {}
    todo = [(game.new_initial_state(), -1, ())]
    while todo:
        state, parent_slot, path = todo.pop()
        k = len(tree.kind)
        if k >= max_nodes:
            raise TooLarge(f"more than {max_nodes:,} histories")
        if deadline is not None and k % 1000 == 0 and time.monotonic() > deadline:
            raise TimeoutError(f"the time budget ran out walking the tree ({k:,} histories so far)")
        if parent_slot != -1:
            p, i = parent_slot
            tree.children[p][i] = k
        if state.is_terminal():
            tree.kind.append("t")
            tree.children.append([])
            tree.probs.append(None)
            tree.infoset.append(-1)
            tree.utility.append(list(state.returns()))
            continue
        tree.utility.append(None)
        if state.is_chance_node():
            outs = state.chance_outcomes()
            tree.kind.append("c")
            tree.children.append([0] * len(outs))
            tree.probs.append([p for _, p in outs])
            tree.infoset.append(-1)
            for i, (a, _) in enumerate(outs):
                todo.append((state.child(a), (k, i), path))
            continue
        player = state.current_player()
        key = state.information_state_string(player)
        acts = state.legal_actions()
        got = index.get((player, key))
        if got is None:
            got = index[(player, key)] = len(tree.infosets)
            names = [_short(state.action_to_string(player, a)) for a in acts]
            history = " ".join(path)
            words = _words(state, player) + (f", after {history}" if history else ", first")
            tree.infosets.append(InfoSet(player, key, words, names))
        tree.kind.append("d")
        tree.children.append([0] * len(acts))
        tree.probs.append(None)
        tree.infoset.append(got)
        names = tree.infosets[got].actions
        for i, a in enumerate(acts):
            todo.append((state.child(a), (k, i), (*path, f"P{player} {names[i]}")))
    return tree


class _CFRPlus:
    """CFR+ on a ``Tree`` of a two-player game."""

    def __init__(self, tree: Tree):
        self.t = tree
        sizes = [len(i.actions) for i in tree.infosets]
        self.regret = [np.zeros(n) for n in sizes]
        self.total = [np.zeros(n) for n in sizes]

    def current(self, i: int) -> np.ndarray:
        r = self.regret[i]
        s = r.sum()
        return r / s if s > 0 else np.full(len(r), 1.0 / len(r))

    def average(self, i: int) -> np.ndarray:
        s = self.total[i]
        z = s.sum()
        return s / z if z > 0 else np.full(len(s), 1.0 / len(s))

    def iterate(self, it: int) -> None:
        for p in (0, 1):
            self._walk(0, p, 1.0, 1.0, it)

    def _walk(self, h: int, p: int, mine: float, others: float, it: int) -> float:
        t = self.t
        kind = t.kind[h]
        if kind == "t":
            return t.utility[h][p]
        if kind == "c":
            return sum(q * self._walk(c, p, mine, others * q, it) for c, q in zip(t.children[h], t.probs[h]))
        i = t.infoset[h]
        sigma = self.current(i)
        kids = t.children[h]
        if t.infosets[i].player == p:
            vals = np.array([self._walk(c, p, mine * sigma[a], others, it) for a, c in enumerate(kids)])
            v = float(sigma @ vals)
            r = self.regret[i]
            r += others * (vals - v)
            np.maximum(r, 0, out=r)
            return v
        self.total[i] += it * others * sigma  # ``others`` holds this player's reach here
        return sum(sigma[a] * self._walk(c, p, mine, others * sigma[a], it) for a, c in enumerate(kids) if sigma[a])


def evaluate(tree: Tree, policy) -> tuple[list[float], list[float]]:
    """(the value of each player under ``policy``, what a best response of each gains)."""
    n = len(next(u for u in tree.utility if u is not None))
    values = _expected(tree, policy, 0, n)
    best = [_best_response(tree, policy, p) for p in range(n)]
    return values, best


def _expected(tree: Tree, policy, h: int, n: int) -> list[float]:
    kind = tree.kind[h]
    if kind == "t":
        return tree.utility[h]
    weights = tree.probs[h] if kind == "c" else policy(tree.infoset[h])
    out = [0.0] * n
    for c, w in zip(tree.children[h], weights):
        if w:
            sub = _expected(tree, policy, c, n)
            for p in range(n):
                out[p] += w * sub[p]
    return out


def _best_response(tree: Tree, policy, p: int) -> float:
    """The value to ``p`` of its best response to ``policy`` (perfect recall)."""
    reach = [0.0] * len(tree.kind)  # the others' and chance's reach
    members: dict = {}
    order = [(0, 1.0)]
    while order:
        h, r = order.pop()
        reach[h] = r
        kind = tree.kind[h]
        if kind == "c":
            order.extend((c, r * q) for c, q in zip(tree.children[h], tree.probs[h]))
        elif kind == "d":
            i = tree.infoset[h]
            if tree.infosets[i].player == p:
                members.setdefault(i, []).append(h)
                order.extend((c, r) for c in tree.children[h])
            else:
                order.extend((c, r * w) for c, w in zip(tree.children[h], policy(i)))
    chosen: dict = {}
    memo: dict = {}

    def value(h: int) -> float:
        got = memo.get(h)
        if got is not None:
            return got
        kind = tree.kind[h]
        if kind == "t":
            v = tree.utility[h][p]
        elif kind == "c":
            v = sum(q * value(c) for c, q in zip(tree.children[h], tree.probs[h]))
        else:
            i = tree.infoset[h]
            if tree.infosets[i].player == p:
                v = value(tree.children[h][best(i)])
            else:
                v = sum(w * value(c) for c, w in zip(tree.children[h], policy(i)) if w)
        memo[h] = v
        return v

    def best(i: int) -> int:
        a = chosen.get(i)
        if a is None:
            hs = members[i]
            k = len(tree.children[hs[0]])
            totals = [sum(reach[h] * value(tree.children[h][j]) for h in hs) for j in range(k)]
            a = chosen[i] = max(range(k), key=totals.__getitem__)
        return a

    return value(0)


def solve_game(
    game,
    name: str = "",
    reward: str = "",
    iterations: int = 1000,
    seconds: float | None = None,
    max_nodes: int = MAX_NODES,
) -> SolveResult:
    """CFR+ on a two-player ``pyspiel`` game (see the module docstring)."""
    import sys

    if game.num_players() != 2:
        raise ValueError(f"recycle solve needs a two-player game, not {game.num_players()} players")
    estimate = estimate_size(game)
    if estimate > max_nodes:
        raise TooLarge(
            f"{name or game}: about {estimate:.3g} histories (Knuth's estimate over 200 random descents), "
            f"more than the {max_nodes:,} recycle solve walks"
        )
    start = time.monotonic()
    deadline = None if seconds is None else start + seconds
    tree = build_tree(game, max_nodes, deadline)
    walked = time.monotonic()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    cfr = _CFRPlus(tree)
    cfr_start = time.monotonic()
    curve = []
    done = 0
    for it in range(1, iterations + 1):
        cfr.iterate(it)
        done = it
        if it in CHECKPOINTS or it == iterations:
            values, best = evaluate(tree, cfr.average)
            curve.append((it, sum(b - v for b, v in zip(best, values)) / 2))
        if deadline is not None and time.monotonic() > deadline:
            break
    values, best = evaluate(tree, cfr.average)
    if not curve or curve[-1][0] != done:
        curve.append((done, sum(b - v for b, v in zip(best, values)) / 2))
    strategy = [
        {
            "player": info.player,
            "infostate": info.words,
            "actions": {a: round(float(x), 6) for a, x in zip(info.actions, cfr.average(i))},
        }
        for i, info in enumerate(tree.infosets)
    ]
    strategy.sort(key=lambda r: (r["player"], len(r["infostate"]), r["infostate"]))
    cfr_seconds = time.monotonic() - cfr_start
    sums = sorted({round(sum(u), 9) for u in tree.utility if u is not None})
    lp_start = time.monotonic()
    exact = None
    if len(sums) == 1:
        from .seqform import lp_value

        v0, _ = lp_value(tree)
        exact = [v0, sums[0] - v0]
    return SolveResult(
        game=name or str(game),
        reward=reward,
        players=2,
        histories=len(tree.kind),
        terminals=tree.kind.count("t"),
        chance_nodes=tree.kind.count("c"),
        infosets=[sum(1 for i in tree.infosets if i.player == p) for p in (0, 1)],
        iterations=done,
        seconds=round(cfr_seconds, 3),
        value=[float(v) for v in values],
        exploitability=[(i, float(e)) for i, e in curve],
        strategy=strategy,
        utility_sums=[float(x) for x in sums] if len(sums) <= 8 else [],
        exact_value=exact,
        walk_seconds=round(walked - start, 3),
        lp_seconds=round(time.monotonic() - lp_start, 3),
    )


def solve(
    path,
    reward: str = "win",
    iterations: int = 1000,
    seconds: float | None = None,
    max_nodes: int = MAX_NODES,
) -> SolveResult:
    """CFR+ on the game at ``path`` through ``openspiel_game(path, chance="rules")``."""
    from . import openspiel_game

    game = openspiel_game(path, reward=reward, chance="rules")
    name = game.spec.game.name
    return solve_game(game, name, reward, iterations, seconds, max_nodes)
