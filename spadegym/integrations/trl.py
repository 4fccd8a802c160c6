"""Spade environments in TRL's ``GRPOTrainer``: multi-turn environments, and single-turn data.

**Multi-turn** (TRL's ``environment_factory``, where the environment owns its state and its
reward): ``environment_factory(ids)`` returns a factory whose instances TRL creates, one per
rollout, and resets with each dataset row. An instance exposes one tool, ``act(reply)``: the
model sends each reply of the episode as a tool call, and the tool's result is what the game
shows next. ``get_reward()`` is the episode's outcome (the contract's: the last reward if the
episode terminated, else 0), so no reward function is needed::

    factory = environment_factory(["spade/TankerRoute-v0", "spade/JugPour-v0"])
    trainer = GRPOTrainer(model, args=GRPOConfig(...), train_dataset=factory.dataset(256),
                          environment_factory=factory)

``factory.dataset(n)`` holds one row per episode: the solver's system prompt for the
environment's kind (the one ``spadegym eval`` uses, plus how to call ``act``) and the instance
(``env_id``, ``seed``, ``difficulty``); ``reset`` appends the first observation to the row's
user message. Without a dataset (``train_dataset=None``, then ``max_steps`` is required) each
instance draws environments in turn and puts the system prompt before the observation.

**Text turns** (a model whose chat template has no tool calls, such as SmolLM2):
``factory.trainer_inputs(tokenizer, rows)`` gives the trainer's dataset and either the
``environment_factory`` (the template renders tool calls) or a ``rollout_func`` that plays each
episode as plain text turns, with its reward function (``spadegym.integrations.text_turns``).
``load_model(spec)`` loads what ``--llm`` names (``smollm2``, ``gguf:<file>``, ``hf:<folder>``)
as a trainable model (a GGUF file de-quantised), and ``machine_settings()`` the ``GRPOConfig``
device and precision of this machine (``use_cpu`` and no bf16 without CUDA).

**Single-turn**: ``single_turn_dataset(ids, size, seed)`` is ``spadegym.dataset`` as a
``datasets.Dataset`` of chat prompts, and ``outcome_reward`` its reward function, which plays
each completion in the sandbox.

Two-player games are refused: here the model alone acts every turn.

``RolloutEnvironment`` was called ``SpadeEnvironment`` until this release (the name of the
OpenEnv adapter's environment, ``spadegym.integrations.openenv``); the old name still imports,
with a ``FutureWarning``.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Sequence
from typing import Any

from spadegym.errors import SpadegymError
from spadegym.integrations.programs import (
    Program,
    resolve,
    seed_for,
    solver_system_prompt,
    with_hint,
)
from spadegym.util import compat

__all__ = [
    "TOOL_NOTE",
    "RolloutEnvironment",
    "SpadeEnvironments",
    "environment_factory",
    "load_model",
    "machine_settings",
    "outcome_reward",
    "single_turn_dataset",
    "system_prompt",
    "turns_for",
]

TURNS = ("tools", "text")
"""How a multi-turn episode reaches the model: through the tool ``act``, or as text turns."""

TOOL_NOTE = (
    "Send each reply to the game by calling the tool `act` with your whole reply as its "
    "`reply` argument; the tool's result is what the game shows next. Keep calling it until "
    "the game says the episode is over."
)
"""What the system prompt adds to the solver's prompt when replies go through ``act``."""

EPISODE_OVER = "(The episode is over.)"
"""The line ``act`` adds to the last observation of an episode."""


def system_prompt(kind: str) -> str:
    """The system prompt of a multi-turn TRL episode: the solver's, then how to use ``act``."""
    return f"{solver_system_prompt(kind)}\n\n{TOOL_NOTE}"


