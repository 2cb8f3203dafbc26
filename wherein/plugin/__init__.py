"""The agent surface: the `recall` MCP tool, its schemas and presentation, the usage meter.

The MCP server itself is `wherein.plugin.server` (`create_server`, `serve`); it is not
re-exported here, because importing the SDK costs about a second and the usage meter's
readers should not pay it.
"""

from wherein.plugin.session import RecallSession
from wherein.plugin.tool import RecallOutcome, run_recall
from wherein.plugin.usage import UsageMeter

__all__ = [
    "RecallOutcome",
    "RecallSession",
    "UsageMeter",
    "run_recall",
]
