"""The sandboxed gates: ``load`` (the class has what the contract asks) and ``api`` (values).

``load`` loads the program in the worker and checks its class; ``api`` plays one step and
checks the values that ``reset``/``step`` return, and that Gymnasium's checker accepts the
wrapper.

Nothing after a gate can run when it fails, so the battery stops at the first failing one.
"""

from __future__ import annotations

import ast
import contextlib
from contextlib import AbstractContextManager
from typing import Any

from spadegym import contract
from spadegym.env import ProgramEnv
from spadegym.errors import ProgramError
from spadegym.sandbox import ProgramInfo, SandboxPool
from spadegym.sandbox.pool import Worker
from spadegym.util import compat
from spadegym.validation import static
from spadegym.validation.budget import Clock, OutOfTime
from spadegym.validation.context import Context
from spadegym.validation.episodes import ScriptedEpisode

API_PROBE = "\\boxed{1}"
"""The reply of the ``api`` check's episode (the first the worker plays)."""


def check_load(
    code: str, worker: Worker, tree: ast.Module, cls: ast.ClassDef
) -> tuple[ProgramInfo | None, str | None]:
    """Load the program; its class must have the methods and attributes the contract names."""
    try:
        info = worker.load_cached(code)
    except ProgramError as exc:
        return None, str(exc)
    problems = []
    if not info.has_reset or not info.has_step:
        problems.append(
            f"{info.class_name} needs reset(self, seed=None, options=None) and "
            "step(self, action) methods."
        )
    if info.max_turns is None or not contract.MIN_TURNS <= info.max_turns <= contract.MAX_TURNS:
        problems.append(
            f"{info.class_name}.max_turns must be an int class attribute in "
            f"{contract.MIN_TURNS}..{contract.MAX_TURNS}."
        )
    if info.num_players not in (None, 1, 2):
        problems.append(f"num_players must be 1 or 2, not {info.num_players!r}.")
    if info.tool_env:
        if not info.has_check or not isinstance(info.tools, list) or not info.tools:
            problems.append(
                "A ToolEnv needs a non-empty tools list and a check(self, answer) method."
            )
        else:
            problems += _missing_tools(info, static.defined_names(tree, cls))
    return info, " ".join(problems) if problems else None


def _missing_tools(info: ProgramInfo, defined: set[str]) -> list[str]:
    declared = [
        spec["name"]
        for spec in info.tools
        if isinstance(spec, dict) and isinstance(spec.get("name"), str)
    ]
    missing = [name for name in declared if f"tool_{name}" not in defined]
    if not missing:
        return []
    methods = ", ".join(f"tool_{name}(self, **arguments)" for name in missing)
    return [
        f"tools declares {', '.join(repr(n) for n in missing)} but {info.class_name} has no "
        f"{methods} method; write one method per declared tool, or drop the spec."
    ]


def check_api(ctx: Context, code: str) -> str | None:
    """reset/step return contract values; Gymnasium's checker accepts the wrapper.

    Its episode is the first the worker plays: ``ctx.fresh``, the reference of ``isolation``.
    """
    episode = ScriptedEpisode(seed=0, actions=[API_PROBE], label="api")
    ctx.play([episode], 1)
    ctx.fresh = episode
    if episode.error is not None:
        return f"Seed 0: {episode.error_during} failed: {episode.error}"
    ctx.facts["first_observation"] = episode.first_observation
    if ctx.two_player and episode.first_info.get("player") not in (0, 1):
        return (
            "A two-player game must name the player to act in info['player'] (0 or 1) "
            "after reset() and after every step."
        )
    if not ctx.config.check_env:
        return None
    from gymnasium.utils.env_checker import check_env

    pool = SandboxPool.from_workers([ctx.worker])
    env = _TimedEnv(code, pool=pool)
    env.clock = ctx.clock
    try:
        with compat.quiet_gymnasium():
            check_env(env, skip_render_check=True)
    except OutOfTime:
        raise
    except ProgramError as exc:
        return f"Gymnasium's check_env failed: {exc}"
    except Exception as exc:  # check_env asserts; its message names the rule
        return f"Gymnasium's check_env failed: {type(exc).__name__}: {exc}"
    finally:
        env.close()
    return None


class _TimedEnv(ProgramEnv):
    """``ProgramEnv`` whose ``reset`` and ``step`` count against the validation's step budget."""

    clock: Clock | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        with self._timed(f"reset(seed={seed!r})"):
            return super().reset(seed=seed, options=options)

    def step(self, action: str) -> Any:
        with self._timed(f"step() with the action {action[:60]!r}"):
            return super().step(action)

    def _timed(self, what: str) -> AbstractContextManager[None]:
        return self.clock.timed(what) if self.clock is not None else contextlib.nullcontext()
