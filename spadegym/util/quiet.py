"""Loading models without the libraries' console noise, so what a command prints is its own.

Two things reach a user's terminal when spadegym loads a model (the memory's embedder, a
local LLM, the trainer's policy) although nothing is wrong: bitsandbytes, imported by peft
and transformers, warns through ``logging`` that an optional CPU kernel package is missing
("Failed to load CPU gemm_4bit_forward ..."), which Python prints when no logging is
configured; and transformers draws a "Loading weights" progress bar for a model that loads
in milliseconds. ``quiet_model_loading`` silences both, and only those: a program that
configures logging still gets bitsandbytes' records, and the progress-bar setting is restored.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

__all__ = ["quiet_model_loading"]

_NOISY_LOGGERS = ("bitsandbytes",)


def _absorb_unconfigured_warnings() -> None:
    # A NullHandler counts as a handler, so Python's last-resort printer stays out of it; the
    # records still propagate to whatever handlers the program installs on the root logger.
    for name in _NOISY_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())


@contextlib.contextmanager
def quiet_model_loading() -> Iterator[None]:
    """Import and load models inside this block without the noise described above."""
    _absorb_unconfigured_warnings()
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:  # no transformers, no bars
        yield
        return
    enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if enabled:
            hf_logging.enable_progress_bar()
