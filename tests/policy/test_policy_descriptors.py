"""The dataclass escape of issue 25, and the descriptor stand-ins that close its channels.

A ``cached_property`` subclass with a written ``attrname``, chained through ``classmethod``,
read a class's real annotations; a ``classmethod(property(f))`` field default ran while
``dataclass`` looked the defaults up, and swapped in a field name that ``dataclass`` pasted
into the source it ``exec``s. Each link is tested on its own: the classmethod stand-in
refuses to chain, the cached_property stand-in keeps its checked name, and the dataclass
stand-in builds from a snapshot that program code cannot reach even when it runs mid-build.
The attack itself is ``tests/fixtures/policy/attack_dataclass_cached_property.py``, pinned
with the others in ``test_policy_escapes``.
"""

from __future__ import annotations

import builtins
import textwrap

import pytest

from spadegym.policy import check_source, compile_program, new_globals


def run(source: str, **extra: object) -> dict:
    namespace = new_globals()
    namespace.update(extra)
    exec(compile_program(textwrap.dedent(source)), namespace)
    return namespace


@pytest.mark.parametrize("inner", ["property(f)", "classmethod(f)", "staticmethod(f)", "Grab(f)"])
def test_classmethod_refuses_to_wrap_a_descriptor(inner):
    with pytest.raises(TypeError, match="classmethod\\(\\) wraps functions only"):
        run(f"""
        import functools
        class Grab(functools.cached_property):
            pass
        def f(cls):
            return cls
        wrapped = classmethod({inner})
        """)


def test_classmethod_of_functions_and_cached_functions_still_works():
    namespace = run("""
    import functools
    class Board:
        size = 3
        @classmethod
        def make(cls):
            return cls()
        @classmethod
        @functools.cache
        def area(cls):
            return cls.size * cls.size
        def __init__(self):
            self.cells = [0] * type(self).area()
    board = Board.make()
    is_classmethod = isinstance(Board.make, object) and type(classmethod(len)) is classmethod
    """)
    assert namespace["board"].cells == [0] * 9
    assert namespace["is_classmethod"] is True


def test_cached_property_ignores_a_written_attrname():
    namespace = run("""
    import functools
    class Grab(functools.cached_property):
        pass
    def value(self):
        return 42
    class Holder:
        answer = Grab(value)
    Holder.answer.attrname = "__annotations__"
    holder = Holder()
    first = holder.answer
    second = holder.answer
    """)
    holder = namespace["holder"]
    assert namespace["first"] == namespace["second"] == 42
    assert vars(holder) == {"answer": 42}
    assert "__annotations__" not in vars(holder)


def test_cached_property_never_caches_on_a_class():
    from spadegym.policy.descriptors import GuardedCachedProperty

    class Target:
        pass

    prop = GuardedCachedProperty(lambda self: 1)
    prop.__set_name__(Target, "answer")
    with pytest.raises(TypeError, match="instances only"):
        prop.__get__(Target, type)


def test_cached_property_refuses_a_name_that_starts_with_an_underscore():
    from spadegym.policy.descriptors import GuardedCachedProperty

    with pytest.raises(TypeError, match="'__annotations__' is not allowed"):
        GuardedCachedProperty(len).__set_name__(object, "__annotations__")


def test_cached_property_works_as_the_library_one():
    namespace = run("""
    import functools
    class Grid:
        def __init__(self, n):
            self.n = n
            self.calls = 0
        @functools.cached_property
        def cells(self):
            self.calls += 1
            return [0] * self.n
    grid = Grid(4)
    grid.cells.append(1)
    """)
    grid = namespace["grid"]
    assert grid.cells == [0, 0, 0, 0, 1] and grid.calls == 1


def test_dataclass_builds_from_a_snapshot_even_when_program_code_runs_mid_build():
    """Even with a channel to the live annotations and the library's chaining classmethod."""
    namespace = run(
        """
        import dataclasses
        from typing import ClassVar
        def swap(cls):
            real = leak_annotations(cls)
            if "b" in real:
                real.pop("b")
                real["a,self.__dict__.update(leaked=open)"] = "int"
            return 0
        class Point:
            a: ClassVar = real_classmethod(property(swap))
            b: int = 0
        dataclasses.dataclass(Point, init=False, repr=False)
        point = Point()
        same = point == point
        fields = [f.name for f in dataclasses.fields(Point)]
        """,
        leak_annotations=lambda cls: cls.__dict__["__annotations__"],
        real_classmethod=builtins.classmethod,
    )
    assert namespace["fields"] == ["b"]
    assert namespace["same"] is True and "leaked" not in vars(namespace["point"])


def test_dataclass_options_are_true_or_false():
    with pytest.raises(TypeError, match=r"dataclass\(order=...\) takes True or False"):
        run("""
        import dataclasses
        class Truthy:
            def __len__(self):
                return 1
        @dataclasses.dataclass(order=Truthy())
        class Point:
            x: int = 0
        """)


# -- the same shape elsewhere: names pasted into generated source, checked on exact str ----------

SLY = """
class Sly(str):
    def isidentifier(self):
        return True
    def startswith(self, prefix):
        return False
    def split(self, sep=None):
        return ["x=print(1)"]
    def replace(self, old, new):
        return self
name = Sly("x=print(1)")
"""


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("collections.namedtuple('P', [name])", "Type names and field names must be valid"),
        ("collections.namedtuple('P', name)", "Type names and field names must be valid"),
        ("collections.namedtuple(name, 'a b')", "Type names and field names must be valid"),
        ("typing.NamedTuple('P', [(name, int)])", "Type names and field names must be valid"),
        ("enum.Enum('E', [name])", "is not allowed: member names are identifiers"),
        ("enum.Enum('E', name)", "is not allowed: member names are identifiers"),
    ],
)
def test_a_str_that_lies_about_itself_never_becomes_a_generated_name(call, message):
    """namedtuple converts to exact str before checking; the enum stand-in checks exact str."""
    with pytest.raises((TypeError, ValueError), match=message):
        run("import collections, enum, typing\n" + SLY + f"made = {call}\n")


@pytest.mark.parametrize(
    "source",
    [
        "class AEnv:\n    v: ().__class__.__bases__[0].__subclasses__() = 1\n",
        "def f(a) -> ().__class__:\n    return a\n",
        "def f():\n    w: (q := 5) = 1\n    return q\n",
        "z: print('hi') = 3\n",
    ],
)
def test_annotations_are_checked_although_never_evaluated(source):
    # Dropped unevaluated, an annotation is still code a designer wrote: the rules of code hold.
    errors = check_source(source)
    assert errors and all(e.startswith("Line ") for e in errors)
    assert any("annotation" in e for e in errors)


def test_plain_type_annotations_stay_allowed():
    source = (
        "from typing import List, Optional\n"
        "def f(a: int, *b: str, **c: 'Board') -> List[int]:\n"
        "    w: dict[str, int] = {}\n"
        "    z: Optional[List[int]] = None\n"
        "    return [a]\n"
    )
    assert check_source(source) == []
