"""``spadegym add | list | show | play | remove | verify | export | import``: the registry.

Reading commands (``list``, ``show``, ``play``, ``export``) look through every root in order
(the shipped library, the user's root, ``SPADEGYM_REGISTRY_PATH``) unless ``--root`` names one;
writing commands (``add``, ``remove``, ``import``) write the user's root unless ``--root``
names another. ``verify --fix --root registry/`` (re)builds the manifests of a folder of
``<Name>-v<N>/env.py`` programs.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from typing import Any

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
    add.add_argument("--no-memory", action="store_true", help="skip the novelty check")
    add.set_defaults(func=run_add)

    listing = subparsers.add_parser("list", parents=[root], help="list registered environments")
    listing.add_argument("--skill", default=None, help="only this skill")
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

    show = subparsers.add_parser("show", parents=[root], help="print a manifest and its program")
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
    play.add_argument("--seed", type=int, default=0, help="the instance to play (default 0)")
    play.add_argument("--hint", action="store_true", help="show the hint after the reset")
    play.add_argument("--difficulty", type=int, default=None, help="options={'difficulty': N}")
    play.set_defaults(func=run_play)

    remove = subparsers.add_parser("remove", parents=[root], help="remove an environment")
    remove.add_argument("id", metavar="ID")
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
    verify.set_defaults(func=run_verify)

    export = subparsers.add_parser("export", parents=[root], help="pack environments as .tar.gz")
    export.add_argument("ids", nargs="+", metavar="ID")
    export.add_argument("-o", "--output", type=Path, required=True, metavar="FILE")
    export.set_defaults(func=run_export)

    imp = subparsers.add_parser(
        "import", parents=[root], help="validate and add the environments of a bundle"
    )
    imp.add_argument("bundle", type=Path, metavar="FILE")
    imp.add_argument("--no-memory", action="store_true", help="skip the novelty check")
    imp.add_argument("--memory", type=Path, default=None, metavar="PATH")
    imp.set_defaults(func=run_import)


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
    """The first registry's environment ``env_id``; raises the error of the first root."""
    from spadegym.registry import RegistryError

    first: RegistryError | None = None
    for registry in _registries(args):
        try:
            return registry.get(env_id)
        except RegistryError as exc:
            first = first or exc
    raise first or RegistryError(
        f"{env_id!r}: there is no registry folder yet; add an environment with `spadegym add FILE`."
    )


def _memory(args: argparse.Namespace) -> tuple[Any, str]:
    """The memory for novelty checks, or None and why it was skipped."""
    if args.no_memory:
        return None, "--no-memory"
    try:
        from spadegym.memory.default import open_memory

        memory = open_memory(args.memory)  # a new one starts with the shipped library
        memory.embedder.embed(["probe"])  # loads the model now, so a missing one is said here
        return memory, ""
    except Exception as exc:  # optional: missing deps or model files must not block adding
        return None, f"{type(exc).__name__}: {exc}"


def run_add(args: argparse.Namespace) -> int:
    """Validate and add each file; print its id."""
    from spadegym.registry import DuplicateEnvironmentError, RegistryError, RejectedProgramError

    if args.new_version_of and len(args.files) != 1:
        return _fail("add", "--new-version-of takes exactly one FILE.", 2)
    memory, why = _memory(args)
    if memory is None:
        print(f"spadegym add: skipped the novelty check ({why}).", file=sys.stderr)
    registry = _writer(args)
    provenance = {
        "designer": args.designer,
        "document_id": args.document,
        "parents": args.parent,
        "origin": "add",
    }
    failed = 0
    for path in args.files:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            failed += _fail("add", f"cannot read {path}: {exc}")
            continue
        try:
            env_id = registry.add(
                text, provenance=provenance, memory=memory, version_of=args.new_version_of
            )
        except RejectedProgramError as exc:
            failed += _fail("add", f"{path} was rejected:\n{exc.report.feedback()}")
            continue
        except (DuplicateEnvironmentError, RegistryError) as exc:
            failed += _fail("add", f"{path}: {exc}")
            continue
        print(terminal(f"{env_id}  {path}"))
    return 1 if failed else 0


def run_list(args: argparse.Namespace) -> int:
    """Print the environments of every root (earlier roots shadow later ones)."""
    rows, seen, skipped = [], set(), []
    for registry in _registries(args):
        for entry in registry.list(skill=args.skill, kind=args.kind):
            if entry.id not in seen:
                seen.add(entry.id)
                rows.append((entry, registry.root))
        skipped += [(registry.root / name, why) for name, why in registry.skipped().items()]
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
            )
        )
    elif args.markdown:
        print("| id | skill | kind | title | turns |\n| --- | --- | --- | --- | --- |")
        for e, _ in rows:
            title = e.title.replace("|", "\\|")
            print(terminal(f"| `{e.id}` | {e.skill or ''} | {e.kind} | {title} | {e.max_turns} |"))
    else:
        width = max([len(e.id) for e, _ in rows] + [2])
        for e, _ in rows:
            print(
                terminal(
                    f"{e.id.ljust(width)}  {(e.skill or '-')[:24]:24}  {e.kind:10}  "
                    f"{e.max_turns:3}  {e.title}"
                )
            )
        print(
            f"\n{len(rows)} environments"
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
        print(
            terminal(
                f"== {env.title} ({found.id}, seed {args.seed}, at most {env.max_turns} turns)"
            )
        )
        print("Type one reply per line; :quit stops.\n")
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
    """Remove one environment from the user's root (or ``--root``)."""
    from spadegym.registry import RegistryError

    try:
        env_id = _writer(args).remove(args.id)
    except RegistryError as exc:
        return _fail("remove", str(exc))
    print(f"removed {env_id}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    """Verify (and with --fix, repair) every folder of the roots."""
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
    if bad and not args.fix:
        print(
            f"Run `spadegym verify --fix{''.join(f' --root {r}' for r in roots)}` to "
            "re-validate and rewrite the manifests.",
            file=sys.stderr,
        )
    return 1 if bad else 0


def run_export(args: argparse.Namespace) -> int:
    """Pack the environments (found in any root) into a bundle."""
    from spadegym.registry import RegistryError
    from spadegym.registry.bundle import export_bundle

    try:
        envs = [_find(args, env_id) for env_id in args.ids]
        by_root: dict[Path, list[str]] = {}
        for env in envs:
            by_root.setdefault(env.root, []).append(env.id)
        if len(by_root) > 1:
            return _fail(
                "export", "the ids live in several roots; export them from one --root at a time."
            )
        from spadegym.registry import Registry

        ((root, env_ids),) = by_root.items()
        path = export_bundle(Registry(root), env_ids, args.output)
    except RegistryError as exc:
        return _fail("export", str(exc))
    print(f"wrote {len(envs)} environments to {path}")
    return 0


def run_import(args: argparse.Namespace) -> int:
    """Check, validate and add a bundle's environments."""
    from spadegym.registry import RegistryError

    memory, why = _memory(args)
    if memory is None:
        print(f"spadegym import: skipped the novelty check ({why}).", file=sys.stderr)
    try:
        env_ids = _writer(args).import_(args.bundle, memory=memory)
    except RegistryError as exc:  # RejectedProgramError included: its message has the feedback
        return _fail("import", str(exc))
    for env_id in env_ids:
        print(env_id)
    return 0
