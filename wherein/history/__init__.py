"""History: recall your own agent conversations, quoted verbatim, on this machine only.

The MCP prompt lives in `wherein.history.prompt` and is not re-exported here: importing the
SDK costs about a second, and `wherein history search` does not need it.
"""

from wherein.errors import HistoryMissing, NoLocalEmbedder
from wherein.history.embedder import local_embedder
from wherein.history.records import Conversation, Message
from wherein.history.refresh import HistorySummary, index_history
from wherein.history.search import HistoryResult, Quotation, search_history
from wherein.history.store import history_index_path
from wherein.history.transcripts import Transcript, find_transcripts, read_conversation

__all__ = [
    "Conversation",
    "HistoryMissing",
    "HistoryResult",
    "HistorySummary",
    "Message",
    "NoLocalEmbedder",
    "Quotation",
    "Transcript",
    "find_transcripts",
    "history_index_path",
    "index_history",
    "local_embedder",
    "read_conversation",
    "search_history",
]
