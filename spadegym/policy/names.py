"""The allow-lists and deny-lists of the policy, each entry with its reason.

Also the sentences built from those reasons, which the static check and the runtime guards share.
"""

from __future__ import annotations

import collections.abc  # noqa: F401  (so that collections offers its abc submodule)
import functools
import importlib
import sys

from RestrictedPython.transformer import ALLOWED_FUNC_NAMES, INSPECT_ATTRIBUTES

from spadegym.contract import ALLOWED_IMPORTS


def _each(reason: str, names: str) -> dict[str, str]:
    """One reason for a group of names audited together."""
    return {name: reason for name in names.split()}


MODULE_NAMES: dict[str, dict[str, str]] = {
    "math": _each(
        "pure real arithmetic",
        "acos acosh asin asinh atan atan2 atanh cbrt ceil comb copysign cos cosh degrees dist "
        "e erf erfc exp exp2 expm1 fabs factorial floor fma fmod frexp fsum gamma gcd hypot inf "
        "isclose isfinite isinf isnan isqrt lcm ldexp lgamma log log10 log1p log2 modf nan "
        "nextafter perm pi pow prod radians remainder sin sinh sqrt sumprod tan tanh tau trunc "
        "ulp",
    ),
    "cmath": _each(
        "pure complex arithmetic",
        "acos acosh asin asinh atan atanh cos cosh e exp inf infj isclose isfinite isinf isnan "
        "log log10 nan nanj phase pi polar rect sin sinh sqrt tan tanh tau",
    ),
    "random": {
        "Random": "a generator the program seeds itself in reset()",
    },
    "re": {
        **_each(
            "pattern matching; a DEBUG flag is refused because it prints",
            "compile search match fullmatch findall finditer sub subn split",
        ),
        "escape": "quotes text for use in a pattern",
        "error": "the exception bad patterns raise",
        "Pattern": "the type of compiled patterns, for isinstance",
        "Match": "the type of match objects, for isinstance",
        **_each(
            "flag constants (DEBUG is withheld: it prints)",
            "A ASCII I IGNORECASE M MULTILINE S DOTALL X VERBOSE U UNICODE NOFLAG",
        ),
    },
    "json": {
        "dumps": "encodes values to text (no files)",
        "loads": "decodes text (no files)",
        "JSONDecodeError": "the exception loads raises",
    },
    "string": {
        **_each(
            "character constants",
            "ascii_letters ascii_lowercase ascii_uppercase digits hexdigits octdigits "
            "printable punctuation whitespace",
        ),
        "capwords": "pure text function",
        "Template": "$-substitution looks keys up in a mapping and never walks attributes",
    },
    "itertools": _each(
        "lazy combinatorics over the program's own values",
        "accumulate batched chain combinations combinations_with_replacement compress count "
        "cycle dropwhile filterfalse groupby islice pairwise permutations product repeat "
        "starmap takewhile tee zip_longest",
    ),
    "functools": {
        "reduce": "folds a sequence",
        "partial": "binds arguments; its func/args/keywords are what the program passed",
        "lru_cache": "memoises the program's own functions",
        "cache": "memoises the program's own functions",
        "cached_property": "memoises a method on the program's own instances; offered as a "
        "stand-in that caches under the name its class statement gave it, checked, and never on "
        "a class (a written attrname changes nothing)",
        "cmp_to_key": "adapts a comparison function for sorted()",
    },
    "collections": {
        "Counter": "a writable container",
        "deque": "a writable container",
        "defaultdict": "a writable container",
        "OrderedDict": "a writable container",
        "ChainMap": "layered lookups over the program's own dicts",
        "namedtuple": "record types; namedtuple checks that the type and field names are "
        "identifiers that do not start with '_' (rename=True replaces a bad name by _0, _1, ..., "
        "which stays unreadable), and builds its one generated function with empty builtins",
        "abc": "the submodule collections.abc (its own vetted names)",
    },
    "collections.abc": _each(
        "abstract base classes, for isinstance() and as bases; their register() is refused "
        "(it would change isinstance() for every caller in the worker)",
        "Callable Collection Container Generator Hashable ItemsView Iterable Iterator KeysView "
        "Mapping MappingView MutableMapping MutableSequence MutableSet Reversible Sequence Set "
        "Sized ValuesView",
    ),
    "heapq": _each(
        "priority queues on the program's own lists",
        "heapify heappop heappush heappushpop heapreplace merge nlargest nsmallest",
    ),
    "bisect": _each(
        "binary search on the program's own lists",
        "bisect bisect_left bisect_right insort insort_left insort_right",
    ),
    "fractions": {"Fraction": "exact rational numbers"},
    "decimal": {
        "Decimal": "exact decimal numbers (under the default context)",
        "Context": "a context the program builds and passes to operations explicitly",
        **_each(
            "rounding mode constants",
            "ROUND_05UP ROUND_CEILING ROUND_DOWN ROUND_FLOOR ROUND_HALF_DOWN ROUND_HALF_EVEN "
            "ROUND_HALF_UP ROUND_UP",
        ),
        **_each(
            "exception classes, for except clauses",
            "DecimalException InvalidOperation DivisionByZero Inexact Rounded Overflow "
            "Underflow Clamped Subnormal FloatOperation",
        ),
        **_each("limits", "MAX_PREC MAX_EMAX MIN_EMIN"),
    },
    "statistics": {
        **_each(
            "pure functions of the program's own data",
            "mean fmean geometric_mean harmonic_mean median median_low median_high "
            "median_grouped mode multimode pstdev pvariance stdev variance quantiles "
            "correlation covariance linear_regression",
        ),
        "StatisticsError": "the exception these functions raise",
    },
    "operator": _each(
        "an operator as a function",
        "abs add and_ concat contains countOf eq floordiv ge getitem gt index indexOf inv "
        "invert is_ is_not itemgetter le length_hint lshift lt matmul mod mul ne neg not_ or_ "
        "pos pow rshift sub truediv truth xor",
    ),
    "copy": {
        "copy": "copies game states",
        "deepcopy": "copies game states",
    },
    "textwrap": {
        **_each("pure text functions", "dedent fill indent shorten wrap"),
        "TextWrapper": "configured wrapping (its options are set in the constructor)",
    },
    "typing": {
        **_each(
            "type names for annotations and casts",
            "Any Callable ClassVar Counter DefaultDict Deque Dict Final FrozenSet Generic "
            "Iterable Iterator List Literal Mapping MutableMapping Optional Sequence Set "
            "Tuple Type TypeVar Union",
        ),
        "NamedTuple": "record types from class bodies (annotations stay strings)",
        "TypedDict": "dict shapes from class bodies (annotations stay strings)",
        "cast": "returns its argument",
        "TYPE_CHECKING": "the constant False",
    },
    "dataclasses": {
        "dataclass": "small state records; offered as a stand-in that first checks the class is "
        "the program's own and its field names are identifiers not starting with '_' "
        "(dataclass pastes field names into the source of the __init__ it generates)",
        "field": "field defaults and default factories",
        "fields": "the Field records of a dataclass",
        "asdict": "a dataclass as a dict",
        "astuple": "a dataclass as a tuple",
        "replace": "a changed copy of a dataclass instance",
        "is_dataclass": "a type test",
        "InitVar": "init-only pseudo-fields",
        "FrozenInstanceError": "the exception frozen dataclasses raise",
    },
    # Each enum base reaches programs as a member-less subclass whose metaclass checks the
    # functional API, Enum("Name", names): member names must be identifiers that do not start
    # with "_" (a "__reduce_ex__" or "_missing_" member would define that special method),
    # and only start= may be passed. Class bodies cannot bind names starting with "_" at all.
    "enum": {
        "Enum": "named constants",
        "IntEnum": "named integer constants",
        "StrEnum": "named string constants",
        "Flag": "bit-flag constants",
        "IntFlag": "bit-flag integer constants",
        "auto": "automatic member values",
        "unique": "checks that member values differ",
    },
    "spadegym.program": {
        "extract_boxed": "the content of the last \\boxed{...} of a reply",
        "parse_tool_calls": "the <tool_call> blocks of a reply",
        "extract_answer": "the content of the last <answer> block of a reply",
        "read_difficulty": "the difficulty of reset's options, checked",
        "ToolEnv": "the base class of tool-use environments",
    },
}
"""The names each allowed module offers to programs, each with the reason it is safe."""

