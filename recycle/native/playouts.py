"""Look-ahead playouts in machine code: a sampled world finished by the native engine.

A look-ahead player (recycle/players/lookahead.py) samples worlds at its decision (the
*root*): copies of the state whose hidden cards are re-dealt, each with a chance stream of its
own. It walks its tree in a world with ``apply`` and then finishes the game at random. That
last part, the playout, is most of an iteration's time; here it is played in machine code.

Native code cannot start inside a game's nested stages and loops, so it starts where it
always does, at the beginning, and plays the game again up to the root with the choices the
real game made (``history``) and the real game's chance stream. There the world's cards are
put in their places and its chance stream takes over (``runtime_resume.arrive``); then the choices of
the tree are forced (the path from the root) and the rest is random, drawn from the player's
stream at the point it has reached. Replaying costs a few microseconds: the native engine plays
a whole Hearts deal in about 30.

The result is the Python engine's, draw for draw, in every case native code finishes (the
differential test of tests/native/test_playouts.py compares the look-ahead players' values with
native playouts on and off). Where native code could differ it declines, and the caller plays
that world on in Python, as before:

* a variable or a loop of the game holds, at the root, a card the world re-dealt (Python
  renames it in the world; native code holds the real one);
* the game's chance stream is not a plain ``Stream`` (a state made from outside), so it cannot
  be replayed; but a blind copy of a native table state (recycle/native/worlds.py) carries a
  blind start, its native block at the root made blind (recycle/native/blind.py), and its worlds
  are played from there (``Root.start``), never replayed;
* native code stops the playout: a rule broken (an impossible world), the step limit, the
  work budget (counted coarsely natively: a quarter of the world's budget is the limit), or
  a replay that does not reach the root as the real game did (``MISMATCH``).

The work a finished playout used is counted in native units (runtime.py's counter: a unit per
loop element, move, option and turn) against the decision's budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..lang.forms.values import Card
from ..streams import Stream


@dataclass
class Root:
    """What every world sampled at one decision shares."""

    chance_key: int  # the real game's chance stream, replayed up to the root
    chance_count: int  # its draws before the root
    history: tuple  # the choices of two or more options made before the root
    decisions: int  # the decisions counted at the root (itself included)
    max_steps: int
    held: tuple  # (location, index, card): cards the game's variables and loops hold at the root
    slots: tuple  # (location, index): the places a world may re-deal
    start: object = None  # a blind copy's BlindStart: its worlds start there (recycle/native/blind.py)


def held_places(s) -> tuple:
    """(location, index, card) of every card the reference State ``s``'s variables in scope and
    loops hold at its choice (a slot out of scope may hold a card an earlier turn left there:
    Python renames it too, and nothing reads it again)."""
    held: set = set()
    seen: set = set()
    if s.env is not None and s.waiting is not None:
        env = s.env
        _cards_held([env[j] for j in s.waiting.live if j < len(env)], held, seen)
    _cards_held([f[0] for f in s.frames or () if type(f) is tuple], held, seen)
    places = []
    for c in sorted(held):
        i = s.card_loc[c] if c < len(s.card_loc) else -1
        if i < 0 or i >= len(s.locs):
            continue
        places.append((i, s.locs[i].index(c), c))
    return tuple(places)


def _cards_held(values, out: set, seen: set) -> None:
    for v in values:
        if isinstance(v, Card):
            out.add(int(v))
        elif isinstance(v, (list, tuple)) and id(v) not in seen:
            seen.add(id(v))
            _cards_held(v, out, seen)


class NativePlayouts:
    """A game's native playouts (one per player and game; not shared between threads)."""

    def __init__(self, native):
        import numpy as np

        self.native = native
        self.nplayers = native.game.nplayers
        self.arrays = native.new_arrays()
        self.out = np.zeros(7 + self.nplayers, np.int64)
        # the rollouts' arguments of the module's one entry (``games``), unused by a playout
        self.no_keys = np.zeros((1, 2), np.uint64)
        self.scores = np.zeros((1, self.nplayers), np.int64)
        self.counts = np.zeros((1, 5), np.int64)
        self.where = np.zeros((0, native.ncards), np.int32)
        self.played = 0  # playouts finished natively
        self.declined = 0  # playouts left to Python
        self.searched = 0  # decisions searched natively (runtime_search.py)
        self.searched_blind = 0  # ... of them from a blind start (a native table's seat: blind_search.py)
        self.why: dict = {}  # why searches were left to Python: runtime status -> how often
        from .playouts_state import Twin

        self.twin = Twin(native)  # playouts from the real game's native twin, not replayed
        self.from_state = 0  # playouts played from the twin
        self.from_blind = 0  # playouts played from a blind copy's start (recycle/native/blind.py)

    def root(self, view) -> Root | None:
        """The decision ``view`` (an ``Observation`` of the real state) waits at, as native
        playouts need it; None when they cannot start there."""
        s = view._state
        start = getattr(s, "native", None)  # a blind copy's start (recycle/native/blind.py)
        if start is None and (type(s.rng) is not Stream or s.frames is None):
            return None
        slots = tuple((i, k) for family, _ordered in view._redeal_plan() for i, k, _c in family)
        held = held_places(s)
        if start is not None:
            return Root(0, 0, tuple(s.history), s.decisions, s.max_steps, held, slots, start)
        return Root(s.rng.key, s.rng.count, tuple(s.history), s.decisions, s.max_steps, held, slots)

    def world_places(self, root: Root, world):
        """The world's cards in the places it may re-deal, flat (location, index, card, ...),
        or None when it moved a card the game's variables hold (native code could not follow)."""
        locs = world.locs
        for i, k, c in root.held:
            if locs[i][k] != c:
                return None
        out = []
        for i, k in root.slots:
            out += (i, k, int(locs[i][k]))
        return out

    def play(self, root: Root, places: list, future: tuple, root_work: int, path: list, draw: Stream):
        """Finish the world natively: ``places`` its cards (``world_places``), ``future`` its
        chance stream at the root (key, count), ``root_work`` the work it had left there,
        ``path`` the choices of two or more options made in it since the root (those of the
        tree). Returns (scores, steps, work left) and moves ``draw`` (the players' stream) on
        as Python would have; None when native code declines (nothing is changed then)."""
        if root.start is not None:
            return self._play_blind(root.start, places, future, root_work, path, draw)
        got = self.twin.play(root, places, future, root_work, path, draw)
        if got is not None:
            self.played += 1
            self.from_state += 1
            return got
        return self.replay(root, places, future, root_work, path, draw)

    def _play_blind(self, start, places: list, future: tuple, root_work: int, path: list, draw: Stream):
        """``play`` from a blind copy's start (recycle/native/blind.py): no game to replay."""
        from .playouts_state import finish_world

        w = start.world()
        got = None
        if w is not None:
            # (the runner's lock for the whole playout: its cards are put into the runner's arrays
            # when ``w`` is in place there, which another thread's state must not take meanwhile)
            with w._runner.lock:
                try:
                    got = finish_world(w, places, future, root_work, path, draw)
                finally:
                    w.release()
        if got is None:
            self.declined += 1
            return None
        self.played += 1
        self.from_blind += 1
        return got

    def replay(self, root: Root, places: list, future: tuple, root_work: int, path: list, draw: Stream):
        """``play`` by replaying the game from its start (runtime_resume.py): what the native
        twin cannot follow (recycle/native/playouts_state.py)."""
        import numpy as np

        from .runtime_resume import R_HEADER

        forced = list(root.history) + list(path)
        header = [
            len(forced),
            root.decisions,
            0,
            root_work // 4,
            root.chance_count,
            future[1],
            len(places) // 3,
            len(root.history),
        ]
        resume = np.array(header + forced + places, np.int64)
        assert len(header) == R_HEADER
        a = self.arrays
        keys = a[9]
        keys[0] = root.chance_key
        keys[1] = draw.key
        keys[2] = future[0] & ((1 << 64) - 1)
        out = self.out
        out[5] = draw.count
        ng = self.native
        ng.module.games(
            ng.initial,
            a[:15] + (resume,) + a[16:],
            ng.nteams,
            self.no_keys,
            root.max_steps,
            0,
            self.scores,
            self.counts,
            self.where,
            False,
            out,
        )
        if out[0] != 0:
            self.declined += 1
            return None
        self.played += 1
        draw.count = int(out[5])
        used = root_work // 4 - int(out[6])
        return [int(v) for v in out[7:]], int(out[1]), root_work - used

    def option_keys(self, root: Root, view) -> list | None:
        """The keys native code gives the options of ``view``'s decision (its true cards), as a
        search hashes them below its root; None when it declines. Two options' keys are equal
        exactly when ``engine.options.option_key`` gives them equal keys."""
        n = view._state.num_options()
        if not 1 < n <= 64:
            return None
        got = self.search(root, view, list(range(n)), 1, 1 << 60, Stream.keyed(0), "win", 0.7, False, (), probe=True)
        if got is None:
            return None
        return got[4][:n]

    def search(
        self,
        root: Root,
        view,
        looked: list,
        budget: int,
        left: int,
        draw: Stream,
        reward: str,
        exploration: float,
        determinize: bool,
        reveal,
        probe: bool = False,
    ) -> tuple | None:
        """A whole ISMCTS decision in machine code (runtime_search.py): ``budget`` iterations
        from the root ``root`` of ``view``, the options ``looked`` at, ``left`` the decision's
        work budget, ``draw`` the player's stream (moved on as the Python search moves it).
        Returns (visits, summed rewards) per option, whether the work budget ran out, and the
        work of the worlds that did not finish; None when native code declines (nothing changed)."""
        import numpy as np

        from . import runtime_search as rs
        from ..engine.view import RESAMPLE_TRIES, _without

        blind = root.start is not None  # a native table's seat: worlds copy its block (blind_search.py)
        if not self.native.searches or (blind and probe):
            return None  # (a plain module: its playouts only)
        s = view._state
        n = s.num_options()
        plan = view._redeal_plan() if determinize else []
        if plan and reveal:
            plan = _without(plan, reveal)
        slots = {(i, k) for family, _ordered in plan for i, k, _c in family}
        if any((i, k) in slots for i, k, _c in root.held):
            return None  # a card the game's variables hold may be dealt away (Python renames it)
        encoded: list = []
        for family, ordered in plan:
            encoded.append(len(family))
            for i, k, _c in family:
                encoded += (i, k)
            encoded += ordered
        nslots = sum(len(family) for family, _ in plan)
        forced = [] if blind else list(root.history)
        header = [len(forced), root.decisions, 0, 0, root.chance_count, 0, nslots, len(forced)]
        resume = np.array(header + forced + [0] * (3 * nslots), np.int64)
        where, size = rs.tree_layout(budget, len(looked), len(encoded))
        tree = np.zeros(size, np.int64)
        for part, at in where.items():
            tree[part] = at
        values = {
            rs.T_BUDGET: budget,
            rs.T_TRIES: RESAMPLE_TRIES,
            rs.T_DETERMINIZE: int(bool(plan) and determinize),
            rs.T_N: n,
            rs.T_NLOOKED: len(looked),
            rs.T_LEFT: left,
            rs.T_ROOT_WORK: s.work,
            rs.T_PCOUNT: draw.count,
            rs.T_NODES: 1,
            rs.T_SCORE_MODE: int(reward == "score"),
            rs.T_HIGHER: int(s.game.scoring_max),
            rs.T_NFAMILIES: len(plan),
            rs.T_CHANCE_KEY: np.uint64(root.chance_key).astype(np.int64),
            rs.T_PROBE: int(probe),
            rs.T_BLIND: int(blind),
            rs.T_PLAYER_KEY: np.uint64(draw.key).astype(np.int64),
        }
        for part, v in values.items():
            tree[part] = v
        tree[where[rs.T_LOOKED] : where[rs.T_LOOKED] + len(looked)] = looked
        tree[where[rs.T_PLAN] : where[rs.T_PLAN] + len(encoded)] = encoded
        treef = np.zeros(1 + where[rs.T_MAX_NODES], np.float64)
        treef[rs.F_EXPLORATION] = exploration
        if blind:
            from .blind_search import run

            if not run(root.start, resume, tree, treef, root.max_steps):
                return None
        else:
            a = self.arrays
            a[9][1] = draw.key
            ng = self.native
            ng.module.games(
                ng.initial,
                a[:15] + (resume, tree, treef),
                ng.nteams,
                self.no_keys,
                root.max_steps,
                0,
                self.scores,
                self.counts,
                self.where,
                False,
                self.out,
            )
        if tree[rs.T_STOP] == rs.STOP_DECLINED:
            self.declined += 1
            self.why[int(tree[rs.T_WHY])] = self.why.get(int(tree[rs.T_WHY]), 0) + 1
            return None
        self.played += int(tree[rs.T_DONE])
        self.searched += 1
        self.searched_blind += blind
        draw.count = int(tree[rs.T_PCOUNT])
        if probe:  # (the root's child is keyed by its option's key: no visits by index)
            return [0] * n, [0.0] * n, False, 0, tree[where[rs.T_KEYS] : where[rs.T_KEYS] + rs.MAX_CONSIDERED].tolist()
        table = tree[where[rs.T_TABLE] : where[rs.T_TABLE] + 3 * where[rs.T_TABLE_SIZE]].reshape(-1, 3)
        visits = [0] * n
        sums = [0.0] * n
        for key, node in table[table[:, 0] == 1][:, 1:].tolist():  # the root's children, by option index
            visits[key] = int(tree[where[rs.T_VISITS] + node])
            sums[key] = float(treef[rs.F_REWARD + node])
        keys = None
        return visits, sums, tree[rs.T_STOP] == rs.STOP_SPENT, int(tree[rs.T_UNFINISHED]), keys


