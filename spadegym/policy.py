"""The restricted policy: compile an environment program under RestrictedPython and guard it.

This is the first sandbox layer (DESIGN.md, "Sandbox: two layers"). It refuses what the contract
forbids (section 5) with "Line N: ..." sentences meant for the designer model, and it runs a
program with guards on every attribute read, every write, every import and every builtin. It
is a linter with teeth, not the security boundary: each published RestrictedPython escape
got through some version of it, so programs also run in an isolated worker (spadegym.sandbox).

What the policy adds to RestrictedPython 9:

* ``self.x += 1`` and ``d[k] += 1`` work. They become ``target = _inplacevar_(op, target,
  value)``, so the guards see the read and the write. The target's inner expressions are
  evaluated twice (``grid[f()] += 1`` calls ``f`` twice).
* Annotations are dropped (``x: int = 0`` becomes ``x = 0``). A class body keeps its field
  annotations as a dict of strings, inserted after the restricted transform so that a program
  cannot write ``__annotations__`` itself; ``@dataclass`` and ``NamedTuple`` need it.
* ``super().__init__(...)``, written exactly so, calls the next ``__init__`` in the MRO. Any
  other ``super().__name__`` attribute is refused like every other name that starts with "_".
* A bare ``except:`` is compiled as ``except Exception:``. Any exception the worker raises to
  enforce a deadline, if it derives from ``BaseException`` only, then passes through.
* Imports come from ``spadegym.contract.ALLOWED_IMPORTS``. Each module reaches the program as
  a read-only proxy that holds only the names listed in ``MODULE_NAMES``, each with its reason.
* Writes are allowed to dicts, lists, sets, the collections containers, and instances and
  classes the program defined. Enum members and enum classes stay constants. Modules,
  functions and library classes are read-only.

Dataclasses look string annotations up in ``sys.modules[cls.__module__]``, so importing
``dataclasses`` registers an inert module under the program's module name there (it holds only
``ClassVar``, ``InitVar``, ``typing`` and ``dataclasses``).
"""

from __future__ import annotations

import ast
import builtins
import collections
import copy
import enum
import importlib
import operator
import sys
import types
from dataclasses import dataclass

from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence
from RestrictedPython.transformer import (
    ALLOWED_FUNC_NAMES,
    INSPECT_ATTRIBUTES,
    IOPERATOR_TO_STR,
    RestrictingNodeTransformer,
    copy_locations,
)

from spadegym.contract import ALLOWED_IMPORTS
from spadegym.errors import PolicyError, ProgramError

__all__ = [
    "BUILTIN_NAMES",
    "MODULE_NAMES",
    "WITHHELD_BUILTINS",
    "LoadedProgram",
    "check_source",
    "compile_program",
    "load_program",
    "new_globals",
]

PRINT_LIMIT = 8192
"""Characters one print collector keeps; output is never shown, only bounded."""


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
        "cached_property": "memoises a method on the program's own instances",
        "cmp_to_key": "adapts a comparison function for sorted()",
    },
    "collections": {
        "Counter": "a writable container",
        "deque": "a writable container",
        "defaultdict": "a writable container",
        "OrderedDict": "a writable container",
        "ChainMap": "layered lookups over the program's own dicts",
        "namedtuple": "record types; field names are validated identifiers",
    },
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
        "dataclass": "small state records (annotations stay strings, never evaluated)",
        "field": "field defaults and default factories",
        "fields": "the Field records of a dataclass",
        "asdict": "a dataclass as a dict",
        "astuple": "a dataclass as a tuple",
        "replace": "a changed copy of a dataclass instance",
        "is_dataclass": "a type test",
        "InitVar": "init-only pseudo-fields",
        "FrozenInstanceError": "the exception frozen dataclasses raise",
    },
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
        # Class building blocks; the attributes they expose are still guarded.
        "classmethod property staticmethod super "
        # Guarded replacements (see _guarded_hasattr and _guarded_type).
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
_EXCEPTION_ATTRIBUTES = frozenset({"obj", "name"})
_SPECIAL_ATTRIBUTES = _DENIED_ATTRIBUTES | _FORMAT_ATTRIBUTES | _EXCEPTION_ATTRIBUTES