_WITHHELD_NAMES: dict[tuple[str, str], str] = {
    ("string", "Formatter"): "it walks attributes past the guards; build strings with "
    "f-strings or +",
    ("operator", "attrgetter"): "it walks attributes past the guards; read obj.name directly",
    ("operator", "methodcaller"): "it calls methods by name past the guards; call them directly",
    ("operator", "setitem"): "it writes past the guards; write d[k] = v",
    ("operator", "delitem"): "it writes past the guards; write del d[k]",
    ("typing", "get_type_hints"): "it evaluates annotation strings as code",
    ("typing", "ForwardRef"): "it evaluates strings as code",
    ("functools", "singledispatch"): "it resolves annotations by evaluating them",
    ("functools", "singledispatchmethod"): "it resolves annotations by evaluating them",
    ("functools", "wraps"): "it writes attributes onto any object",
    ("functools", "update_wrapper"): "it writes attributes onto any object",
    ("functools", "total_ordering"): "it writes methods onto any class; define all comparisons",
    ("decimal", "getcontext"): "the context is shared by every program in the process; pass "
    "a decimal.Context(...) to the operations that need one",
    ("decimal", "setcontext"): "the context is shared by every program in the process",
    ("decimal", "localcontext"): "the context is shared by every program in the process",
    ("dataclasses", "make_dataclass"): "it builds a class from a dict of arbitrary names",
    ("statistics", "NormalDist"): "its samples() draws from the global random generator",
    ("re", "DEBUG"): "it prints the compiled pattern",
    ("json", "dump"): "programs have no files; use json.dumps",
    ("json", "load"): "programs have no files; use json.loads",
}
"""Notable names that are withheld, with the reason; any other unlisted name is withheld too."""


