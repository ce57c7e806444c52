"""Invariants checked over whole rollouts: card conservation and players' views.

Used by the tests and by ``tools/conformance.py --check``. It uses only the public API: ``g.play(record=SINK,
on_decision=CALLBACK)``, ``state.view(p)``, ``g.layout.infos`` and the state's ``locs`` /
``card_loc``.

* **Conservation** — after every card-moving event, every card created is in exactly one
  location that is not a memory (``mem``) location, and ``state.card_loc[c]`` says where.
* **Visibility** — at every decision, for every player ``p``, ``state.view(p)`` shows no
  identity of a card that ``p`` may not see (RECYCLE.md section 6): a card in another
  player's ``iloc``, in any ``hloc``, in a game-owned ``iloc``, or in ``p``'s own ``oloc``.
  ``view.cards(loc)`` must be all ``None`` there and ``view.known_cards()`` must not contain
  those cards. The rule is written out here again, independently of ``recycle/engine/view.py``.
"""

from __future__ import annotations

from ..errors import RecycleBug, RecycleError, StepLimitExceeded
from ..engine.game import rollout_seed

MEMORY = "memory"
# seconds for the rollouts of one game (``run_rollouts``, ``tools/conformance.py --timeout``):
# no rollout is started after that; each game of a file is bounded by its step and work limits
DEFAULT_TIMEOUT = 300.0


class InvariantViolation(AssertionError):
    """An invariant failed; the message says which, where and when."""


def _fail(state, what: str) -> None:
    raise InvariantViolation(f"{state.game.name} (seed {getattr(state, 'seed', '?')}, step {state.steps}): {what}")


def check_conservation(state) -> None:
    """Every created card is in exactly one non-memory location, and ``card_loc`` agrees."""
    infos = state.game.layout.infos
    seen: dict[int, int] = {}
    for i, lst in enumerate(state.locs):
        if i < len(infos) and infos[i].visibility == MEMORY:
            continue
        for c in lst:
            c = int(c)
            if c in seen:
                _fail(state, f"card {c} is in two locations: {infos[seen[c]].label} and {infos[i].label}")
            seen[c] = i
    ncards = len(state.card_loc)
    if len(seen) != ncards:
        lost = sorted(set(range(ncards)) - set(seen))
        extra = sorted(set(seen) - set(range(ncards)))
        _fail(state, f"{len(lost)} card(s) lost {lost[:10]}; unknown card ids {extra[:10]}")
    for c, i in seen.items():
        if state.card_loc[c] != i:
            _fail(state, f"card {c} is in {infos[i].label} but card_loc says {state.card_loc[c]}")


def may_see(info, player: int, team_of) -> bool:
    """RECYCLE.md section 6: may ``player`` see the identities of the cards at ``info``?"""
    vis = info.visibility
    if vis in ("public", MEMORY):
        return True
    if vis == "hidden":
        return False
    if info.owner_kind == "player":
        mine = info.owner == player
    elif info.owner_kind == "team":
        mine = team_of[player] == info.owner
    else:  # a game-owned iloc is "hidden", a game-owned oloc "public": handled above
        mine = False
    if vis == "private":
        return mine
    if vis == "others":
        return not mine
    raise AssertionError(f"unknown visibility class {vis!r} of {info.label}")


def _expected_class(info) -> str:
    """The visibility class a location must have, from its kind and owner."""
    if info.kind == "vloc":
        return "public"
    if info.kind == "mem":
        return MEMORY
    if info.kind == "hloc":
        return "hidden"
    if info.kind == "iloc":
        return "hidden" if info.owner_kind == "game" else "private"
    if info.kind == "oloc":
        return "public" if info.owner_kind == "game" else "others"
    raise AssertionError(f"unknown location kind {info.kind!r}")


def check_layout(game) -> None:
    """Every location's visibility class follows from its kind and owner."""
    for info in game.layout.infos:
        want = _expected_class(info)
        if info.visibility != want:
            raise InvariantViolation(
                f"{game.name}: {info.label} ({info.owner_kind} {info.kind}) has "
                f"visibility {info.visibility!r}, expected {want!r}"
            )


