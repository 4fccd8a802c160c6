"""Harmless patterns models write, once refused, now allowed (issue 13, "False positives").

Each allowed name is argued safe in ``spadegym/policy/names.py``; these tests show each works
where it should and stays refused where it should not reach.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

from spadegym.policy import check_source, compile_program, new_globals
from spadegym.policy.names import MODULE_NAMES, SPECIAL_METHODS, UNDERSCORE_READS, offered_names


def run(source: str) -> dict:
    namespace = new_globals()
    exec(compile_program(textwrap.dedent(source)), namespace)
    return namespace


def test_namedtuple_replace_asdict_and_fields():
    namespace = run(
        """
        import collections, typing
        Point = collections.namedtuple("Point", "x y")
        class Move(typing.NamedTuple):
            row: int
            col: int = 0
        p, m = Point(1, 2), Move(3)
        result = (p._replace(x=5), p._asdict(), Point._fields, p._fields, m._replace(col=4),
                  Move._fields, m._asdict())
        """
    )
    Point, Move = namespace["Point"], namespace["Move"]
    assert namespace["result"] == (
        Point(5, 2),
        {"x": 1, "y": 2},
        ("x", "y"),
        ("x", "y"),
        Move(3, 4),
        ("row", "col"),
        {"row": 3, "col": 0},
    )


def test_namedtuple_names_only_on_namedtuples_and_only_read():
    with pytest.raises(AttributeError, match='"_replace" is readable on namedtuples only'):
        run("class Box:\n    pass\nb = Box()\nb._replace()")
    assert check_source("p = (1,)\np._fields = ('x',)") == [
        'Line 2: "_fields" is an invalid attribute name because it starts with "_".'
    ]
    assert check_source("p = (1,)\np._make([1])") == [
        'Line 2: "_make" is an invalid attribute name because it starts with "_".'
    ]


def test_special_methods_on_helper_classes():
    namespace = run(
        """
        from dataclasses import dataclass, field

        class Deck:
            def __init__(self, cards):
                self.cards = list(cards)
            def __repr__(self):
                return f"Deck({len(self)})"
            def __str__(self):
                return " ".join(self.cards)
            def __len__(self):
                return len(self.cards)
            def __iter__(self):
                return iter(self.cards)
            def __contains__(self, card):
                return card in self.cards
            def __eq__(self, other):
                return isinstance(other, Deck) and self.cards == other.cards
            def __lt__(self, other):
                return len(self) < len(other)

        @dataclass
        class Hand:
            cards: list = field(default_factory=list)
            total: int = 0
            def __post_init__(self):
                self.total = len(self.cards)

        deck = Deck("AKQ")
        result = (repr(deck), str(deck), f"{deck}", len(deck), list(deck), "K" in deck,
                  deck == Deck("AKQ"), Deck("A") < deck, bool(Deck("")), Hand(["A", "K"]).total,
                  sorted([deck, Deck("A")])[0].cards)
        """
    )
    assert namespace["result"] == (
        "Deck(3)",
        "A K Q",
        "A K Q",
        3,
        ["A", "K", "Q"],
        True,
        True,
        True,
        False,
        2,
        ["A"],
    )


def test_type_name_reads_a_class_name_only():
    namespace = run(
        """
        class Board:
            def label(self):
                return type(self).__name__ + "/" + Board.__name__
        result = (Board().label(), type(3).__name__, f"{type('x').__name__}")
        """
    )
    assert namespace["result"] == ("Board/Board", "int", "str")
    with pytest.raises(AttributeError, match='"__name__" is readable on classes only'):
        run("def f():\n    pass\nname = f.__name__")
    assert check_source("class A:\n    pass\nA.__name__ = 'B'") == [
        'Line 3: "__name__" is an invalid attribute name because it starts with "_".'
    ]


@pytest.mark.parametrize(
    "imports",
    [
        "import collections.abc\nimport collections",
        "import collections\nimport collections.abc",
        "import collections.abc",
    ],
)
def test_import_collections_abc(imports):
    namespace = run(
        imports
        + "\nfrom collections.abc import Mapping\nimport collections.abc as cabc\n"
        + "result = (isinstance({}, collections.abc.Mapping), isinstance([], cabc.Sequence), "
        + "Mapping is cabc.Mapping, collections.abc is cabc)"
    )
    assert namespace["result"] == (True, True, True, True)
    if "import collections\n" in imports + "\n":
        assert run(imports + "\nresult = collections.Counter('aa')['a']")["result"] == 2


def test_collections_abc_offers_only_its_vetted_names():
    assert check_source("from collections.abc import ByteString") == [
        "Line 1: collections.abc.ByteString is not available to programs: 'collections.abc' "
        f"offers only: {', '.join(offered_names('collections.abc'))}."
    ]


def test_messages_list_only_names_this_python_has():
    for module in MODULE_NAMES:
        real = __import__(module, fromlist=["_"])
        assert all(hasattr(real, name) for name in offered_names(module))
    newer = [
        (module, name)
        for module in MODULE_NAMES
        for name in MODULE_NAMES[module]
        if name not in offered_names(module)
    ]
    message = check_source("import itertools\nx = itertools.nothing")[0]
    for module, name in newer:
        assert check_source(f"from {module} import {name}") == [
            f"Line 1: {module}.{name} is not available to programs: it is newer than this "
            f"Python ({sys.version_info[0]}.{sys.version_info[1]})."
        ]
        if module == "itertools":
            assert f" {name}," not in message and not message.endswith(f" {name}.")
    if sys.version_info < (3, 12):
        assert ("itertools", "batched") in newer and ("math", "sumprod") in newer


def test_every_allowed_pattern_has_a_reason():
    for table in (SPECIAL_METHODS, UNDERSCORE_READS):
        assert all(isinstance(reason, str) and len(reason) > 10 for reason in table.values())
    assert set(SPECIAL_METHODS) >= {"__init__", "__repr__", "__str__", "__len__", "__iter__"}
    assert set(SPECIAL_METHODS) >= {"__contains__", "__post_init__", "__eq__", "__lt__"}
    assert set(UNDERSCORE_READS) == {"__name__", "_replace", "_asdict", "_fields"}


def test_programs_import_read_difficulty():
    namespace = run(
        """
        from spadegym.program import read_difficulty
        result = (read_difficulty({"difficulty": 4}), read_difficulty(None, default=1),
                  read_difficulty({"difficulty": True}))
        """
    )
    assert namespace["result"] == (4, 1, 3)
