"""The policy escapes of issue 13, one test each, and the paths found auditing the names again.

Each attack fixture (``tests/fixtures/policy/attack_*.py``) compiles, and loading it fails with
a pinned sentence before it can reach the real builtins or write onto a library class.
"""

from __future__ import annotations

import collections.abc
import re
import textwrap
from pathlib import Path

import pytest

from spadegym.errors import PolicyError, ProgramError
from spadegym.policy import check_source, compile_program, load_program, new_globals
from spadegym.program import ToolEnv

FIXTURES = Path(__file__).parents[1] / "fixtures" / "policy"
LOADING = "loading the program raised"
ENUM_NAME = "member names are identifiers that do not start with '_'"
FIELD_NAME = "field names are identifiers that do not start with '_'"

ATTACKS = {
    "attack_enum_copy.py": (
        f"Line 18: {LOADING} ValueError: Enum member name '__reduce_ex__' is not allowed: "
        f"{ENUM_NAME}"
    ),
    "attack_enum_exit.py": (
        f"Line 10: {LOADING} ValueError: Enum member name '__enter__' is not allowed: {ENUM_NAME}"
    ),
    "attack_enum_annotations_dataclass.py": (
        f"Line 6: {LOADING} ValueError: Enum member name '__annotations__' is not allowed: "
        f"{ENUM_NAME}"
    ),
    "attack_typeddict_dataclass.py": (
        f"Line 7: {LOADING} TypeError: dataclass field name \"x=print(open('/etc/hostname')"
        f'.read()) or 1" is not allowed: {FIELD_NAME}'
    ),
    "attack_dataclass_library_class.py": (
        f"Line 6: {LOADING} TypeError: dataclass() applies only to classes the program defines"
    ),
    "attack_generic_alias_forward.py": (
        f"Line 5: {LOADING} TypeError: type() of a '_GenericAlias' object is not available to "
        "programs; test it with isinstance()"
    ),
    "attack_super_init_unbound.py": (
        f"Line 11: {LOADING} TypeError: super().__init__(...) works only inside a method called "
        "on an instance (not in a classmethod, nor through the class)"
    ),
    "attack_metaclass_typing_type.py": (
        f"Line 1: {LOADING} TypeError: class Meta derives from type: programs cannot define "
        "metaclasses; write a plain class"
    ),
    "attack_dataclass_cached_property.py": (
        f"Line 31: {LOADING} TypeError: classmethod() wraps functions only, not a 'property' "
        "object; write a classmethod that computes the value instead"
    ),
    "attack_abc_register.py": (
        f"Line 5: {LOADING} AttributeError: '.register' of an abstract base class is not "
        "available: it changes isinstance() for everyone; subclass the class instead"
    ),
}


def run(source: str) -> dict:
    namespace = new_globals()
    exec(compile_program(textwrap.dedent(source)), namespace)
    return namespace


def test_every_attack_fixture_is_pinned():
    assert sorted(path.name for path in FIXTURES.glob("attack_*.py")) == sorted(ATTACKS)


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attack_fails_at_load_and_changes_nothing(name):
    source = (FIXTURES / name).read_text()
    assert check_source(source) == []  # each gets past the static checks: the guards stop it
    library = dict(vars(ToolEnv))
    with pytest.raises(ProgramError) as caught:
        load_program(source)
    assert str(caught.value) == ATTACKS[name]
    assert dict(vars(ToolEnv)) == library
    assert not isinstance("text", collections.abc.Mapping)


# --- enum's functional API ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["__annotations__", "__reduce_ex__", "__exit__", "__del__", "__copy__", "_missing_",
     "_generate_next_value_", "_ignore_", "_order_", "not an identifier", "class", ""],
)  # fmt: skip
@pytest.mark.parametrize("form", ["string", "names", "pairs", "dict"])
def test_enum_functional_api_refuses_names_that_are_not_plain(name, form):
    names = {
        "string": repr(f"A {name}"),
        "names": repr(["A", name]),
        "pairs": repr([("A", 1), (name, 2)]),
        "dict": "{'A': 1, " + repr(name) + ": len}",
    }[form]
    if form == "string" and not name.strip():
        names = repr([name])
    with pytest.raises((ValueError, TypeError), match="is not allowed"):
        run(f"import enum\nE = enum.Enum('E', {names})")


