"""Spade environments as a multi-turn verifiers environment (``verifiers`` 0.4, ``verifiers.v1``).

The taskset id is ``spadegym-verifiers`` (verifiers loads plugins by the name of an installed
module; ``spadegym_verifiers`` re-exports the classes here)::

    import verifiers.v1 as vf
    config = SpadeEnvConfig(taskset={"id": "spadegym-verifiers", "ids": ["spade/JugPour-v0"]})
    env = vf.load_environment(config)

- ``SpadeTaskset`` yields one task per episode: environment ``ids[k % len(ids)]`` on an
  instance seed derived from ``(seed, k)``, with the solver's system prompt for its kind (the
  one ``spadegym eval`` uses). Without ``size`` it never ends.
- ``SpadeEnv.run`` plays the episode: it resets the sandboxed instance, opens the exchange
  with the first observation (the hint appended with ``hint=true``), sends each reply of the
  model to the environment and each observation back, until the episode ends, and records
  the contract's outcome as the reward ``outcome`` (the trace's ``info`` holds the turns and
  any program error). The episodes of a run share one pool of sandbox workers, their steps
  batched (``AsyncPool``).
- ``SpadeChatHarness``, the taskset's default harness, is a chat loop that runs in the
  process: one chat completion per turn through verifiers' interception endpoint, so it needs
  no runtime to install (verifiers' own ``null`` harness works too, where ``uv`` can install
  its program).

Two-player games are refused: here the model alone acts every turn.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.runtimes import ProgramResult

from spadegym.integrations.programs import Program, resolve, seed_for

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam

__all__ = [
    "TASKSET_ID",
    "SpadeChatHarness",
    "SpadeChatHarnessConfig",
    "SpadeEnv",
    "SpadeEnvConfig",
    "SpadeTask",
    "SpadeTaskData",
    "SpadeTaskset",
    "SpadeTasksetConfig",
]

TASKSET_ID = "spadegym-verifiers"
"""The plugin id of ``SpadeTaskset``, ``SpadeEnv`` and ``SpadeChatHarness``."""

_REFUSER = "the verifiers environment"


class SpadeTasksetConfig(vf.TasksetConfig):
    """Which episodes the taskset yields (``--env.taskset.*``)."""

    ids: list[str] = Field(default_factory=list)
    """Registered one-player environment ids, played in turn."""
    seed: int = 0
    """Names the instances: the same seed gives the same episodes."""
    size: int | None = None
    """How many tasks (None: without end)."""
    difficulty: int | None = Field(None, ge=1, le=5)
    """``options={"difficulty": d}`` for every episode (None: the program's default)."""
    hint: bool = False
    """Append each instance's hint to its first observation (SPADE's hint play)."""


class SpadeTaskData(vf.TaskData):
    """One episode: the environment and its instance (``prompt`` stays None: the env opens)."""

    env_id: str = ""
    seed: int = 0
    difficulty: int | None = None
    hint: bool = False
    kind: str = "puzzle"


class SpadeTask(vf.Task[SpadeTaskData, vf.State, vf.TaskConfig]):
    """A spade episode; its reward is recorded by ``SpadeEnv.run``."""


class SpadeTaskset(vf.Taskset[SpadeTask, SpadeTasksetConfig]):
    """Episodes of registered environments (see the module)."""

    def __init__(self, config: SpadeTasksetConfig) -> None:
        super().__init__(config)
        self.INFINITE = config.size is None
        self.programs = resolve(config.ids, one_player=_REFUSER)

    def load(self) -> Iterator[SpadeTask]:
        """Yield task ``k`` for ``k`` = 0, 1, ... (``size`` of them, or without end)."""
        config = self.config
        count = itertools.count() if config.size is None else range(config.size)
        for k in count:
            program = self.programs[k % len(self.programs)]
            seed = seed_for(config.seed, k)
            yield SpadeTask(
                SpadeTaskData(
                    name=f"{program.env_id}#{seed}",
                    description=program.title,
                    system_prompt=program.system_prompt,
                    env_id=program.env_id,
                    seed=seed,
                    difficulty=config.difficulty,
                    hint=config.hint,
                    kind=program.kind,
                ),
                config.task,
            )


class SpadeChatHarnessConfig(vf.HarnessConfig):
    """The in-process chat loop has no settings of its own."""


class SpadeChatHarness(vf.Harness[SpadeChatHarnessConfig]):
    """A plain chat loop in this process: one completion per turn through the interception."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: Any,
        trace: Any,
        runtime: Any,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: Any,
        **kwargs: Any,
    ) -> ProgramResult:
        """Ask the model for the next reply to the conversation so far."""
        from openai import AsyncOpenAI
        from verifiers.v1.dialects.chat import message_to_wire

        system, prompt = self.resolve_prompt(data)
        messages: list[ChatCompletionMessageParam] = (
            [{"role": "system", "content": system}] if system else []
        )
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        else:
            messages += [message_to_wire(m) for m in prompt or [] if m.role != "system"]
        client = AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0)
        try:
            await client.chat.completions.create(model=ctx.model, messages=messages)
        finally:
            await client.close()
        return ProgramResult(exit_code=0, stdout="", stderr="")


class SpadeEnvConfig(vf.EnvConfig):
    """The run's ``[env]`` block: one agent, ``player``, and the sandbox workers."""

    player: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())
    """The model that plays every turn (its harness runs in this process)."""
    workers: int | None = Field(None, ge=1)
    """Sandbox workers shared by the run's episodes (default: one per core, up to 4)."""


