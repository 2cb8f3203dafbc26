"""What each kind of agent's model reads of a search stays close to the excerpts themselves.

Claude Code and VS Code give the model `JSON.stringify(structuredContent)` and drop the text
content whenever structured content is present; other agents give it the text content. Both
must carry the answer, and neither may cost much more than the fenced excerpts: every field
beside `text` is read by a Claude Code model too (`scripts/measure_mcp.py` measures the same on
this repository's own tree).
"""

from __future__ import annotations

import json
import re

from tests.helpers import write_tree
from tests.plugin.conftest import run_session

# What each model may receive beyond the fenced block, at most, for a default 8-result search.
MAX_OVERHEAD = 1.15
TOPICS = "invoice refund coupon shipment customer ledger warehouse tax receipt payout".split()
OPEN = re.compile(r"^<repository-data ([0-9a-f]+)>$", re.M)


def _module(topic: str) -> str:
    """A module of the size and shape of real code: a docstring, strings, branches, a class."""
    return (
        f'"""Everything about one {topic}: loading it, checking it and saving it."""\n\n'
        "from __future__ import annotations\n\n"
        "import json\n"
        "import logging\n\n"
        "logger = logging.getLogger(__name__)\n\n\n"
        f"class {topic.title()}Store:\n"
        f'    """Keeps each {topic} as one JSON file, named by its id."""\n\n'
        "    def __init__(self, folder):\n"
        "        self.folder = folder\n\n"
        f"    def load_{topic}(self, ident):\n"
        f'        """Read the {topic} with this id, or None when there is no such file."""\n'
        '        path = self.folder / f"{ident}.json"\n'
        "        if not path.exists():\n"
        f'            logger.info("no {topic} %s", ident)\n'
        "            return None\n"
        '        with path.open("r", encoding="utf-8") as handle:\n'
        "            return json.load(handle)\n\n"
        f"    def save_{topic}(self, ident, record):\n"
        f'        """Write the {topic} atomically: a temporary file, then a rename."""\n'
        '        if not record.get("total"):\n'
        f'            raise ValueError(f"{topic} {{ident}} has no total")\n'
        '        temporary = self.folder / f".{ident}.tmp"\n'
        '        temporary.write_text(json.dumps(record, indent=2), encoding="utf-8")\n'
        '        temporary.replace(self.folder / f"{ident}.json")\n'
        f'        logger.info("saved {topic} %s", ident)\n'
    )


def test_a_search_costs_each_kind_of_client_at_most_15_percent_over_its_excerpts(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "static")
    repo = write_tree(
        tmp_path / "repo", {f"shop/{topic}.py": _module(topic) for topic in TOPICS}
    ).resolve()

    async def steps(rc):
        await rc.recall(action="index", run_in_background=False)
        return await rc.recall(query="save a record to a JSON file and log it")

    result = run_session(repo, steps)  # both channels carry the same text (RecallClient)
    assert len(result["results"]) == 8
    text = result["text"]
    opening = OPEN.search(text)
    closing = f"</repository-data {opening.group(1)}>"
    fence = text[opening.start() : text.index(closing) + len(closing)]
    assert len(text) <= MAX_OVERHEAD * len(fence)  # what a content-reading agent's model reads
    claude_code = len(json.dumps(result, ensure_ascii=False))
    assert claude_code <= MAX_OVERHEAD * len(fence), (claude_code, len(fence))
