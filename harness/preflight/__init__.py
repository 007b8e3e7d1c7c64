"""Provider preflight (P-80): what a model's provider makes of a group's requests, before any call.

The verdicts come from the bodies litellm builds for the group's first request and for a tool loop in
progress (``harness.wire``, offline, keys redacted) and the table of provider rules on the model's route,
each with its source and date: whether the provider rejects the request (400), reads its trailing assistant
message as a prefill or a finished message before a new turn, merges the state message into another turn,
or whether no rule says (``unknown``); each names the state message's treatment. The runner holds back a
group the provider is known to reject, ``harness run --dry-run`` and ``harness render --model`` print the
verdicts, report.json keeps them. On a loopback ``api_base`` the local server is asked how it renders each
request (``_server``): its chat template, not a table, says whether the state message is a prefill, a
finished message before a new turn, or refused.
"""

from ._check import FLAGGED, TREATMENT_ORDER, Preflight, RequestCheck, check_request, preflight, returned_reasoning
from ._request import LOOP_CALL_ID, first_request, last_role, tool_loop_request
from ._server import LocalServer, Rendering, ServerInfo, local_server

__all__ = ["FLAGGED", "LOOP_CALL_ID", "TREATMENT_ORDER", "LocalServer", "Preflight", "Rendering", "RequestCheck",
           "ServerInfo", "check_request", "first_request", "last_role", "local_server", "preflight",
           "returned_reasoning", "tool_loop_request"]
