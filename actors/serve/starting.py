"""Starting Ray Serve (`vault-ray serve`, `deployment.start`) without Ray's one known line of noise.

`start` calls `serve.start(http_options=...)` (the host and port are set only there), then
`serve.run(app)`. `serve.run` starts Serve again without options (ray/serve/api.py `run` ->
_private/api.py `serve_start`), finds the controller `serve.start` made a moment before, and logs
at INFO on the "ray.serve" logger: 'Connecting to existing Serve app in namespace "serve". New
http_options/controller_options will not be applied.' (Ray 2.60). It gave no options, so nothing
was left unapplied: the line reads like a problem and is none. It is dropped while that `serve.run`
runs (`quiet_reconnect_line`), and only it: the same line from our `serve.start` (a Serve already
running on the cluster, whose port wins) is kept, and so are every warning and error of Serve's,
the "HTTP config differs" warning included.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

SERVE_LOGGER = "ray.serve"  # ray.serve._private.constants.SERVE_LOGGER_NAME
RECONNECT = "Connecting to existing Serve app"


class ReconnectLine(logging.Filter):
    """Drops the INFO record of `serve_start` finding the controller; passes every other record."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno == logging.INFO and record.getMessage().startswith(RECONNECT))


@contextmanager
def quiet_reconnect_line() -> Iterator[None]:
    """While the block runs, the "ray.serve" logger drops that one INFO line (see above)."""
    logger = logging.getLogger(SERVE_LOGGER)
    line = ReconnectLine()
    logger.addFilter(line)
    try:
        yield
    finally:
        logger.removeFilter(line)
