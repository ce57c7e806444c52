"""The one random generator of every engine: SplitMix64 in counter mode.

Draw number ``i`` (counting from 1) of the stream with key ``k`` is
``mix64((k + i * GOLDEN) mod 2**64)``: a pure function of the key and a counter. So a stream
costs nothing to seed (a key is one integer), any number of independent streams can be split
off (each rollout has its own chance stream and its own players' stream), and the native
engine (``recycle/native``) reproduces it bit for bit with 64-bit unsigned arithmetic.

Every use goes through three draws, identical in each engine:

* ``random()``: the top 53 bits of a draw, times 2**-53 (a float in [0, 1));
* ``getrandbits(k)`` for k <= 64: the top k bits of one draw (wider: 64-bit draws, lowest
  bits first, as ``random.Random``);
* a choice among n (the random player, a shuffle's swap): ``int(random() * n)``.

``Stream`` is a ``random.Random`` so the rest of the standard interface (``randrange``,
``randint``, ``sample``, ``choice``) works on it, built on ``getrandbits`` as CPython does.
"""

from __future__ import annotations

import hashlib
import random

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15  # the SplitMix64 increment (2**64 / the golden ratio, odd)
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
TO_UNIT = 2.0**-53

# what a stream is for: the game's chance (shuffles, random, ties) and the players' choices
CHANCE = 1
PLAYERS = 2


def mix64(z: int) -> int:
    """SplitMix64's finalizer: a bijection of 64-bit integers that scatters every bit."""
    z = ((z ^ (z >> 30)) * MIX1) & MASK
    z = ((z ^ (z >> 27)) * MIX2) & MASK
    return z ^ (z >> 31)


def fold(seed) -> int:
    """Any seed as 64 bits: an int in [0, 2**64) is itself (so native code can derive keys
    of ordinary seeds without Python); other ints are folded 64 bits at a time, a string or
    bytes hashed (BLAKE2b). Distinct seeds give distinct keys but for collisions of 2**-64."""
    if isinstance(seed, bool) or seed is None:
        seed = int(bool(seed))
    if isinstance(seed, int):
        if 0 <= seed <= MASK:
            return seed
        k = 0x6A09E667F3BCC908 if seed < 0 else 0xBB67AE8584CAA73B
        rest = -seed if seed < 0 else seed
        while rest:
            k = mix64(k ^ (rest & MASK))
            rest >>= 64
        return k
    if isinstance(seed, str):
        seed = seed.encode("utf-8", "surrogatepass")
    if isinstance(seed, (bytes, bytearray)):
        return int.from_bytes(hashlib.blake2b(bytes(seed), digest_size=8).digest(), "little")
    raise TypeError(f"a stream is seeded with an int, str or bytes, not {type(seed).__name__}")


def stream_key(seed, purpose: int) -> int:
    """The key of the ``purpose`` stream (CHANCE, PLAYERS) of the game dealt with ``seed``."""
    return mix64((fold(seed) + purpose * GOLDEN) & MASK)


_NUMPY: list = []
# draws made one at a time before NumPy is imported for runs of them: importing it costs about
# 0.1 s (a third of ``recycle run``'s start), which 50,000 draws one at a time (80 ms) repay
_ONE_BY_ONE = [50_000]


def _numpy_constants():
    """NumPy and the generator's constants as uint64 scalars (made once), or None: None too
    while NumPy is not imported yet and the draws made so far would not repay its import."""
    if not _NUMPY:
        import sys

        if "numpy" not in sys.modules and _ONE_BY_ONE[0] > 0:
            return None
        try:
            import numpy as np
        except ImportError:
            _NUMPY.append(None)
        else:
            u = np.uint64
            _NUMPY.append((np, u(GOLDEN), u(MIX1), u(MIX2), u(30), u(27), u(31), u(11)))
    return _NUMPY[0]


class Stream(random.Random):
    """A SplitMix64 stream (see the module docstring). ``Stream(seed)`` keys it with
    ``fold(seed)``; ``Stream.keyed(k)`` with the key ``k`` itself (as ``stream_key`` gives)."""

    def __init__(self, seed=0):  # random.Random's signature
        self.key = fold(seed)
        self.count = 0
        self.gauss_next = None

    @classmethod
    def keyed(cls, key: int) -> Stream:
        s = cls.__new__(cls)
        s.key, s.count, s.gauss_next = key & MASK, 0, None
        return s

    @classmethod
    def for_game(cls, seed, purpose: int) -> Stream:
        """The ``purpose`` stream of the game dealt with ``seed``."""
        return cls.keyed(stream_key(seed, purpose))

    def seed(self, a=None, version=2) -> None:  # random.Random's contract
        self.key = fold(0 if a is None else a)
        self.count = 0
        self.gauss_next = None

    def random(self) -> float:
        """The next draw's top 53 bits, as a float in [0, 1)."""
        self.count = n = self.count + 1
        z = (self.key + n * GOLDEN) & MASK
        z = ((z ^ (z >> 30)) * MIX1) & MASK
        z = ((z ^ (z >> 27)) * MIX2) & MASK
        return ((z ^ (z >> 31)) >> 11) * TO_UNIT

    def randoms(self, n: int) -> list:
        """The next ``n`` draws of ``random()``, as a list: the same floats, in one NumPy
        computation for a run of 16 or more (a shuffle of a deck, a re-dealt hand: one draw
        costs about 1.6 us in Python, a NumPy run about 22 us whatever its length)."""
        k = _numpy_constants() if n >= 16 else None
        if k is None:  # (NumPy comes with matplotlib; without it, one at a time)
            _ONE_BY_ONE[0] -= n
            return [self.random() for _ in range(n)]
        np, golden, mix1, mix2, s30, s27, s31, s11 = k
        # uint64 arrays wrap around on overflow (as the masks above do), silently
        z = np.arange(self.count + 1, self.count + n + 1, dtype=np.uint64)
        self.count += n
        z *= golden
        z += np.uint64(self.key)
        z ^= z >> s30
        z *= mix1
        z ^= z >> s27
        z *= mix2
        z ^= z >> s31
        z >>= s11
        return (z.astype(np.float64) * TO_UNIT).tolist()

    def next64(self) -> int:
        """The next draw, all 64 bits."""
        self.count = n = self.count + 1
        return mix64((self.key + n * GOLDEN) & MASK)

    def getrandbits(self, k: int) -> int:
        """k random bits: the top k of one draw for k <= 64, else draws lowest bits first."""
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k <= 64:
            return self.next64() >> (64 - k) if k else 0
        out, shift = 0, 0
        while shift < k:
            out |= self.next64() << shift
            shift += 64
        return out & ((1 << k) - 1)

    def getstate(self):
        return (self.key, self.count, self.gauss_next)

    def setstate(self, state) -> None:
        self.key, self.count, self.gauss_next = state

    def copy(self) -> Stream:
        """Another stream at the same point of the same key."""
        s = Stream.__new__(Stream)
        s.key, s.count, s.gauss_next = self.key, self.count, self.gauss_next
        return s

    def __reduce__(self):
        return (_restore, (self.key, self.count))


def _restore(key: int, count: int) -> Stream:
    s = Stream.keyed(key)
    s.count = count
    return s


__all__ = ["Stream", "mix64", "fold", "stream_key", "CHANCE", "PLAYERS", "GOLDEN", "MASK"]