@functools.cache
def offered_names(module: str) -> tuple[str, ...]:
    """The vetted names of ``module`` that exist on the running Python, in listed order.

    ``MODULE_NAMES`` lists a few names newer than the oldest supported Python
    (``itertools.batched``, ``math.sumprod``); programs and messages see only those that exist.
    """
    real = importlib.import_module(module)
    return tuple(name for name in MODULE_NAMES[module] if hasattr(real, name))


_MODULE_HINTS: dict[str, str] = {
    "random": "the module-level functions share one global generator; create "
    "rng = random.Random(seed) in reset() and call rng.randint(...), rng.choice(...)",
}

BUILTIN_NAMES: frozenset[str] = frozenset(
    (
        # Constants.
        "None True False Ellipsis NotImplemented "
        # Pure functions and value types; they only iterate or convert the program's values.
        "abs all any ascii bin bool bytes callable chr complex dict divmod enumerate filter "
        "float format frozenset hex int isinstance issubclass iter len list map max min next "
        "object oct ord pow range repr reversed round set slice sorted str sum tuple zip "
        # Class building blocks; the attributes they expose are still guarded. classmethod is
        # a stand-in that wraps functions only (policy.descriptors).
        "classmethod property staticmethod super "
        # Guarded replacements (see guards._guarded_hasattr and guards._guarded_type).
        "hasattr type "
        # Exceptions a program may raise or catch.
        "ArithmeticError AssertionError AttributeError Exception IndexError KeyError "
        "LookupError NameError NotImplementedError OverflowError RecursionError RuntimeError "
        "StopIteration TypeError UnicodeError ValueError ZeroDivisionError"
    ).split()
)
"""Builtins a program may use; everything else in ``builtins`` is withheld."""

_NO_CONSOLE = "there is no console; the player's reply arrives as the action of step()"
_CATCH_EXCEPTION = "catch Exception or a narrower class instead"
WITHHELD_BUILTINS: dict[str, str] = {
    "open": "programs have no files",
    "eval": "programs cannot run code built from strings",
    "exec": "programs cannot run code built from strings",
    "compile": "programs cannot run code built from strings",
    "getattr": "write the attribute out (obj.name), or keep the values in a dict",
    "setattr": "write the attribute out (obj.name = value), or keep the values in a dict",
    "delattr": "write the attribute out (del obj.name), or keep the values in a dict",
    "globals": "programs cannot inspect namespaces",
    "locals": "programs cannot inspect namespaces",
    "vars": "programs cannot inspect namespaces",
    "dir": "programs cannot inspect namespaces",
    "hash": "its values change between processes; key dicts by str, int or tuple values",
    "id": "its values change between processes; compare objects with 'is'",
    "input": _NO_CONSOLE,
    "breakpoint": _NO_CONSOLE,
    "help": _NO_CONSOLE,
    "exit": _NO_CONSOLE,
    "quit": _NO_CONSOLE,
    "memoryview": "raw buffers are not offered",
    "bytearray": "raw buffers are not offered; use bytes or a list",
    "aiter": "async code is not allowed",
    "anext": "async code is not allowed",
    "BaseException": _CATCH_EXCEPTION,
    "BaseExceptionGroup": _CATCH_EXCEPTION,
    "ExceptionGroup": _CATCH_EXCEPTION,
    "GeneratorExit": _CATCH_EXCEPTION,
    "KeyboardInterrupt": _CATCH_EXCEPTION,
    "SystemExit": _CATCH_EXCEPTION,
}
"""Withheld builtins with the reason and the fix; other withheld builtins get a plain note."""

