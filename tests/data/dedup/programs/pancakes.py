import random
from spadegym.program import extract_boxed


class PancakeStackEnv:
    """Sort a stack of pancakes by flipping the top of the stack.

    The stack is listed from top to bottom. \\boxed{k} slides a spatula under the k-th pancake
    and flips the top k over. Sort it so the smallest is on top and the largest at the bottom."""

    max_turns = 14
    skill = "Optimization"

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.stack = list(range(1, 7))
        while self.stack == sorted(self.stack):
            self.rng.shuffle(self.stack)
        return f"Stack (top first): {self.stack}. Flip with \\boxed{{k}}.", {}

    def step(self, action):
        text = (extract_boxed(action) or "").strip()
        if not text.isdigit() or not 2 <= int(text) <= len(self.stack):
            return f"Flip between 2 and {len(self.stack)} pancakes.", 0.0, False, False, {}
        k = int(text)
        self.stack[:k] = self.stack[:k][::-1]
        if self.stack == sorted(self.stack):
            return f"Sorted: {self.stack}.", 1.0, True, False, {}
        return f"Stack (top first): {self.stack}.", 0.0, False, False, {}

    def solution(self):
        stack = list(self.stack)
        flips = []
        for size in range(len(stack), 1, -1):
            i = stack.index(max(stack[:size]))
            if i == size - 1:
                continue
            if i > 0:
                flips.append(i + 1)
                stack[: i + 1] = stack[: i + 1][::-1]
            flips.append(size)
            stack[:size] = stack[:size][::-1]
        return ["\\boxed{" + str(k) + "}" for k in flips]
