r"""A character-level chat tokenizer built in code, for models that have no tokenizer files.

Every printable ASCII character, newline and tab is one token; other characters map to
``<unk>``. Chat messages are framed ChatML-style (``<|im_start|>role\n...<|im_end|>\n``), so
prompts, chat formatting and generation work offline exactly as with a real model.
"""

from __future__ import annotations

import string

SPECIAL_TOKENS = ("<|pad|>", "<unk>", "<|endoftext|>", "<|im_start|>", "<|im_end|>")

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
"""ChatML framing; the model ends its reply with ``<|im_end|>``."""


def char_tokenizer():
    """A ``PreTrainedTokenizerFast`` over single characters, with a chat template.

    Returns:
        The tokenizer; ``eos_token`` is ``<|im_end|>``, padding is on the left.
    """
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    characters = sorted(set(string.printable) - set("\x0b\x0c\r"))
    vocab = {token: i for i, token in enumerate(SPECIAL_TOKENS)}
    for character in characters:
        vocab.setdefault(character, len(vocab))
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    core.decoder = decoders.Fuse()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token="<|pad|>",
        unk_token="<unk>",
        eos_token="<|im_end|>",
        bos_token=None,
        additional_special_tokens=["<|endoftext|>", "<|im_start|>"],
        padding_side="left",
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer
