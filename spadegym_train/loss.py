"""The update: a clipped policy gradient, token-level, on the LoRA weights only.

Per token: ``ratio = exp(logp - logp_old)``, loss ``-min(ratio * A, clip(ratio, 1 - 0.2,
1 + 0.28) * A)``, plus ``kl_coef`` times the k3 estimate of KL to the reference (the base model,
adapters disabled). Token losses are averaged over every token of a role's samples in the
iteration (token-level, as in DAPO) and the roles' means are added, so a 3,000-token program
does not drown out the solver's short turns. Micro-batches accumulate gradients; one optimizer
step per epoch. Log-probs use the sampling temperature, so ratios refer to the sampling policy.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from spadegym.errors import ConfigError


@dataclass
class Sample:
    """One reply to learn from.

    Attributes:
        role: ``"designer"`` or ``"solver"`` (which adapter it trains).
        prompt_ids: what the model saw.
        response_ids: what it wrote.
        advantage: the reply's advantage (every token gets it).
        old_logprobs: per-token log-probs of the policy that sampled it; computed just before
            the update when ``None`` (on-policy samples).
    """

    role: str
    prompt_ids: list[int]
    response_ids: list[int]
    advantage: float
    old_logprobs: list[float] | None = None


def _batches(samples: Sequence[Sample], size: int) -> Iterator[list[Sample]]:
    for start in range(0, len(samples), size):
        yield list(samples[start : start + size])


def _pad(
    batch: list[Sample], pad_id: int, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Right-padded ids, attention mask and response mask (over predicted positions)."""
    width = max(len(s.prompt_ids) + len(s.response_ids) for s in batch)
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(batch), width), dtype=torch.long)
    response = torch.zeros((len(batch), width - 1), dtype=torch.bool)
    for row, sample in enumerate(batch):
        sequence = sample.prompt_ids + sample.response_ids
        ids[row, : len(sequence)] = torch.tensor(sequence, dtype=torch.long)
        attention[row, : len(sequence)] = 1
        # Position t predicts token t + 1: response tokens sit at prompt_len .. end - 1.
        response[row, len(sample.prompt_ids) - 1 : len(sequence) - 1] = True
    return ids.to(device), attention.to(device), response.to(device)


def token_logprobs(
    model: Any, ids: torch.Tensor, attention: torch.Tensor, temperature: float
) -> torch.Tensor:
    """Log-probability of each next token, shape ``(batch, length - 1)``, in float32."""
    logits = model(input_ids=ids, attention_mask=attention, use_cache=False).logits[:, :-1]
    logits = logits.float() / temperature
    targets = ids[:, 1:].unsqueeze(-1)
    return logits.gather(-1, targets).squeeze(-1) - torch.logsumexp(logits, dim=-1)


def _rows(values: torch.Tensor, mask: torch.Tensor) -> list[list[float]]:
    return [values[row][mask[row]].tolist() for row in range(values.shape[0])]


@torch.no_grad()
def fill_old_logprobs(
    policy: Any, samples: Sequence[Sample], micro_batch_size: int, temperature: float
) -> None:
    """Compute ``old_logprobs`` of the samples that lack them, with the current weights."""
    pad = policy.tokenizer.pad_token_id
    policy.model.eval()
    for role in ("designer", "solver"):
        todo = [s for s in samples if s.old_logprobs is None and s.role == role]
        if not todo:
            continue
        policy.use(role)
        for batch in _batches(todo, micro_batch_size):
            ids, attention, response = _pad(batch, pad, policy.device)
            values = token_logprobs(policy.model, ids, attention, temperature)
            for sample, row in zip(batch, _rows(values, response), strict=True):
                sample.old_logprobs = row