SPECIAL_METHODS: dict[str, str] = {
    **{name: "RestrictedPython's own allow-list" for name in sorted(ALLOWED_FUNC_NAMES)},
    **_each(
        "called by repr(), str(), f-strings and print on the program's own objects; Python "
        "checks that the result is a str, and the worker only ever sends exact str, int, "
        "float, bool and None values, so no program object leaves the worker through them",
        "__repr__ __str__",
    ),
    "__len__": "called by len() and truth tests; Python checks the result is an int >= 0",
    "__iter__": "called by for loops and iter(); it runs the program's own code, as any "
    "method does",
    "__post_init__": "called by the __init__ a dataclass generates; a plain method otherwise",
}
"""Special methods a program may define in a class body, with the reason each is safe.

Every other name that starts with "_" is refused, so a program can never define the methods
through which library code would call it unasked (``__reduce_ex__``, ``__getattr__``,
``__del__``, ``__exit__``, ``__set_name__``, ``__init_subclass__``, ...). The other ways to put
such a name on a class are closed too: ``type()`` with three arguments and metaclasses are
refused, enum's functional API and ``dataclass`` check their names.
"""

UNDERSCORE_READS: dict[str, str] = {
    "__name__": "type(self).__name__: on classes only, where it is the class's name (a str)",
    "_replace": "namedtuple: a changed copy; on namedtuple instances only",
    "_asdict": "namedtuple: the fields as a dict; on namedtuple instances only",
    "_fields": "namedtuple: the field names, a tuple of str; on namedtuple types and instances "
    "only",
}
"""Attributes starting with "_" that a program may read (never write), with the reason."""

_DENIED_ATTRIBUTES: frozenset[str] = INSPECT_ATTRIBUTES | frozenset(
    # Frames, code objects, closures and class hierarchies: each reaches interpreter state or
    # classes the program was not given. RestrictedPython lets some co_* names through.
    "gi_suspended gi_running f_lasti f_lineno f_trace_lines f_trace_opcodes tb_lasti "
    "tb_lineno co_argcount co_cellvars co_consts co_exceptiontable co_filename "
    "co_firstlineno co_flags co_freevars co_kwonlyargcount co_linetable co_lines co_lnotab "
    "co_name co_names co_nlocals co_positions co_posonlyargcount co_qualname co_stacksize "
    "co_varnames cell_contents func_closure func_code func_defaults func_dict func_globals "
    "func_name im_class im_func im_self mro".split()
)
"""Attributes refused on every object, in addition to every name that starts with "_"."""

_FORMAT_ATTRIBUTES = frozenset({"format", "format_map"})
"""Refused by name on every object: ``str.format`` walks attributes past the guards, and a
check by type misses ``super().format``, str subclasses and objects that forward attributes."""

_EXCEPTION_ATTRIBUTES = frozenset({"obj", "name"})
_REGISTER_ATTRIBUTE = "register"
_SPECIAL_ATTRIBUTES = (
    _DENIED_ATTRIBUTES | _FORMAT_ATTRIBUTES | _EXCEPTION_ATTRIBUTES | {_REGISTER_ATTRIBUTE}
)


# --------------------------------------------------------------------------------------------
# Messages shared by the static check and the runtime guards.

_ALLOWED_MODULES_TEXT = ", ".join(ALLOWED_IMPORTS)
_FORMAT_MESSAGE = (
    "str.{name}() is not allowed, nor is '.{name}' on any object (it walks attributes past "
    "the guards); build strings with f-strings or +, and give your own methods another name"
)


def _attribute_message(name: str) -> str:
    if name.startswith("_"):
        return f'"{name}" is an invalid attribute name because it starts with "_"'
    if name in _FORMAT_ATTRIBUTES:
        return _FORMAT_MESSAGE.format(name=name)
    return f"'.{name}' reaches interpreter internals and is not allowed"


def _module_name_message(module: str, name: str) -> str:
    reason = _WITHHELD_NAMES.get((module, name)) or _MODULE_HINTS.get(module)
    if reason is None and name in MODULE_NAMES[module]:
        reason = f"it is newer than this Python ({sys.version_info[0]}.{sys.version_info[1]})"
    if reason is None:
        reason = f"'{module}' offers only: {', '.join(offered_names(module))}"
    return f"{module}.{name} is not available to programs: {reason}"


def _import_message(module: str) -> str:
    return f"import of '{module}' is not allowed; allowed modules: {_ALLOWED_MODULES_TEXT}"


def _builtin_message(name: str) -> str:
    reason = WITHHELD_BUILTINS.get(name, "it is not offered to programs")
    return f"name '{name}' is not available: {reason}"
