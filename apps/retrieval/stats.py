"""Evaluation and calibration maths (seed 000, section 3.5 and Appendix B).

- ``wilson_interval``: 95% Wilson score interval of a proportion.
- ``mcnemar_exact``: exact two-sided McNemar test on the questions where two setups disagree.
- ``auc``: Mann-Whitney AUC (ties count half) of a score separating two groups.
- ``map_threshold``: move a threshold to the same percentile of a new model's score distribution.
- ``flag_rates`` / ``calibrate_threshold``: thresholds defined by behaviour (share flagged).
- ``percentiles``: latency summaries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "Scores",
    "auc",
    "calibrate_threshold",
    "flag_rates",
    "map_threshold",
    "mcnemar_exact",
    "percentiles",
    "wilson_interval",
]


#: Scores may be any sequence of numbers or a numpy array.
Scores = Sequence[float] | npt.NDArray[Any]


def _array(values: Scores) -> npt.NDArray[np.float64]:
    return np.asarray(values, dtype=np.float64).reshape(-1)


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for k successes out of n; (0.0, 1.0) when n is 0."""
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value; b and c are the questions only one setup answered.

    p = min(1, 2 * sum(comb(b + c, i) for i in range(min(b, c) + 1)) / 2 ** (b + c))
    """
    if b < 0 or c < 0:
        raise ValueError("b and c must be non-negative")
    n = b + c
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1))
    # Exact integers; Python's int / int is correctly rounded even for very large n.
    p: float = 2 * tail / 2**n
    return min(1.0, p)


def auc(positive_scores: Scores, negative_scores: Scores) -> float:
    """Probability that a positive scores above a negative (Mann-Whitney U / (m n)); ties count half."""
    pos = _array(positive_scores)
    neg = _array(negative_scores)
    if pos.size == 0 or neg.size == 0:
        raise ValueError("both groups need at least one score")
    neg_sorted = np.sort(neg)
    below = np.searchsorted(neg_sorted, pos, side="left")  # negatives strictly below each positive
    not_above = np.searchsorted(neg_sorted, pos, side="right")  # ... below or equal
    wins = below.sum() + 0.5 * (not_above - below).sum()
    return float(wins / (pos.size * neg.size))


def map_threshold(old_scores: Scores, new_scores: Scores, t_old: float) -> float:
    """The new model's threshold at the same percentile (Appendix B):
    ``numpy.quantile(new, (old < t_old).mean())``. Old and new are each model's top similarity for
    the same pooled questions."""
    old = _array(old_scores)
    new = _array(new_scores)
    if old.size == 0 or new.size == 0:
        raise ValueError("need scores from both models")
    return float(np.quantile(new, float((old < t_old).mean())))


def flag_rates(answerable: Scores, unanswerable: Scores, threshold: float) -> tuple[float, float]:
    """(share of unanswerable flagged, share of answerable flagged); a question is flagged when its
    score is below the threshold. An empty group has rate 0.0."""
    ans = _array(answerable)
    una = _array(unanswerable)
    flags_unanswerable = float((una < threshold).mean()) if una.size else 0.0
    flags_answerable = float((ans < threshold).mean()) if ans.size else 0.0
    return flags_unanswerable, flags_answerable


def calibrate_threshold(unanswerable_scores: Scores, target_flag_rate: float) -> float:
    """The threshold that flags (score < threshold) the target share of unanswerable questions.

    With n scores, ceil(target * n) of them are flagged: the threshold sits midway between the
    highest flagged score and the next one (ties can make the exact share unreachable; then the
    share flagged is the nearest one below). 0 flags nothing, 1 flags everything.
    """
    if not 0.0 <= target_flag_rate <= 1.0:
        raise ValueError("target_flag_rate must be within [0, 1]")
    scores = np.sort(_array(unanswerable_scores))
    if scores.size == 0:
        raise ValueError("need at least one score")
    k = math.ceil(target_flag_rate * scores.size - 1e-9)
    if k <= 0:
        return float(scores[0])
    if k >= scores.size:
        return float(np.nextafter(scores[-1], np.inf))
    return float((scores[k - 1] + scores[k]) / 2)


def percentiles(values: Scores, qs: Sequence[float] = (50, 95)) -> list[float]:
    """Percentiles (numpy's linear interpolation) of values, in the order asked."""
    data = _array(values)
    if data.size == 0:
        raise ValueError("need at least one value")
    return [float(x) for x in np.percentile(data, list(qs))]