def clipped_loss(
    logp: torch.Tensor,
    old: torch.Tensor,
    advantage: torch.Tensor,
    mask: torch.Tensor,
    clip_low: float,
    clip_high: float,
    ref: torch.Tensor | None = None,
    kl_coef: float = 0.0,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Sum over masked tokens of the clipped surrogate (and the KL term); with statistics.

    Args:
        logp: current log-probs, ``(batch, T)``.
        old: log-probs of the sampling policy, same shape.
        advantage: per-row advantages, ``(batch,)``.
        mask: which positions are response tokens.
        clip_low: ``eps_low`` (ratio floor ``1 - eps_low``).
        clip_high: ``eps_high`` (ratio ceiling ``1 + eps_high``).
        ref: reference log-probs for the KL term, or ``None``.
        kl_coef: weight of the KL term.

    Returns:
        The summed token loss and (summed) statistics: ``clipped`` tokens, ``kl``, ``ratio``.
    """
    ratio = torch.exp(logp - old)
    adv = advantage.unsqueeze(-1)
    surrogate = torch.minimum(ratio * adv, torch.clamp(ratio, 1 - clip_low, 1 + clip_high) * adv)
    per_token = -surrogate
    stats = {
        "clipped": float(((surrogate != ratio * adv) & mask).sum()),
        "ratio": float((ratio.detach() * mask).sum()),
    }
    if ref is not None:
        delta = ref - logp
        kl = torch.exp(delta) - delta - 1.0  # k3: unbiased, always >= 0
        per_token = per_token + kl_coef * kl
        stats["kl"] = float((kl.detach() * mask).sum())
    return (per_token * mask).sum(), stats


def make_optimizer(config: Any, parameters: list[torch.nn.Parameter]) -> torch.optim.Optimizer:
    """AdamW, or bitsandbytes' 8-bit (paged) AdamW, over the LoRA weights."""
    if config.optimizer == "adamw":
        return torch.optim.AdamW(
            parameters, lr=config.learning_rate, weight_decay=config.weight_decay
        )
    try:
        import bitsandbytes as bnb
    except ImportError as exc:
        raise ConfigError(
            f"optimizer={config.optimizer!r} needs bitsandbytes; pip install "
            "bitsandbytes or use optimizer=adamw."
        ) from exc
    cls = (
        bnb.optim.PagedAdamW8bit if config.optimizer == "paged_adamw_8bit" else bnb.optim.AdamW8bit
    )
    return cls(parameters, lr=config.learning_rate, weight_decay=config.weight_decay)


def update(
    policy: Any, optimizer: torch.optim.Optimizer, samples: Sequence[Sample], config: Any
) -> dict[str, float]:
    """One iteration's update: ``ppo_epochs`` optimizer steps over ``samples``.

    Samples with a zero advantage are dropped (they carry no gradient, as in SPIRAL).

    Returns:
        ``loss/...`` metrics: the loss, clip fraction, mean ratio, KL, grad norm, token counts.
    """
    samples = [s for s in samples if s.advantage != 0.0 and s.response_ids]
    metrics: dict[str, float] = {"loss/samples": float(len(samples))}
    if not samples:
        return metrics
    fill_old_logprobs(policy, samples, config.micro_batch_size, config.temperature)
    pad = policy.tokenizer.pad_token_id
    params = policy.lora_parameters()
    by_role = {role: [s for s in samples if s.role == role] for role in ("designer", "solver")}
    totals = {"loss": 0.0, "clipped": 0.0, "ratio": 0.0, "kl": 0.0, "tokens": 0.0}
    for _ in range(config.ppo_epochs):
        optimizer.zero_grad(set_to_none=True)
        for role, group in by_role.items():
            if not group:
                continue
            tokens = sum(len(s.response_ids) for s in group)
            metrics[f"loss/{role}_tokens"] = float(tokens)
            policy.use(role)
            for batch in _batches(group, config.micro_batch_size):
                ids, attention, response = _pad(batch, pad, policy.device)
                ref = None
                if config.kl_coef > 0:
                    with torch.no_grad(), policy.reference():
                        ref = token_logprobs(policy.model, ids, attention, config.temperature)
                policy.model.train()
                logp = token_logprobs(policy.model, ids, attention, config.temperature)
                old = torch.zeros_like(logp)
                for row, sample in enumerate(batch):
                    old[row][response[row]] = torch.tensor(sample.old_logprobs, device=logp.device)
                advantage = torch.tensor([s.advantage for s in batch], device=logp.device)
                loss, stats = clipped_loss(
                    logp,
                    old,
                    advantage,
                    response,
                    config.clip_eps_low,
                    config.clip_eps_high,
                    ref,
                    config.kl_coef,
                )
                (loss / tokens).backward()
                totals["loss"] += float(loss.detach()) / tokens
                totals["tokens"] += float(response.sum())
                for key in ("clipped", "ratio", "kl"):
                    totals[key] += stats.get(key, 0.0)
        norm = torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm)
        optimizer.step()
        metrics["loss/grad_norm"] = float(norm)
    policy.model.eval()
    count = max(1.0, totals["tokens"])
    metrics.update(
        {
            "loss/policy": totals["loss"] / config.ppo_epochs,
            "loss/clip_frac": totals["clipped"] / count,
            "loss/ratio": totals["ratio"] / count,
            "loss/kl": totals["kl"] / count,
        }
    )
    return metrics
