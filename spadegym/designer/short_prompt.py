"""A design prompt a small model can take in whole: the skill, a document, one short example.

The full design prompt (``spadegym.designer.prompts.design_messages``, the one ``spadegym
generate`` sends) is about 2,200 tokens before its examples; a 135M model given only the end
of it never sees what it is asked for. ``short_design_messages`` is a few hundred tokens.
"""

from __future__ import annotations

from spadegym.llm.base import Message

__all__ = ["SHORT_DOCUMENT_CHARS", "SHORT_EXAMPLE", "short_design_messages"]

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


def short_design_messages(skill: str, document: str) -> list[Message]:
    """A design prompt a 135M model can take in whole (a trainer's ``designer_prompt="short"``).

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