@pytest.mark.parametrize("base", ["Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"])
def test_every_enum_base_checks_the_functional_api(base):
    with pytest.raises(ValueError, match="'__reduce_ex__' is not allowed"):
        run(f"import enum\nE = enum.{base}('E', [('__reduce_ex__', 1)])")
    with pytest.raises(ValueError, match="'__del__' is not allowed"):
        run(f"import enum\nclass Base(enum.{base}):\n    pass\nE = Base('E', ['__del__'])")


@pytest.mark.parametrize(
    "call",
    [
        "enum.Enum('E', 'A', type=int)",
        "enum.Enum('E', 'A', module='spadegym.program')",
        "enum.Enum('E', 'A', qualname='X')",
        "enum.Flag('E', 'A', boundary=None)",
        "enum.Enum('E', names='A', start=1, extra=2)",
        "enum.Enum('E', 'A', names='B')",
    ],
)
def test_enum_functional_api_takes_only_start(call):
    with pytest.raises(TypeError, match=r"takes the class name, the member names and at most"):
        run(f"import enum\nE = {call}")


def test_enum_functional_api_refuses_iterables_it_cannot_check():
    with pytest.raises(TypeError, match="give the names as one string"):
        run("import enum\nE = enum.Enum('E', iter(['A']))")
    with pytest.raises(TypeError, match="do not mix names and pairs"):
        run("import enum\nE = enum.Enum('E', ['A', ('B', 2)])")


def test_enum_functional_api_with_plain_names_works_as_before():
    namespace = run(
        """
        import enum
        Colour = enum.Enum("Colour", "RED, GREEN BLUE")
        Level = enum.IntEnum("Level", ["LOW", "HIGH"], start=0)
        Perm = enum.IntFlag("Perm", [("R", 4), ("W", 2)])
        Mode = enum.StrEnum("Mode", {"FAST": "fast"})
        result = (Colour.GREEN.value, Colour(3).name, Level.HIGH + 0, (Perm.R | Perm.W).value,
                  Mode.FAST == "fast", [c.name for c in Colour], type(Colour.RED).__name__)
        """
    )
    assert namespace["result"] == (2, "BLUE", 1, 6, True, ["RED", "GREEN", "BLUE"], "Colour")
    assert namespace["Colour"].__module__ == "spade_program"


def test_enum_classes_behave_like_the_library_ones():
    namespace = run(
        """
        import enum
        class Level(enum.IntEnum):
            LOW = 1
        class Mode(enum.StrEnum):
            FAST = enum.auto()
        class Suit(enum.Enum):
            HEART = "h"
            def describe(self):
                return self.name.lower()
        result = (str(Level.LOW), f"{Level.LOW}", repr(Level.LOW), str(Mode.FAST),
                  Suit("h").describe(), isinstance(Suit.HEART, enum.Enum))
        """
    )
    assert namespace["result"] == ("1", "1", "<Level.LOW: 1>", "fast", "heart", True)


# --- dataclass --------------------------------------------------------------------------------


def test_dataclass_fields_defaults_factories_frozen_and_initvar_work():
    namespace = run(
        """
        import dataclasses
        from dataclasses import dataclass, field, InitVar
        from typing import ClassVar, List

        @dataclass
        class Base:
            size: int = 3

        @dataclass(order=True)
        class State(Base):
            moves: List[str] = field(default_factory=list)
            limit: ClassVar[int] = 9
            quoted: "ClassVar[int]" = 4
            seed: InitVar[int] = 0
            def __post_init__(self, seed):
                self.moves.append(str(seed))

        @dataclass(frozen=True)
        class Point:
            x: int
            y: int = 0

        a, b = State(seed=5), State(2)
        p = Point(1)
        try:
            p.x = 2
            frozen = False
        except dataclasses.FrozenInstanceError:
            frozen = True
        result = (a.moves, b.moves, b.size, [f.name for f in dataclasses.fields(State)],
                  State.limit, State.quoted, dataclasses.replace(p, y=2), frozen, a < b,
                  dataclasses.asdict(a))
        """
    )
    assert namespace["result"] == (
        ["5"],
        ["0"],
        2,
        ["size", "moves"],
        9,
        4,
        namespace["Point"](1, 2),
        True,
        False,
        {"size": 3, "moves": ["5"]},
    )


