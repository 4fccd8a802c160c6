"""Tests for spadegym.policy: good programs run, bad ones get pinned sentences, escapes fail."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from spadegym.contract import ALLOWED_IMPORTS
from spadegym.errors import PolicyError, ProgramError
from spadegym.policy import (
    BUILTIN_NAMES,
    MODULE_NAMES,
    PRINT_LIMIT,
    check_source,
    compile_program,
    load_program,
    new_globals,
)

FIXTURES = Path(__file__).parent / "fixtures" / "policy"
ALLOWED = ", ".join(ALLOWED_IMPORTS)
FORMAT_REFUSED = (
    "str.format() is not allowed, nor is '.format' on any object (it walks attributes past the "
    "guards); build strings with f-strings or +, and give your own methods another name."
)
RANDOM_HINT = (
    "the module-level functions share one global generator; create rng = random.Random(seed) "
    "in reset() and call rng.randint(...), rng.choice(...)."
)


def run(source: str) -> dict:
    """Compile and execute a snippet under the policy; return its namespace."""
    namespace = new_globals()
    exec(compile_program(textwrap.dedent(source)), namespace)
    return namespace


def refused(source: str) -> list[str]:
    errors = check_source(textwrap.dedent(source))
    assert errors, "expected the policy to refuse this program"
    return errors


# ---------------------------------------------------------------------------------------------
# The known-bad corpus: one file per rule, each with its exact sentences.

BAD = {
    "bad_import_os.py": [f"Line 2: import of 'os' is not allowed; allowed modules: {ALLOWED}."],
    "bad_import_star.py": ['Line 2: "*" imports are not allowed.'],
    "bad_relative_import.py": [
        "Line 2: relative imports are not allowed; a program is a single module."
    ],
    "bad_random_function.py": [
        f"Line 2: random.randint is not available to programs: {RANDOM_HINT}"
    ],
    "bad_module_attribute.py": [
        f"Line 5: random.shuffle is not available to programs: {RANDOM_HINT}"
    ],
    "bad_str_format.py": [f"Line 3: {FORMAT_REFUSED}"],
    "bad_super_format.py": [f"Line 4: {FORMAT_REFUSED}"],
    "bad_underscore_attribute.py": [
        'Line 4: "__class__" is an invalid attribute name because it starts with "_".'
    ],
    "bad_underscore_name.py": [
        'Line 2: "_cache" is an invalid variable name because it starts with "_".'
    ],
    "bad_open.py": ["Line 3: name 'open' is not available: programs have no files."],
    "bad_eval.py": ["Line 3: Eval calls are not allowed."],
    "bad_getattr.py": [
        "Line 3: name 'getattr' is not available: write the attribute out (obj.name), or keep "
        "the values in a dict."
    ],
    "bad_hash.py": [
        "Line 3: name 'hash' is not available: its values change between processes; key dicts "
        "by str, int or tuple values."
    ],
    "bad_generator_frame.py": [
        'Line 3: "gi_frame" is a restricted name, that is forbidden to access in RestrictedPython.'
    ],
    "bad_mro.py": ["Line 2: '.mro' reaches interpreter internals and is not allowed."],
    "bad_try_star.py": [
        "Line 2: 'except*' is not allowed; catch exceptions with a plain 'except'."
    ],
    "bad_main_guard.py": [
        "Line 5: remove the 'if __name__ == \"__main__\":' block; a program only defines its "
        "classes and functions."
    ],
    "bad_finally_return.py": [
        "Line 6: 'return' inside 'finally' is not allowed (it silences errors); move it after "
        "the try statement."
    ],
    "bad_dunder_method.py": [
        "Line 3: method '__del__' cannot be defined; programs may define only these special "
        "methods: __contains__, __eq__, __ge__, __gt__, __init__, __iter__, __le__, __len__, "
        "__lt__, __ne__, __post_init__, __repr__, __str__."
    ],
    "bad_metaclass.py": ['Line 5: The keyword argument "metaclass" is not allowed.'],
    "bad_type_three_args.py": [
        "Line 2: type() with three arguments is not allowed; define classes with 'class'."
    ],
    "bad_async.py": ["Line 2: async code is not allowed; write plain functions."],
    "bad_syntax.py": ["Line 2: SyntaxError: expected ':'."],
    "bad_formatter.py": [
        "Line 4: string.Formatter is not available to programs: it walks attributes past the "
        "guards; build strings with f-strings or +."
    ],
    "bad_attrgetter.py": [
        "Line 2: operator.attrgetter is not available to programs: it walks attributes past "
        "the guards; read obj.name directly."
    ],
    "bad_decimal_context.py": [
        "Line 4: decimal.getcontext is not available to programs: the context is shared by "
        "every program in the process; pass a decimal.Context(...) to the operations that need "
        "one."
    ],
    "bad_future.py": ["Line 2: only 'from __future__ import annotations' is allowed."],
    "bad_match.py": ["Line 3: 'match' statements are not allowed; use if/elif."],
    "bad_posonly_guard.py": [
        'Line 2: "_getattr_" is an invalid variable name because it starts with "_".'
    ],
    "bad_except_base.py": [
        "Line 5: name 'BaseException' is not available: catch Exception or a narrower class "
        "instead."
    ],
}


def test_every_bad_fixture_is_pinned():
    assert sorted(path.name for path in FIXTURES.glob("bad_*.py")) == sorted(BAD)


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_fixture_sentences(name):
    source = (FIXTURES / name).read_text()
    assert check_source(source) == BAD[name]
    with pytest.raises(PolicyError) as caught:
        compile_program(source)
    assert caught.value.errors == BAD[name]


# ---------------------------------------------------------------------------------------------
# Good programs compile, load and win with their own solution.

GOOD = {
    "good_lockpick.py": "LockPickEnv",
    "good_dataclass.py": "KnapsackEnv",
    "good_toolenv.py": "VaultEnv",
    "good_features.py": "TouchEnv",
}


def test_every_good_fixture_is_listed():
    assert sorted(path.name for path in FIXTURES.glob("good_*.py")) == sorted(GOOD)


@pytest.mark.parametrize("name", sorted(GOOD))
def test_good_fixture_loads_and_wins(name):
    source = (FIXTURES / name).read_text()
    assert check_source(source) == []
    loaded = load_program(source)
    assert loaded.class_name == GOOD[name]
    env = loaded.env_class()
    for seed in (0, 1, 7):
        observation, info = env.reset(seed=seed)
        assert isinstance(observation, str) and observation
        assert info == {}
        for action in env.solution():
            observation, reward, terminated, truncated, info = env.step(action)
        assert (reward, terminated, truncated) == (1.0, True, False)


def test_lockpick_rejects_a_malformed_guess():
    env = load_program((FIXTURES / "good_lockpick.py").read_text()).env_class()
    env.reset(seed=3)
    assert env.step("no box")[:3] == ("Answer with three digits in \\boxed{}.", 0.0, False)


def test_augmented_assignment_on_attributes_and_subscripts():
    namespace = run(
        """
        class Grid:
            count = 0
            def __init__(self):
                self.cells = [[1, 2], [3, 4]]
                self.totals = {"a": 1}
                self.score = 0
                self.items = [1]
        g = Grid()
        g.score += 5
        g.score -= 1
        g.cells[1][0] *= 10
        g.totals["a"] += 2
        g.items += (2, 3)
        Grid.count += 1
        n = 1
        n <<= 3
        result = (g.score, g.cells, g.totals, g.items, Grid.count, n)
        """
    )
    assert namespace["result"] == (4, [[1, 2], [30, 4]], {"a": 3}, [1, 2, 3], 1, 8)


def test_augmented_assignment_keeps_in_place_semantics():
    namespace = run(
        """
        class Box:
            def __init__(self):
                self.items = []
        box = Box()
        alias = box.items
        box.items += [1]
        result = alias
        """
    )
    assert namespace["result"] == [1]


def test_annotations_are_dropped_but_dataclass_fields_work():
    namespace = run(
        """
        from dataclasses import dataclass, field, fields
        from typing import ClassVar, List

        @dataclass
        class State:
            \"\"\"Docstring stays first.\"\"\"
            turn: int = 0
            moves: List[str] = field(default_factory=list)
            limit: ClassVar[int] = 9
            name: str = "s"

        def move(state: State, action: str = "x") -> State:
            count: int = len(state.moves)
            state.moves.append(action + str(count))
            state.turn += 1
            return state

        a = State()
        move(a)
        b = State()
        result = (a, b.moves, [f.name for f in fields(State)], State.limit)
        """
    )
    state, moves, names, limit = namespace["result"]
    assert (state.turn, state.moves, moves, limit) == (1, ["x0"], [], 9)
    assert names == ["turn", "moves", "name"]
    assert namespace["State"].__doc__ == "Docstring stays first."
    # Only the dotted name at the head of each annotation is kept (policy/transform.py).
    assert namespace["State"].__annotations__ == {
        "turn": "int",
        "moves": "List",
        "limit": "ClassVar",
        "name": "str",
    }


def test_named_tuple_and_enum_classes():
    namespace = run(
        """
        import enum
        from typing import NamedTuple

        class Point(NamedTuple):
            x: int
            y: int = 0

        class Colour(enum.Enum):
            RED = 1
            BLUE = enum.auto()

        result = (Point(3), Colour(2).name, [c.value for c in Colour])
        """
    )
    assert namespace["result"] == ((3, 0), "BLUE", [1, 2])


def test_super_init_works_and_other_super_dunders_do_not():
    namespace = run(
        """
        class Base:
            def __init__(self, size):
                self.size = size
            def describe(self):
                return "base"
        class Child(Base):
            def __init__(self):
                super().__init__(3)
            def describe(self):
                return super().describe() + "+child"
        c = Child()
        result = (c.size, c.describe())
        """
    )
    assert namespace["result"] == (3, "base+child")
    assert refused(
        """
        class A:
            def __init__(self):
                super().__setattr__("x", 1)
        """
    ) == ['Line 4: "__setattr__" is an invalid attribute name because it starts with "_".']


def test_super_init_is_guarded_again_when_super_is_rebound():
    errors = refused(
        """
        super = lambda: 1
        class A:
            def __init__(self):
                super().__init__()
        """
    )
    assert errors == ['Line 5: "__init__" is an invalid attribute name because it starts with "_".']


def test_comprehensions_lambdas_fstrings_try_and_helpers():
    namespace = run(
        """
        def helper(values, scale=2, *rest, **options):
            return [v * scale for v in values if v], options
        pairs = {k: v for k, v in zip("ab", (1, 2))}
        key = lambda item: -item[1]
        try:
            int("x")
        except ValueError as exc:
            message = f"bad: {exc!s:.10}"
        args = ([1, 0, 2],)
        result = (helper(*args, flag=True), sorted(pairs.items(), key=key), message,
                  [y for x in [[1], [2]] for y in x], (n := 4), "%s-%d" % ("a", 1),
                  format(2.5, ".1f"))
        """
    )
    assert namespace["result"] == (
        ([2, 4], {"flag": True}),
        [("b", 2), ("a", 1)],
        "bad: invalid li",
        [1, 2],
        4,
        "a-1",
        "2.5",
    )


def test_bare_except_catches_exception_only():
    namespace = run(
        """
        def attempt(fn):
            try:
                return fn()
            except:
                return "caught"
        """
    )
    attempt = namespace["attempt"]
    assert attempt(lambda: 1 / 0) == "caught"

    def interrupt():
        raise KeyboardInterrupt  # stands in for a worker deadline derived from BaseException

    with pytest.raises(KeyboardInterrupt):
        attempt(interrupt)


def test_print_is_captured_and_capped():
    namespace = run(
        """
        def noisy():
            print("x" * 100000)
            print("more", flush=True)
            return printed
        result = noisy()
        """
    )
    assert namespace["result"] == "x" * PRINT_LIMIT


def test_guarded_type_and_hasattr():
    namespace = run(
        """
        class Thing:
            def __init__(self):
                self.size = 1
        t = Thing()
        copy = type(t)()
        result = (type(3) is int, hasattr(t, "size"), hasattr(t, "missing"),
                  hasattr(t, "__dict__"), copy.size)
        """
    )
    assert namespace["result"] == (True, True, False, False, 1)
    with pytest.raises(TypeError, match="type\\(\\) of a class is not available"):
        run("metaclass = type(int)")


def test_allowed_modules_offer_their_names():
    namespace = run(
        """
        import bisect, cmath, collections, copy, decimal, fractions, functools, heapq
        import itertools, json, math, operator, re, statistics, string, textwrap
        import random as rnd
        h = []
        heapq.heappush(h, 2)
        @functools.lru_cache(maxsize=None)
        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)
        result = (heapq.heappop(h), bisect.bisect([1, 3], 2), math.isqrt(17),
                  statistics.median([3, 1, 2]), str(fractions.Fraction(1, 2) + 1),
                  str(decimal.Decimal("0.1") + decimal.Decimal("0.2")), fib(20),
                  re.sub(r"\\d", "#", "a1"), json.dumps({"a": [1]}), operator.add(1, 2),
                  list(itertools.islice(itertools.count(), 3)), string.digits[:2],
                  textwrap.shorten("a b c d", 5), copy.deepcopy([[1]]), cmath.sqrt(-4),
                  collections.Counter("aab").most_common(1), rnd.Random(1).randint(1, 9))
        """
    )
    assert namespace["result"] == (
        2,
        1,
        4,
        2,
        "3/2",
        "0.3",
        6765,
        "a#",
        '{"a": [1]}',
        3,
        [0, 1, 2],
        "01",
        "[...]",
        [[1]],
        2j,
        [("a", 2)],
        3,
    )


def test_every_vetted_name_exists_or_is_newer_than_this_python():
    # Names added after Python 3.10, the oldest version spadegym supports.
    newer = {
        ("math", "cbrt"),
        ("math", "exp2"),
        ("math", "fma"),
        ("math", "sumprod"),
        ("itertools", "batched"),
        ("enum", "StrEnum"),
    }
    for module, names in MODULE_NAMES.items():
        real = __import__(module, fromlist=["_"])
        for name in names:
            assert hasattr(real, name) or (module, name) in newer, f"{module}.{name}"


def test_offered_builtins_exist():
    import builtins

    assert all(hasattr(builtins, name) for name in BUILTIN_NAMES)
    for name in (
        "open",
        "eval",
        "exec",
        "compile",
        "getattr",
        "setattr",
        "globals",
        "vars",
        "dir",
        "hash",
        "id",
        "input",
        "breakpoint",
        "memoryview",
        "__import__",
    ):
        assert name not in BUILTIN_NAMES


def test_withheld_builtin_is_a_name_error_at_run_time():
    # "open" is bound as a parameter elsewhere, so the static check stays quiet; the global
    # lookup in later() still finds no such builtin.
    with pytest.raises(NameError, match="'open'"):
        run(
            """
            def shadow(open):
                return open
            def later():
                return open
            later()
            """
        )


# ---------------------------------------------------------------------------------------------
# Adversarial: one test per published escape technique, and the holes we looked for.


def test_cve_2023_37271_generator_frame_walk():
    assert refused(
        """
        def gen():
            yield 1
        g = gen()
        frame = g.gi_frame.f_back.f_globals
        """
    ) == [
        'Line 5: "f_globals" is a restricted name, that is forbidden to access in '
        "RestrictedPython.",
        'Line 5: "f_back" is a restricted name, that is forbidden to access in RestrictedPython.',
        'Line 5: "gi_frame" is a restricted name, that is forbidden to access in RestrictedPython.',
    ]
    namespace = run(
        """
        def gen():
            yield 1
        result = (hasattr(gen(), "gi_frame"), hasattr(gen(), "gi_code"))
        """
    )
    assert namespace["result"] == (False, False)


def test_cve_2023_41039_str_format_attribute_walk():
    assert refused(
        """
        template = "{0.__class__.__base__}"
        leaked = template.format(1)
        """
    ) == [f"Line 3: {FORMAT_REFUSED}"]
    assert refused("f = str.format") == [f"Line 1: {FORMAT_REFUSED}"]
    getattr_guard = new_globals()["_getattr_"]
    for target in ("{0}", str, type("Text", (str,), {})("{a}"), object()):
        for name in ("format", "format_map"):
            with pytest.raises(AttributeError, match=f"nor is '.{name}' on any object"):
                getattr_guard(target, name)


def test_cve_2024_47532_attribute_error_obj():
    with pytest.raises(AttributeError, match="'.obj' of AttributeError is not available"):
        run(
            """
            import string
            modules = [string]  # hides the module from the static check
            try:
                modules[0].missing
            except AttributeError as exc:
                leaked = exc.obj
            """
        )
    with pytest.raises(AttributeError, match="'.name' of NameError is not available"):
        run(
            """
            try:
                undefined_name
            except NameError as exc:
                leaked = exc.name
            """
        )


def test_cve_2025_22153_try_star():
    assert refused(
        """
        try:
            raise ValueError
        except* ValueError as group:
            pass
        """
    ) == ["Line 2: 'except*' is not allowed; catch exceptions with a plain 'except'."]
    assert refused("group = ExceptionGroup('x', [ValueError()])") == [
        "Line 1: name 'ExceptionGroup' is not available: catch Exception or a narrower class "
        "instead."
    ]


def test_formatter_get_field_is_unreachable():
    refused("import string\nf = string.Formatter()")
    refused("from string import Formatter")
    with pytest.raises(AttributeError, match="string.Formatter is not available"):
        run(
            """
            import string as s
            names = [s]
            leaked = names[0].Formatter
            """
        )


def test_positional_only_and_keyword_only_guard_shadowing():
    assert refused("def f(_getattr_=None, /):\n    return 1") == [
        'Line 1: "_getattr_" is an invalid variable name because it starts with "_".'
    ]
    assert refused("f = lambda _write_=None, /: 1") == [
        'Line 1: "_write_" is an invalid variable name because it starts with "_".'
    ]
    assert refused("def f(*, _getiter_=iter):\n    return 1") == [
        'Line 1: "_getiter_" is an invalid variable name because it starts with "_".'
    ]


def test_subclasses_and_bases_walks():
    assert refused("leaked = ().__class__.__bases__[0].__subclasses__()") == [
        'Line 1: "__subclasses__" is an invalid attribute name because it starts with "_".',
        'Line 1: "__bases__" is an invalid attribute name because it starts with "_".',
        'Line 1: "__class__" is an invalid attribute name because it starts with "_".',
    ]
    refused("leaked = type.__subclasses__(object)")
    refused("leaked = object.mro()")
    assert run("result = hasattr(int, 'mro')")["result"] is False


def test_operator_attrgetter_and_methodcaller_are_withheld():
    refused("import operator\ng = operator.attrgetter('x')")
    refused("from operator import methodcaller")
    with pytest.raises(AttributeError, match="operator.attrgetter is not available"):
        run("import operator as op\nmods = [op]\nleaked = mods[0].attrgetter")


def test_module_proxies_hide_their_internals():
    refused("import random\nleaked = random._inst")
    refused("import random\nleaked = random.__dict__")
    namespace = run(
        """
        import random, json
        result = (hasattr(random, "_inst"), hasattr(random, "seed"), hasattr(json, "decoder"),
                  hasattr(random, "Random"))
        """
    )
    assert namespace["result"] == (False, False, False, True)


def test_writing_to_module_proxies_is_refused():
    with pytest.raises(TypeError, match="module 'random' is read-only"):
        run("import random\nrandom.Random = None")
    with pytest.raises(TypeError, match="module 'math' is read-only"):
        run("import math\ndel math.pi")


def test_writing_to_library_objects_is_refused():
    with pytest.raises(TypeError, match="cannot change a 'function' object"):
        run("def f():\n    pass\nf.x = 1")
    with pytest.raises(TypeError, match="cannot change a 'type' object"):
        run("import collections\ncollections.Counter.most_common = None")
    with pytest.raises(TypeError, match="cannot change a 'type' object"):
        run("from spadegym.program import ToolEnv\nToolEnv.max_turns = 1")
    with pytest.raises(TypeError, match="enum members are constants"):
        run("import enum\nclass C(enum.Enum):\n    A = 1\nC.A.extra = 2")


def test_string_evaluation_in_typing_functools_and_dataclasses_is_withheld():
    refused("from typing import get_type_hints")
    refused("import typing\nref = typing.ForwardRef('x')")
    refused("from functools import singledispatch")
    refused("from dataclasses import make_dataclass")
    namespace = run(
        """
        from dataclasses import dataclass
        @dataclass
        class Sneaky:
            value: "open('/etc/passwd')" = 1
        result = Sneaky().value
        """
    )
    assert namespace["result"] == 1
    assert namespace["Sneaky"].__annotations__ == {"value": "open"}


def test_reimporting_under_another_name_gives_the_same_proxy():
    namespace = run(
        """
        import random as r
        import random
        from random import Random
        result = (r is random, Random is random.Random, hasattr(r, "randint"))
        """
    )
    assert namespace["result"] == (True, True, False)
    refused("import importlib")
    assert refused("import os.path as random") == [
        f"Line 1: import of 'os.path' is not allowed; allowed modules: {ALLOWED}."
    ]


def test_import_hook_refuses_relative_and_unknown_modules():
    guarded_import = new_globals()["__builtins__"]["__import__"]
    with pytest.raises(ImportError, match="relative imports are not allowed"):
        guarded_import("random", level=1)
    with pytest.raises(ImportError, match="import of 'sys' is not allowed"):
        guarded_import("sys")


def test_re_debug_flag_is_refused():
    with pytest.raises(ValueError, match="re.DEBUG is not available"):
        run("import re\np = re.compile('a+', 128)")
    with pytest.raises(ValueError, match="re.DEBUG is not available"):
        run("import re\nm = re.search('a', 'a', flags=128)")


def test_decimal_shared_context_is_withheld():
    refused("from decimal import localcontext")
    refused("import decimal\nc = decimal.getcontext()")
    namespace = run(
        """
        import decimal
        ctx = decimal.Context(prec=3)
        result = str(ctx.divide(decimal.Decimal(1), decimal.Decimal(3)))
        """
    )
    assert namespace["result"] == "0.333"


def test_namespaces_do_not_share_proxies_or_builtins():
    first, second = new_globals(), new_globals()
    assert first["__builtins__"] is not second["__builtins__"]
    exec(compile_program("import random"), first)
    exec(compile_program("import random"), second)
    assert first["random"] is not second["random"]


def test_dataclass_annotation_module_is_inert():
    run("import dataclasses")
    inert = sys.modules["spade_program"]
    assert sorted(name for name in vars(inert) if not name.startswith("_")) == [
        "ClassVar",
        "InitVar",
        "dataclasses",
        "typing",
    ]


# ---------------------------------------------------------------------------------------------
# The API: check_source never raises, load_program finds exactly one Env class.


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (b"x = 1", ["Line 1: the program must be text (str), not bytes."]),
        (None, ["Line 1: the program must be text (str), not NoneType."]),
        ("x = 1\n\0", ["Line 2: SyntaxError: the program contains a null character."]),
        ("(" * 300 + ")" * 300, ["Line 1: SyntaxError: too many nested parentheses."]),
        (
            "x = " + "+".join(["1"] * 20000),
            [
                "Line 1: SyntaxError: the code nests too deeply for Python's parser; split deep "
                "expressions into smaller steps."
            ],
        ),
        ("return 1", ["Line 1: SyntaxError: 'return' outside function."]),
    ],
    ids=["bytes", "none", "null", "parentheses", "long_sum", "return"],
)
def test_check_source_never_raises(source, expected):
    assert check_source(source) == expected


def test_errors_are_sorted_by_line_and_deduplicated():
    errors = check_source("import os\nx = open\nimport sys\nself_x = 1\ny = open\n")
    assert [error.split(":")[0] for error in errors] == ["Line 1", "Line 2", "Line 3", "Line 5"]
    errors = check_source("class A:\n    def f(self):\n        self.__x += 1\n")
    assert errors == ['Line 3: "__x" is an invalid attribute name because it starts with "_".']


def test_load_program_needs_exactly_one_env_class():
    with pytest.raises(PolicyError) as caught:
        load_program("class Helper:\n    pass\n")
    assert caught.value.errors == [
        "the program defines no public class whose name ends in 'Env'; define exactly one "
        "(for example class LockPickEnv:)"
    ]
    with pytest.raises(PolicyError) as caught:
        load_program("class AEnv:\n    pass\nclass BEnv:\n    pass\nAlias = AEnv\n")
    assert caught.value.errors == [
        "the program defines 2 classes whose names end in 'Env' (AEnv, BEnv); keep exactly "
        "one and give helper classes other names"
    ]
    with pytest.raises(PolicyError) as caught:
        load_program("class GameEnv:\n    pass\nGameEnv = 3\n")
    assert caught.value.errors == [
        "the name GameEnv no longer holds the class GameEnv after loading; do not rebind it"
    ]
    loaded = load_program(
        "from spadegym.program import ToolEnv\nclass MyEnv(ToolEnv):\n    pass\nOther = MyEnv\n"
    )
    assert loaded.class_name == "MyEnv"
    assert loaded.namespace["Other"] is loaded.env_class


def test_load_program_reports_module_level_errors_with_their_line():
    with pytest.raises(ProgramError) as caught:
        load_program("class GameEnv:\n    pass\n\nx = 1 / 0\n")
    assert str(caught.value) == (
        "Line 4: loading the program raised ZeroDivisionError: division by zero"
    )
    assert caught.value.kind == "exception"


def test_compile_program_raises_policy_error_with_the_sentences():
    with pytest.raises(PolicyError) as caught:
        compile_program("import os\nx = eval('1')\n")
    assert caught.value.errors == [
        f"Line 1: import of 'os' is not allowed; allowed modules: {ALLOWED}.",
        "Line 2: Eval calls are not allowed.",
    ]


def test_loops_inside_finally_may_break():
    assert (
        check_source(
            textwrap.dedent(
                """
            def drain(items):
                try:
                    pass
                finally:
                    for item in items:
                        if item:
                            break
                        continue
                return items
            """
            )
        )
        == []
    )
    assert refused(
        """
        def spin(items):
            for item in items:
                try:
                    pass
                finally:
                    continue
        """
    ) == [
        "Line 7: 'continue' inside 'finally' is not allowed (it silences errors); move it after "
        "the try statement."
    ]


def test_chainmap_and_counter_are_writable():
    namespace = run(
        """
        import collections
        layers = collections.ChainMap({}, {"a": 1})
        layers["b"] = 2
        tally = collections.Counter()
        tally["x"] += 2
        result = (dict(layers), tally["x"])
        """
    )
    assert namespace["result"] == ({"a": 1, "b": 2}, 2)
