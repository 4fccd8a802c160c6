"""quiet_model_loading: no library noise on the console while spadegym loads a model."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("transformers")
pytest.importorskip("peft")

SCRIPT = textwrap.dedent(
    """
    import sys, tempfile
    from spadegym.util.quiet import quiet_model_loading
    from transformers.utils import logging as hf_logging

    with quiet_model_loading():
        import peft  # imports bitsandbytes, which may warn about a missing CPU kernel
        from transformers import AutoConfig, AutoModelForCausalLM

        config = AutoConfig.for_model(
            "qwen3", vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
            num_attention_heads=2, num_key_value_heads=1, head_dim=8,
        )
        folder = tempfile.mkdtemp()
        AutoModelForCausalLM.from_config(config).save_pretrained(folder)
        AutoModelForCausalLM.from_pretrained(folder)
    assert hf_logging.is_progress_bar_enabled(), "the progress-bar setting is restored"
    print("loaded")
    """
)


@pytest.mark.slow  # a fresh process imports transformers and peft (10-80 s here)
def test_loading_a_model_prints_nothing_of_the_libraries():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "loaded"
    assert "gemm_4bit_forward" not in done.stderr
    assert "Loading weights" not in done.stderr
