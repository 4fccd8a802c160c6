"""Load a program: compile it, run its module-level code and find its environment class."""

from __future__ import annotations

from dataclasses import dataclass

from spadegym.errors import PolicyError, ProgramError
from spadegym.policy.compiler import compile_program
from spadegym.policy.guards import new_globals


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
            f"{_program_line(exc, filename)}loading the program raised {type(exc).__name__}: {exc}",
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
