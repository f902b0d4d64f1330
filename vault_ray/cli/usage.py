"""Usage errors (an unknown option or command, a missing argument, a bad choice, a value of
the wrong type) in one line on stderr, as every other error of the command line: what Click
found wrong, then where to read the command's options. The exit code stays Click's (2)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from .common import print_error

try:  # typer 0.2x carries its own copy of Click, whose errors these are
    from typer._click.exceptions import NoArgsIsHelpError, UsageError
except ImportError:  # an older typer runs on Click itself
    from click.exceptions import NoArgsIsHelpError, UsageError

PROG = "vault-ray"


class OneLineUsage(TyperGroup):
    """The root group: a usage error of any command under it (parsed in `invoke`, where each
    subcommand, a group's too, makes its context) or of the root itself (`make_context`). Every
    text value of every command under it is refused empty (`refuse_empty`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        refuse_empty(self)

    def make_context(self, info_name: str | None, args: Sequence[str] | Any, parent: Any = None,
                     **extra: Any) -> Any:
        with one_line_usage(PROG):
            return super().make_context(info_name, list(args), parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        typed = [*getattr(ctx, "_protected_args", ()), *ctx.args]  # the group's invoke empties them
        with one_line_usage(self.command_named(typed)):
            return super().invoke(ctx)

    def command_named(self, typed: list[str]) -> str:
        """`vault-ray token add`: the (sub)command the arguments name, for an error that carries no
        context of its own (Click's "option '--store' requires an argument")."""
        names, cmd = [PROG], self
        for word in typed:
            cmd = getattr(cmd, "commands", {}).get(word)
            if cmd is None:
                break
            names.append(word)
        return " ".join(names)


def refuse_empty(command: Any) -> None:
    """An empty (or blank) value typed for an option or argument that takes text or a path is a usage
    error naming it ("--since is empty"), never read as the option left out (`--address ""` asking
    for --store), as the current directory (`--out ""`) or as something else; one whose default is
    the empty string (`--note`) takes it, as its default. On every command under `command`."""
    for sub in getattr(command, "commands", {}).values():
        refuse_empty(sub)
    for param in getattr(command, "params", ()):
        if param.nargs == 1 and not param.multiple and param.default != "" and _takes_text(param):
            param.process_value = partial(_not_empty, param, param.process_value)


def _takes_text(param: Any) -> bool:
    """Whether `param` takes a text or a path (typer's own parameters say so in their type
    descriptor, Click's in their type)."""
    desc = getattr(param, "type_descriptor", None)
    if desc is None:
        return getattr(param.type, "name", None) in ("text", "path")
    return desc.annotation in (str, Path) or desc.is_path


def _not_empty(param: Any, cast: Callable[[Any, Any], Any], ctx: Any, value: Any) -> Any:
    if isinstance(value, str) and not value.strip():
        name = next((o for o in param.opts if o.startswith("--")), None) or f"argument {(param.metavar or param.name).upper()}"
        how = "empty" if not value else "blank (only spaces)"
        left_out = "" if param.required or param.param_type_name == "argument" else ", or leave the option out"
        raise UsageError(f"{name} is {how}: give a value{left_out}", ctx)
    return cast(ctx, value)


@contextmanager
def one_line_usage(command: str) -> Iterator[None]:
    try:
        yield
    except NoArgsIsHelpError:  # `vault-ray token` alone: its help, as Click prints it
        raise
    except UsageError as exc:
        print_error(usage_line(exc, command))
        raise typer.Exit(exc.exit_code) from None


def usage_line(exc: UsageError, command: str) -> str:
    """"no such option: --stor (Possible options: --store); see `vault-ray get --help`": Click's
    message on one line, its first letter lowered as our messages begin."""
    said = " ".join(exc.format_message().split()).rstrip(".")
    said = said[:1].lower() + said[1:]
    return f"{said}; see `{command_path(exc.ctx) if exc.ctx is not None else command} --help`"


def command_path(ctx: Any) -> str:
    """`vault-ray token add`: the command as typed, whatever name the root was run under
    (`python -m vault_ray.cli`, a test's runner)."""
    names: list[str] = []
    while ctx is not None and ctx.parent is not None:
        names.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    return " ".join([PROG, *filter(None, names)])
