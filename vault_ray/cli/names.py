"""The command line's own names in the library's messages. The library names the Python parameter
it checked (`decided_by must name who decided`, `keep_both=True`); a user of `vault-ray resolve` typed
`--by` and `--keep-both`, so each message of a command is said with the names of that command's options
(and arguments: `dispute_id` is DISPUTE_ID), read from the command's own signature. Only the words that
are the parameter are changed: a snake_case name wherever it stands, a one-word name (`winner`, `k`,
`since`) where it is what the message is about (starting a clause, before "must", "is", "needs", "has")."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from typing import Any

from typer.models import ArgumentInfo, OptionInfo

PHRASES = (  # the library's own wording of a choice between two parameters, said as the options
    (re.compile(r"name a winner claim id, or keep every value \(keep_both=True; --keep-both in the CLI\)"),
     "give --winner CLAIM_ID, or --keep-both to keep every value"),
    (re.compile(r"\bgive a winner or keep_both, not both: winner\b"), "give --winner or --keep-both, not both: --winner"),
)
SUBJECT = r"(?:^|(?<=: )|(?<=; )|(?<=, )){name}(?= (?:must|is|needs|has)\b)"
"""A one-word parameter where it is what a clause is about: "k must be", "since is"."""


def command_line_names(fn: Callable[..., Any]) -> dict[str, str]:
    """{Python parameter: what the command line calls it} for a command function: an option's long
    flag (`decided_by` -> `--by`), an argument's metavar (`dispute_id` -> `DISPUTE_ID`); only the ones
    that differ."""
    names: dict[str, str] = {}
    for name, param in inspect.signature(fn).parameters.items():
        info = param.default
        if isinstance(info, OptionInfo):
            decls = [d for d in (info.param_decls or ()) if d.startswith("-")]
            typed = next((d for d in decls if d.startswith("--")), decls[0] if decls else "--" + name.replace("_", "-"))
        elif isinstance(info, ArgumentInfo):
            typed = (info.metavar or name).upper()
        elif info is inspect.Parameter.empty:  # typer makes a parameter without a default an argument
            typed = name.upper()
        else:  # and one with a plain default an option
            typed = "--" + name.replace("_", "-")
        if typed != name:
            names[name] = typed
    return names


def as_typed(message: str, names: Mapping[str, str]) -> str:
    """`message` with the Python parameters in `names` said as the command line's options."""
    if not names:
        return message
    for pattern, said in PHRASES:
        if {"winner", "keep_both"} <= names.keys():
            message = pattern.sub(said, message)
    for name, typed in sorted(names.items(), key=lambda item: -len(item[0])):  # decided_by before by
        if "_" in name:  # an identifier: nothing else is written so
            message = re.sub(rf"(?<![\w.\-'/]){re.escape(name)}(?:=True)?(?![\w\-/])", typed, message)
        else:
            message = re.sub(SUBJECT.format(name=re.escape(name)), typed, message)
    return message.replace(" or None, got ", ", got ")  # None is Python's: an option left out
