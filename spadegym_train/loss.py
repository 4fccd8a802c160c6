"""The update: a clipped policy gradient, token-level, on the LoRA weights only.

Per token: ``ratio = exp(logp - logp_old)``, surrogate ``min(ratio * A, clip(ratio, 1 - 0.2,
1 + 0.28) * A)``, weighted by the truncated importance weight
``w = min(exp(logp_old - logp_engine), tis_cap)`` (the engine that sampled a reply and the
learner disagree slightly about its probability: kernels, precision, batching), plus
``ppo.kl_coef`` times the k3 estimate of KL to the reference (the base model, adapters disabled).
``logp_old`` is the learner's log-prob under the weights that sampled the reply: computed just
before the update for the iteration's fresh samples (so the first of the ``ppo.epochs``
optimizer steps has ratio 1 and the later ones clip; with one epoch the update's own forward
pass gives it), and at generation time for the designer's samples, which train at the end of
their window. Logits are computed only from the first position that predicts a response
token. A learning rate of 0 (a control run) skips the update: it could not change a weight.

Aggregation (``ppo.loss_aggregation``): ``token_mean`` divides the summed token losses by every
response token of the iteration (DAPO's token-level mean, as SPADE), ``role_mean`` averages
each role's tokens apart and adds the two means. Micro-batches accumulate gradients; one
optimizer step per epoch. Log-probs use the sampling temperature, so ratios refer to the
sampling policy.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from spadegym.errors import ConfigError

if TYPE_CHECKING:
    from spadegym_train.config import TrainConfig

ROLES = ("designer", "solver")

ENTROPY_CHUNK = 256
"""Positions per chunk when the entropy is computed (bounds the memory of the softmax)."""


@dataclass
class Sample:
    """One reply to learn from.

    Attributes:
        role: ``"designer"`` or ``"solver"`` (which adapter it trains).
        prompt_ids: what the model saw.
        response_ids: what it wrote.
        advantage: the reply's advantage (every token gets it).
        old_logprobs: per-token log-probs of the learner under the weights that sampled it;
            computed just before the update when ``None`` (on-policy samples).
        engine_logprobs: per-token log-probs the generation engine reported, or ``None`` (no
            importance correction: recorded replies, engines that give none).
    """

    role: str
    prompt_ids: list[int]
    response_ids: list[int]
    advantage: float
    old_logprobs: list[float] | None = None
    engine_logprobs: list[float] | None = None


def _batches(samples: Sequence[Sample], size: int) -> Iterator[list[Sample]]:
    for start in range(0, len(samples), size):
        yield list(samples[start : start + size])


def _pad(
    batch: list[Sample], pad_id: int, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, int]:
    """Right-padded ids and attention mask, the response mask, and the window's start.

    Only positions from ``start`` (the last prompt token of the shortest prompt) predict a
    response token, so the logits are computed from there on: the vocabulary projection and
    its softmax over the prompts would be most of the update's work for short replies. The
    response mask covers the predicted positions ``start .. width - 2``.
    """
    width = max(len(s.prompt_ids) + len(s.response_ids) for s in batch)
    start = min(len(s.prompt_ids) for s in batch) - 1
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(batch), width), dtype=torch.long)
    response = torch.zeros((len(batch), width - 1 - start), dtype=torch.bool)
    for row, sample in enumerate(batch):
        sequence = sample.prompt_ids + sample.response_ids
        ids[row, : len(sequence)] = torch.tensor(sequence, dtype=torch.long)
        attention[row, : len(sequence)] = 1
        # Position t predicts token t + 1: response tokens sit at prompt_len .. end - 1.
        response[row, len(sample.prompt_ids) - 1 - start : len(sequence) - 1 - start] = True
    return ids.to(device), attention.to(device), response.to(device), start


def _logits(
    model: Any, ids: torch.Tensor, attention: torch.Tensor, temperature: float, start: int
) -> torch.Tensor:
    """Logits of positions ``start .. width - 2`` (each predicts the next token)."""
    keep = ids.shape[1] - start
    out = model(input_ids=ids, attention_mask=attention, use_cache=False, logits_to_keep=keep)
    return out.logits[:, -keep:-1].float() / temperature


def _gather(logits: torch.Tensor, ids: torch.Tensor, start: int) -> torch.Tensor:
    targets = ids[:, start + 1 :].unsqueeze(-1)
    return logits.gather(-1, targets).squeeze(-1) - torch.logsumexp(logits, dim=-1)


def token_logprobs(
    model: Any, ids: torch.Tensor, attention: torch.Tensor, temperature: float, start: int = 0
) -> torch.Tensor:
    """Log-probability of each next token from position ``start`` on, in float32.

    Shape ``(batch, length - 1 - start)``.
    """
    return _gather(_logits(model, ids, attention, temperature, start), ids, start)


@torch.no_grad()
def token_entropy(logits: torch.Tensor) -> torch.Tensor:
    """Entropy of each position's distribution, ``(batch, length)``, computed in chunks."""
    out = torch.empty(logits.shape[:2], device=logits.device)
    for start in range(0, logits.shape[1], ENTROPY_CHUNK):
        part = logits[:, start : start + ENTROPY_CHUNK].detach()
        logp = torch.log_softmax(part, dim=-1)
        out[:, start : start + ENTROPY_CHUNK] = -(logp.exp() * logp).sum(-1)
    return out


