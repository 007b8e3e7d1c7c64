"""Provider preflight (P-80): what a model's provider makes of a group's requests, before any call.

The verdicts come from the body litellm builds for the group's first request (``harness.wire``,
offline, keys redacted) and the table of provider rules, each with its source and date: whether the
provider rejects the request (400), reads its trailing assistant message as a prefill, or merges the
state message into another turn. The runner holds back a group the provider is known to reject,
``harness run --dry-run`` and ``harness render --model`` print the verdicts, report.json keeps them.
On a loopback ``api_base`` the local server is asked how it renders each request (``_server``): its chat
template, not a table, says whether the state message is a prefill, a finished message before a new
turn, or refused.
"""

from ._check import FLAGGED, Preflight, preflight
from ._request import first_request, last_role
from ._server import LocalServer, Rendering, ServerInfo, local_server

__all__ = ["FLAGGED", "LocalServer", "Preflight", "Rendering", "ServerInfo", "first_request", "last_role",
           "local_server", "preflight"]
