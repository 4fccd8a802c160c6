"""``spadegym add | list | show | play | remove | verify | export | import``: the registry.

Reading commands (``list``, ``show``, ``play``, ``export``) look through every root in order
(the shipped library, the user's root, ``SPADEGYM_REGISTRY_PATH``) unless ``--root`` names one;
writing commands (``add``, ``remove``, ``import``) write the user's root unless ``--root``
names another. ``verify --fix --root registry/`` (re)builds the manifests of a folder of
``<Name>-v<N>/env.py`` programs.
"""

from __future__ import annotations

import argparse
import errno
import sys
import textwrap
from pathlib import Path
from typing import Any

from spadegym.cli import arguments
from spadegym.cli.output import dumps, terminal


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Add the registry commands."""
    root = argparse.ArgumentParser(add_help=False)
    root.add_argument(
        "--root",
        type=Path,
        default=None,
        metavar="PATH",
        help="one registry folder (default: every root to read, the user's root to write)",
    )

    add = subparsers.add_parser(
        "add",
        parents=[root],
        help="validate programs and add them to the registry",
        description="Validate each program and add it to the registry (the user's root by "
        "default). The same program twice keeps its id; a different program under a "
        "taken name gets a new name. Exit 1 if any file was not added.",
    )
    add.add_argument("files", nargs="+", metavar="FILE", help="program or raw reply files")
    add.add_argument(
        "--new-version-of",
        default=None,
        metavar="ID",
        help="add the (single) program as the next version of ID",
    )
    add.add_argument("--designer", default=None, help="the designer model, for provenance")
    add.add_argument("--document", default=None, help="the grounding document id")
    add.add_argument(
        "--parent",
        action="append",
        default=[],
        metavar="ID",
        help="an environment this one derives from (repeatable)",
    )
    add.add_argument(
        "--memory",
        type=Path,
        default=None,
        metavar="PATH",
        help="memory for the novelty check (default: $SPADEGYM_HOME/memory)",
    )
    add.add_argument(
        "--no-memory",
        action="store_true",
        help="skip the novelty check (and do not record the programs in the memory)",
    )
    add.set_defaults(func=run_add)

    listing = subparsers.add_parser(
        "list",
        parents=[root],
        help="list registered environments",
        description="List the environments of every registry root (the shipped library, "
        "$SPADEGYM_HOME/registry, SPADEGYM_REGISTRY_PATH), earlier roots first: id, skill, "
        "kind, turn limit and title. Filter with --skill and --kind.",
    )
    listing.add_argument("--skill", type=arguments.skill, default=None, help="only this skill")
    listing.add_argument("--kind", default=None, choices=("puzzle", "tool", "two_player"))
    form = listing.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print a JSON array")
    form.add_argument(
        "--markdown",
        action="store_true",
        help="print a Markdown table: id | skill | kind | title | turns",
    )
    listing.add_argument(
        "-v", "--verbose", action="store_true", help="also list folders skipped, with the reason"
    )
    listing.set_defaults(func=run_list)

    show = subparsers.add_parser(
        "show",
        parents=[root],
        help="print a manifest and its program",
        description="Print an environment's manifest (title, skill, kind, sha256, "
        "provenance, validation, statistics) and then its program.",
    )
    show.add_argument("id", metavar="ID")
    show.set_defaults(func=run_show)

    play = subparsers.add_parser(
        "play",
        parents=[root],
        help="play an environment in the terminal",
        description="Play an environment: type one reply per line and read the observations, "
        "rewards and the outcome. :quit (or end of input) stops.",
    )
    play.add_argument("id", metavar="ID")
    play.add_argument(
        "--seed",
        type=arguments.seed,
        default=0,
        help="the instance to play, an int >= 0 (default 0)",
    )
    play.add_argument("--hint", action="store_true", help="show the hint after the reset")
    play.add_argument(
        "--difficulty",
        type=arguments.difficulty,
        default=None,
        help="options={'difficulty': N}, 1..5",
    )
    play.set_defaults(func=run_play)

    remove = subparsers.add_parser(
        "remove",
        parents=[root],
        help="remove an environment",
        description="Remove an environment from the user's registry (or --root): its folder "
        "is deleted and its id unregistered.",
    )
    remove.add_argument("id", metavar="ID")
    _memory_options(remove, "the memory that forgets it too")
    remove.set_defaults(func=run_remove)

    verify = subparsers.add_parser(
        "verify",
        help="check manifests and program hashes; --fix re-validates and rewrites",
        description="Check every folder of the roots: a valid manifest, and a program whose "
        "sha256 matches it. --fix re-validates each failing env.py and, if it passes, "
        "writes its manifest. Exit 1 if any folder is still not a valid entry.",
    )
    verify.add_argument(
        "--root",
        type=Path,
        action="append",
        default=None,
        metavar="PATH",
        help="a root to verify (repeatable; default: every root)",
    )
    verify.add_argument("--fix", action="store_true", help="re-validate and rewrite manifests")
    verify.add_argument("--workers", type=int, default=2, help="validations at once")
    _memory_options(verify, "the memory to compare with the roots (--fix brings it in step)")
    verify.set_defaults(func=run_verify)

    export = subparsers.add_parser(
        "export",
        parents=[root],
        help="pack environments as .tar.gz",
        description="Pack environments (their programs and manifests) into one .tar.gz "
        "bundle, which `spadegym import` validates and adds elsewhere.",
    )
    export.add_argument("ids", nargs="+", metavar="ID")
    export.add_argument("-o", "--output", type=Path, required=True, metavar="FILE")
    export.set_defaults(func=run_export)

    imp = subparsers.add_parser(
        "import",
        parents=[root],
        help="validate and add the environments of a bundle",
        description="Check a bundle made by `spadegym export`, validate every program in it, "
        "and add the valid, novel ones to the user's registry (or --root).",
    )
    imp.add_argument("bundle", type=Path, metavar="FILE")
    imp.add_argument("--no-memory", action="store_true", help="skip the novelty check")
    imp.add_argument("--memory", type=Path, default=None, metavar="PATH")
    imp.set_defaults(func=run_import)


def _memory_options(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--memory",
        type=Path,
        default=None,
        metavar="PATH",
        help=f"{what} (default: $SPADEGYM_HOME/memory, if it exists)",
    )
    parser.add_argument("--no-memory", action="store_true", help="leave the memory alone")


def _fail(command: str, message: str, code: int = 1) -> int:
    print(terminal(f"spadegym {command}: {message}"), file=sys.stderr)
    return code


def _registries(args: argparse.Namespace) -> list[Any]:
    """The registries to read: ``--root``, else every existing root, earliest first."""
    from spadegym.registry import Registry, default_roots

    roots = [args.root] if args.root is not None else default_roots()
    return [Registry(root) for root in roots if root.is_dir()]


def _writer(args: argparse.Namespace) -> Any:
    from spadegym.registry import Registry, default_roots

    if args.root is not None:
        return Registry(args.root, others=default_roots())
    return Registry.user()


def _find(args: argparse.Namespace, env_id: str) -> Any:
    """The first registry's environment ``env_id``.

    Raises:
        RegistryError: a root holds the id but cannot load it (that root's error), or no root
            holds it (the message names every root searched and the closest ids).
    """
    import difflib

    from spadegym.registry import RegistryError
    from spadegym.registry.ids import MAKE_HINT, parse_folder, parse_id

    parse_id(env_id)  # an id that cannot be one (a path) is said to be so
    registries = _registries(args)
    known: list[str] = []
    for registry in registries:
        if env_id in registry:
            return registry.get(env_id)  # a broken entry raises its own error here
        known += [entry.id for entry in registry.list()]
    if not registries:
        raise RegistryError(
            f"{env_id!r}: there is no registry folder yet; add an environment with "
            "`spadegym add FILE`."
        )
    try:
        name = parse_id(env_id)[0]
    except RegistryError:
        name = env_id
    by_name = {
        parsed[0]: k for k in reversed(known) if (parsed := parse_folder(k.split("/", 1)[1]))
    }
    close = [by_name[c] for c in difflib.get_close_matches(name, list(by_name), n=3, cutoff=0.6)]
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    roots = ", ".join(str(r.root) for r in registries)
    raise RegistryError(
        f"{env_id!r} is not in any registry root (searched {roots}).{hint} `spadegym list` "
        f"shows every id ({MAKE_HINT})."
    )


def _progress(line: str) -> None:
    print(f"spadegym: {line}", file=sys.stderr, flush=True)


def _memory(
    args: argparse.Namespace, command: str, *, create: bool = True, mirror: bool = True
) -> Any:
    """The memory of ``--memory`` (default: the user's), or None with ``--no-memory``.

    Args:
        args: the parsed command line.
        command: the command, for messages.
        create: make (and seed) the memory when it does not exist; otherwise None then.
        mirror: record the registered environments the memory lacks (``verify`` reports
            them instead).

    Raises:
        _MemoryUnusable: it cannot be opened; the message says why and names --no-memory.
    """
    if args.no_memory:
        return None
    from spadegym.errors import SpadegymError
    from spadegym.memory.default import default_memory_path, open_memory

    path = args.memory if args.memory is not None else default_memory_path()
    if not create and not (path / "memory.sqlite").exists():
        return None
    try:
        # A new one starts with the library, and any memory learns what it lacks of the roots.
        return open_memory(path, progress=_progress, roots=None if mirror else [])
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise _MemoryUnusable(
                f"the disk is full (ENOSPC), so the memory at {path} cannot be opened and "
                "nothing was done; free some space and run it again."
            ) from None
        raise _MemoryUnusable(
            f"the memory at {path} cannot be used: {exc}. Pass --no-memory to {command} without it."
        ) from None
    except SpadegymError as exc:
        raise _MemoryUnusable(
            f"the memory at {path} cannot be used: {exc}. Pass --no-memory to {command} without it."
        ) from None


class _MemoryUnusable(Exception):
    """The memory could not be opened; the message is the one line to print."""


def _read_program(path: str) -> tuple[str | None, str]:
    """The text of a program file, or None and what is wrong with it, in a few words."""
    file = Path(path)
    try:
        if file.exists() and not (file.is_file() or file.is_dir()):
            # A FIFO or a device: reading one can block forever.
            return None, "is not a regular file (a FIFO, socket or device); give a program file"
        data = file.read_bytes()
    except FileNotFoundError:
        return None, "no such file"
    except IsADirectoryError:
        return None, "is a folder, not a program file"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError as exc:
        return None, (
            f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); save it "
            "as UTF-8"
        )


def run_add(args: argparse.Namespace) -> int:
    """Check the files, validate them, then add each with the novelty check; print its id."""
    from spadegym.errors import SpadegymError
    from spadegym.registry import DuplicateEnvironmentError, RegistryError
    from spadegym.validation import validate_many

    if args.new_version_of and len(args.files) != 1:
        return _fail("add", "--new-version-of takes exactly one FILE.", 2)
    if args.root is not None and args.root.exists() and not args.root.is_dir():
        return _fail("add", f"--root {args.root} is not a folder; give a registry folder.", 2)
    failed = 0
    texts: dict[str, str] = {}
    for path in args.files:  # the cheap checks first: nothing heavy loads for a typo
        text, problem = _read_program(path)
        if text is None:
            failed += _fail("add", f"{path}: {problem}")
        else:
            texts[path] = text
    if not texts:
        return 1
    try:
        memory = _memory(args, "add")
    except _MemoryUnusable as exc:
        return _fail("add", str(exc))
    if memory is None:
        print("spadegym add: skipped the novelty check (--no-memory).", file=sys.stderr)
    registry = _writer(args)
    provenance = {
        "designer": args.designer,
        "document_id": args.document,
        "parents": args.parent,
        "origin": "add",
    }
    try:
        reports = validate_many(list(texts.values()), workers=min(2, len(texts)))
        for (path, text), report in zip(texts.items(), reports):
            if not report.ok:
                failed += _fail("add", f"{path} was rejected:\n{report.feedback()}")
                continue
            try:
                env_id = registry.add(
                    text,
                    report,
                    provenance,
                    memory=memory,
                    version_of=args.new_version_of,
                )
            except OSError as exc:  # a full disk: the registry says what was written
                return _fail("add", _write_failure(registry, path, report.program or text, exc))
            except DuplicateEnvironmentError as exc:
                # The library's message names the Python argument; here the flag does the job.
                message = str(exc).replace(
                    "use version_of= to make it",
                    f"pass --new-version-of {exc.duplicate_of} to make it",
                )
                failed += _fail("add", f"{path}: {message}")
                continue
            except RegistryError as exc:
                failed += _fail("add", f"{path}: {exc}")
                continue
            except SpadegymError as exc:  # the memory failed: nothing more can be checked
                return _fail(
                    "add",
                    f"{path} was not added: the novelty check failed ({exc}). Pass "
                    "--no-memory to add without it.",
                )
            print(terminal(f"{env_id}  {path}"))
    finally:
        if memory is not None:
            memory.close()
    return 1 if failed else 0


def _write_failure(registry: Any, path: str, text: str, exc: OSError) -> str:
    """One line for an add that met an operating-system error: added or not, and why."""
    why = "the disk is full (ENOSPC)" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
    try:
        env_id = registry.id_of(text)
    except Exception:  # the index cannot be read either: the add did not complete
        env_id = None
    if env_id is not None:
        return (
            f"{path} was added as {env_id}; finishing it met {why}: the memory and the index "
            "catch up at their next open"
        )
    return f"{path} was not added: {why}; nothing was written. Free some space and add it again."


def run_list(args: argparse.Namespace) -> int:
    """Print the environments of every root (earlier roots shadow later ones), broken ones marked.

    A broken entry is a folder named like an environment whose manifest cannot be used; it is
    listed with BROKEN and the reason's first line (``spadegym verify`` tells the rest).
    """
    from spadegym.registry import ids

    registries = _registries(args)
    if args.skill is not None:
        known = {e.skill for r in registries for e in r.list() if e.skill}
        if args.skill not in known:
            from spadegym.contract import SKILLS

            if args.skill not in SKILLS:
                return _fail(
                    "list",
                    f"no environment has the skill {args.skill!r}; the skills are "
                    f"{', '.join(sorted(known | set(SKILLS)))}.",
                )
    rows, seen, skipped, broken = [], set(), [], []
    for registry in registries:
        for entry in registry.list(skill=args.skill, kind=args.kind):
            if entry.id not in seen:
                seen.add(entry.id)
                rows.append((entry, registry.root))
        for name, why in registry.skipped().items():
            if ids.parse_folder(name) is not None and ids.gym_id(name) not in seen:
                broken.append((ids.gym_id(name), registry.root, why))
            else:
                skipped.append((registry.root / name, why))
    if args.json:
        print(
            dumps(
                [
                    {
                        "id": e.id,
                        "title": e.title,
                        "skill": e.skill,
                        "kind": e.kind,
                        "max_turns": e.max_turns,
                        "num_players": e.num_players,
                        "sha256": e.sha256,
                        "root": str(root),
                    }
                    for e, root in rows
                ]
                + [{"id": i, "root": str(root), "broken": why} for i, root, why in broken],
            )
        )
    elif args.markdown:
        print("| id | skill | kind | title | turns |\n| --- | --- | --- | --- | --- |")
        for e, _ in rows:
            title = e.title.replace("|", "\\|")
            print(terminal(f"| `{e.id}` | {e.skill or ''} | {e.kind} | {title} | {e.max_turns} |"))
    else:
        width = max([len(e.id) for e, _ in rows] + [len(i) for i, _, _ in broken] + [2])
        print(f"{'id'.ljust(width)}  {'skill':24}  {'kind':10}  {'turns':>5}  title")
        for e, _ in rows:
            print(
                terminal(
                    f"{e.id.ljust(width)}  {(e.skill or '-')[:24]:24}  {e.kind:10}  "
                    f"{e.max_turns:5}  {e.title}"
                )
            )
        for env_id, _, why in broken:
            print(f"{env_id.ljust(width)}  BROKEN: {why.splitlines()[0] if why else ''}")
        print(
            f"\n{len(rows)} environments"
            + (f", {len(broken)} broken (`spadegym verify` says why)" if broken else "")
            + (f", {len(skipped)} folders skipped (-v)" if skipped and not args.verbose else "")
        )
    if args.verbose:
        for path, why in skipped:
            print(terminal(f"skipped {path}: {why}"), file=sys.stderr)
    return 0


def run_show(args: argparse.Namespace) -> int:
    """Print the manifest, then the program."""
    from spadegym.registry import RegistryError

    try:
        env = _find(args, args.id)
        source = env.source()
    except RegistryError as exc:
        return _fail("show", str(exc))
    print(terminal(env.manifest.to_json()))
    floor = env.manifest.floor
    if floor is not None:
        by = env.manifest.validation.properties.get("floor_shortcut") or "a shortcut solver"
        print(
            terminal(
                f"# chance floor {floor:.2f} ({by}): what a solver scores without playing; "
                "read win rates against it"
            )
        )
    print(terminal(f"# {env.path / 'env.py'}"))
    print(terminal(source))
    return 0


def run_play(args: argparse.Namespace) -> int:
    """Play in the terminal: one reply a line, until the episode ends or input does."""
    from spadegym.errors import SpadegymError

    try:
        found = _find(args, args.id)
        env = found.make(on_error="terminate")
    except SpadegymError as exc:
        return _fail("play", str(exc))
    interactive = sys.stdin.isatty()
    try:
        options = {"difficulty": args.difficulty} if args.difficulty is not None else None
        obs, info = env.reset(seed=args.seed, options=options)
        # The game may end an episode sooner than max_turns (its own "Turn 0 of 4"): max_turns
        # is only the cap spadegym puts on every episode, so it is said as one.
        print(terminal(f"== {env.title} ({found.id}, seed {args.seed})"))
        print(
            "Type one reply per line; :quit stops. (spadegym ends the episode after "
            f"{env.max_turns} replies if the game has not ended it sooner.)\n"
        )
        print(terminal(obs))
        if args.hint:
            hint = env.hint()
            print(terminal(f"\nHint: {hint}") if hint else "\n(this environment has no hint)")
        while True:
            if "player" in info:
                print(terminal(f"[player {info['player']} to move]"))
            if interactive:
                print("> ", end="", flush=True)
            line = sys.stdin.readline()
            if not line or line.strip() in (":quit", ":q"):
                print("\n(stopped before the episode ended)")
                return 0
            obs, reward, terminated, truncated, info = env.step(line.rstrip("\r\n"))
            print(terminal(f"\n{obs}\n[reward {reward:g}]"))
            if terminated or truncated:
                how = "terminated" if terminated else f"truncated after {env.max_turns} turns"
                print(
                    f"\n== Episode over ({how}): outcome {info['episode_outcome']} in "
                    f"{info['episode_turns']} turns."
                )
                return 0
    finally:
        env.close()


def run_remove(args: argparse.Namespace) -> int:
    """Remove one environment from the user's root (or ``--root``), and from the memory."""
    from spadegym.errors import SpadegymError

    try:
        memory = _memory(args, "remove the environment", create=False)
    except _MemoryUnusable as exc:
        return _fail("remove", str(exc))
    registry = _writer(args)
    try:
        env_id = registry.remove(args.id, memory=memory)
    except SpadegymError as exc:
        return _fail("remove", str(exc))
    except OSError as exc:  # a full disk: the registry says whether the folder went
        why = "the disk is full (ENOSPC)" if exc.errno == errno.ENOSPC else str(exc)
        if args.id in registry:
            return _fail("remove", f"{args.id} was not removed: {why}.")
        return _fail(
            "remove",
            f"{args.id} was removed; finishing it met {why}: the memory forgets it at its "
            "next open",
        )
    finally:
        if memory is not None:
            memory.close()
    print(f"removed {env_id}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    """Verify (and with --fix, repair) every folder of the roots, then the memory against them."""
    from spadegym.registry import Registry, RegistryError, default_roots

    roots = args.root or [r for r in default_roots() if r.is_dir()]
    bad = 0
    for root in roots:
        try:
            results = Registry(root).verify(fix=args.fix, workers=max(1, args.workers))
        except (RegistryError, OSError) as exc:
            bad += _fail("verify", f"{root}: {exc}")
            continue
        for result in results:
            mark = "fixed" if result.fixed else "ok" if result.ok else "BROKEN"
            print(terminal(f"{mark:7} {result.id}"))
            if not result.ok:
                bad += 1
                print(terminal(textwrap.indent(result.problem, "        ")))
        ok = sum(r.ok for r in results)
        print(f"{root}: {ok} valid, {len(results) - ok} broken\n")
    bad += _verify_memory(args, roots)
    if bad and not args.fix:
        print(
            f"Run `spadegym verify --fix{''.join(f' --root {r}' for r in roots)}` to "
            "re-validate and rewrite the manifests and bring the memory in step.",
            file=sys.stderr,
        )
    return 1 if bad else 0


def _verify_memory(args: argparse.Namespace, roots: list[Path]) -> int:
    """Compare the memory with every root (``--fix`` brings it in step); 1 if it differs."""
    from spadegym.errors import SpadegymError
    from spadegym.registry import default_roots
    from spadegym.registry.memory_link import reconcile

    try:
        memory = _memory(args, "verify", create=args.fix, mirror=False)
    except _MemoryUnusable as exc:
        return _fail("verify", str(exc))
    if memory is None:
        return 0
    mirrored = list(dict.fromkeys([*default_roots(), *roots]))
    try:
        drift = reconcile(memory, mirrored, fix=args.fix)
    except SpadegymError as exc:
        return _fail("verify", f"the memory at {memory.path}: {exc}")
    finally:
        memory.close()
    if drift.clean:
        print(f"memory {memory.path}: in step with the registry")
        return 0
    if drift.fixed:
        print(f"memory {memory.path}: fixed: {drift.describe()}")
        return 0
    print(f"memory {memory.path}: BROKEN: {drift.describe()}")
    return 1


def run_export(args: argparse.Namespace) -> int:
    """Pack the environments (found in any root) into a bundle."""
    from spadegym.registry import Registry, RegistryError

    try:
        envs = [_find(args, env_id) for env_id in args.ids]
        by_root: dict[Path, list[str]] = {}
        for env in envs:
            by_root.setdefault(env.root, []).append(env.id)
        if len(by_root) > 1:
            return _fail(
                "export", "the ids live in several roots; export them from one --root at a time."
            )
        ((root, env_ids),) = by_root.items()
        path = Registry(root).export(env_ids, args.output)
    except RegistryError as exc:
        return _fail("export", str(exc))
    print(f"wrote {len(envs)} environments to {path}")
    return 0


def run_import(args: argparse.Namespace) -> int:
    """Check the bundle, then validate and add its environments."""
    from spadegym.errors import SpadegymError
    from spadegym.registry import RegistryError
    from spadegym.registry.bundle import read_bundle

    try:
        read_bundle(args.bundle)  # its format first: nothing heavy loads for a bad file
    except RegistryError as exc:
        return _fail("import", str(exc))
    try:
        memory = _memory(args, "import")
    except _MemoryUnusable as exc:
        return _fail("import", str(exc))
    if memory is None:
        print("spadegym import: skipped the novelty check (--no-memory).", file=sys.stderr)
    try:
        env_ids = _writer(args).import_(args.bundle, memory=memory)
    except RegistryError as exc:  # RejectedProgramError included: its message has the feedback
        return _fail("import", str(exc))
    except SpadegymError as exc:  # the memory failed
        return _fail(
            "import",
            f"the novelty check failed ({exc}); nothing was imported. Pass --no-memory to "
            "import without it.",
        )
    except OSError as exc:  # a full disk: what this import wrote was taken back
        why = "the disk is full (ENOSPC)" if exc.errno == errno.ENOSPC else str(exc)
        return _fail("import", f"nothing was imported: {why}. Free some space and run it again.")
    finally:
        if memory is not None:
            memory.close()
    for env_id in env_ids:
        print(env_id)
    return 0
