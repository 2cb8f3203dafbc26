"""Structure-aware chunking: tree-sitter declarations, markdown headings, line windows."""

from wherein.chunking.chunker import Chunk, chunk_source
from wherein.chunking.generated import skip_reason

__all__ = ["Chunk", "chunk_source", "skip_reason"]
