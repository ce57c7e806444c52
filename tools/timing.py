"""Timing for the benchmarks of tools/: the sides of a comparison measured in alternating
rounds, the best of them with their spread, and the machine's load (figures are current ones
only when measured on a quiet machine; docs/performance.md)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

QUIET_LOAD = 0.5  # the 1-minute load average above which the figures are not current ones
OWN_LOAD = 1.0  # what this benchmark itself adds to the load average while it runs (one process)


def load_average() -> tuple[float, float, float]:
    """The 1-, 5- and 15-minute load averages (what ``uptime`` prints)."""
    return os.getloadavg()


def load_text() -> str:
    return "load average: " + ", ".join(f"{x:.2f}" for x in load_average())


def busy_banner(one: float, when: str) -> str:
    return (
        f"!!! WARNING: the 1-minute load is {one:.2f} {when} (above {QUIET_LOAD}): this machine is busy, "
        f"and these figures are NOT current ones: do not put them in the docs as such !!!"
    )


@dataclass
class Side:
    """One side of a comparison: ``run()`` measures one round and returns a rate (games,
    iterations or loads a second); ``rates`` holds every round's."""

    name: str
    run: Callable[[], float]
    rates: list = field(default_factory=list)

    def best(self) -> float:
        return max(self.rates)

    def spread(self, fmt: str = ",.0f") -> str:
        """The worst and the best round's rates: ``23,016–23,563``."""
        return f"{min(self.rates):{fmt}}–{max(self.rates):{fmt}}"

    def spread_of_time(self, scale: float, fmt: str = ".1f") -> str:
        """The best and the worst round as durations (``scale``: 1000 for ms, 1e6 for µs)."""
        return f"{scale / max(self.rates):{fmt}}–{scale / min(self.rates):{fmt}}"


def alternate(sides: list[Side], repeat: int) -> list[Side]:
    """Measure each side once a round, ``repeat`` rounds, the order reversed every other
    round, so that a host whose speed drifts slows every side alike."""
    for k in range(repeat):
        for side in sides if k % 2 == 0 else sides[::-1]:
            side.rates.append(side.run())
    return sides


def timed(count: float, fn: Callable[[], float]) -> Callable[[], float]:
    """A round's rate from ``fn()``, which returns the seconds ``count`` units took."""
    return lambda: count / fn()


def ratio_text(a: Side, b: Side, fmt: str = ".2f", width: int = 0) -> str:
    """``a`` over ``b``: the best rates' ratio, then the range of the rounds' own ratios (each
    round's two sides measured one after the other)."""
    per = [x / y for x, y in zip(a.rates, b.rates)]
    return f"{a.best() / b.best():{width}{fmt}}  (rounds {min(per):{fmt}}–{max(per):{fmt}})"