class SpadeEnvironments:
    """The ``environment_factory`` of ``GRPOTrainer``: call it for a new ``RolloutEnvironment``.

    Args:
        ids: registered one-player environment ids.
        seed: names the instances that rows without a ``seed`` play, and ``dataset``'s.
        difficulty: ``options={"difficulty": d}`` for rows without a ``difficulty``.
        hint: show each instance's hint after its first observation (SPADE's hint play).
        workers: sandbox workers shared by every instance.
        sandbox: the ``SandboxConfig`` of the workers.
    """

    def __init__(
        self,
        ids: str | Sequence[str],
        *,
        seed: int = 0,
        difficulty: int | None = None,
        hint: bool = False,
        workers: int | None = None,
        sandbox: Any = None,
    ):
        import os

        from spadegym.sandbox import SandboxPool

        self.programs = resolve(ids, one_player="the TRL adapter")
        self._by_id = {p.env_id: p for p in self.programs}
        self.seed = seed
        self.difficulty = difficulty
        self.hint = hint
        self.pool = SandboxPool(workers or min(2, os.cpu_count() or 1), sandbox)
        self.lock = threading.Lock()
        self._draws = itertools.count()
        self._instances: list[RolloutEnvironment] = []

    def __call__(self) -> RolloutEnvironment:
        """A new instance (TRL makes one per concurrent rollout and resets it per row)."""
        environment = RolloutEnvironment(self)
        self._instances.append(environment)
        return environment

    def program(self, env_id: str) -> Program:
        """The program of one of this factory's environments."""
        program = self._by_id.get(env_id)
        if program is None:
            program = self._by_id.get(resolve([env_id])[0].env_id)
        if program is None:
            raise SpadegymError(
                f"a row asks for {env_id!r}, which this factory was not made with; its "
                f"environments are {', '.join(self._by_id)}."
            )
        return program

    def draw(self) -> tuple[Program, int]:
        """The next ``(program, seed)`` for a row that names no instance: each id in turn."""
        k = next(self._draws)
        return self.programs[k % len(self.programs)], seed_for(self.seed, k)

    def dataset(self, size: int, seed: int | None = None, turns: str = "tools") -> Any:
        """A ``datasets.Dataset`` of ``size`` episodes, each id in turn (see the module).

        Args:
            size: rows.
            seed: names the instances (default: the factory's seed).
            turns: ``"tools"`` (the system prompt says how to call ``act``) or ``"text"``
                (the solver's own prompt; each message carries the instance for the
                text-turn rollout).
        """
        from datasets import Dataset

        if not isinstance(size, int) or size < 1:
            raise SpadegymError(f"size={size!r}: a dataset holds at least 1 row.")
        if turns not in TURNS:
            raise SpadegymError(f"turns={turns!r}: write 'tools' or 'text'.")
        seed = self.seed if seed is None else seed
        rows = []
        for k in range(size):
            program = self.programs[k % len(self.programs)]
            row = {
                "env_id": program.env_id,
                "seed": seed_for(seed, k),
                "difficulty": self.difficulty,
                "hint": self.hint,
            }
            if turns == "tools":
                system, extra = system_prompt(program.kind), {}
            else:
                from spadegym.integrations.text_turns import INSTANCE_KEY

                system, extra = solver_system_prompt(program.kind), {INSTANCE_KEY: json.dumps(row)}
            row["prompt"] = [
                {"role": "system", "content": system, **extra},
                {"role": "user", "content": "", **extra},
            ]
            rows.append(row)
        return Dataset.from_list(rows)

    def trainer_inputs(
        self,
        tokenizer: Any,
        rows: int,
        *,
        turns: str | None = None,
        reply_tokens: int | None = None,
        max_turns: int | None = None,
    ) -> dict[str, Any]:
        """``GRPOTrainer`` keyword arguments that play these environments with ``tokenizer``.

        Args:
            tokenizer: the model's tokenizer (its chat template decides the turns).
            rows: episodes in the training dataset.
            turns: ``"tools"`` or ``"text"`` (default: ``turns_for(tokenizer)``).
            reply_tokens: text turns only: at most this many tokens per reply.
            max_turns: text turns only: stop an episode after this many replies.

        Returns:
            ``train_dataset`` and ``environment_factory`` (tools), or ``train_dataset``,
            ``rollout_func`` and ``reward_funcs`` (text).
        """
        turns = turns or turns_for(tokenizer)
        dataset = self.dataset(rows, turns=turns)
        if turns == "tools":
            return {"train_dataset": dataset, "environment_factory": self}
        from spadegym.integrations.text_turns import TextTurns, spade_outcome

        rollout = TextTurns(self, reply_tokens=reply_tokens, max_turns=max_turns)
        return {"train_dataset": dataset, "rollout_func": rollout, "reward_funcs": spade_outcome}

    def close(self) -> None:
        """Release every instance and stop the sandbox workers."""
        with self.lock:
            for environment in self._instances:
                environment._release()
            self._instances.clear()
            self.pool.close()


