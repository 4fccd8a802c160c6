"""``TransformersChat`` with a tiny randomly initialised model: its garbage is rejected, and
the pipeline survives it."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from spadegym.designer import generate  # noqa: E402
from spadegym.errors import ConfigError  # noqa: E402
from spadegym.llm import LLMError, TransformersChat  # noqa: E402
from spadegym.llm.tokens import encode_chat  # noqa: E402

WORDS = (
    "class Env def reset step self return ```python ``` ( ) : = , . \\boxed{ } the a of "
    "import random"
).split()


def tiny_chat(init: float = 0.02, **settings) -> TransformersChat:
    """A 2-layer Llama over ``WORDS``; ``init=1.0`` makes its output depend on the prompt (at
    the default 0.02 greedy decoding writes the same words whatever it is given)."""
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
        initializer_range=init,
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


# -- batched generation --------------------------------------------------------------------

PROMPTS = [
    "write class Env",
    "def reset step self return the a of",
    "import random",
    "the a of ( ) : = , .",
    "class Env def reset",
    "return \\boxed{ }",
]


def conversation(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def count_generate(llm: TransformersChat, fail_on: str | None = None) -> list[dict]:
    """Record every generate call's inputs; optionally fail the calls whose batch holds a
    prompt (by its first token ids)."""
    calls: list[dict] = []
    original = llm.model.generate
    poison = encode_chat(llm.tokenizer, conversation(fail_on)) if fail_on else None

    def generate(**kwargs):
        calls.append(kwargs)
        ids = kwargs["input_ids"]
        if poison is not None:
            for row in ids.tolist():
                if row[len(row) - len(poison) :] == poison:
                    raise RuntimeError("the batch ran out of memory")
        return original(**kwargs)

    llm.model.generate = generate
    return calls


def ask_at_once(llm: TransformersChat, texts: list[str], n: int = 1) -> list:
    """Each text from its own thread, released together."""
    barrier = threading.Barrier(len(texts))
    answers: list = [None] * len(texts)

    def ask(k: int) -> None:
        barrier.wait()
        try:
            answers[k] = llm.complete(conversation(texts[k]), n)
        except Exception as exc:  # the test looks at which callers failed
            answers[k] = exc

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(len(texts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


@pytest.mark.parametrize("temperature", [0.0, 1.5])
def test_concurrent_callers_share_generate_calls_and_get_their_unbatched_answers(temperature):
    settings = {"init": 1.0, "max_new_tokens": 10, "temperature": temperature, "seed": 5}
    alone = tiny_chat(**settings, batch_size=1)
    expected = [alone.complete(conversation(t), 2) for t in PROMPTS]
    llm = tiny_chat(**settings, batch_window=0.5)
    calls = count_generate(llm)
    answers = ask_at_once(llm, PROMPTS, n=2)
    assert answers == expected  # greedy: same tokens; sampled: each row its own generator
    assert len({a[0] for a in answers}) >= len(PROMPTS) - 1  # the answers depend on the prompt
    assert len(calls) < len(PROMPTS)
    if temperature == 0:
        assert all(a[0] == a[1] for a in answers)
    else:
        assert sum(a[0] != a[1] for a in answers) >= len(PROMPTS) - 1
    llm.close()
    alone.close()


def test_prompts_are_padded_on_the_left_and_masked():
    llm = tiny_chat(max_new_tokens=4, temperature=0, batch_window=0.5)
    calls = count_generate(llm)
    short, long = PROMPTS[2], PROMPTS[1]
    ask_at_once(llm, [short, long])
    assert len(calls) == 1
    ids, mask = calls[0]["input_ids"].tolist(), calls[0]["attention_mask"].tolist()
    prompts = [encode_chat(llm.tokenizer, conversation(t)) for t in (short, long)]
    width = max(len(p) for p in prompts)
    for prompt in prompts:
        row = ids.index([1] * (width - len(prompt)) + prompt)  # pad id 1, then the prompt
        assert mask[row] == [0] * (width - len(prompt)) + [1] * len(prompt)
    llm.close()


def test_a_failing_generate_fails_only_its_own_batch():
    llm = tiny_chat(max_new_tokens=4, temperature=0, batch_size=2, batch_window=0.5)
    calls = count_generate(llm, fail_on=PROMPTS[0])
    answers = ask_at_once(llm, PROMPTS[:4])
    failed = [k for k, a in enumerate(answers) if isinstance(a, Exception)]
    assert 0 in failed and len(failed) == 2  # the poisoned prompt and its batch mate
    assert all(isinstance(answers[k], LLMError) for k in failed)
    assert "hf:tiny-random: generate() failed: the batch ran out of memory" in str(answers[0])
    assert all(isinstance(answers[k], list) for k in range(4) if k not in failed)
    assert len(llm.complete(conversation(PROMPTS[5]))) == 1  # the model still serves
    assert len(calls) == 3
    llm.close()


def test_asyncio_callers_are_batched_too():
    llm = tiny_chat(max_new_tokens=6, temperature=0, batch_window=0.5)
    calls = count_generate(llm)

    async def main():
        return await asyncio.gather(*(llm.acomplete(conversation(t)) for t in PROMPTS))

    answers = asyncio.run(main())
    assert [len(a) for a in answers] == [1] * len(PROMPTS)
    assert len(calls) == 1
    llm.close()
    with pytest.raises(LLMError, match="is closed; build a new backend"):
        llm.complete(conversation("class Env"))


def test_settings_are_checked():
    with pytest.raises(ConfigError, match="0 < top_p <= 1 and batch_size >= 1"):
        tiny_chat(batch_size=0)
