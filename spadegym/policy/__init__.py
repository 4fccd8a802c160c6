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

The package holds one concept per module: ``names`` (the allow-lists, with their reasons),
``static`` (the "Line N: ..." checks), ``transform`` (the rewrites above), ``compiler``
(``check_source``, ``compile_program``), ``guards`` (``new_globals`` and the runtime guards) and
``loader`` (``load_program``).
"""

from __future__ import annotations

from spadegym.policy.compiler import check_source, compile_program
from spadegym.policy.guards import PRINT_LIMIT as PRINT_LIMIT
from spadegym.policy.guards import new_globals
from spadegym.policy.loader import LoadedProgram, load_program
from spadegym.policy.names import BUILTIN_NAMES, MODULE_NAMES, WITHHELD_BUILTINS

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