def test_dataclass_with_slots_and_keyword_only_fields():
    namespace = run(
        """
        from dataclasses import dataclass
        @dataclass(slots=True, kw_only=True)
        class Cell:
            row: int
            col: int = 0
        result = Cell(row=2)
        """
    )
    assert (namespace["result"].row, namespace["result"].col) == (2, 0)


def test_dataclass_refuses_library_classes_and_non_classes():
    for target in ("ToolEnv", "int", "len", "collections.Counter"):
        with pytest.raises(TypeError, match="applies only to classes the program defines"):
            run(
                "import collections, dataclasses\nfrom spadegym.program import ToolEnv\n"
                f"dataclasses.dataclass({target})"
            )


# --- super(), type(), metaclasses, ABC registries -----------------------------------------------


def test_super_init_from_a_classmethod_is_refused():
    with pytest.raises(TypeError, match=r"super\(\).__init__\(...\) works only inside a method"):
        run(
            """
            class Counter(dict):
                @classmethod
                def fill(cls, target, pairs):
                    super().__init__(target, pairs)
            class Sub(Counter):
                pass
            Sub.fill({}, [("a", 1)])
            """
        )


def test_super_init_on_an_instance_still_works():
    namespace = run(
        """
        import collections
        class Tally(collections.Counter):
            def __init__(self, text):
                super().__init__(text)
                self.text = text
        result = (Tally("aab")["a"], Tally("x").text)
        """
    )
    assert namespace["result"] == (2, "x")


@pytest.mark.parametrize("base", ["typing.Type", "typing.Type[int]"])
def test_metaclasses_are_refused(base):
    with pytest.raises(TypeError, match="programs cannot define metaclasses"):
        run(f"import typing\nclass Meta({base}):\n    pass")


@pytest.mark.parametrize(
    "value",
    ["typing.List[int]", "typing.List", "list[int]", "typing.Union[int, str]"],
)
def test_type_of_a_hidden_library_object_is_refused(value):
    with pytest.raises(TypeError, match="is not available to programs; test it with isinstance"):
        run(f"import typing\nleak = type({value})")


def test_type_of_offered_and_program_objects_still_works():
    namespace = run(
        """
        import collections, fractions, re
        class Board:
            pass
        try:
            int("x")
        except ValueError as exc:
            error = exc
        result = [type(v).__name__ for v in (1, "s", [], {}.keys(), Board(), error,
                  collections.deque(), fractions.Fraction(1, 2), re.compile("a"), len)]
        """
    )
    assert namespace["result"] == [
        "int",
        "str",
        "list",
        "dict_keys",
        "Board",
        "ValueError",
        "deque",
        "Fraction",
        "Pattern",
        "builtin_function_or_method",
    ]


@pytest.mark.parametrize(
    "target",
    ["typing.Mapping", "typing.Iterable[int]", "collections.abc.Sequence", "Mine"],
)
def test_abc_register_is_refused(target):
    with pytest.raises(AttributeError, match="'.register' of an abstract base class"):
        run(
            "import collections.abc, typing\nclass Mine(collections.abc.Sized):\n"
            f"    pass\n{target}.register(str)"
        )


def test_a_method_named_register_on_program_objects_works():
    namespace = run(
        """
        class Roster:
            def __init__(self):
                self.names = []
            def register(self, name):
                self.names.append(name)
        r = Roster()
        r.register("ann")
        result = r.names
        """
    )
    assert namespace["result"] == ["ann"]


# --- annotations ------------------------------------------------------------------------------


SNEAKY_ANNOTATIONS = """
import typing
class Sneaky:
    a: __import__("os").system("id") = 1
    b: (leak := 5) = 2
    c: "typing.List[int]" = 3
    d: typing.Optional[int] = 4
    e: int | None = 5
result = [Sneaky.a, Sneaky.b, Sneaky.c, Sneaky.d, Sneaky.e]
"""


def test_annotations_that_are_not_types_are_refused():
    errors = check_source(SNEAKY_ANNOTATIONS)
    assert errors[:2] == [
        "Line 4: an annotation is a type (int, str, List[int], 'Board'), not a call or an "
        "expression to run; write the type.",
        "Line 5: an annotation is a type (int, str, List[int], 'Board'), not a call or an "
        "expression to run; write the type.",
    ]


