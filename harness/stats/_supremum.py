"""The largest value over the common pass rate π ∈ [0, 1] of an exact unconditional probability, certified
(X-41): an upper bound never below the supremum, within a relative ``RTOL`` of a value attained.

Each such probability (a Boschloo p-value; a sequential design's chance of crossing by a look) is the
chance of an event among N exchangeable trials that each pass with probability π:
f(π) = Σ_s β(s) Bin(N, π)(s), β(s) ∈ [0, 1] the event's chance given s passes in all (Bernstein form).
A grid of π alone can miss the peak. Between grid points a < b, f is at most either Taylor expansion
from a or from b with an upper bound M of f'' over [a, b]: f'' = N(N−1) Σ Δ²β(s) Bin(N−2, ξ)(s), each
term bounded by the largest (positive Δ²β) or smallest (negative) Bin(N−2, ξ)(s) over the interval, a
binomial pmf being unimodal in ξ. Intervals whose bound exceeds the largest value seen (by more than
``RTOL``) are split in ``SPLIT`` and bounded again, round after round; a bound is reported, never the
value seen, with a relative ``MARGIN`` for rounding.
"""

from __future__ import annotations

from functools import lru_cache
from math import lgamma

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
RTOL = 1e-7
MARGIN = 1e-10
SPLIT = 8
ROUNDS = 40
CHUNK = 2048


@lru_cache(maxsize=256)
def log_choose(n: int) -> Array:
    return np.array([lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) for k in range(n + 1)])


@lru_cache(maxsize=256)
def _mode_values(n: int) -> Array:
    """Bin(n, s/n)(s): the largest value of each pmf term over all ξ."""
    return pmf(n, np.arange(n + 1) / max(n, 1)).diagonal().copy()


def pmf(n: int, x: Array) -> Array:
    """Bin(n, x)(s) for every x (leading axes) and s = 0 … n (last axis), exact at x = 0 and 1."""
    x = np.asarray(x, dtype=float)
    inner = np.where((x > 0) & (x < 1), x, 0.5)
    odds, rest = np.log(inner) - np.log1p(-inner), n * np.log1p(-inner)
    out = np.exp(log_choose(n) + np.multiply.outer(odds, np.arange(n + 1)) + rest[..., None])
    out[x <= 0], out[x >= 1] = np.eye(1, n + 1, 0)[0], np.eye(1, n + 1, n)[0]
    return out


def _pmf_range(n: int, ends: Array) -> tuple[Array, Array]:
    """(largest, smallest) of Bin(n, ξ)(s) over ξ between consecutive points of ``ends`` (last axis before s):
    the pmf term rises to its mode s/n and falls after it, so the largest is at the mode when it is inside,
    else at the nearer end, and the smallest at an end."""
    at = pmf(n, ends)
    a, b = at[..., :-1, :], at[..., 1:, :]
    mode = np.arange(n + 1) / max(n, 1)
    left, right = ends[..., :-1, None], ends[..., 1:, None]
    high = np.where(mode < left, a, np.where(mode > right, b, _mode_values(n)))
    return high, np.minimum(a, b)


def _bound(fa: Array, fb: Array, da: Array, db: Array, m: Array, h: Array) -> Array:
    """max over t ∈ [0, h] of min(q_a, q_b): q_a(t) = fa + da t + m t²/2, q_b(t) = fb + db (t − h) + m (t − h)²/2.
    q_a − q_b is linear in t, so the maximum is at an end, where they cross, or at a vertex."""
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = (fb - fa - db * h + m * h * h / 2) / (da - db + m * h)
        vertex_a, vertex_b = -da / m, h - db / m
    best = np.full(fa.shape, -np.inf)
    for t in (np.zeros_like(h), h, cross, vertex_a, vertex_b):
        t = np.clip(np.nan_to_num(t, nan=0.0, posinf=0.0, neginf=0.0), 0.0, h)
        q = np.minimum(fa + da * t + m * t * t / 2, fb + db * (t - h) + m * (t - h) ** 2 / 2)
        best = np.maximum(best, q)
    return best


def _dot(rows: Array, columns: Array) -> Array:
    """rows @ columns, each entry summed in the same order whatever the number of rows (einsum's loop, not BLAS,
    whose blocking depends on the shapes): a region's p-value is the same bits in a grid and on its own."""
    return np.einsum("rs,sg->rg", rows, columns)


