"""The one way clients (batch, regress, the GUI server, the arena) run engine processes."""

from client.engine import (
    ENGINE_DEFAULT,
    TEMPORARY,
    Engine,
    EngineDied,
    Failure,
    Logs,
    Response,
    command_line,
)

__all__ = [
    "ENGINE_DEFAULT",
    "TEMPORARY",
    "Engine",
    "EngineDied",
    "Failure",
    "Logs",
    "Response",
    "command_line",
]
