"""spadegym_train: SPADE-style self-play on spadegym environments.

One base model (4-bit NF4 on a GPU when asked) with LoRA adapters writes environment programs
(the designer) and learns to play them (the solver); the designer is rewarded by how much a
hint helps the solver (regret) or by one of the other rewards of ``rewards``. Run it with
``spadegym-train --preset tiny-cpu`` or ``python -m spadegym_train``; ``train(config)`` is the
library entry point.

Settings are a ``TrainConfig`` (``spadegym_train.config``), grouped by concern (``model``,
``lora``, ``generation``, ``pool``, ``design``, ``play``, ``evaluation``, ``rewards``, ``ppo``,
``logging``, ``curriculum``) beside the library's own ``sandbox``, ``validation`` and ``dedup``
configs; ``key=value`` overrides name a setting by its dotted key (``ppo.learning_rate=1e-4``,
``validation.fuzz_examples=20``), and ``config.replace({...})`` copies a config with some set.

What follows SPADE (docs/REFERENCE.md): hints come from a separate call that reads the program and
the instance, never from the designer's own program (``play.hint_source=hinter``, the default in
``spade`` mode), sampled at ``generation.hint_temperature`` (SPADE's 0.3); regret compares the hint
plays with the plain plays of the same iteration and seeds; each designer slot gets up to 3 attempts
on fresh documents; design prompts show two examples with their code drawn from the ten best of the
skill with win rates in [0.15, 0.85] and one too-easy or too-hard negative; failed designs get 0;
play failures -0.5; hint plays happen at regeneration iterations only; the designer asks for
difficulty 3; two optimizer steps per rollout batch with truncated importance sampling against the
engine's log-probs and the 0.2 / 0.28 clip; designer advantages centred per skill and scaled by
``min(solver / designer trajectories * regen_interval, 50)`` under a token-level mean loss;
two-player outcomes become win rates ``(r + 1) / 2`` for rewards and statistics; SPIRAL's role
baselines for the seats of a two-player game.

Where this departs from the paper, on purpose:

- Designer rewards are computed on chance-adjusted win rates, ``(win - floor) / (1 -
  floor)``, with each environment's chance floor (the best cheap shortcut solver's score,
  measured by validation, or recorded in a library manifest), and a rate or hint gain within
  two standard errors of chance counts as chance (``rewards.chance_adjusted``, on by
  default; ``rewards`` says how each reward reads it). SPADE rewards raw rates, on which a
  pure-luck game (three cups, nothing observable: every policy scores 0.5) earns 0.6 of the
  maximum ``spade_blend``. (The reward cannot be farmed with luck.)
- The hinter is the frozen base model (adapters disabled) or ``play.hint_llm``; SPADE's hinter is
  the trained policy itself. (A hinter the designer's training shapes could learn to help
  its own programs' regret; a frozen one measures every program with the same reader.) It
  reads the program without comments and without ``hint()`` (docstrings kept), and a hint
  that a copying shortcut solver could follow to the answer is a leak
  (``hinter``, ``hint_leaks``). (Text aimed at the hinter does not reach it.)
- Recorded programs (``design.scripted``) play in the pool and count in their skill's
  reward baseline, but are never designer samples: the model did not write them.

- Environments run in spadegym's sandbox and pass its validation battery and a novelty check
  against an embedding memory; SPADE exec's programs in-process after a smoke test and keeps a
  FIFO list of 200 records without deduplication. (Safety, and a pool that does not repeat.)
- LoRA on a (4-bit) base on one device instead of full fine-tuning of Qwen3-30B-A3B on 8 GPUs;
  the reference of the optional KL term is the base with adapters disabled. (What one GPU
  affords.)
- The hinter sees the instance's first observation besides the code, and writes one hint per
  instance; SPADE's writes one per game from the code. (A hint can then speak of what the
  player sees; it is leak-checked against that instance's own solution.) A hint that fails
  the checks drops that hint play instead of playing it plain.
- Stale designer samples (trained at the end of their window) have their clipped ratio taken
  against the learner's log-probs at generation time, and the truncated importance weight
  corrects engine-versus-learner differences; SPADE applies one truncated weight between the
  training and rollout policies. (The same correction, split so that the clip also acts.)
- The solver sees its first observation and the last ``play.history_turns`` exchanges, under one
  system prompt per kind of environment (``spadegym.play``, shared with ``spadegym eval``);
  SPADE's solver sees the current observation only. (Multi-turn games need their history.)
- An episode in which the environment failed is not trained on (the designer gets the
  timeout penalty instead of the solver getting -1). (The failure is the program's.)
- Two-player games put the model in both seats; in a hint play only player 0 sees the hint,
  so regret is the hint's worth against an unhinted opponent.
- Where a skill has no environments in the frontier band yet, the examples come from any
  skill (SPADE shows none). (Early windows still get worked examples.)
- ``mode=fixed`` plays the library's own hints at each pool draw (``play.hint_source=program``),
  measured, never trained; ``play.hint_plays=never`` turns them off.
- With ``design.async_regeneration`` (off by default) the next window's candidates are written
  at the start of the current window and validated in the background, so they train two windows
  after they were written instead of one.
- ``ppo.loss_aggregation=role_mean`` (not the default) averages each role's tokens apart and adds
  the means, without the designer scale.
- The ``small-cpu`` presets (SmolLM2-135M on 2 CPU cores) take one optimizer step per rollout
  batch, at temperature 0.7: the update is their bottleneck, and at temperature 1.0 a 135M
  model's full-vocabulary samples are mostly noise. The GPU presets keep SPADE's two steps.
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