_WRITABLE_TYPES = frozenset(
    {
        dict,
        list,
        set,
        collections.ChainMap,
        collections.Counter,
        collections.OrderedDict,
        collections.defaultdict,
        collections.deque,
    }
)

_INPLACE_OPERATORS = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "|=": operator.ior,
    "^=": operator.ixor,
    "&=": operator.iand,
    "//=": operator.ifloordiv,
    "@=": operator.imatmul,
}

_RE_FLAG_POSITION = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "findall": 2}
_RE_FLAG_POSITION.update({"finditer": 2, "sub": 4, "subn": 4, "split": 3})
"""Where each re function takes its flags, positionally."""

_ALLOWED_MODULES_TEXT = ", ".join(ALLOWED_IMPORTS)
_FORMAT_MESSAGE = "str.{name}() is not allowed; build strings with f-strings or +"
_ALLOWED_METHODS_TEXT = ", ".join(sorted(ALLOWED_FUNC_NAMES))


# --------------------------------------------------------------------------------------------
# Messages shared by the static check and the runtime guards.


def _attribute_message(name: str) -> str:
    if name.startswith("_"):
        return f'"{name}" is an invalid attribute name because it starts with "_"'
    if name in _FORMAT_ATTRIBUTES:
        return _FORMAT_MESSAGE.format(name=name)
    return f"'.{name}' reaches interpreter internals and is not allowed"


def _module_name_message(module: str, name: str) -> str:
    reason = _WITHHELD_NAMES.get((module, name)) or _MODULE_HINTS.get(module)
    if reason is None:
        reason = f"'{module}' offers only: {', '.join(MODULE_NAMES[module])}"
    return f"{module}.{name} is not available to programs: {reason}"


def _import_message(module: str) -> str:
    return f"import of '{module}' is not allowed; allowed modules: {_ALLOWED_MODULES_TEXT}"


def _builtin_message(name: str) -> str:
    reason = WITHHELD_BUILTINS.get(name, "it is not offered to programs")
    return f"name '{name}' is not available: {reason}"


# --------------------------------------------------------------------------------------------
# Static checks: what RestrictedPython does not say, or does not say helpfully.


def _binding_counts(tree: ast.AST) -> collections.Counter[str]:
    """How often the program binds each name, anywhere, ignoring scopes."""
    counts: collections.Counter[str] = collections.Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            counts[node.name] += 1
        elif isinstance(node, ast.arg):
            counts[node.arg] += 1
        elif isinstance(node, ast.alias):
            counts[(node.asname or node.name).split(".")[0]] += 1
        elif isinstance(node, ast.ExceptHandler) and node.name:
            counts[node.name] += 1
    return counts


def _is_main_guard(node: ast.If) -> bool:
    test = node.test
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


