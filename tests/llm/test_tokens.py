"""``spadegym.llm.tokens``: chat messages as prompt tokens and the left-padded batch, in one home.

The library's chat backend, the TRL text-turn rollout and the trainer once each rendered chat
messages and padded batches their own way; these tests pin the one rule and keep the copies
from coming back.
"""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from spadegym.llm.tokens import encode_chat, left_pad  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
HOME = ROOT / "spadegym" / "llm" / "tokens.py"
TEMPLATE = (
    "{% for message in messages %}"
    "<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}"
    "{% if shout %}LOUD{% endif %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


def char_tokenizer(template: str | None = TEMPLATE):
    """One token per character; adds ``<s>`` in front of a text unless told not to."""
    specials = ["<unk>", "<pad>", "<s>", "<|im_start|>", "<|im_end|>"]
    vocab = {token: k for k, token in enumerate(specials)}
    for character in sorted(set(string.printable) - set("\x0b\x0c\r")):
        vocab.setdefault(character, len(vocab))
    raw = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="<unk>"))
    raw.pre_tokenizer = tokenizers.pre_tokenizers.Split(
        tokenizers.Regex(r"[\s\S]"), behavior="isolated"
    )
    raw.post_processor = tokenizers.processors.TemplateProcessing(
        single="<s> $A", special_tokens=[("<s>", vocab["<s>"])]
    )
    raw.decoder = tokenizers.decoders.Fuse()
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=raw,
        unk_token="<unk>",
        pad_token="<pad>",
        bos_token="<s>",
        additional_special_tokens=["<|im_start|>", "<|im_end|>"],
    )
    tokenizer.chat_template = template
    return tokenizer


def decode(tokenizer, ids: list[int]) -> str:
    return tokenizer.decode(ids, skip_special_tokens=False)


def test_a_chat_template_renders_the_messages_and_the_generation_prompt():
    tokenizer = char_tokenizer()
    ids = encode_chat(tokenizer, MESSAGES)
    assert decode(tokenizer, ids) == (
        "<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n"
        "<|im_start|>assistant\n"
    )
    assert tokenizer.bos_token_id not in ids  # the template wrote the prompt: nothing added
    assert ids == tokenizer.apply_chat_template(MESSAGES, add_generation_prompt=True)["input_ids"]


def test_template_kwargs_reach_the_template():
    tokenizer = char_tokenizer()
    loud = decode(tokenizer, encode_chat(tokenizer, MESSAGES, template_kwargs={"shout": True}))
    assert loud.endswith("<|im_end|>\nLOUD<|im_start|>assistant\n")
    assert "LOUD" not in decode(tokenizer, encode_chat(tokenizer, MESSAGES, template_kwargs={}))


def test_an_over_long_prompt_keeps_its_end():
    tokenizer = char_tokenizer()
    whole = encode_chat(tokenizer, MESSAGES)
    kept = encode_chat(tokenizer, MESSAGES, max_tokens=5)
    assert kept == whole[-5:] and len(kept) == 5
    assert encode_chat(tokenizer, MESSAGES, max_tokens=10**6) == whole
    with pytest.raises(ValueError, match=r"max_tokens=0: a prompt needs max_tokens >= 1"):
        encode_chat(tokenizer, MESSAGES, max_tokens=0)


def test_without_a_template_a_base_model_gets_a_plain_transcript():
    tokenizer = char_tokenizer(template=None)
    ids = encode_chat(tokenizer, MESSAGES)
    assert decode(tokenizer, ids) == "<s>system: be brief\n\nuser: hi\n\nassistant: "
    assert encode_chat(tokenizer, MESSAGES, max_tokens=11) == ids[-11:]


def test_left_pad_aligns_the_prompts_on_the_right_and_masks_the_padding():
    ids, mask = left_pad([[5, 6, 7], (8,), [9, 10]], pad_id=1)
    assert ids.dtype == mask.dtype == torch.long
    assert ids.tolist() == [[5, 6, 7], [1, 1, 8], [1, 9, 10]]
    assert mask.tolist() == [[1, 1, 1], [0, 0, 1], [0, 1, 1]]
    ids, mask = left_pad([[4, 4]], pad_id=0)
    assert ids.tolist() == [[4, 4]] and mask.tolist() == [[1, 1]]


@pytest.mark.parametrize("prompts", [[], [[1, 2], []]])
def test_left_pad_refuses_an_empty_batch_or_prompt(prompts):
    with pytest.raises(ValueError, match="at least one prompt, and no empty prompt"):
        left_pad(prompts, pad_id=0)


BY_HAND = re.compile(
    r"apply_chat_template\([^)]*tokenize=True|\bwidth - len\(|\[pad\w*\] \* \(|def _encode\b"
)
"""Chat tokens or a left-padded batch made by hand: a chat template tokenized in place (the
rollout of ``integrations/text_turns`` renders text only, ``tokenize=False``, to find the
tokens between turns), padding by ``width - len(`` slices or ``[pad] * (`` lists."""


def _modules():
    for package in ("spadegym", "spadegym_train"):
        yield from sorted((ROOT / package).rglob("*.py"))


def test_chat_encoding_and_left_padding_live_only_in_the_home():
    found = []
    for path in _modules():
        if path == HOME:
            continue
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and node.name in {"encode_chat", "left_pad"}:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} def {node.name}")
        for match in BY_HAND.finditer(text):
            number = text.count("\n", 0, match.start()) + 1
            found.append(f"{path.relative_to(ROOT)}:{number}: {match.group()}")
    assert found == [], "use spadegym.llm.tokens.encode_chat / left_pad"


@pytest.mark.parametrize(
    "copy",
    [
        "ids = self.tokenizer.apply_chat_template(\n    messages, add_generation_prompt=True, "
        "tokenize=True\n)",
        "ids[r, width - len(job.prompt) :] = torch.tensor(job.prompt, dtype=torch.long)",
        "input_ids = torch.tensor([[pad] * (longest - len(c)) + c for c in contexts])",
        "    def _encode(self, messages: list[Message]) -> list[int]:",
    ],
)
def test_the_check_sees_the_copies_it_replaced(copy):
    assert BY_HAND.search(copy)
