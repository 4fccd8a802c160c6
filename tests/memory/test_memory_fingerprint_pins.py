"""Regression pins for ``summarize``: stored memories keep its fingerprints and shapes.

The hex digests below were computed by the implementation that deep-copied the tree for every
sort key; a faster ``summarize`` must reproduce them byte for byte, or every memory on disk
stops recognising its own programs.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import random
from pathlib import Path

import pytest

from spadegym.memory import fingerprint, summarize

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "good"

# Module-level helpers and two classes (sorted by full anonymous dumps), two helpers with the
# same anonymous dump (a tie the stable sort must keep in order), class attributes, docstrings.
SMALL = '''\
"""A tiny game with helpers, a nested class and class attributes, for regression pins."""

import random
from math import gcd


def _pick(rng, n):
    """Docstrings are stripped."""
    return rng.randrange(n)


def _double(x):
    return 2 * x


def _twice(y):
    return 2 * y


class Counter:
    step_size = 2
    label = "count"

    def bump(self, value):
        return value + self.step_size


class GuessEnv:
    """Guess the number.

    Each wrong guess says higher or lower.
    """

    max_turns = 6
    skill = "Search"
    limit = 20

    def reset(self, seed=None, options=None):
        self.rng = random.Random(seed)
        self.secret = _pick(self.rng, self.limit) + gcd(4, 6)
        self.counter = Counter()
        return f"Guess a number below {self.limit}.", {}

    def step(self, action):
        guess = int(action) if action.isdigit() else -1
        if guess == self.secret:
            return "Right!", 1.0, True, False, {}
        hint = "higher" if guess < self.secret else "lower"
        return hint, 0.0, False, False, {"tries": _double(1)}

    def solution(self):
        return [str(self.secret)]
'''

# SMALL renamed consistently, reworded, re-documented, and with every definition, class
# attribute and import moved (the two look-alike helpers keep their relative order).
SMALL_COPY = '''\
from math import gcd
import random


class GuessEnv:
    """Find the hidden number, reworded and reordered."""

    max_turns = 6
    limit = 20
    skill = "Search"

    def solution(self):
        return [str(self.hidden)]

    def step(self, action):
        attempt = int(action) if action.isdigit() else -1
        if attempt == self.hidden:
            return "Yes, that is it.", 1.0, True, False, {}
        hint = "go up" if attempt < self.hidden else "go down"
        return hint, 0.0, False, False, {"attempts": double(1)}

    def reset(self, seed=None, options=None):
        self.generator = random.Random(seed)
        self.hidden = choose(self.generator, self.limit) + gcd(4, 6)
        self.counter = Tally()
        return f"Pick a number under {self.limit}.", {}


def double(z):
    return 2 * z


class Tally:
    label = "tally"
    step_size = 2

    def advance(self, amount):
        return amount + self.step_size


def choose(generator, size):
    "Helpers can move and change their names."
    return generator.randrange(size)


def twice(w):
    return 2 * w
'''

SMALL_FINGERPRINT = "642c112b0ab1b74f816e2c44d71db2f0a694da91def80b799be13090b974e9e3"
SMALL_SHAPE = """\
import random
from math import gcd

class v:
    v = 20
    max_turns = 6
    skill = 'S'

    def reset(self, seed=None, options=None):
        self.v = random.Random(seed)
        self.v = v(self.v, self.limit) + gcd(4, 6)
        self.v = v()
        return (f'S{self.limit}S', {})

    def solution(self):
        return [str(self.v)]

    def step(self, action):
        v = int(action) if action.isdigit() else -1
        if v == self.v:
            return ('S', 1.0, True, False, {})
        hint = 'S' if v < self.v else 'S'
        return (hint, 0.0, False, False, {'S': v(1)})

class v:
    v = 'S'
    v = 2

    def v(self, v):
        return v + self.step_size

def v(v, v):
    return v.randrange(v)

def v(v):
    return 2 * v

def v(v):
    return 2 * v
"""
LOCK_PICK_FINGERPRINT = "054b6470b591873758e92e3bcffd187a0408a1e4a3fe0db0b2518abbbbefa39c"
LOCK_PICK_SHAPE_SHA256 = "d1a5494b6c9aa43896a7430646e313d9709cd7f9e120ecbed7e868f13fecf115"


def test_small_program_keeps_its_pinned_fingerprint_and_shape():
    summary = summarize(SMALL)
    assert summary.fingerprint == SMALL_FINGERPRINT
    assert summary.shape + "\n" == SMALL_SHAPE
    assert (summary.class_name, summary.title, summary.skill, summary.kind) == (
        "GuessEnv",
        "Guess the number.",
        "Search",
        "puzzle",
    )
    assert summary.description == "Each wrong guess says higher or lower."


def test_lock_pick_keeps_its_pinned_fingerprint_and_shape():
    summary = summarize((EXAMPLES / "lock_pick.py").read_text())
    assert summary.fingerprint == LOCK_PICK_FINGERPRINT
    assert hashlib.sha256(summary.shape.encode()).hexdigest() == LOCK_PICK_SHAPE_SHA256


def test_renamed_and_reordered_copy_keeps_the_fingerprint_and_shape():
    copied = summarize(SMALL_COPY)
    assert copied.fingerprint == SMALL_FINGERPRINT
    assert copied.shape + "\n" == SMALL_SHAPE
    assert copied.title != summarize(SMALL).title


def test_summarize_is_repeatable():
    assert summarize(SMALL) == summarize(SMALL)


def test_summarize_makes_no_deep_copies(monkeypatch):
    # Deep copies of the tree were nearly all of summarize's time; the normaliser reparses.
    def refuse(*args, **kwargs):
        raise AssertionError("summarize deep-copied a tree")

    monkeypatch.setattr(copy, "deepcopy", refuse)
    assert summarize(SMALL).fingerprint == SMALL_FINGERPRINT


@pytest.mark.parametrize(
    "source",
    ["def f(x):\n    pass\n", "async def f(x):\n    pass\n", "class C(B):\n    pass\n"],
)
def test_a_definitions_dump_opens_with_its_type_and_name(source):
    # _sort_by_dump compares these openings instead of dumping whole definitions.
    node = ast.parse(source).body[0]
    assert ast.dump(node).startswith(f"{type(node).__name__}(name={node.name!r}, ")


def test_sorting_by_openings_orders_as_full_dumps_do():
    body = ast.parse(
        "def reset(self): return 1\n"
        "def v(self): return 2\n"
        "def v(self): return 1\n"
        "class v: pass\n"
        "async def v(self): return 1\n"
        "def reset_all(self): return 1\n"
        "def v(self): return 1\n"
        "def step(self, action): return 1\n"
        "def v(s): return 1\n"
    ).body
    rng = random.Random(0)
    for _ in range(50):
        defs = list(range(len(body)))
        rng.shuffle(defs)
        expected = sorted(defs, key=lambda i: ast.dump(body[i]))
        fingerprint._sort_by_dump(defs, body)
        assert defs == expected