class _StaticChecker(ast.NodeVisitor):
    """Collects the policy's own "Line N: ..." sentences from the untouched syntax tree."""

    def __init__(self, tree: ast.Module):
        self.errors: list[str] = []
        counts = _binding_counts(tree)
        self.bound = set(counts)
        # Module-level "import x [as y]" names that nothing else rebinds: their attributes can
        # be checked against the module's vetted names.
        self.module_aliases: dict[str, str] = {}
        for stmt in tree.body:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    local = alias.asname or alias.name
                    if alias.name in MODULE_NAMES and "." not in local and counts[local] == 1:
                        self.module_aliases[local] = alias.name
        # Inside a finally block, return leaves it silently; so do break and continue unless
        # a loop inside the block is what they leave.
        self.finally_return = 0
        self.finally_break = 0

    def error(self, node: ast.AST, message: str) -> None:
        self.errors.append(f"Line {getattr(node, 'lineno', 1)}: {message}.")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name not in ALLOWED_IMPORTS:
                self.error(node, _import_message(alias.name))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.error(node, "relative imports are not allowed; a program is a single module")
            return
        module = node.module or ""
        if module == "__future__":
            if any(alias.name != "annotations" for alias in node.names):
                self.error(node, "only 'from __future__ import annotations' is allowed")
            return
        if module not in ALLOWED_IMPORTS:
            self.error(node, _import_message(module))
            return
        for alias in node.names:
            # "*" and "_" names get RestrictedPython's own sentences.
            if alias.name != "*" and not alias.name.startswith("_"):
                if alias.name not in MODULE_NAMES[module]:
                    self.error(node, _module_name_message(module, alias.name))

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if (
            isinstance(node.ctx, ast.Load)
            and name not in BUILTIN_NAMES
            and name not in self.bound
            and not name.startswith("_")
            and name not in ("print", "printed", "exec", "eval")
            and hasattr(builtins, name)
        ):
            self.error(node, _builtin_message(name))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = node.attr
        value = node.value
        if name in _FORMAT_ATTRIBUTES and (
            isinstance(value, ast.JoinedStr)
            or (isinstance(value, ast.Constant) and isinstance(value.value, str))
            or (isinstance(value, ast.Name) and value.id == "str" and "str" not in self.bound)
        ):
            self.error(node, _FORMAT_MESSAGE.format(name=name))
        elif name in _DENIED_ATTRIBUTES and name not in INSPECT_ATTRIBUTES:
            self.error(node, _attribute_message(name))
        elif (
            isinstance(value, ast.Name)
            and value.id in self.module_aliases
            and not name.startswith("_")
        ):
            module = self.module_aliases[value.id]
            if name not in MODULE_NAMES[module]:
                self.error(node, _module_name_message(module, name))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (
            isinstance(func, ast.Name)
            and func.id == "type"
            and "type" not in self.bound
            and len(node.args) + len(node.keywords) > 1
        ):
            self.error(
                node, "type() with three arguments is not allowed; define classes with 'class'"
            )
        self.generic_visit(node)

    def visit_If(self, node: ast.If) -> None:
        if _is_main_guard(node):
            self.error(
                node,
                "remove the 'if __name__ == \"__main__\":' block; a program only defines its "
                "classes and functions",
            )
            return
        self.generic_visit(node)

    def visit_Try(self, node: ast.Try) -> None:
        for child in node.body + node.handlers + node.orelse:
            self.visit(child)
        self.finally_return += 1
        self.finally_break += 1
        for child in node.finalbody:
            self.visit(child)
        self.finally_return -= 1
        self.finally_break -= 1

    def _check_finally_exit(self, node: ast.stmt, keyword: str, depth: int) -> None:
        if depth:
            self.error(
                node,
                f"'{keyword}' inside 'finally' is not allowed (it silences errors); move it "
                "after the try statement",
            )

    def visit_Return(self, node: ast.Return) -> None:
        self._check_finally_exit(node, "return", self.finally_return)
        self.generic_visit(node)

    def visit_Break(self, node: ast.Break) -> None:
        self._check_finally_exit(node, "break", self.finally_break)

    def visit_Continue(self, node: ast.Continue) -> None:
        self._check_finally_exit(node, "continue", self.finally_break)

    def _visit_loop(self, node: ast.For | ast.While) -> None:
        for field in ("target", "iter", "test"):
            if getattr(node, field, None) is not None:
                self.visit(getattr(node, field))
        depth, self.finally_break = self.finally_break, 0
        for child in node.body:
            self.visit(child)
        self.finally_break = depth
        for child in node.orelse:  # a break in "else" leaves the enclosing loop
            self.visit(child)

    visit_For = _visit_loop
    visit_While = _visit_loop

    def _visit_scope(self, node: ast.AST) -> None:
        # A return in a function defined inside a finally block leaves only that function.
        depths = self.finally_return, self.finally_break
        self.finally_return = self.finally_break = 0
        self.generic_visit(node)
        self.finally_return, self.finally_break = depths

    visit_FunctionDef = _visit_scope
    visit_Lambda = _visit_scope
    visit_ClassDef = _visit_scope


# --------------------------------------------------------------------------------------------
# The restricted transform, extended with the rewrites the contract promises.


