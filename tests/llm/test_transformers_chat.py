"""``TransformersChat`` with a tiny randomly initialised model: its garbage is rejected, and
the pipeline survives it."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from spadegym.designer import generate  # noqa: E402
from spadegym.llm import TransformersChat  # noqa: E402

WORDS = (
    "class Env def reset step self return ```python ``` ( ) : = , . \\boxed{ } the a of "
    "import random"
).split()


def tiny_chat(**settings) -> TransformersChat:
    vocab = {token: k for k, token in enumerate(["<unk>", "<pad>", "<eos>", *WORDS])}
    model = tokenizers.models.WordLevel(vocab, unk_token="<unk>")
    raw = tokenizers.Tokenizer(model)
    raw.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=raw, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>"
    )
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        pad_token_id=1,
        eos_token_id=2,
        bos_token_id=2,
    )
    lm = transformers.LlamaForCausalLM(config)
    return TransformersChat(lm, tokenizer, name="hf:tiny-random", **settings)


def test_completions_are_sampled_and_seeded():
    llm = tiny_chat(max_new_tokens=12, seed=3)
    messages = [{"role": "user", "content": "write class Env"}]
    first = llm.complete(messages, n=2)
    assert len(first) == 2 and all(isinstance(x, str) for x in first)
    assert llm.complete(messages, n=2) == first  # seeded: repeatable
    greedy = tiny_chat(max_new_tokens=8, temperature=0)
    assert len(set(greedy.complete(messages, n=3))) == 1


def test_generate_rejects_the_garbage_and_logs_every_reply(tmp_path):
    llm = tiny_chat(max_new_tokens=16, seed=0)
    report = generate(
        2,
        llm,
        ["A short document about locks."],
        registry=tmp_path / "reg",
        max_repairs=1,
        concurrency=2,
        progress=False,
        log=tmp_path / "log.jsonl",
    )
    assert report.counts["accepted"] == 0
    assert report.counts["rejected"] == 2
    assert all(
        c.reason.startswith(("extract:", "syntax:", "policy:", "structure:"))
        for c in report.candidates
    )
    replies = [json.loads(x) for x in (tmp_path / "log.jsonl").read_text().splitlines()]
    replies = [r for r in replies if r["event"] == "reply"]
    assert len(replies) == 4 and {r["model"] for r in replies} == {"hf:tiny-random"}
    assert not (tmp_path / "reg").exists() or not any((tmp_path / "reg").iterdir())
