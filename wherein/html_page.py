"""What wherein's two HTML reports share (`baseline --html`, `eval --html`): the page's head and
its writing.

Each page is one self-contained file: its Content-Security-Policy allows nothing but what the
page holds (inline styles and scripts by hash), so it opens offline and a stray request is
blocked. Text from a repository or a ledger goes in through `escape` only.
"""

from __future__ import annotations

import base64
import hashlib
import html
from pathlib import Path

from wherein.errors import UsageError
from wherein.safe_files import UnsafeFile, write_atomic
from wherein.untrusted import visible

__all__ = ["csp_hash", "escape", "page_head", "write_page_file"]

# A report is for opening in a browser and passing around: readable by others, as an
# editor's file is.
PAGE_FILE_MODE = 0o644


def escape(text: object) -> str:
    """`text` as HTML text or an attribute value, its control characters and lone surrogates
    (a file name's undecodable bytes) shown as escapes, as the text report shows them."""
    return html.escape(visible(str(text)), quote=True)


def csp_hash(text: str) -> str:
    """The Content-Security-Policy source that allows exactly this inline script or style."""
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return f"'sha256-{digest}'"


def page_head(policy: str, title: str, style: str) -> list[str]:
    """The lines from `<!doctype html>` to `<body>`; `title` is escaped, `style` is not."""
    return [
        "<!doctype html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{style}</style>",
        "</head>",
        "<body>",
    ]


def write_page_file(text: str, path: Path) -> int:
    """Write the page to `path`, whole or not at all, never through a link; returns its bytes.

    Raises:
        UsageError: the file or its folder cannot be written.
    """
    # A lone surrogate no escape met (in a script's data) is written as its escape, not a
    # reason to lose the whole page.
    data = text.encode("utf-8", "backslashreplace")
    path = Path(path).expanduser()
    try:
        write_atomic(path, data, new_mode=PAGE_FILE_MODE, make_folders=False)
    except (OSError, UnsafeFile) as err:
        reason = getattr(err, "strerror", None) or str(err)
        raise UsageError(
            f"Cannot write the HTML report to {path}: {reason}. Choose a file in a folder you "
            "can write to."
        ) from err
    return len(data)