_ASYNC = "async code is not allowed; write plain functions"
_NOT_ALLOWED = {
    "TryStar": "'except*' is not allowed; catch exceptions with a plain 'except'.",
    "Match": "'match' statements are not allowed; use if/elif.",
    "Nonlocal": "'nonlocal' is not allowed; keep shared state on self or in a dict.",
    "AsyncFunctionDef": _ASYNC + ".",
    "Await": _ASYNC + ".",
    "AsyncFor": _ASYNC + ".",
    "AsyncWith": _ASYNC + ".",
}
"""Clearer sentences for the statements RestrictedPython refuses wholesale."""


def _located(new: ast.AST, old: ast.AST) -> ast.AST:
    copy_locations(new, old)
    return new


class _PolicyTransformer(RestrictingNodeTransformer):
    """RestrictedPython's transformer plus our rewrites (module docstring, first list)."""

    def __init__(self, bound_names: set[str]):
        super().__init__()
        self.bound_names = bound_names
        # One entry per enclosing scope: a dict collecting field annotations for a class body,
        # None for a function body.
        self.scopes: list[dict[str, str] | None] = []

    def check_name(self, node, name, allow_magic_methods=False):
        if (
            allow_magic_methods
            and name
            and name.startswith("_")
            and not (name in ALLOWED_FUNC_NAMES and node.col_offset != 0)
        ):
            self.error(
                node,
                f"method '{name}' cannot be defined; programs may define only these special "
                f"methods: {_ALLOWED_METHODS_TEXT}.",
            )
            return
        super().check_name(node, name, allow_magic_methods)

    def not_allowed(self, node: ast.AST) -> None:
        message = _NOT_ALLOWED.get(type(node).__name__)
        if message is None:
            super().not_allowed(node)
        else:
            self.error(node, message)

    def visit_ImportFrom(self, node: ast.ImportFrom):
        if node.module == "__future__":
            # Annotations are dropped anyway, so the future import changes nothing.
            return None
        return super().visit_ImportFrom(node)

    def visit_If(self, node: ast.If):
        if _is_main_guard(node):
            return node  # The static check has refused it with its own sentence.
        return super().visit_If(node)

    def visit_AugAssign(self, node: ast.AugAssign):
        if not isinstance(node.target, (ast.Attribute, ast.Subscript)):
            return super().visit_AugAssign(node)
        load = copy.deepcopy(node.target)
        load.ctx = ast.Load()
        load = self.visit(load)
        target = self.visit(node.target)
        value = self.visit(node.value)
        call = ast.Call(
            func=ast.Name("_inplacevar_", ast.Load()),
            args=[ast.Constant(IOPERATOR_TO_STR[type(node.op)]), load, value],
            keywords=[],
        )
        return _located(ast.Assign(targets=[target], value=call), node)

    def visit_AnnAssign(self, node: ast.AnnAssign):
        scope = self.scopes[-1] if self.scopes else None
        if scope is not None and node.simple and isinstance(node.target, ast.Name):
            scope[node.target.id] = ast.unparse(node.annotation)
        if node.value is None:
            self.check_name(node, getattr(node.target, "id", None))
            return _located(ast.Pass(), node)
        return self.visit(_located(ast.Assign(targets=[node.target], value=node.value), node))

    def visit_FunctionDef(self, node: ast.FunctionDef):
        arguments = node.args
        for arg in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
            arg.annotation = None
        for arg in (arguments.vararg, arguments.kwarg):
            if arg is not None:
                arg.annotation = None
        node.returns = None
        self.scopes.append(None)
        try:
            return super().visit_FunctionDef(node)
        finally:
            self.scopes.pop()

    def visit_Lambda(self, node: ast.Lambda):
        self.scopes.append(None)
        try:
            return super().visit_Lambda(node)
        finally:
            self.scopes.pop()

    def visit_ClassDef(self, node: ast.ClassDef):
        annotations: dict[str, str] = {}
        self.scopes.append(annotations)
        try:
            new = super().visit_ClassDef(node)
        finally:
            self.scopes.pop()
        if annotations:
            # Inserted after the transform: the program itself cannot name __annotations__.
            assign = ast.Assign(
                targets=[ast.Name("__annotations__", ast.Store())],
                value=ast.Dict(
                    keys=[ast.Constant(key) for key in annotations],
                    values=[ast.Constant(value) for value in annotations.values()],
                ),
            )
            body = new.body
            has_docstring = (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            )
            body.insert(1 if has_docstring else 0, _located(assign, node))
        return new

    def visit_Call(self, node: ast.Call):
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "__init__"
            and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "super"
            and not func.value.args
            and not func.value.keywords
            and "super" not in self.bound_names
            and not any(isinstance(arg, ast.Starred) for arg in node.args)
            and all(keyword.arg is not None for keyword in node.keywords)
        ):
            # super().__init__(...) exactly: zero-argument super() only reaches the MRO of the
            # program's own class, so the attribute is left unguarded.
            node.args = [self.visit(arg) for arg in node.args]
            node.keywords = [self.visit(keyword) for keyword in node.keywords]
            return node
        return super().visit_Call(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler):
        node = super().visit_ExceptHandler(node)
        if node.type is None:
            node.type = _located(ast.Name("Exception", ast.Load()), node)
        return node


