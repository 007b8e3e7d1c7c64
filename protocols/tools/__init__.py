"""The context tools (P-22 … P-28, P-73): catalog, argument schemas and handlers.

The dispatcher (``protocols._dispatch``) is the only caller of the handlers.
"""

from ._context import ToolContext
from ._frozen import ToolSchemas
from ._results import Compress, ToolRejected, Write, failure, success
from ._spec import COMPRESS_TOOL, ToolSpec, tool_named, tool_schemas, tool_schemas_json, tools_for

__all__ = [
    "COMPRESS_TOOL", "Compress", "ToolContext", "ToolRejected", "ToolSchemas", "ToolSpec", "Write", "failure",
    "success", "tool_named", "tool_schemas", "tool_schemas_json", "tools_for",
]
