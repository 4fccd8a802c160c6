"""Load a program: compile it, run its module-level code and find its environment class."""

from __future__ import annotations

from dataclasses import dataclass

from spadegym import contract
from spadegym.errors import PolicyError, ProgramError
from spadegym.policy.compiler import compile_module
from spadegym.policy.guards import new_globals


@dataclass
class LoadedProgram:
    """A program run once under the policy.

    Attributes:
        namespace: its globals after the module-level code ran.
        env_class: the environment class (``spadegym.contract.environment_class``).
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
        The namespace and the environment class: the one public class whose name ends in
        "Env" among the classes the program defines at top level.

    Raises:
        PolicyError: the program breaks the policy, or defines no or several Env classes.
        ProgramError: the module-level code raised (``kind="exception"``).
    """
    code, class_names = compile_module(source, filename)
    try:
        name = contract.environment_class(class_names)
    except ValueError as exc:
        raise PolicyError([str(exc)]) from None
    namespace = new_globals()
    module_name = namespace["__name__"]
    try:
        exec(code, namespace)
    except Exception as exc:
        raise ProgramError(
            f"{_program_line(exc, filename)}loading the program raised {type(exc).__name__}: {exc}",
            kind="exception",
        ) from exc
    cls = namespace.get(name)
    if not isinstance(cls, type) or cls.__module__ != module_name or cls.__name__ != name:
        raise PolicyError(
            [f"the name {name} no longer holds the class {name} after loading; do not rebind it"]
        )
    return LoadedProgram(namespace=namespace, env_class=cls, class_name=name)