def test_annotations_keep_only_a_dotted_name_and_are_never_evaluated(monkeypatch):
    # The rewrite alone, as if the static check were gone: nothing of an annotation runs.
    from spadegym.policy import static

    monkeypatch.setattr(static._StaticChecker, "_check_annotation", lambda self, node: None)
    namespace = run(SNEAKY_ANNOTATIONS)
    assert namespace["result"] == [1, 2, 3, 4, 5]
    assert "leak" not in namespace
    assert namespace["Sneaky"].__annotations__ == {
        "a": "object",
        "b": "object",
        "c": "typing.List",
        "d": "typing.Optional",
        "e": "object",
    }


# --- namedtuple -------------------------------------------------------------------------------


def test_namedtuple_field_names_stay_plain():
    with pytest.raises(ValueError, match="cannot start with an underscore"):
        run("import collections\nP = collections.namedtuple('P', ['__reduce_ex__'])")
    with pytest.raises(ValueError, match="cannot start with an underscore"):
        run("import typing\nP = typing.NamedTuple('P', [('__del__', int)])")
    namespace = run(
        """
        import collections
        P = collections.namedtuple("P", ["__reduce_ex__", "x"], rename=True)
        result = P._fields
        """
    )
    assert namespace["result"] == ("_0", "x")  # renamed, and a "_" name no program can read
    assert check_source("p = P(1, 2)\nvalue = p._0") == [
        'Line 2: "_0" is an invalid attribute name because it starts with "_".'
    ]


# --- deep nesting -----------------------------------------------------------------------------

NEST = {
    "unary_minus": lambda n: "x = " + "-" * n + "1",
    "not": lambda n: "x = " + "not " * n + "1",
    "parentheses": lambda n: "x = " + "(" * n + "1" + ")" * n,
    "lists": lambda n: "x = " + "[" * n + "]" * n,
    "sum": lambda n: "x = " + "+".join(["1"] * n),
    "calls": lambda n: "def f():\n    return f\nx = f" + "()" * n,
    "lambdas": lambda n: "x = " + "lambda: " * n + "1",
    "conditional": lambda n: "x = " + "1 if 1 else " * n + "1",
    "subscripts": lambda n: "a = [0]\na[0] = a\nx = a" + "[0]" * n,
    "attributes": lambda n: "class A:\n    pass\na = A()\na.a = a\nx = a" + ".a" * n,
    "augmented": lambda n: "d = {1: 0}\nd[0] = d\nd" + "[0]" * n + "[1] += 1",
    "elif": lambda n: (
        "v = 1\nif v == 0:\n    x = 0\n"
        + "".join(f"elif v == {i}:\n    x = {i}\n" for i in range(1, n))
    ),
}


@pytest.mark.parametrize("depth", [3_500, 20_000])
@pytest.mark.parametrize("shape", sorted(NEST))
def test_deep_nesting_is_refused_with_a_sentence(shape, depth):
    source = NEST[shape](depth)
    errors = check_source(source)
    assert len(errors) == 1
    assert re.fullmatch(
        r"Line \d+: (SyntaxError: too many nested parentheses|SyntaxError: the code nests too "
        r"deeply for Python's parser; split deep expressions into smaller steps|the code nests "
        r"more than 100 levels deep; split deep expressions \(and long if/elif chains\) into "
        r"smaller steps)\.",
        errors[0],
    )
    with pytest.raises(PolicyError):
        compile_program(source)


@pytest.mark.parametrize("shape", sorted(set(NEST) - {"parentheses", "lists", "elif"}))
def test_nesting_just_past_the_limit_names_the_line(shape):
    source = "import math\n\n" + NEST[shape](150)
    assert check_source(source) == [
        f"Line {source.count(chr(10)) + 1}: the code nests more than 100 levels deep; split "
        "deep expressions (and long if/elif chains) into smaller steps."
    ]


@pytest.mark.parametrize("shape", sorted(NEST))
def test_nesting_within_the_limit_compiles_and_runs(shape):
    # 80 levels of each shape, in a function two levels down: near the limit, well above the
    # 22 levels of the deepest shipped program.
    depth = 40 if shape in ("calls", "subscripts", "attributes", "augmented") else 80
    body = textwrap.indent(NEST[shape](depth), "        ")
    source = f"class Deep:\n    def make(self):\n{body}\n        return 1\nresult = Deep().make()\n"
    assert check_source(source) == []
    assert run(source)["result"] == 1
