from __future__ import annotations

import math

import pytest
import torch

from spadegym_train.loss import clipped_loss


def _loss(ratio: float, advantage: float, **kw):
    logp = torch.tensor([[math.log(ratio)]])
    old = torch.zeros(1, 1)
    mask = torch.ones(1, 1, dtype=torch.bool)
    return clipped_loss(logp, old, torch.tensor([advantage]), mask, 0.2, 0.28, **kw)


@pytest.mark.parametrize(
    ("ratio", "advantage", "expected", "clipped"),
    [
        (1.0, 1.0, -1.0, 0.0),
        (1.5, 1.0, -1.28, 1.0),  # clip-higher: the gain stops at 1 + 0.28
        (0.5, 1.0, -0.5, 0.0),  # below the floor with A > 0: the unclipped term is smaller
        (0.5, -1.0, 0.8, 1.0),  # A < 0: the floor 1 - 0.2 binds
        (1.5, -1.0, 1.5, 0.0),  # A < 0 above the ceiling: no clipping, full penalty
    ],
)
def test_clipped_surrogate(ratio, advantage, expected, clipped):
    loss, stats = _loss(ratio, advantage)
    assert float(loss) == pytest.approx(expected, rel=1e-5)
    assert stats["clipped"] == clipped


def test_masked_tokens_do_not_count():
    logp = torch.tensor([[0.0, 5.0]])
    mask = torch.tensor([[True, False]])
    loss, _ = clipped_loss(logp, torch.zeros(1, 2), torch.tensor([2.0]), mask, 0.2, 0.28)
    assert float(loss) == pytest.approx(-2.0)


def test_k3_kl_term():
    ref = torch.tensor([[math.log(0.5)]])
    loss, stats = _loss(1.0, 0.0, ref=ref, kl_coef=0.1)
    delta = math.log(0.5)
    kl = math.exp(delta) - delta - 1
    assert stats["kl"] == pytest.approx(kl)
    assert float(loss) == pytest.approx(0.1 * kl, rel=1e-5)


def test_truncated_importance_weights():
    from spadegym_train.loss import importance_weights

    old = torch.tensor([[math.log(0.5), math.log(0.9), math.log(0.2)]])
    engine = torch.tensor([[math.log(0.25), math.log(0.9), math.log(0.8)]])
    weights = importance_weights(old, engine, cap=1.5)
    # learner / engine = 2.0 (truncated to 1.5), 1.0, 0.25
    assert weights.tolist()[0] == pytest.approx([1.5, 1.0, 0.25])
    assert importance_weights(old, engine, cap=0).tolist()[0] == [1.0, 1.0, 1.0]  # off


def test_weights_scale_each_token_of_the_surrogate():
    logp = torch.tensor([[0.0, 0.0]])
    mask = torch.ones(1, 2, dtype=torch.bool)
    weights = torch.tensor([[2.0, 0.5]])
    loss, stats = clipped_loss(
        logp, torch.zeros(1, 2), torch.tensor([1.0]), mask, 0.2, 0.28, weights=weights
    )
    assert float(loss) == pytest.approx(-(2.0 + 0.5))  # ratio 1, A = 1, weighted
    assert stats["tis"] == pytest.approx(2.5)
