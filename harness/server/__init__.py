"""The scripted-model server (X-64): OpenAI-compatible, loopback only (Q-22), with injectable
latency and faults, so litellm's real HTTP path, retries and concurrency are tested offline."""

from ._config import FAULT_KINDS, LOOPBACK, FaultKind, ServerConfig, parse_fault_kinds, parse_fault_schedule
from ._run import ScriptedServer, fetch_stats, running_server, serve_forever

__all__ = [
    "FAULT_KINDS",
    "LOOPBACK",
    "FaultKind",
    "ScriptedServer",
    "ServerConfig",
    "fetch_stats",
    "parse_fault_kinds",
    "parse_fault_schedule",
    "running_server",
    "serve_forever",
]
