"""The endpoint guard: decide, before any byte is sent, where source text may go.

Four layers stand between a chunk of code and another machine, because any one of them could
be wrong (docs/contracts.md "Embedding"):

1. this module: the URL must be http(s) with a loopback IP literal or exactly `localhost` as its
   host; the name is resolved once and every address it answers must be loopback;
2. `wherein.embedding.transport` dials only the addresses validated here (no second lookup);
3. `wherein.embedding.http` never follows a redirect;
4. the same client ignores proxies from the environment.

A non-loopback endpoint is allowed only when the user's own config file sets
`embedding.allow_remote = true`; layers 2-4 still apply to it.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from wherein.errors import ConfigError, EndpointUnreachable
from wherein.settings import user_config_path

__all__ = ["Endpoint", "check_url", "open_endpoint", "resolve_host", "resolve_endpoint"]

ALLOWED_SCHEMES = ("http", "https")
LOOPBACK_NAME = "localhost"
DEFAULT_PORTS = {"http": 80, "https": 443}
# Printable ASCII minus space and backslash: anything else in a URL is a way to make two
# parsers disagree about the host (WHATWG treats "\" as "/", urllib does not).
_URL_CHARS = re.compile(r"[!-\[\]-~]+")
# RFC 1123 host names: letters, digits and hyphens in dot-separated labels.
_HOST_NAME = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*")

Resolver = Callable[[str, int], list[str]]


@dataclass(frozen=True)
class Endpoint:
    """A URL the guard accepted, with the only addresses the client may dial."""

    scheme: str
    host: str  # lower case; an IPv6 literal without brackets
    port: int
    path: str  # the base path, without a trailing slash ("" or "/v1")
    addresses: tuple[str, ...] = ()  # filled by resolve_endpoint, in dialling order
    remote: bool = False  # True when any address is off this machine (allow_remote)

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if DEFAULT_PORTS[self.scheme] == self.port else f":{self.port}"
        return f"{self.scheme}://{host}{port}{self.path}"

    def url(self, path: str) -> str:
        """The absolute URL of `path` (starting with "/") under the base path."""
        return self.base_url + path


def check_url(url: str, *, allow_remote: bool, key: str = "embedding.api_base") -> Endpoint:
    """Layer 1 without the network: scheme, userinfo, and host are checked as written.

    Raises:
        ConfigError: the URL is malformed or its host is not allowed.
    """
    text = url.strip()
    if not _URL_CHARS.fullmatch(text):
        raise _refused(key, url, "it contains spaces, backslashes or non-ASCII characters")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as err:
        raise _refused(key, url, f"it does not parse ({err})") from None
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise _refused(key, url, f"the scheme '{parts.scheme}' is not http or https")
    if "@" in parts.netloc:
        # Refused rather than dropped: "http://127.0.0.1@evil.example" and
        # "http://evil@127.0.0.1" read differently to people and to parsers, and credentials
        # belong in embedding.api_key, which is never printed.
        raise _refused(
            key,
            url,
            "it carries user information before '@'; put a key in embedding.api_key instead",
        )
    if parts.query or parts.fragment or text.endswith(("?", "#")):
        raise _refused(
            key, url, "it has a query or fragment; give only scheme, host, port and path"
        )
    host = (parts.hostname or "").lower()
    if not host:
        raise _refused(key, url, "it names no host")
    if port == 0:
        raise _refused(key, url, "port 0 cannot be dialled")
    address = _ip_literal(host)
    if address is None:
        if not _HOST_NAME.fullmatch(host):
            raise _refused(key, url, f"'{host}' is not a valid host name")
        if host != LOOPBACK_NAME and not allow_remote:
            raise _refused(
                key,
                url,
                _not_local(host, "is a name other than 'localhost', so it could point anywhere"),
            )
    else:
        if _unmapped(address).is_unspecified:
            raise _refused(key, url, f"'{host}' is the unspecified address, not a machine")
        if not _is_loopback(address) and not allow_remote:
            raise _refused(key, url, _not_local(host, "is not a loopback address"))
    return Endpoint(scheme, host, port or DEFAULT_PORTS[scheme], parts.path.rstrip("/"))


def resolve_host(host: str, port: int) -> list[str]:
    """Every address `host` answers for TCP, in the resolver's order (the one lookup made)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    seen: list[str] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        if sockaddr[0] not in seen:
            seen.append(sockaddr[0])
    return seen


def resolve_endpoint(
    endpoint: Endpoint,
    *,
    allow_remote: bool,
    key: str = "embedding.api_base",
    resolver: Resolver | None = None,
) -> Endpoint:
    """Layer 1 with the network: resolve the host once and check every address.

    A name answering with one loopback and one public address is refused whole, never
    filtered: an answer like that means the resolver is not the one the user thinks it is.

    Raises:
        ConfigError: an address is not allowed.
        EndpointUnreachable: the name does not resolve.
    """
    if _ip_literal(endpoint.host) is not None:
        answers = [endpoint.host]
    else:
        lookup = resolver or resolve_host
        try:
            answers = lookup(endpoint.host, endpoint.port)
        except OSError as err:
            raise EndpointUnreachable(
                f"The embedding endpoint {endpoint.base_url} did not resolve "
                f"({err.strerror or err}); check {key} or start the server."
            ) from err
        if not answers:
            raise EndpointUnreachable(
                f"The embedding endpoint {endpoint.base_url} resolved to no address; check {key}."
            )
    remote = False
    for answer in answers:
        address = _ip_literal(answer)
        if address is None or _unmapped(address).is_unspecified:
            raise _refused(
                key,
                endpoint.base_url,
                f"'{endpoint.host}' resolved to '{answer}', which cannot be dialled",
            )
        if not _is_loopback(address):
            if not allow_remote:
                raise _refused(
                    key,
                    endpoint.base_url,
                    _not_local(
                        endpoint.host,
                        f"resolved to {', '.join(answers)}, and {answer} is not a loopback address",
                    ),
                )
            remote = True
    return Endpoint(
        endpoint.scheme,
        endpoint.host,
        endpoint.port,
        endpoint.path,
        tuple(str(_ip_literal(a)) for a in answers),
        remote,
    )


def open_endpoint(url: str, *, allow_remote: bool, key: str = "embedding.api_base") -> Endpoint:
    """Check `url` as written, then resolve it once; the result is all a client may reach.

    Raises:
        ConfigError: the guard refuses the URL or an address it resolves to.
        EndpointUnreachable: the name does not resolve.
    """
    endpoint = check_url(url, allow_remote=allow_remote, key=key)
    return resolve_endpoint(endpoint, allow_remote=allow_remote, key=key)


def _ip_literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address `host` spells in canonical form, or None for a name.

    Zone ids ("::1%eth0") and the shorthand forms inet_aton accepts ("127.1", "0x7f.1",
    "2130706433") count as names, and so are refused unless remote endpoints are allowed.
    """
    if "%" in host:
        return None
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _unmapped(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    # ::ffff:127.0.0.1 is 127.0.0.1 on the wire; ipaddress calls it non-loopback before 3.13.
    return getattr(address, "ipv4_mapped", None) or address


def _is_loopback(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return _unmapped(address).is_loopback


def _not_local(host: str, why: str) -> str:
    return (
        f"its host '{host}' {why}; only 127.0.0.0/8, ::1 and 'localhost' are allowed unless "
        f"allow_remote = true is set under [embedding] in your own config file "
        f"({user_config_path()})"
    )


def _refused(key: str, url: str, why: str) -> ConfigError:
    return ConfigError(f"The endpoint {url!r} in {key} is refused: {why}.")