def check_views(state) -> None:
    """No player's view reveals a card it may not see."""
    infos = state.game.layout.infos
    nplayers = state.game.nplayers
    team_of = state.team_of
    remembered: set[int] = set()  # mem holds references everyone may see (RECYCLE.md section 6)
    for i, lst in enumerate(state.locs):
        if i < len(infos) and infos[i].visibility == MEMORY:
            remembered.update(int(c) for c in lst)
    for p in range(nplayers):
        view = state.view(p)
        secret: set[int] = set()
        for i, lst in enumerate(state.locs):
            if not lst or i >= len(infos):
                continue
            info = infos[i]
            if may_see(info, p, team_of):
                continue
            shown = view.cards(i)
            if len(shown) != len(lst):
                _fail(state, f"P{p} sees {len(shown)} cards in {info.label}, which holds {len(lst)}")
            if any(c is not None for c in shown):
                _fail(state, f"P{p} sees card identities in {info.label} ({info.visibility}): {shown}")
            secret.update(int(c) for c in lst)
        leaked = (view.known_cards() & secret) - remembered
        if leaked:
            _fail(state, f"P{p}'s known_cards() holds cards it may not see: {sorted(leaked)[:10]}")


class InvariantSink(list):
    """An event sink for ``g.play(record=...)``: checks conservation after every card event.

    Only the number of events is kept (not the events), so long rollouts stay cheap.
    """

    def attach(self, state) -> None:
        self.state = state
        self.events = 0
        self.checked = 0

    def append(self, ev) -> None:
        self.events += 1
        if hasattr(ev, "card"):  # a MoveEvent (move, swap, remember, forget, create)
            check_conservation(self.state)
            self.checked += 1


def on_decision(state, player, options, index) -> None:
    """``g.play(on_decision=...)`` callback: check every view and conservation."""
    check_views(state)
    check_conservation(state)


def checked_play(game, seed: int, max_steps: int):
    """One random rollout with every invariant checked; returns the ``GameResult``.

    Raises ``InvariantViolation`` on a broken invariant (also when the game stopped on an
    error with a card out of place), or what ``play`` raises.
    """
    sink = InvariantSink()
    try:
        result = game.play(seed=seed, max_steps=max_steps, record=sink, on_decision=on_decision)
    except RecycleBug as exc:
        # the sink raised inside the game, which reports any exception of its own as a bug
        cause = exc.__cause__
        if isinstance(cause, InvariantViolation):
            raise cause from None
        raise
    except RecycleError as exc:
        partial = getattr(exc, "partial", None)
        if partial is not None:  # a game stopped by an error still has every card in one place
            check_conservation(partial.state)
        raise
    check_conservation(result.state)
    check_views(result.state)
    return result


def run_rollouts(
    game,
    rollouts: int,
    seed: int = 0,
    max_steps: int = 20_000,
    check: bool = False,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> dict:
    """Play ``rollouts`` random games (seeds ``rollout_seed(seed, i)``) and summarise them.

    Returns a dict: played, finished, step_limit_hits, errors, decisions (of finished
    games), options (summed over their decisions), first_error (a one-line string or None),
    first_error_seed, crashes (exceptions that are not RecycleErrors), stopped_by_time_limit
    (True when ``timeout`` seconds passed before every rollout was played: no rollout is
    started after that, and the figures are those of the rollouts played; None: no limit).
    """
    import time

    out = {
        "played": 0,
        "finished": 0,
        "step_limit_hits": 0,
        "errors": 0,
        "crashes": 0,
        "decisions": 0,
        "options": 0,
        "first_error": None,
        "first_error_seed": None,
        "stopped_by_time_limit": False,
    }
    if check:
        check_layout(game)
    deadline = None if timeout is None else time.perf_counter() + timeout
    for i in range(rollouts):
        if deadline is not None and i and time.perf_counter() > deadline:
            out["stopped_by_time_limit"] = True
            break
        out["played"] += 1
        s = rollout_seed(seed, i)
        try:
            r = checked_play(game, s, max_steps) if check else game.play(seed=s, max_steps=max_steps)
        except StepLimitExceeded:
            out["step_limit_hits"] += 1
            continue
        except RecycleError as exc:
            out["errors"] += 1
            msg = exc.format().splitlines()[0]
        except InvariantViolation as exc:
            out["errors"] += 1
            msg = f"invariant: {exc}"
        except Exception as exc:  # noqa: BLE001 - an interpreter crash, reported as such
            out["errors"] += 1
            out["crashes"] += 1
            msg = f"crash: {type(exc).__name__}: {exc}".splitlines()[0]
        else:
            out["finished"] += 1
            out["decisions"] += r.decisions
            out["options"] += r.options_total
            continue
        if out["first_error"] is None:
            out["first_error"], out["first_error_seed"] = msg, s
    return out