class RolloutEnvironment:
    """One rollout's environment (made by ``SpadeEnvironments``; TRL resets it per row).

    Its public methods are what TRL sees: ``reset``, the tool ``act``, and ``get_reward``.
    TRL logs ``get_reward`` under this class's name: ``rewards/RolloutEnvironment/mean``.
    """

    def __init__(self, owner: SpadeEnvironments):
        self._owner = owner
        self._env: Any = None
        self._program: Program | None = None
        self._outcome = 0.0
        self._done = True

    def reset(self, **row: Any) -> str:
        """Start the episode a dataset row names (or the next one); returns what to show.

        The row's ``env_id``, ``seed``, ``difficulty`` and ``hint`` choose the instance. The
        text is the first observation, after the system prompt when the row's prompt has
        none.
        """
        from spadegym.env import ProgramEnv

        owner = self._owner
        if row.get("env_id") is not None:
            program = owner.program(str(row["env_id"]))
            seed = row.get("seed")
            seed = int(seed) if seed is not None else owner.draw()[1]
        else:
            program, seed = owner.draw()
        difficulty = row.get("difficulty", owner.difficulty)
        options = {"difficulty": int(difficulty)} if difficulty is not None else None
        hint = bool(row.get("hint", owner.hint))
        with owner.lock:
            if self._program is not program:
                self._release()
                self._env = ProgramEnv(program.source, pool=owner.pool, on_error="terminate")
                self._program = program
            observation, _ = self._env.reset(seed=seed, options=options)
            if hint:
                observation = with_hint(observation, self._env.hint())
        self._outcome, self._done = 0.0, False
        prompt = row.get("prompt")
        has_system = isinstance(prompt, list) and any(
            isinstance(m, dict) and m.get("role") == "system" for m in prompt
        )
        return observation if has_system else f"{system_prompt(program.kind)}\n\n{observation}"

    def act(self, reply: str) -> str:
        """Send one reply to the game and read what it shows next.

        Args:
            reply: your whole reply for this turn, with the move in the format the game asks.

        Returns:
            What the game shows after the reply.
        """
        if self._done or self._env is None:
            return f"{EPISODE_OVER} Do not call act again."
        with self._owner.lock:
            observation, _, terminated, truncated, info = self._env.step(str(reply))
        if terminated or truncated:
            self._done = True
            self._outcome = float(info.get("episode_outcome", 0.0))
            return f"{observation}\n\n{EPISODE_OVER}"
        return observation

    def get_reward(self) -> float:
        """The episode's outcome: the last reward if it terminated, else 0."""
        return self._outcome

    @property
    def episode_over(self) -> bool:
        """Whether the episode has ended (or none has started)."""
        return self._done

    def _release(self) -> None:
        if self._env is not None:
            self._env.close()
        self._env, self._program, self._done = None, None, True


def environment_factory(ids: str | Sequence[str], **kwargs: Any) -> SpadeEnvironments:
    """A ``GRPOTrainer`` ``environment_factory`` over registered environments.

    Keyword arguments are those of ``SpadeEnvironments``.
    """
    return SpadeEnvironments(ids, **kwargs)


