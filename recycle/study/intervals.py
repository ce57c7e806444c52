"""Intervals and tests: one place for the statistics of ``analyze`` and of campaign reports.

- a rate k/n: the Wilson score interval (``wilson``);
- a mean: Student's t interval, mean ± t(0.975, n-1) · s/√n;
- a difference of two rates: Newcombe's hybrid score interval (from the two Wilson
  intervals), the two-proportion z-test (pooled) and Cohen's h = 2·asin√p₁ − 2·asin√p₂;
- a difference of two means: Welch's t interval and test (Welch–Satterthwaite degrees of
  freedom) and Cohen's d (the difference over the pooled standard deviation);
- many comparisons at once: the Holm–Bonferroni step-down adjustment of the p-values, a
  difference being "beyond chance" when its adjusted p is below 0.05 (family-wise error 5%).
"""

from __future__ import annotations

import math

ALPHA = 0.05
Z95 = 1.959963984540054


def wilson(k: float, n: int) -> tuple[float, float]:
    """95% Wilson score interval for a proportion k/n."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(xs: list[float]) -> tuple[float, float, float]:
    """Mean and a normal-approximation 95% interval."""
    n = len(xs)
    if n == 0:
        return (0.0, 0.0, 0.0)
    m = sum(xs) / n
    if n == 1:
        return (m, m, m)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return (m, m - half, m + half)


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` degrees of freedom."""
    if x <= 0 or df <= 0:
        return 1.0
    a, y = df / 2.0, x / 2.0
    if y < a + 1:  # series for the lower regularized gamma P(a, y)
        term = total = 1.0 / a
        k = a
        for _ in range(10_000):
            k += 1
            term *= y / k
            total += term
            if term < total * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-y + a * math.log(y) - math.lgamma(a)))
    # continued fraction for the upper Q(a, y) (Lentz)
    tiny = 1e-300
    b = y + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(-y + a * math.log(y) - math.lgamma(a)) * h)


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


def t_sf2(t: float, df: float) -> float:
    """Two-sided p-value of Student's t with ``df`` degrees of freedom (normal when df is inf)."""
    if math.isinf(df) or df > 1e7:
        return math.erfc(abs(t) / math.sqrt(2))
    return betainc(df / 2, 0.5, df / (df + t * t))


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile (p > 0.5) of Student's t, by bisection on ``t_sf2``."""
    target = 2 * (1 - p)
    lo, hi = 0.0, 1.0
    while t_sf2(hi, df) > target:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_sf2(mid, df) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mean_interval(mean: float, sd: float, n: int) -> tuple[float, float]:
    """Student's t 95% interval of a mean of ``n`` values with sample standard deviation ``sd``."""
    if n < 2 or sd is None:
        return (mean, mean)
    half = t_quantile(0.975, n - 1) * sd / math.sqrt(n)
    return (mean - half, mean + half)


def rate_diff(k1: float, n1: int, k2: float, n2: int) -> dict:
    """Rate 1 minus rate 2: Newcombe's interval, the pooled z-test's p and Cohen's h."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1)
    l2, u2 = wilson(k2, n2)
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    p = 1.0 if se == 0 else math.erfc(abs(d) / se / math.sqrt(2))
    h = 2 * math.asin(math.sqrt(p1)) - 2 * math.asin(math.sqrt(p2))
    return {"diff": d, "ci": [lo, hi], "p": p, "effect": h, "effect_kind": "h"}


def mean_diff(m1: float, s1: float, n1: int, m2: float, s2: float, n2: int) -> dict:
    """Mean 1 minus mean 2: Welch's interval and p, and Cohen's d."""
    d = m1 - m2
    v1, v2 = (s1 or 0.0) ** 2 / n1, (s2 or 0.0) ** 2 / n2
    se = math.sqrt(v1 + v2)
    pooled = math.sqrt(((n1 - 1) * (s1 or 0.0) ** 2 + (n2 - 1) * (s2 or 0.0) ** 2) / max(n1 + n2 - 2, 1))
    effect = d / pooled if pooled > 0 else 0.0
    if se == 0:
        return {"diff": d, "ci": [d, d], "p": 1.0 if d == 0 else 0.0, "effect": effect, "effect_kind": "d"}
    df = (v1 + v2) ** 2 / ((v1 * v1 / (n1 - 1) if n1 > 1 else 0) + (v2 * v2 / (n2 - 1) if n2 > 1 else 0) or 1e-300)
    t = t_quantile(0.975, df)
    return {"diff": d, "ci": [d - t * se, d + t * se], "p": t_sf2(d / se, df), "effect": effect, "effect_kind": "d"}


def holm(pvalues: list[float]) -> list[float]:
    """Holm–Bonferroni adjusted p-values (same order as given): the i-th smallest p times
    (m − i + 1), made non-decreasing, at most 1."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out
