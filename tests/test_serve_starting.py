"""`vault-ray serve` starts without Ray Serve's 'Connecting to existing Serve app' INFO line (its own
`serve.run` finding the Serve that `serve.start` made), and with every other line of Serve's
(actors/serve/starting.py)."""

from __future__ import annotations

import inspect
import logging

from vault_ray.actors.serve.starting import RECONNECT, SERVE_LOGGER, quiet_reconnect_line

LINE = 'Connecting to existing Serve app in namespace "serve". New http_options/controller_options will not be applied.'


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_the_line_matched_is_the_one_the_installed_ray_serve_logs():
    from ray.serve._private import api
    from ray.serve._private.constants import SERVE_LOGGER_NAME

    assert SERVE_LOGGER_NAME == SERVE_LOGGER
    assert api.logger.name == SERVE_LOGGER
    assert RECONNECT in inspect.getsource(api.serve_start)


def test_only_that_info_line_is_dropped_and_only_inside_the_block():
    logger = logging.getLogger(SERVE_LOGGER)
    kept, level = Kept(), logger.level
    logger.addHandler(kept)
    logger.setLevel(logging.DEBUG)
    try:
        with quiet_reconnect_line():
            logger.info(LINE)
            logger.info('Application "vault-ray" is ready at http://127.0.0.1:8000/.')
            logger.warning("The new client HTTP config differs from the existing one in the following fields: "
                           "['port']. The new HTTP config is ignored.")
            logger.error(LINE)  # not the INFO line: an error is never hidden
        logger.info(LINE)  # outside the block (our own serve.start meeting a running Serve): kept
    finally:
        logger.removeHandler(kept)
        logger.setLevel(level)
    assert kept.lines[0].startswith("Application")
    assert "HTTP config differs" in kept.lines[1]
    assert kept.lines[2:] == [LINE, LINE]
    assert not logger.filters  # the filter went with the block