def _rows(values: torch.Tensor, mask: torch.Tensor) -> list[list[float]]:
    return [values[row][mask[row]].tolist() for row in range(values.shape[0])]


def _per_token(
    batch: list[Sample], field: str, base: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """``base`` with each sample's per-token ``field`` written at its response positions.

    Samples whose ``field`` is ``None`` (or of another length) keep ``base``'s values.
    """
    out = base.clone()
    for row, sample in enumerate(batch):
        values = getattr(sample, field)
        if values is not None and len(values) == int(mask[row].sum()):
            out[row][mask[row]] = torch.tensor(values, device=base.device, dtype=base.dtype)
    return out


@torch.no_grad()
def fill_old_logprobs(
    policy: Any, samples: Sequence[Sample], micro_batch_size: int, temperature: float
) -> None:
    """Compute ``old_logprobs`` of the samples that lack them, with the current weights."""
    pad = policy.tokenizer.pad_token_id
    policy.model.eval()
    for role in ROLES:
        todo = [s for s in samples if s.old_logprobs is None and s.role == role]
        if not todo:
            continue
        policy.use(role)
        for batch in _batches(todo, micro_batch_size):
            ids, attention, response, start = _pad(batch, pad, policy.device)
            values = token_logprobs(policy.model, ids, attention, temperature, start)
            for sample, row in zip(batch, _rows(values, response), strict=True):
                sample.old_logprobs = row


def importance_weights(old: torch.Tensor, engine: torch.Tensor, cap: float) -> torch.Tensor:
    """Truncated importance weights ``min(exp(old - engine), cap)``; 1 everywhere when off."""
    if cap <= 0:
        return torch.ones_like(old)
    return torch.clamp(torch.exp(old - engine), max=cap)


def clipped_loss(
    logp: torch.Tensor,
    old: torch.Tensor,
    advantage: torch.Tensor,
    mask: torch.Tensor,
    clip_low: float,
    clip_high: float,
    ref: torch.Tensor | None = None,
    kl_coef: float = 0.0,
    weights: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Sum over masked tokens of the weighted clipped surrogate (and the KL term); statistics.

    Args:
        logp: current log-probs, ``(batch, T)``.
        old: the learner's log-probs under the sampling weights, same shape.
        advantage: per-row advantages, ``(batch,)``.
        mask: which positions are response tokens.
        clip_low: ``eps_low`` (ratio floor ``1 - eps_low``).
        clip_high: ``eps_high`` (ratio ceiling ``1 + eps_high``).
        ref: reference log-probs for the KL term, or ``None``.
        kl_coef: weight of the KL term.
        weights: truncated importance weights per token (``importance_weights``), or ``None``.

    Returns:
        The summed token loss and (summed) statistics: ``clipped`` tokens, ``ratio``, ``kl``,
        ``tis`` (the weights) and ``tis_truncated`` (tokens whose weight hit the cap).
    """
    ratio = torch.exp(logp - old)
    adv = advantage.unsqueeze(-1)
    surrogate = torch.minimum(ratio * adv, torch.clamp(ratio, 1 - clip_low, 1 + clip_high) * adv)
    weights = torch.ones_like(logp) if weights is None else weights.detach()
    per_token = -weights * surrogate
    stats = {
        "clipped": float(((surrogate != ratio * adv) & mask).sum()),
        "ratio": float((ratio.detach() * mask).sum()),
        "tis": float((weights * mask).sum()),
    }
    if ref is not None:
        delta = ref - logp
        kl = torch.exp(delta) - delta - 1.0  # k3: unbiased, always >= 0
        per_token = per_token + kl_coef * kl
        stats["kl"] = float((kl.detach() * mask).sum())
    return (per_token * mask).sum(), stats


def make_optimizer(
    config: TrainConfig, parameters: list[torch.nn.Parameter]
) -> torch.optim.Optimizer:
    """AdamW, or bitsandbytes' 8-bit (paged) AdamW, over the LoRA weights."""
    if config.ppo.optimizer == "adamw":
        return torch.optim.AdamW(
            parameters, lr=config.ppo.learning_rate, weight_decay=config.ppo.weight_decay
        )
    try:
        import bitsandbytes as bnb
    except ImportError as exc:
        raise ConfigError(
            f"ppo.optimizer={config.ppo.optimizer!r} needs bitsandbytes; pip install "
            "bitsandbytes or use ppo.optimizer=adamw."
        ) from exc
    cls = (
        bnb.optim.PagedAdamW8bit
        if config.ppo.optimizer == "paged_adamw_8bit"
        else bnb.optim.AdamW8bit
    )
    return cls(parameters, lr=config.ppo.learning_rate, weight_decay=config.ppo.weight_decay)


def update(
    policy: Any, optimizer: torch.optim.Optimizer, samples: Sequence[Sample], config: TrainConfig
) -> dict[str, float]:
    """One iteration's update: ``ppo.epochs`` optimizer steps over ``samples``.

    Samples with a zero advantage are dropped (they carry no gradient, as in SPIRAL); with
    ``ppo.learning_rate`` 0 nothing is computed.

    Returns:
        ``loss/...`` metrics: the loss, clip fraction, mean ratio, importance weights, KL and
        entropy, overall and per role (``loss/solver_clip_frac``, ...), response lengths, the
        gradient norm and token counts.
    """
    samples = [s for s in samples if s.advantage != 0.0 and s.response_ids]
    metrics: dict[str, float] = {"loss/samples": float(len(samples))}
    if not samples or config.ppo.learning_rate == 0:
        return metrics  # learning rate 0 (a control run): the weights could not change
    if config.ppo.epochs > 1:
        fill_old_logprobs(
            policy, samples, config.ppo.micro_batch_size, config.generation.temperature
        )
    pad = policy.tokenizer.pad_token_id
    params = policy.lora_parameters()
    # By length within a role: micro-batches of like lengths waste less on padding.
    samples = sorted(samples, key=lambda s: len(s.prompt_ids) + len(s.response_ids))
    groups = {role: [s for s in samples if s.role == role] for role in ROLES}
    tokens = {role: sum(len(s.response_ids) for s in group) for role, group in groups.items()}
    all_tokens = sum(tokens.values())
    keys = ("loss", "clipped", "ratio", "kl", "tis", "entropy")
    totals = {role: dict.fromkeys(keys, 0.0) for role in ROLES}
    for epoch in range(config.ppo.epochs):
        optimizer.zero_grad(set_to_none=True)
        for role, group in groups.items():
            if not group:
                continue
            # token_mean: one mean over every token of the iteration; role_mean: per role.
            divisor = all_tokens if config.ppo.loss_aggregation == "token_mean" else tokens[role]
            policy.use(role)
            for batch in _batches(group, config.ppo.micro_batch_size):
                ids, attention, response, start = _pad(batch, pad, policy.device)
                ref = None
                if config.ppo.kl_coef > 0:
                    with torch.no_grad(), policy.reference():
                        ref = token_logprobs(
                            policy.model, ids, attention, config.generation.temperature, start
                        )
                policy.model.train()
                logits = _logits(policy.model, ids, attention, config.generation.temperature, start)
                logp = _gather(logits, ids, start)
                if epoch == 0:
                    entropy = token_entropy(logits)
                    totals[role]["entropy"] += float((entropy * response).sum())
                del logits
                # One epoch: the weights that sampled are these, so old is this pass's logp.
                old = _per_token(batch, "old_logprobs", logp.detach(), response)
                # Samples without engine log-probs get weight 1 (engine := old there).
                engine = _per_token(batch, "engine_logprobs", old, response)
                weights = importance_weights(old, engine, config.ppo.tis_cap)
                advantage = torch.tensor([s.advantage for s in batch], device=logp.device)
                loss, stats = clipped_loss(
                    logp,
                    old,
                    advantage,
                    response,
                    config.ppo.clip_eps_low,
                    config.ppo.clip_eps_high,
                    ref,
                    config.ppo.kl_coef,
                    weights,
                )
                (loss / divisor).backward()
                totals[role]["loss"] += float(loss.detach())
                for key in ("clipped", "ratio", "kl", "tis"):
                    totals[role][key] += stats.get(key, 0.0)
        norm = torch.nn.utils.clip_grad_norm_(params, config.ppo.max_grad_norm)
        optimizer.step()
        metrics["loss/grad_norm"] = float(norm)
    policy.model.eval()
    epochs = config.ppo.epochs
    for role in ROLES:
        if not groups[role]:
            continue
        count = tokens[role]
        t = totals[role]
        metrics.update(
            {
                f"loss/{role}_tokens": float(count),
                f"loss/{role}_policy": t["loss"] / (count * epochs),
                f"loss/{role}_clip_frac": t["clipped"] / (count * epochs),
                f"loss/{role}_ratio": t["ratio"] / (count * epochs),
                f"loss/{role}_tis": t["tis"] / (count * epochs),
                f"loss/{role}_entropy": t["entropy"] / count,
                f"loss/{role}_response_length": count / len(groups[role]),
            }
        )
    grand = {k: sum(totals[r][k] for r in ROLES) for k in keys}
    denominator = all_tokens * epochs
    metrics.update(
        {
            "loss/policy": grand["loss"] / denominator,
            "loss/clip_frac": grand["clipped"] / denominator,
            "loss/ratio": grand["ratio"] / denominator,
            "loss/tis": grand["tis"] / denominator,
            "loss/kl": grand["kl"] / denominator,
            "loss/entropy": grand["entropy"] / all_tokens,
        }
    )
    return metrics
