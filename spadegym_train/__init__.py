"""spadegym_train: SPADE-style self-play on spadegym environments.

One base model (4-bit NF4 on a GPU when asked) with LoRA adapters writes environment programs
(the designer) and learns to play them (the solver); the designer is rewarded by how much a
hint helps the solver (regret) or by one of the other rewards of ``rewards``. Run it with
``spadegym-train --preset tiny-cpu`` or ``python -m spadegym_train``; ``train(config)`` is the
library entry point.

Where this departs from the paper (SPADE; see shared/REFERENCE.md):

- Environments run in spadegym's sandbox and pass its validation battery and a novelty check
  against an embedding memory; SPADE exec's programs in-process after a smoke test and keeps a
  FIFO list of 200 records without deduplication.
- LoRA on a (4-bit) base on one device instead of full fine-tuning of Qwen3-30B-A3B on 8 GPUs;
  the reference of the optional KL term is the base with adapters disabled.
- Stale designer samples (trained at the end of their window) are corrected by the clipped
  ratio against their log-probs at generation time, not by a separate truncated importance
  weight; SPADE's scaling of designer rewards by trajectory counts is not applied.
- Token losses are averaged per role and the two means added (DAPO's token-level mean within a
  role), so long programs do not drown the solver's turns.
- The solver sees the first observation and the last ``history_turns`` exchanges, not only
  the current observation; an episode in which the environment failed is not trained on (the
  designer gets the timeout penalty instead of the solver getting -1).
- Two-player games put the model in both seats with SPIRAL's role-conditioned baselines; in a
  hint play only player 0 sees the hint, so regret is the hint's worth against an unhinted
  opponent.
- With ``async_regeneration`` (off by default) the next window's candidates are written at the
  start of the current window and validated in the background, so they train two windows
  after they were written instead of one.
- Designer prompts are ``spadegym.designer.prompts`` (the contract, skill ideas, difficulty,
  frontier, negative and nearby examples from the memory), one attempt per slot and no repair
  turns inside the loop.
"""

from __future__ import annotations

from spadegym_train.config import TrainConfig, load_config

__all__ = ["TrainConfig", "load_config", "train"]


def __getattr__(name: str):
    # ``train`` pulls in torch and transformers; importing the package should not.
    if name == "train":
        from spadegym_train.loop import train

        return train
    raise AttributeError(name)
