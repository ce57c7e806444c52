"""The exact value of a two-player constant-sum game: the sequence-form linear program.

Koller, Megiddo and von Stengel (1996): a player's mixed strategy with perfect recall is a
*realization plan* x over its sequences (an information state and an action, and the empty
sequence), with x(empty) = 1 and, at each information state I, the plan of I's actions summing
to the plan of the sequence that leads to I (E x = e). With A[s0, s1] the chance-weighted
payoff to player 0 of the terminals reached by the sequences s0 and s1, player 0's maximin
value is the LP

    max q0   such that   F^T q <= A^T x,   E x = e,   x >= 0   (q free)

(F, f: player 1's constraints; q the dual of player 1's best response). SciPy's HiGHS solves
it. A constant-sum game is solved on player 0's returns (player 1's are the constant minus them).
"""

from __future__ import annotations

import numpy as np


def _sequences(tree):
    """Per player, each information state's first sequence index (1-based: 0 is the empty
    sequence), the number of sequences, and each information state's parent sequence."""
    first: dict = {}
    count = [1, 1]
    for i, info in enumerate(tree.infosets):
        first[i] = count[info.player]
        count[info.player] += len(info.actions)
    parent: dict = {}
    payoff: dict = {}
    todo = [(0, 0, 0, 1.0)]
    while todo:
        h, s0, s1, p = todo.pop()
        kind = tree.kind[h]
        if kind == "t":
            key = (s0, s1)
            payoff[key] = payoff.get(key, 0.0) + p * tree.utility[h][0]
        elif kind == "c":
            todo.extend((c, s0, s1, p * q) for c, q in zip(tree.children[h], tree.probs[h]))
        else:
            i = tree.infoset[h]
            player = tree.infosets[i].player
            parent[i] = s0 if player == 0 else s1
            for a, c in enumerate(tree.children[h]):
                seq = first[i] + a
                todo.append((c, seq, s1, p) if player == 0 else (c, s0, seq, p))
    return first, count, parent, payoff


def _constraints(tree, player: int, first: dict, parent: dict, n: int):
    """The rows of E (or F): the empty sequence, then one per information state of ``player``."""
    rows = [[(0, 1.0)]]
    for i, info in enumerate(tree.infosets):
        if info.player != player:
            continue
        rows.append([(parent[i], -1.0)] + [(first[i] + a, 1.0) for a in range(len(info.actions))])
    m = np.zeros((len(rows), n))
    for r, row in enumerate(rows):
        for col, v in row:
            m[r, col] += v
    return m


def lp_value(tree) -> tuple[float, list]:
    """Player 0's exact value and its equilibrium behaviour strategy (per information state of
    player 0: the probabilities of its actions; None for player 1's)."""
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix, hstack, vstack

    first, count, parent, payoff = _sequences(tree)
    n0, n1 = count
    E = _constraints(tree, 0, first, parent, n0)
    F = _constraints(tree, 1, first, parent, n1)
    A = np.zeros((n0, n1))
    for (s0, s1), v in payoff.items():
        A[s0, s1] += v
    nq = F.shape[0]
    # variables: x (n0, >= 0), q (nq, free); maximize q[0]
    cost = np.concatenate([np.zeros(n0), -np.eye(1, nq, 0).ravel()])
    a_ub = hstack([csr_matrix(-A.T), csr_matrix(F.T)])
    a_eq = hstack([csr_matrix(E), csr_matrix((E.shape[0], nq))])
    e = np.zeros(E.shape[0])
    e[0] = 1.0
    bounds = [(0, None)] * n0 + [(None, None)] * nq
    res = linprog(cost, A_ub=vstack([a_ub]), b_ub=np.zeros(n1), A_eq=a_eq, b_eq=e, bounds=bounds, method="highs")
    if res.status != 0:
        raise ValueError(f"the sequence-form LP failed: {res.message}")
    x = res.x[:n0]
    strategy: list = []
    for i, info in enumerate(tree.infosets):
        if info.player != 0:
            strategy.append(None)
            continue
        plan = x[first[i] : first[i] + len(info.actions)]
        z = plan.sum()
        strategy.append(plan / z if z > 1e-12 else np.full(len(plan), 1.0 / len(plan)))
    return float(-res.fun), strategy