def key_agreement(native: NativePlayouts, seeds, upto: int = 40) -> dict:
    """Native option keys (``native``: the game's playouts, ``native_playouts(game, "native")``)
    against Python's over every decision (up to ``upto``) of random games of ``seeds`` (a
    verification: tests/players/test_native_search.py, tools/native_check.py):
    ``keys`` Python's keys seen, ``split`` those given two native keys or more, ``merged``
    native keys given to two Python keys or more (both must be 0), ``declined`` decisions
    native code did not key."""
    from ..engine.options import option_key

    game = native.native.game
    pairs: dict = {}
    declined = 0
    for seed in seeds:
        s = game.new_state(seed)
        rng = Stream(seed)
        while not s.is_terminal() and s.decisions < upto:
            n = s.num_options()
            if 1 < n <= 64:
                view = s.observation(s.current_player())
                keys = native.option_keys(native.root(view), view)
                if keys is None:
                    declined += 1
                else:
                    for i, opt in enumerate(s.legal_options()):
                        pairs.setdefault(option_key(opt.steps), set()).add(keys[i])
            s.apply(int(rng.random() * n) if n > 1 else 0)
    natives = [k for keys in pairs.values() for k in keys]
    return {
        "keys": len(pairs),
        "split": sum(len(keys) > 1 for keys in pairs.values()),
        "merged": len(natives) - len(set(natives)),
        "declined": declined,
    }


def warm_playout(native) -> None:
    """Compile (or load) the native playout: one from the start of a game of seed 0."""
    from ..streams import CHANCE, PLAYERS, stream_key

    p = NativePlayouts(native)
    root = Root(stream_key(0, CHANCE), 0, (), 1, 100_000, (), ())
    # a root that is the first decision, with no re-deal: a random game of seed 0
    p.play(root, [], (stream_key(0, CHANCE), 0), native.game.max_work, [], Stream.keyed(stream_key(0, PLAYERS)))
