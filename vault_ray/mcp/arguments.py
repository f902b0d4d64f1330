"""How a tool's arguments are checked, and how a refusal reads.

The SDK validates the arguments against each tool's input schema before the tool runs;
`strict` makes that check the REST API's (no argument the tool does not take, no true or
false for a number). A refusal is the tree's `InvalidInput` on one line, as the REST API
words a body that does not fit (`invalid request: k: ...`): where and why, never the value
sent, instead of pydantic's report (several lines, the value echoed, a link to its docs).
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, ValidationError, model_validator

from ..errors import InvalidInput


def strict(tool: Any) -> None:
    """A tool's arguments checked as the REST API checks a body: an argument the tool does
    not take is refused (it ignored `agent` in `remember`: the write went out under the
    server's agent, unsaid), and so is true or false for a number (`k=true` read as 1).
    A number sent as a string ("3") or as 3.0 is still read, as models often send them."""
    loose = tool.fn_metadata.arg_model
    config = ConfigDict(**{**loose.model_config, "extra": "forbid"})
    numbers = [name for name, f in loose.model_fields.items() if f.annotation in (int, float)]

    def no_bool_numbers(cls: type, data: Any) -> Any:
        for name in numbers:
            if isinstance(data, dict) and isinstance(data.get(name), bool):
                raise ValueError(f"{name}: {str(data[name]).lower()} is no number")
        return data

    tool.fn_metadata.arg_model = type(loose.__name__, (loose,), {
        "model_config": config, "__module__": loose.__module__,
        "_no_bool_numbers": model_validator(mode="before")(classmethod(no_bool_numbers))})
    tool.parameters["additionalProperties"] = False


def invalid_arguments(exc: ValidationError, takes: list[str]) -> InvalidInput:
    """`exc` (the arguments did not fit the input schema of a tool taking `takes`) as one line:
    `invalid arguments: text: missing (a required argument); agent: no such argument (...)`."""
    return InvalidInput("invalid arguments: " + "; ".join(_problem(e, takes) for e in exc.errors()))


def _problem(error: Any, takes: list[str]) -> str:
    where = ".".join(str(part) for part in error.get("loc", ()))
    kind = error.get("type", "")
    if kind == "missing":
        why = "missing (a required argument)"
    elif kind == "extra_forbidden":
        why = f"no such argument (this tool takes {', '.join(takes) or 'no arguments'})"
    else:  # pydantic's own words, less its prefix for a validator's ValueError
        why = str(error.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {why}" if where else why