class _Poly:
    """The rows' Bernstein coefficients and those of their first two derivatives."""

    def __init__(self, beta: Array) -> None:
        self.n = beta.shape[1] - 1
        self.beta = beta
        self.d1 = self.n * np.diff(beta, axis=1)
        d2 = self.n * (self.n - 1) * np.diff(beta, 2, axis=1) if self.n >= 2 else np.zeros((len(beta), 0))
        self.up, self.down = np.maximum(d2, 0.0), np.maximum(-d2, 0.0)

    def split(self, rows: NDArray[np.intp], a: Array, b: Array) -> tuple[Array, Array, Array, Array]:
        """Each interval [a[i], b[i]] of row ``rows[i]`` split in ``SPLIT``: (points, f and f' there, an upper
        bound of f'' on each piece). Intervals starting at the same point share the pmf matrices."""
        ends, first, index = np.unique(a, return_index=True, return_inverse=True)
        pts = ends[:, None] + (b[first] - ends)[:, None] * np.linspace(0.0, 1.0, SPLIT + 1)[None, :]
        values, slopes = pmf(self.n, pts), pmf(self.n - 1, pts)
        high, low = _pmf_range(self.n - 2, pts) if self.n >= 2 else (np.zeros((len(ends), SPLIT, 0)),) * 2
        f, d = np.empty((len(rows), SPLIT + 1)), np.empty((len(rows), SPLIT + 1))
        m = np.empty((len(rows), SPLIT))
        order = np.argsort(index, kind="stable")
        for u, at in enumerate(np.split(order, np.cumsum(np.bincount(index, minlength=len(ends)))[:-1])):
            r = rows[at]
            f[at], d[at] = _dot(self.beta[r], values[u].T), _dot(self.d1[r], slopes[u].T)
            m[at] = _dot(self.up[r], high[u].T) - _dot(self.down[r], low[u].T)
        return pts[index], f, d, m


@lru_cache(maxsize=64)
def _grid(n: int) -> tuple[Array, Array, Array, Array, Array]:
    """The first grid of π for degree n, with the pmf matrices its values, slopes and curvatures need."""
    x = np.linspace(0.0, 1.0, 2 * n + 9)
    high, low = _pmf_range(n - 2, x) if n >= 2 else (np.zeros((len(x) - 1, 0)),) * 2
    return x, pmf(n, x).T.copy(), pmf(n - 1, x).T.copy(), high.T.copy(), low.T.copy()


def supremum(beta: Array) -> tuple[Array, Array]:
    """(upper bound, value attained) of max over π of Σ_s beta[r, s] Bin(N, π)(s), for every row r (in chunks
    of ``CHUNK`` rows: the same values, bounded memory)."""
    beta = np.atleast_2d(np.asarray(beta, dtype=float))
    if beta.shape[1] == 1 or len(beta) == 0:
        return beta[:, 0].copy(), beta[:, 0].copy()
    if len(beta) > CHUNK:
        parts = [_supremum(beta[i:i + CHUNK]) for i in range(0, len(beta), CHUNK)]
        return np.concatenate([u for u, _ in parts]), np.concatenate([v for _, v in parts])
    return _supremum(beta)


def _supremum(beta: Array) -> tuple[Array, Array]:
    poly, n = _Poly(beta), beta.shape[1] - 1
    x, values, slopes, high, low = _grid(n)
    f, d = _dot(beta, values), _dot(poly.d1, slopes)
    m = _dot(poly.up, high) - _dot(poly.down, low)
    seen = f.max(axis=1)
    bounds = _bound(f[:, :-1], f[:, 1:], d[:, :-1], d[:, 1:], m, np.diff(x)[None, :])
    open_ = bounds > seen[:, None] * (1 + RTOL)
    upper = np.where(open_, -np.inf, bounds).max(axis=1)
    rows, cols = np.nonzero(open_)
    a, b = x[cols], x[cols + 1]
    for _ in range(ROUNDS):
        if len(rows) == 0:
            break
        pts, f, d, m = poly.split(rows, a, b)
        np.maximum.at(seen, rows, f.max(axis=1))
        bounds = _bound(f[:, :-1], f[:, 1:], d[:, :-1], d[:, 1:], m, np.diff(pts, axis=1))
        open_ = bounds > seen[rows][:, None] * (1 + RTOL)
        np.maximum.at(upper, rows, np.where(open_, -np.inf, bounds).max(axis=1))
        i, j = np.nonzero(open_)
        rows, a, b = rows[i], pts[i, j], pts[i, j + 1]
    if len(rows):  # not settled within ROUNDS: the open intervals' bounds (split once more) still bound them
        pts, f, d, m = poly.split(rows, a, b)
        np.maximum.at(upper, rows, _bound(f[:, :-1], f[:, 1:], d[:, :-1], d[:, 1:], m, np.diff(pts, axis=1)).max(1))
    return np.maximum(upper, seen) * (1 + MARGIN), seen
