"""Multi-turn episodes as plain text turns, for a model whose chat template has no tool calls.

Each observation is a user message and each reply of the model an assistant message, the way
``spadegym eval`` plays. In TRL's ``GRPOTrainer`` this is a ``rollout_func`` (``TextTurns``)
with a reward function (``spade_outcome``) instead of an ``environment_factory``, which needs
a template that renders tool calls (SmolLM2's does not): one completion holds every reply of
the episode, and the tokens between replies (the game's observations and the template's turn
markers) are masked out of the loss (TRL's ``env_mask``).

TRL hands a ``rollout_func`` only the rows' prompts, so a row of text turns carries its
instance (``env_id``, ``seed``, ``difficulty``, ``hint``) as JSON in the ``spade_instance`` key
of its prompt's messages, which chat templates ignore. ``SpadeEnvironments.dataset(n,
turns="text")`` writes such rows.

``play_text_episodes`` is the loop itself, for any causal LM and tokenizer: rollouts generate
in one batch per turn, and each stops when its episode ends, its reply budget is spent or it
reaches ``max_turns``; an episode that does not end scores 0 (the contract's outcome).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from spadegym.errors import SpadegymError
from spadegym.llm.tokens import encode_chat, left_pad

if TYPE_CHECKING:
    from spadegym.integrations.trl import RolloutEnvironment, SpadeEnvironments

__all__ = ["INSTANCE_KEY", "PlayedEpisode", "TextTurns", "play_text_episodes", "spade_outcome"]

INSTANCE_KEY = "spade_instance"
"""The message key that carries a text-turn row's instance (JSON), for the rollout function."""

_SENTINEL = "\u2063SPADE-REPLY\u2063"


@dataclass
class PlayedEpisode:
    """One episode played as text turns.

    Attributes:
        prompt_ids: the rendered system prompt and first observation.
        completion_ids: every reply and, between them, the observations (template included).
        env_mask: 1 for the model's tokens in ``completion_ids``, 0 for the game's.
        outcome: the contract's outcome (0 when the episode did not end).
        turns: replies played.
        replies: the replies as text.
    """

    prompt_ids: list[int]
    completion_ids: list[int] = field(default_factory=list)
    env_mask: list[int] = field(default_factory=list)
    outcome: float = 0.0
    turns: int = 0
    replies: list[str] = field(default_factory=list)


def instance_of(prompt: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The instance a text-turn row's prompt carries (see the module)."""
    for message in prompt:
        value = message.get(INSTANCE_KEY) if isinstance(message, dict) else None
        if value:
            return json.loads(value)
    raise SpadegymError(
        "a prompt reached the text-turn rollout without its instance; make the dataset with "
        "factory.dataset(n, turns='text') (its rows carry one in the 'spade_instance' key)."
    )


def _messages(prompt: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"role": m["role"], "content": m["content"] or ""} for m in prompt]


def _render(tokenizer: Any, messages: list[dict[str, str]], generation: bool) -> str:
    return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=generation)


def _between_turns(
    tokenizer: Any, messages: list[dict[str, str]], observation: str, ended: bool
) -> str:
    """The text after a reply and before the next: the turn's end, the observation, a header.

    Args:
        tokenizer: renders the turns with its chat template.
        messages: the conversation up to (not including) the reply just played.
        observation: what the game shows next.
        ended: whether the generated reply already ends with the end-of-sequence token.
    """
    replied = [*messages, {"role": "assistant", "content": _SENTINEL}]
    after_reply = _render(tokenizer, replied, False)
    closing = after_reply[after_reply.index(_SENTINEL) + len(_SENTINEL) :]
    full = _render(tokenizer, [*replied, {"role": "user", "content": observation}], True)
    if not full.startswith(after_reply):
        raise SpadegymError(
            "the tokenizer's chat template rewrites earlier turns when a turn is added, so a "
            "multi-turn completion cannot be built from it; use a template that only appends."
        )
    eos = tokenizer.eos_token or ""
    if ended and eos and closing.startswith(eos):
        closing = closing[len(eos) :]
    return closing + full[len(after_reply) :]