def turns_for(tokenizer: Any) -> str:
    """``"tools"`` when the tokenizer's chat template renders tool calls, else ``"text"``."""
    from trl.chat_template_utils import supports_tool_calling

    return "tools" if supports_tool_calling(tokenizer) else "text"


def load_model(spec: str, *, dtype: Any = None) -> tuple[Any, Any]:
    """A trainable model and its tokenizer, from the spellings every command reads.

    Args:
        spec: ``smollm2``, ``gguf:<file>`` (de-quantised: transformers trains no GGUF
            weights), or ``hf:<folder or hub name>`` (``hf:`` may be left out).
        dtype: the weights' dtype (default: bfloat16 on a CUDA machine that has it, else
            float32).

    Returns:
        ``(model, tokenizer)``; the tokenizer pads on the left, as TRL asks.
    """
    import torch

    from spadegym.llm.local_model import (
        load_tokenizer,
        load_trainable_causal_lm,
        resolve_local_model,
    )

    local = resolve_local_model(spec)
    if dtype is None:
        dtype = torch.bfloat16 if machine_settings().get("bf16") else torch.float32
    return load_trainable_causal_lm(local, dtype=dtype), load_tokenizer(local)


def machine_settings() -> dict[str, bool]:
    """``GRPOConfig`` settings for this machine: CPU and float32 without CUDA, else bf16.

    ``GRPOConfig`` defaults to bf16, which it refuses on a machine without a GPU that has it.
    """
    import torch

    if not torch.cuda.is_available():
        return {"use_cpu": True, "bf16": False}
    return {"use_cpu": False, "bf16": bool(torch.cuda.is_bf16_supported())}


def single_turn_dataset(
    ids: str | Sequence[str], size: int = 500, seed: int = 0, **kwargs: Any
) -> Any:
    """``spadegym.dataset`` as a ``datasets.Dataset`` of chat prompts, for ``outcome_reward``.

    Each row holds ``prompt`` (the solver's system prompt and the first observation),
    ``answer`` (the winning reply) and the instance (``env_id``, ``seed``, ``difficulty``,
    ``sha256``), which ``outcome_reward`` replays. Keyword arguments go to
    ``spadegym.dataset`` (``difficulty``, ``hint``, ``workers``).
    """
    from datasets import Dataset

    from spadegym.integrations.dataset import SpadeDataset

    rows = []
    with SpadeDataset(ids, size, seed, **kwargs) as items:
        for item in items:
            meta = item["metadata"]
            rows.append(
                {
                    "prompt": [
                        {"role": "system", "content": solver_system_prompt(meta["kind"])},
                        {"role": "user", "content": item["question"]},
                    ],
                    "answer": item["answer"],
                    "env_id": meta["env_id"],
                    "seed": meta["seed"],
                    "difficulty": meta["difficulty"],
                    "hint": meta["hint"],
                    "sha256": meta["sha256"],
                }
            )
    return Dataset.from_list(rows)


def outcome_reward(
    completions: Sequence[Any],
    env_id: Sequence[str],
    seed: Sequence[int],
    difficulty: Sequence[int | None],
    sha256: Sequence[str],
    **kwargs: Any,
) -> list[float]:
    """TRL reward function of ``single_turn_dataset``: each completion's outcome, in [0, 1]."""
    from spadegym.integrations.dataset import SOURCE, score_answer

    rewards = []
    for completion, *instance in zip(completions, env_id, seed, difficulty, sha256, strict=True):
        reply = completion[-1]["content"] if isinstance(completion, list) else completion
        entry = {
            "metadata": dict(
                zip(("env_id", "seed", "difficulty", "sha256"), instance, strict=True),
                source_dataset=SOURCE,
            )
        }
        rewards.append(score_answer(reply if isinstance(reply, str) else None, entry))
    return rewards


def __getattr__(name: str) -> Any:
    return compat.renamed(
        __name__, name, {"SpadeEnvironment": ("RolloutEnvironment", RolloutEnvironment)}
    )
