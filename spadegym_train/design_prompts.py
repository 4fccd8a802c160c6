"""Design prompts sized to the model: the budget check, and a short prompt for a small model.

The full design prompt (``spadegym.designer.prompts.design_messages``, the one ``spadegym
generate`` sends) is about 2,200 tokens before its examples. A run whose
``generation.max_prompt_tokens`` is smaller keeps only the end of it, so the designer never
sees its skill, the contract or the examples; ``prompt_budget_problem`` says so at start.
``design.prompt="short"`` sends ``short_design_messages`` instead: a few hundred tokens that a
135M model can take in whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from spadegym.designer.prompts import design_messages
from spadegym_train.engines.base import encode_chat

if TYPE_CHECKING:
    from spadegym_train.config import TrainConfig

SHORT_EXAMPLE = '''import random

from spadegym.program import extract_boxed


class AppleSumEnv:
    """Apple Sum: add the apples in two baskets. Answer with \\\\boxed{N}."""

    max_turns = 2

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        a, b = self.rng.randint(2, 40), self.rng.randint(2, 40)
        self.answer = str(a + b)
        self.tries = 0
        return f"One basket has {a} apples, another {b}. How many in all? Use \\\\boxed{{}}.", {}

    def step(self, action):
        self.tries += 1
        if (extract_boxed(action) or "").strip() == self.answer:
            return "Right.", 1.0 if self.tries == 1 else 0.5, True, False, {}
        if self.tries >= 2:
            return f"No, it was {self.answer}.", 0.0, True, False, {}
        return "No. One more try.", 0.0, False, False, {}

    def solution(self):
        return ["\\\\boxed{" + self.answer + "}"]
'''
"""The one example of the short design prompt: a complete two-try question game."""

SHORT_DOCUMENT_CHARS = 600
"""The grounding document's share of a short design prompt."""


def short_design_messages(skill: str, document: str) -> list[dict[str, str]]:
    """A design prompt a 135M model can take in whole (``design.prompt="short"``).

    The full prompt (``spadegym.designer.prompts.design_messages``: the contract, a skeleton,
    two examples with code, the document) is about 2,200 tokens; a small model given the end
    of it never sees what it is asked for. This one is a few hundred: the skill, the start of
    the document, and one short complete program to vary.
    """
    return [
        {"role": "system", "content": "You write small Python text games."},
        {
            "role": "user",
            "content": (
                f"Write a new question game like the example below that trains {skill}, about "
                f"this text:\n{document.strip()[:SHORT_DOCUMENT_CHARS]}\n\nExample:\n"
                f"```python\n{SHORT_EXAMPLE}```\nChange the class name, the question and the "
                "answers. Reply with one ```python block."
            ),
        },
    ]


def prompt_budget_problem(config: TrainConfig, tokenizer: Any, corpus: Any) -> str | None:
    """Why design prompts will not fit ``generation.max_prompt_tokens``, or ``None``.

    Measured on a prompt for the first skill and the corpus's first document, without memory
    examples (which only make it longer): an over-long prompt loses its beginning, where the
    skill, the contract and the examples are.
    """
    document = corpus.documents[0].text if getattr(corpus, "documents", None) else "x"
    skill = config.design.skills[0]
    if config.design.prompt == "short":
        messages = short_design_messages(skill, document)
    else:
        messages = design_messages(skill, 3, document)
    length = len(encode_chat(tokenizer, messages, 10**9, config.model.chat_template_kwargs))
    budget = config.generation.max_prompt_tokens
    if length <= budget:
        return None
    return (
        f"design prompts take about {length} tokens (without examples) but "
        f"generation.max_prompt_tokens={budget} keeps only their last {budget}: the designer "
        "will not see what it is asked for. Raise generation.max_prompt_tokens, or set "
        "design.prompt=short for a small model."
    )