def play_text_episodes(
    model: Any,
    tokenizer: Any,
    environments: Sequence[RolloutEnvironment],
    prompts: Sequence[Sequence[dict[str, Any]]],
    *,
    budget: int,
    reply_tokens: int | None = None,
    max_turns: int | None = None,
    temperature: float = 1.0,
    top_p: float = 1.0,
) -> list[PlayedEpisode]:
    """Play one episode per prompt, each in its environment, as text turns.

    Args:
        model: a causal LM (generation runs without gradients).
        tokenizer: its tokenizer, with a chat template.
        environments: one ``RolloutEnvironment`` per prompt (reset here).
        prompts: text-turn rows' prompts (each carries its instance).
        budget: tokens of one episode's completion, replies and observations together.
        reply_tokens: at most this many tokens per reply (default: the rest of the budget).
        max_turns: stop after this many replies (default: the program's own limit).
        temperature: sampling temperature (0: greedy).
        top_p: nucleus sampling.
    """
    import torch

    episodes: list[PlayedEpisode] = []
    conversations: list[list[dict[str, str]]] = []
    for environment, prompt in zip(environments, prompts, strict=True):
        instance = instance_of(prompt)
        messages = _messages(prompt)
        observation = environment.reset(**instance, prompt=messages)
        messages[-1] = {**messages[-1], "content": messages[-1]["content"] + observation}
        episodes.append(PlayedEpisode(prompt_ids=encode_chat(tokenizer, messages)))
        conversations.append(messages)
    stops = {tokenizer.eos_token_id, tokenizer.pad_token_id} - {None}
    active = list(range(len(episodes)))
    was_training = model.training
    model.eval()
    try:
        while active:
            rest = {i: budget - len(episodes[i].completion_ids) for i in active}
            width = max(rest.values())
            if reply_tokens:
                width = min(width, reply_tokens)
            contexts = [episodes[i].prompt_ids + episodes[i].completion_ids for i in active]
            pad = tokenizer.pad_token_id
            input_ids, attention = left_pad(contexts, pad)
            longest = input_ids.shape[1]
            device = next(model.parameters()).device
            with torch.no_grad():
                output = model.generate(
                    input_ids=input_ids.to(device),
                    attention_mask=attention.to(device),
                    max_new_tokens=width,
                    do_sample=temperature > 0,
                    temperature=temperature if temperature > 0 else None,
                    top_p=top_p if temperature > 0 else None,
                    top_k=None,
                    pad_token_id=pad,
                )
            still = []
            for row, i in enumerate(active):
                episode = episodes[i]
                new = output[row, longest:].tolist()[: min(width, rest[i])]
                ended = False
                for k, token in enumerate(new):
                    if token in stops:
                        new, ended = new[: k + 1], True
                        break
                reply = tokenizer.decode(new, skip_special_tokens=True)
                episode.completion_ids += new
                episode.env_mask += [1] * len(new)
                episode.turns += 1
                episode.replies.append(reply)
                observation = environments[i].act(reply)
                if environments[i].episode_over:
                    episode.outcome = environments[i].get_reward()
                    continue
                if max_turns is not None and episode.turns >= max_turns:
                    continue
                between = _between_turns(tokenizer, conversations[i], observation, ended)
                tokens = tokenizer(between, add_special_tokens=False)["input_ids"]
                if len(episode.completion_ids) + len(tokens) >= budget:
                    continue  # no room left for a reply: the episode does not end
                conversations[i] += [
                    {"role": "assistant", "content": reply},
                    {"role": "user", "content": observation},
                ]
                episode.completion_ids += tokens
                episode.env_mask += [0] * len(tokens)
                still.append(i)
            active = still
    finally:
        model.train(was_training)
    return episodes


def spade_outcome(completions: Sequence[Any], spade_outcome: Sequence[float], **_: Any) -> list:
    """TRL reward function of text turns: each episode's outcome, as the rollout recorded it."""
    return [float(value) for value in spade_outcome]


class TextTurns:
    """TRL's ``rollout_func`` for text turns over a ``SpadeEnvironments`` factory.

    Args:
        factory: the environments (and their sandbox workers).
        reply_tokens: at most this many tokens per reply (default: the rest of the
            trainer's ``max_completion_length``, which bounds the whole episode).
        max_turns: stop after this many replies (default: each program's own limit).
    """

    def __init__(
        self,
        factory: SpadeEnvironments,
        *,
        reply_tokens: int | None = None,
        max_turns: int | None = None,
    ):
        self.factory = factory
        self.reply_tokens = reply_tokens
        self.max_turns = max_turns
        self._environments: list[RolloutEnvironment] = []

    def __call__(self, prompts: list, trainer: Any) -> dict[str, Any]:
        """Play each prompt's episode with the trainer's model (one completion per prompt)."""
        while len(self._environments) < len(prompts):
            self._environments.append(self.factory())
        model = trainer.accelerator.unwrap_model(trainer.model)
        played = play_text_episodes(
            model,
            trainer.processing_class,
            self._environments[: len(prompts)],
            prompts,
            budget=trainer.max_completion_length,
            reply_tokens=self.reply_tokens,
            max_turns=self.max_turns,
            temperature=trainer.temperature,
            top_p=trainer.top_p,
        )
        return {
            "prompt_ids": [e.prompt_ids for e in played],
            "completion_ids": [e.completion_ids for e in played],
            "logprobs": None,
            "env_mask": [e.env_mask for e in played],
            "spade_outcome": [e.outcome for e in played],
        }
