"""Stopping Ray Serve (`vault-ray serve` on Ctrl-C or SIGTERM, `vault-ray down`) without Ray's
one known line of noise.

`serve.shutdown()` asks the Serve controller to stop and waits on its `graceful_shutdown` task,
which by design never returns: the controller tears the apps and proxies down in its control loop,
then kills itself with `ray.kill(no_restart=True)`, and the waiting call ends on the
`RayActorError` that `ServeClient.shutdown` catches (ray/serve/_private/controller.py
`graceful_shutdown` and `shutdown`, client.py `shutdown`). The controller is made with
`max_task_retries=-1` (default_impl.py `get_controller_impl`), so the caller's core worker
reports the task cut short by that kill as a retry, an error pushed to the driver, whose
`listen_error_messages` thread prints it as "(raylet) Task ServeController.graceful_shutdown
failed. There are infinite retries remaining, so the task will be retried. Error: The actor is
dead because it was killed by `ray.kill`." (Ray 2.60). Serve has stopped by then: the line is
Ray's own race, not a stop cut short, so that one line is dropped (`quiet_shutdown_line`);
every other line Ray prints goes on as it came.
"""

from __future__ import annotations

from typing import Any

MARK = "vault_ray_quiet_serve_shutdown"
TASK = "ServeController.graceful_shutdown failed"
CAUSE = "killed by `ray.kill`"


def is_shutdown_noise(data: dict[str, Any], line: str) -> bool:
    """The line Ray prints for the controller's own end of a normal Serve shutdown."""
    return data.get("pid") == "raylet" and TASK in line and CAUSE in line


def quiet_shutdown_line() -> None:
    """Drop that line from what Ray prints on this driver, from now on (once per process): the
    line comes from a thread of Ray's, after `serve.shutdown()` has returned or just before."""
    from ray._private import worker  # noqa: PLC0415  (the printer of Ray's error messages: no public hook)

    printer = getattr(worker, "print_to_stdstream", None)
    if printer is None or getattr(printer, MARK, False):  # another Ray (nothing to wrap), or wrapped already
        return

    def print_to_stdstream(data: Any, *args: Any, **kwargs: Any) -> Any:
        lines = data.get("lines") if isinstance(data, dict) else None
        if isinstance(lines, list) and any(isinstance(x, str) and is_shutdown_noise(data, x) for x in lines):
            kept = [x for x in lines if not (isinstance(x, str) and is_shutdown_noise(data, x))]
            if not kept:
                return None
            data = {**data, "lines": kept}
        return printer(data, *args, **kwargs)

    setattr(print_to_stdstream, MARK, True)
    worker.print_to_stdstream = print_to_stdstream


def shutdown_serve() -> None:
    """`serve.shutdown()`: every app, the proxies and the controller, gone when it returns,
    without the line above."""
    from ray import serve  # noqa: PLC0415

    quiet_shutdown_line()
    serve.shutdown()
