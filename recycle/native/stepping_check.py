"""Native stepping against the reference interpreter (a verification: tests and
tools/native_check.py): random paths stepped through both engines, compared at every decision.

``step_agreement(game, seeds)`` steps each seed's game through a reference ``State`` and a
``NativeState`` with the same choices (drawn from the seed's own stream) and compares, at every
decision, the options' count, the player to move, the steps and every card's place; at the
end the steps, the card places and the scores. Along the way it clones both states now and then,
plays each clone a few random choices further (compared the same way) and goes on with the
originals: a clone's play must leave its original as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class StepAgreement:
    """What ``step_agreement`` found: the games stepped and decisions compared, the seeds
    native code could not finish (``stopped``: the reference interpreter gives their outcome)
    and the first difference of each seed that differed (``differences``: empty when equal)."""

    games: int = 0
    decisions: int = 0
    keyed: int = 0  # decisions whose native option keys were compared
    stopped: list = field(default_factory=list)
    differences: list = field(default_factory=list)


def _places(ps) -> list[int]:
    return [int(x) for x in ps.card_loc]


def _compare(ps, ns, where: str) -> str | None:
    """The first difference of the reference state ``ps`` and the native ``ns`` now, or None."""
    if ps.is_terminal() != ns.is_terminal():
        return f"{where}: ended in one engine only"
    if ps.steps != ns.counters()["steps"]:
        return f"{where}: steps {ps.steps} != {ns.counters()['steps']}"
    if _places(ps) != ns.card_places():
        return f"{where}: the cards' places differ"
    if ps.is_terminal():
        if ps.returns() != ns.returns():
            return f"{where}: scores {ps.returns()} != {ns.returns()}"
        return None
    if ps.num_options() != ns.num_options():
        return f"{where}: {ps.num_options()} options != {ns.num_options()}"
    if ps.current_player() != ns.current_player():
        return f"{where}: player {ps.current_player()} != {ns.current_player()}"
    return _compare_keys(ps, ns, where)


def _compare_keys(ps, ns, where: str) -> str | None:
    """Native keys (when the state has them) equal exactly where the reference keys are equal."""
    nk = ns.option_keys()
    if nk is None:
        return None
    from ..engine.options import option_key

    pk = [option_key(o.steps) for o in ps.legal_options()]
    for i in range(len(pk)):
        for j in range(i):
            if (pk[i] == pk[j]) != (nk[i] == nk[j]):
                return f"{where}: options {j} and {i} have {'equal' if pk[i] == pk[j] else 'different'} keys in Python only"
    return None


def _walk(ps, ns, rng, label: str, limit: int, out: StepAgreement, branch: bool) -> str | None:
    """Step both states with the same random choices (at most ``limit``); the first difference."""
    k = 0
    while k < limit:
        diff = _compare(ps, ns, f"{label}, decision {k}")
        if diff is not None or ps.is_terminal():
            return diff
        out.decisions += 1
        out.keyed += ns.option_keys() is not None
        if branch and rng.random() < 0.2:
            diff = _walk(ps.clone(), ns.clone(), rng, f"{label}, a clone at decision {k}", 3, out, False)
            if diff is not None:
                return diff
            diff = _compare(ps, ns, f"{label}, decision {k} after its clone played on")
            if diff is not None:
                return diff
        i = int(rng.random() * ps.num_options())
        ps.apply(i)
        ns.apply(i)
        k += 1
    return None


def step_agreement(game, seeds, max_decisions: int = 2000, keys: bool = False) -> StepAgreement:
    """Step every seed's game through both engines (see the module's docstring); ``keys``: on
    the game's search module, the options' keys compared too (equal exactly where Python's are).
    Raises ``NativeUnsupported`` for a game native code cannot step."""
    from ..errors import RecycleError
    from ..streams import Stream
    from .stepped import start
    from .stepping import NativeStopped

    out = StepAgreement()
    for seed in seeds:
        try:
            ps = game.new_state(seed)
        except RecycleError:
            continue
        ns = start(game, seed, keys=keys)
        out.games += 1
        try:
            diff = _walk(ps, ns, Stream(seed + 1), f"seed {seed}", max_decisions, out, True)
        except (RecycleError, NativeStopped):
            out.stopped.append(seed)
            continue
        if diff is not None:
            out.differences.append(diff)
    return out