def _line_of(message: str) -> int:
    head = message.split(":", 1)[0]
    number = head[5:] if head.startswith("Line ") else ""
    return int(number) if number.isdigit() else 0


def _compile(source: object, filename: str) -> tuple[list[str], types.CodeType | None]:
    """Parse, check, transform and compile; return the sentences, or the code when none."""
    if not isinstance(source, str):
        return [f"Line 1: the program must be text (str), not {type(source).__name__}."], None
    if "\0" in source:  # Python versions disagree on how to report it
        line = source.count("\n", 0, source.find("\0")) + 1
        return [f"Line {line}: SyntaxError: the program contains a null character."], None
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as exc:
        return [f"Line {exc.lineno or 1}: SyntaxError: {exc.msg}."], None
    except (RecursionError, MemoryError):
        return ["Line 1: SyntaxError: the program is nested too deeply."], None
    try:
        static = _StaticChecker(tree)
        static.visit(tree)
        transformer = _PolicyTransformer(static.bound)
        tree = transformer.visit(tree)
    except RecursionError:
        return ["Line 1: the program is nested too deeply to check."], None
    sentences = (e if e.endswith(".") else e + "." for e in static.errors + transformer.errors)
    errors = list(dict.fromkeys(sentences))
    errors.sort(key=_line_of)
    if errors:
        return errors, None
    try:
        code = compile(tree, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return [f"Line {exc.lineno or 1}: SyntaxError: {exc.msg}."], None
    except (RecursionError, MemoryError):
        return ["Line 1: the program is nested too deeply to compile."], None
    return [], code


def check_source(source: str) -> list[str]:
    """Check a program against the policy without running it.

    Args:
        source: the program text.

    Returns:
        The "Line N: ..." sentences, sorted by line; ``[]`` when the program is acceptable.
        Never raises: a syntax error becomes "Line N: SyntaxError: ...".
    """
    return _compile(source, "<program>")[0]


def compile_program(source: str, filename: str = "<program>") -> types.CodeType:
    """Compile a program under the policy.

    Args:
        source: the program text.
        filename: the name tracebacks show for the program.

    Returns:
        The code object, to run with ``exec(code, new_globals())``.

    Raises:
        PolicyError: the program breaks the policy; ``errors`` holds the sentences.
    """
    errors, code = _compile(source, filename)
    if code is None:
        raise PolicyError(errors)
    return code


# --------------------------------------------------------------------------------------------
# Runtime guards. Each runs on every attribute read or write: keep them to a few type checks.


def _guarded_getattr(ob: object, name: str) -> object:
    if name.startswith("_") and name != "_":  # RestrictedPython allows "_" statically too
        raise AttributeError(_attribute_message(name))
    if name in _SPECIAL_ATTRIBUTES:
        if name in _DENIED_ATTRIBUTES:
            raise AttributeError(_attribute_message(name))
        if name in _FORMAT_ATTRIBUTES:
            if isinstance(ob, str) or (isinstance(ob, type) and issubclass(ob, str)):
                raise AttributeError(_FORMAT_MESSAGE.format(name=name))
        elif isinstance(ob, (AttributeError, NameError)):
            # CVE-2024-47532: AttributeError.obj hands out the object a lookup failed on.
            raise AttributeError(f"'.{name}' of {type(ob).__name__} is not available")
    return getattr(ob, name)


def _guarded_hasattr(ob: object, name: str) -> bool:
    if type(name) is not str:
        raise TypeError("hasattr(): the attribute name must be a str")
    try:
        _guarded_getattr(ob, name)
    except AttributeError:
        return False
    return True


def _guarded_type(ob: object, *rest: object) -> type:
    if rest:
        raise TypeError("type() with three arguments is not allowed; define classes with 'class'")
    cls = type(ob)
    if issubclass(cls, type):
        raise TypeError("type() of a class is not available; compare classes with 'is'")
    return cls


def _inplacevar(op: str, x: object, y: object) -> object:
    return _INPLACE_OPERATORS[op](x, y)


def _apply(function, *args, **kwargs):
    return function(*args, **kwargs)


class _PrintCollector:
    """The target of ``print``: keeps at most PRINT_LIMIT characters, which nobody reads."""

    def __init__(self, _getattr_=None):
        self._getattr_ = _getattr_
        self._parts: list[str] = []
        self._room = PRINT_LIMIT

    def write(self, text: str) -> None:
        if self._room > 0:
            kept = str(text)[: self._room]
            self._parts.append(kept)
            self._room -= len(kept)

    def flush(self) -> None:
        pass

    def __call__(self) -> str:
        return "".join(self._parts)

    def _call_print(self, *objects, **kwargs):
        if kwargs.get("file") is None:
            kwargs["file"] = self
        else:
            self._getattr_(kwargs["file"], "write")
        print(*objects, **kwargs)


def _make_write_guard(module_name: str):
    def guarded_write(ob):
        cls = type(ob)
        if cls in _WRITABLE_TYPES:
            return ob
        if cls.__module__ == module_name:
            if isinstance(ob, enum.Enum):
                raise TypeError("enum members are constants and cannot be changed")
            return ob
        if isinstance(ob, type) and ob.__module__ == module_name:
            if issubclass(ob, enum.Enum):
                raise TypeError("enum classes are constants and cannot be changed")
            return ob
        if isinstance(ob, types.ModuleType):
            raise TypeError(f"module '{ob.__name__}' is read-only")
        raise TypeError(
            f"cannot change a {cls.__name__!r} object; programs may change their own objects, "
            "dicts, lists and sets"
        )

    return guarded_write


def _no_debug(function, position: int):
    def guarded(*args, **kwargs):
        flags = args[position] if len(args) > position else kwargs.get("flags", 0)
        if isinstance(flags, int) and flags & 128:  # re.DEBUG
            raise ValueError("re.DEBUG is not available: it prints the compiled pattern")
        return function(*args, **kwargs)

    guarded.__name__ = function.__name__
    guarded.__doc__ = function.__doc__
    return guarded


def _module_proxy(name: str) -> types.ModuleType:
    """A fresh read-only stand-in for an allowed module, holding only its vetted names."""
    real = importlib.import_module(name)
    proxy = types.ModuleType(name, real.__doc__)
    for attribute in MODULE_NAMES[name]:
        if hasattr(real, attribute):  # a few names are newer than this Python
            value = getattr(real, attribute)
            if name == "re" and attribute in _RE_FLAG_POSITION:
                value = _no_debug(value, _RE_FLAG_POSITION[attribute])
            setattr(proxy, attribute, value)

    def missing(attribute: str):
        raise AttributeError(_module_name_message(name, attribute))

    proxy.__getattr__ = missing
    return proxy


def _register_annotation_module(module_name: str) -> None:
    """Let dataclasses resolve ClassVar and InitVar in string annotations (module docstring)."""
    if module_name in sys.modules:
        return
    import dataclasses
    import typing

    inert = types.ModuleType(module_name, "Annotation names for spadegym programs.")
    inert.ClassVar = typing.ClassVar
    inert.InitVar = dataclasses.InitVar
    inert.typing = typing
    inert.dataclasses = dataclasses
    sys.modules[module_name] = inert


def _make_import(module_name: str):
    proxies: dict[str, types.ModuleType] = {}

    def proxy_for(name: str) -> types.ModuleType:
        if name not in proxies:
            if name == "dataclasses":
                _register_annotation_module(module_name)
            proxies[name] = _module_proxy(name)
        return proxies[name]

    def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level:
            raise ImportError("relative imports are not allowed; a program is a single module")
        if name not in ALLOWED_IMPORTS:
            raise ImportError(_import_message(name))
        module = proxy_for(name)
        if fromlist or "." not in name:
            return module
        # "import spadegym.program" binds the top package, which offers only the submodule.
        top, _, rest = name.partition(".")
        if top not in proxies:
            package = types.ModuleType(top)
            setattr(package, rest, module)
            proxies[top] = package
        return proxies[top]

    return guarded_import


def new_globals(module_name: str = "spade_program") -> dict:
    """A fresh globals dict for one program, with restricted builtins and every guard.

    Args:
        module_name: the program's ``__name__``; classes defined by the program carry it as
            ``__module__``, which is how the write guard recognises them.

    Returns:
        A dict to pass to ``exec`` together with the code of ``compile_program``.
    """
    guarded_builtins = {name: getattr(builtins, name) for name in BUILTIN_NAMES}
    guarded_builtins["hasattr"] = _guarded_hasattr
    guarded_builtins["type"] = _guarded_type
    guarded_builtins["__build_class__"] = builtins.__build_class__
    guarded_builtins["__import__"] = _make_import(module_name)
    return {
        "__builtins__": guarded_builtins,
        "__name__": module_name,
        "__metaclass__": type,
        "_getattr_": _guarded_getattr,
        "_write_": _make_write_guard(module_name),
        "_getitem_": operator.getitem,
        "_getiter_": iter,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_inplacevar_": _inplacevar,
        "_apply_": _apply,
        "_print_": _PrintCollector,
    }


# --------------------------------------------------------------------------------------------
# Loading.


@dataclass
class LoadedProgram:
    """A program run once under the policy.

    Attributes:
        namespace: its globals after the module-level code ran.
        env_class: the one public class whose name ends in "Env".
        class_name: that class's name.
    """

    namespace: dict
    env_class: type
    class_name: str


def _program_line(exc: BaseException, filename: str) -> str:
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f"Line {line}: " if line else ""


def load_program(source: str, filename: str = "<program>") -> LoadedProgram:
    """Compile a program, run its module-level code and find its environment class.

    Args:
        source: the program text.
        filename: the name tracebacks show for the program.

    Returns:
        The namespace and the one public class whose name ends in "Env".

    Raises:
        PolicyError: the program breaks the policy, or defines no or several Env classes.
        ProgramError: the module-level code raised (``kind="exception"``).
    """
    code = compile_program(source, filename)
    namespace = new_globals()
    module_name = namespace["__name__"]
    try:
        exec(code, namespace)
    except Exception as exc:
        raise ProgramError(
            f"{_program_line(exc, filename)}loading the program raised "
            f"{type(exc).__name__}: {exc}",
            kind="exception",
        ) from exc
    classes: list[type] = []
    for value in namespace.values():
        if (
            isinstance(value, type)
            and value.__module__ == module_name
            and value.__name__.endswith("Env")
            and not value.__name__.startswith("_")
            and value not in classes
        ):
            classes.append(value)
    if not classes:
        raise PolicyError(
            [
                "the program defines no class whose name ends in 'Env'; define exactly one, "
                "e.g. class LockPickEnv: ..."
            ]
        )
    if len(classes) > 1:
        names = ", ".join(cls.__name__ for cls in classes)
        raise PolicyError(
            [
                f"the program defines {len(classes)} classes whose names end in 'Env' "
                f"({names}); define exactly one, and give helper classes other names"
            ]
        )
    return LoadedProgram(namespace=namespace, env_class=classes[0], class_name=classes[0].__name__)