class SpadeEnv(vf.Env[SpadeEnvConfig]):
    """Plays each task's episode against the sandboxed environment (see the module)."""

    def __init__(self, config: SpadeEnvConfig) -> None:
        super().__init__(config)
        self._apool: Any = None
        self._programs: dict[str, Program] = {p.env_id: p for p in self.taskset.programs}

    async def start(self) -> None:
        """Start the sandbox workers of the run."""
        self._pool()

    async def stop(self) -> None:
        """Release every instance and stop the workers."""
        apool, self._apool = self._apool, None
        if apool is not None:
            await apool.aclose()

    def _pool(self) -> Any:
        if self._apool is None:
            import os

            from spadegym.integrations.aio import AsyncPool
            from spadegym.sandbox import SandboxPool

            size = self.config.workers or min(4, os.cpu_count() or 1)
            self._apool = AsyncPool(SandboxPool(size), own=True)
        return self._apool

    async def run(self, task: SpadeTask, agents: Any) -> None:
        """One episode: observations to the model, its replies to the environment."""
        from spadegym.errors import ProgramError
        from spadegym.integrations.aio import Session

        data = task.data
        program = self._programs.get(data.env_id) or resolve(data.env_id, one_player=_REFUSER)[0]
        session = Session(self._pool(), program)
        options = {"difficulty": data.difficulty} if data.difficulty is not None else None
        try:
            try:
                observation, _ = await session.reset(data.seed, options, hint=data.hint)
            except ProgramError as exc:
                raise RuntimeError(f"{program.env_id} failed to reset: {exc}") from None
            error = None
            async with agents.player.interaction(task) as interaction:
                segment = await interaction.turn(observation)
                while not segment.terminated:
                    observation, _, terminated, truncated, info = await session.step(
                        segment.last_reply
                    )
                    if terminated or truncated:
                        error = info.get("error")
                        break
                    segment = await interaction.turn(observation)
            trace = interaction.trace
            outcome = session.outcome if session.done else 0.0  # the model stopped first
            trace.record_reward("outcome", float(outcome), 1.0)
            trace.record_metric("episode_turns", float(session.turn))
            trace.info.update(
                env_id=program.env_id, seed=data.seed, episode_turns=session.turn, error=error
            )
        finally:
            session.close()
