"""The API key out of every message, in every spelling a server or a library could quote it in.

A server may echo the Authorization header back in its error text, and not always as sent:
a Python server quotes its repr, a JSON one escapes it, a proxy percent- or HTML-encodes it,
and httpx's own "Illegal header value b'Bearer ...'" is the repr of the header's bytes. So an
error from an HTTP client or server is passed through `redact` (or `server_text`, which also
makes it one short line) before it is put in any message.
"""

from __future__ import annotations

import html
import json
import re
from urllib.parse import quote, quote_plus

from wherein.untrusted import one_line

__all__ = ["PLACEHOLDER", "redact", "server_text"]

PLACEHOLDER = "(api key)"
# Shorter spellings than this would match ordinary words; no real key is this short.
MIN_FORM_CHARS = 4
_PERCENT = re.compile(r"%[0-9A-F]{2}")


def _spellings(secret: str) -> set[str]:
    """`secret` as text, as a Python literal's inside (str and bytes, either quote escaped),
    as JSON's, percent-encoded (upper and lower case hex), HTML-escaped and as Latin-1 mojibake."""
    try:
        raw = secret.encode("utf-8", "surrogateescape")  # the bytes an environment gave
    except UnicodeEncodeError:
        raw = secret.encode("utf-8", "surrogatepass")
    # With both quotes appended, repr picks ' and escapes it: the spelling inside a longer text.
    forced = "'\""
    forms = {
        secret,
        repr(secret)[1:-1],
        repr(secret + forced)[1:-4],
        ascii(secret)[1:-1],
        ascii(secret + forced)[1:-4],
        repr(raw)[2:-1],
        repr(raw + forced.encode())[2:-4],
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        html.escape(secret),
        html.escape(secret, quote=False),
        raw.decode("latin-1"),
    }
    for encoded in (quote(secret, safe=""), quote(secret), quote_plus(secret)):
        forms.add(encoded)
        forms.add(_PERCENT.sub(lambda m: m.group().lower(), encoded))
    return {form for form in forms if len(form) >= MIN_FORM_CHARS}


def redact(text: str, secret: str | None) -> str:
    """`text` with every spelling of `secret` replaced by PLACEHOLDER (longest first)."""
    if not secret:
        return text
    for form in sorted(_spellings(secret), key=len, reverse=True):
        text = text.replace(form, PLACEHOLDER)
    return text


def server_text(text: str, secret: str | None, max_chars: int) -> str:
    """A server's or client's error text for a message: redacted, then one short line."""
    return one_line(" ".join(redact(text, secret).split()))[:max_chars]
