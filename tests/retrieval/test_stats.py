"""Tests of apps.retrieval.stats against hand-computed values (and the seed paper's published ones)."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from apps.retrieval.stats import (
    auc,
    calibrate_threshold,
    flag_rates,
    map_threshold,
    mcnemar_exact,
    percentiles,
    wilson_interval,
)


def test_wilson_interval_hand_computed() -> None:
    # k = 0: lower bound 0, upper bound z^2 / (n + z^2)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0
    assert hi == pytest.approx(1.96**2 / (10 + 1.96**2))
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(10 / (10 + 1.96**2))
    assert hi == 1.0
    # k = n/2 is symmetric around 1/2
    lo, hi = wilson_interval(50, 100)
    assert lo + hi == pytest.approx(1.0)
    assert hi - 0.5 == pytest.approx(1.96 * math.sqrt(0.25 / 100 + 1.96**2 / 40000) / (1 + 1.96**2 / 100))
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_interval_matches_published_figures() -> None:
    # seed 003 Table 2: 15/36 -> 27-58%, 35/36 -> 86-100%; eval README: 0.739 [0.669-0.798] of 176
    assert [round(x * 100) for x in wilson_interval(15, 36)] == [27, 58]
    assert [round(x * 100) for x in wilson_interval(35, 36)] == [86, 100]
    assert [round(x, 3) for x in wilson_interval(130, 176)] == [0.669, 0.798]


def test_wilson_interval_rejects_bad_counts() -> None:
    with pytest.raises(ValueError):
        wilson_interval(5, 4)
    with pytest.raises(ValueError):
        wilson_interval(-1, 4)


def test_mcnemar_exact_hand_computed() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(1, 0) == 1.0
    assert mcnemar_exact(5, 0) == pytest.approx(2 / 32)
    assert mcnemar_exact(14, 2) == pytest.approx(2 * (1 + 16 + 120) / 2**16)
    assert mcnemar_exact(6, 6) == 1.0
    assert mcnemar_exact(3, 9) == mcnemar_exact(9, 3)
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 2)


def test_mcnemar_exact_matches_seed_tables() -> None:
    # seed 000 section 4.3/4.4: (14, 2) p=.004; (27, 16) p=.13; (7, 6) p=1.00; (28, 6) p=.0002
    assert round(mcnemar_exact(14, 2), 3) == 0.004
    assert round(mcnemar_exact(27, 16), 2) == 0.13
    assert round(mcnemar_exact(7, 6), 2) == 1.0
    assert round(mcnemar_exact(28, 6), 4) == 0.0002
    # seed 003 Table 3 (exact sign test, same formula): 7 improved, 0 degraded -> 0.016
    assert round(mcnemar_exact(7, 0), 3) == 0.016
    # large counts stay finite
    assert 0.0 < mcnemar_exact(3000, 2900) < 1.0


def test_auc_hand_computed() -> None:
    assert auc([1, 2, 3], [0, 0.5]) == 1.0
    assert auc([0], [1]) == 0.0
    assert auc([1], [1]) == 0.5
    # pairs (1,1)=.5, (1,3)=0, (2,1)=1, (2,3)=0 -> 1.5 / 4
    assert auc([1, 2], [1, 3]) == 0.375
    with pytest.raises(ValueError):
        auc([], [1.0])


def test_auc_matches_brute_force() -> None:
    rng = random.Random(4)
    pos = [round(rng.random(), 2) for _ in range(60)]
    neg = [round(rng.random() * 0.8, 2) for _ in range(45)]  # rounding makes ties
    brute = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg))
    assert auc(pos, neg) == pytest.approx(brute / (len(pos) * len(neg)))


def test_map_threshold() -> None:
    old = [i / 10 for i in range(1, 11)]  # 0.1 .. 1.0
    new = [2 * x for x in old]
    # (old < 0.55).mean() = 0.5 -> median of new = (1.0 + 1.2) / 2
    assert map_threshold(old, new, 0.55) == pytest.approx(1.1)
    assert map_threshold(old, new, 0.05) == pytest.approx(0.2)  # share 0 -> minimum
    assert map_threshold(old, new, 5.0) == pytest.approx(2.0)  # share 1 -> maximum
    rng = np.random.default_rng(0)
    scores = rng.random(200)
    assert map_threshold(scores, scores, 0.6) == pytest.approx(
        float(np.quantile(scores, (scores < 0.6).mean()))
    )


def test_flag_rates() -> None:
    answerable = [0.7, 0.8, 0.5, 0.9]
    unanswerable = [0.4, 0.6, 0.65, 0.3]
    assert flag_rates(answerable, unanswerable, 0.62) == (0.75, 0.25)
    assert flag_rates(answerable, unanswerable, 0.4) == (0.25, 0.0)  # strictly below flags
    assert flag_rates([], [], 0.5) == (0.0, 0.0)


def test_calibrate_threshold() -> None:
    scores = [i / 10 for i in range(10, 0, -1)]  # 1.0 .. 0.1, unsorted on purpose
    assert calibrate_threshold(scores, 0.7) == pytest.approx(0.75)
    assert flag_rates([], scores, calibrate_threshold(scores, 0.7))[0] == pytest.approx(0.7)
    assert calibrate_threshold(scores, 0.25) == pytest.approx(0.35)  # ceil(2.5) = 3 flagged
    assert flag_rates([], scores, calibrate_threshold(scores, 0.0))[0] == 0.0
    assert flag_rates([], scores, calibrate_threshold(scores, 1.0))[0] == 1.0
    with pytest.raises(ValueError):
        calibrate_threshold(scores, 1.5)
    with pytest.raises(ValueError):
        calibrate_threshold([], 0.5)


def test_calibrate_threshold_reaches_seed_rates() -> None:
    rng = np.random.default_rng(1)
    unanswerable = rng.normal(0.6, 0.05, 100)
    for target in (0.70, 0.50, 0.31, 0.19, 0.11):  # the seed's flag rates on 100 questions
        flagged, _ = flag_rates([], unanswerable, calibrate_threshold(unanswerable, target))
        assert flagged == pytest.approx(target)


def test_percentiles() -> None:
    values = list(range(1, 101))
    assert percentiles(values, [50, 95]) == pytest.approx([50.5, 95.05])
    assert percentiles([3.0]) == [3.0, 3.0]
    with pytest.raises(ValueError):
        percentiles([], [50])
