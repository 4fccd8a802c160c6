"""The verifiers plugin ``spadegym-verifiers``: spade environments as a multi-turn environment.

verifiers (0.4) loads a taskset, its environment and its default harness from an installed
module named after the id, so this module exists only to re-export them from
``spadegym.integrations.verifiers`` (which documents them); it needs ``verifiers`` installed.
"""

from spadegym.integrations.verifiers import (
    SpadeChatHarness,
    SpadeChatHarnessConfig,
    SpadeEnv,
    SpadeEnvConfig,
    SpadeTask,
    SpadeTaskData,
    SpadeTaskset,
    SpadeTasksetConfig,
)

__all__ = [
    "SpadeChatHarness",
    "SpadeChatHarnessConfig",
    "SpadeEnv",
    "SpadeEnvConfig",
    "SpadeTask",
    "SpadeTaskData",
    "SpadeTaskset",
    "SpadeTasksetConfig",
]
