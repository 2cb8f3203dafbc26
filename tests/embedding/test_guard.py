"""Layer 1 of the endpoint guard: the URL as written, then its one resolution."""

from __future__ import annotations

import pytest

from wherein.config import config_set, load_settings, user_config_path
from wherein.embedding.registry import create_embedder
from wherein.endpoint import guard
from wherein.endpoint.guard import check_url, open_endpoint, resolve_endpoint
from wherein.errors import ConfigError, EndpointUnreachable

ACCEPTED = [
    ("http://127.0.0.1:11434", "127.0.0.1", 11434, ""),
    ("http://127.0.0.1:11434/", "127.0.0.1", 11434, ""),
    ("http://127.1.2.3:8080/v1", "127.1.2.3", 8080, "/v1"),
    ("http://localhost:11434", "localhost", 11434, ""),
    ("http://LOCALHOST:11434", "localhost", 11434, ""),
    ("http://[::1]:11434", "::1", 11434, ""),
    ("http://[::ffff:127.0.0.1]:8080", "::ffff:127.0.0.1", 8080, ""),
    ("https://localhost", "localhost", 443, ""),
    ("http://127.0.0.1", "127.0.0.1", 80, ""),
]

# (url, a word the refusal must contain)
NEAR_MISSES = [
    ("http://127.0.0.1.evil.example:11434", "127.0.0.1.evil.example"),
    ("http://localhost.evil.example:11434", "localhost.evil.example"),
    ("http://127.0.0.1@evil.example:11434", "user information"),
    ("http://evil@127.0.0.1:11434", "user information"),
    ("http://user:secret@localhost:11434", "user information"),
    ("http://0.0.0.0:11434", "unspecified"),
    ("http://[::]:11434", "unspecified"),
    ("http://[::ffff:0.0.0.0]:11434", "unspecified"),
    ("ftp://127.0.0.1/", "scheme"),
    ("file:///etc/passwd", "scheme"),
    ("socks5://127.0.0.1:1080", "scheme"),
    ("unix:/run/ollama.sock", "scheme"),
    ("127.0.0.1:11434", "scheme"),
    ("http://2130706433:11434", "2130706433"),
    ("http://127.1:11434", "127.1"),
    ("http://0x7f.0.0.1:11434", "0x7f.0.0.1"),
    ("http://0177.0.0.1:11434", "0177.0.0.1"),
    ("http://localhost.:11434", "localhost."),
    ("http://[::1%25lo]:11434", "::1%25lo"),
    ("http://10.0.0.5:11434", "10.0.0.5"),
    ("http://192.168.1.20:11434", "192.168.1.20"),
    ("http://example.com", "example.com"),
    ("http://127.0.0.1:11434\\@evil.example", "backslash"),
    ("http://127.0.0.1 .evil.example", "spaces"),
    ("http://lоcalhost:11434", "non-ASCII"),  # a Cyrillic "о"
    ("http://127.0.0.1:11434/?next=evil.example", "query"),
    ("http://127.0.0.1:11434#evil.example", "fragment"),
    ("http://:11434", "no host"),
    ("http://127.0.0.1:0", "port 0"),
    ("http://127.0.0.1:99999", "does not parse"),
]


@pytest.mark.parametrize(("url", "host", "port", "path"), ACCEPTED)
def test_check_url_accepts_loopback_literals_and_localhost(url, host, port, path):
    endpoint = check_url(url, allow_remote=False)
    assert (endpoint.host, endpoint.port, endpoint.path) == (host, port, path)


@pytest.mark.parametrize(("url", "named"), NEAR_MISSES)
def test_check_url_refuses_near_misses_naming_why(url, named):
    with pytest.raises(ConfigError) as caught:
        check_url(url, allow_remote=False)
    message = str(caught.value)
    assert named in message
    assert message.count(". ") == 0, "one sentence"


@pytest.mark.parametrize(
    "url",
    [
        "http://evil@192.168.1.20:11434",
        "http://0.0.0.0:11434",
        "ftp://192.168.1.20/",
        "http://gpu box:11434",
    ],
)
def test_allow_remote_keeps_the_other_url_rules(url):
    with pytest.raises(ConfigError):
        check_url(url, allow_remote=True)


def test_allow_remote_accepts_a_lan_address_and_pins_it_without_a_lookup():
    def no_lookup(host, port):
        raise AssertionError("an IP literal must not be resolved")

    endpoint = resolve_endpoint(
        check_url("http://192.168.1.20:11434", allow_remote=True),
        allow_remote=True,
        resolver=no_lookup,
    )
    assert endpoint.addresses == ("192.168.1.20",)
    assert endpoint.remote is True


def test_localhost_resolving_to_loopback_only_is_pinned_to_every_address():
    endpoint = resolve_endpoint(
        check_url("http://localhost:11434", allow_remote=False),
        allow_remote=False,
        resolver=lambda host, port: ["::1", "127.0.0.1"],
    )
    assert endpoint.addresses == ("::1", "127.0.0.1")
    assert endpoint.remote is False


def test_a_name_answering_loopback_and_public_addresses_is_refused_whole(monkeypatch):
    monkeypatch.setattr(guard, "resolve_host", lambda host, port: ["127.0.0.1", "203.0.113.7"])
    with pytest.raises(ConfigError) as caught:
        open_endpoint("http://localhost:11434", allow_remote=False)
    assert "203.0.113.7" in str(caught.value)
    assert "'localhost'" in str(caught.value)


def test_a_name_answering_the_unspecified_address_is_refused_even_when_remote_is_allowed():
    with pytest.raises(ConfigError, match="cannot be dialled"):
        resolve_endpoint(
            check_url("http://gpu-box.lan:11434", allow_remote=True),
            allow_remote=True,
            resolver=lambda host, port: ["192.168.1.20", "0.0.0.0"],
        )


def test_a_name_that_does_not_resolve_is_an_outage_not_a_refusal():
    def fails(host, port):
        raise OSError(-2, "Name or service not known")

    with pytest.raises(EndpointUnreachable, match="did not resolve"):
        resolve_endpoint(
            check_url("http://localhost:11434", allow_remote=False),
            allow_remote=False,
            resolver=fails,
        )


def test_the_real_resolver_answers_localhost_with_loopback_addresses():
    endpoint = open_endpoint("http://localhost:11434", allow_remote=False)
    assert endpoint.addresses
    assert "127.0.0.1" in endpoint.addresses or "::1" in endpoint.addresses


def test_an_off_device_url_is_refused_before_any_lookup_or_connection(
    monkeypatch, http_settings, canary
):
    lookups: list[str] = []

    def resolver(host, port):
        lookups.append(host)
        return [canary.host]

    monkeypatch.setattr(guard, "resolve_host", resolver)
    settings = http_settings(api_base=f"http://evil.example:{canary.port}")
    with pytest.raises(ConfigError, match="evil.example"):
        create_embedder(settings)
    assert lookups == []
    assert canary.connections == 0


def test_a_mixed_answer_for_localhost_sends_nothing_to_the_server(
    monkeypatch, http_settings, server
):
    monkeypatch.setattr(guard, "resolve_host", lambda host, port: ["127.0.0.1", "203.0.113.7"])
    with pytest.raises(ConfigError, match="203.0.113.7"):
        create_embedder(http_settings(api_base=f"http://localhost:{server.port}"))
    assert server.connections == 0


def _write_user_config(text: str) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


REMOTE = "http://192.168.1.20:11434"


def test_allow_remote_from_the_environment_is_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("WHEREIN_EMBEDDING_ALLOW_REMOTE", "true")
    monkeypatch.setenv("WHEREIN_EMBEDDING_PROVIDER", "ollama")
    monkeypatch.setenv("WHEREIN_EMBEDDING_API_BASE", REMOTE)
    settings = load_settings(tmp_path)
    assert settings["embedding.allow_remote"] is False
    assert any("allow_remote" in w for w in settings.warnings)
    with pytest.raises(ConfigError, match="192.168.1.20"):
        create_embedder(settings)


def test_allow_remote_from_the_workspace_file_is_ignored(tmp_path):
    workspace = tmp_path / "repo"
    workspace.mkdir()
    (workspace / ".wherein.toml").write_text(
        f'[embedding]\nprovider = "ollama"\napi_base = "{REMOTE}"\nallow_remote = true\n',
        encoding="utf-8",
    )
    settings = load_settings(workspace)
    assert settings["embedding.allow_remote"] is False
    # Nor may the file choose the provider or the endpoint (SECURITY.md): all three are ignored.
    assert settings["embedding.provider"] == "minilm"
    assert settings["embedding.api_base"] == "http://127.0.0.1:11434"
    assert len([w for w in settings.warnings if str(workspace) in w]) == 3


def test_allow_remote_from_the_user_file_lets_a_lan_endpoint_through_the_guard(tmp_path):
    _write_user_config(f'[embedding]\napi_base = "{REMOTE}"\nallow_remote = true\n')
    settings = load_settings(tmp_path)
    assert settings["embedding.allow_remote"] is True
    # Only the guard runs here: no test connects to an address off this machine.
    endpoint = open_endpoint(settings["embedding.api_base"], allow_remote=True)
    assert endpoint.remote is True
    assert endpoint.addresses == ("192.168.1.20",)


def test_config_set_refuses_a_guarded_out_api_base_and_writes_nothing():
    path = user_config_path()
    with pytest.raises(ConfigError, match="127.0.0.1.evil.example"):
        config_set("embedding.api_base", "http://127.0.0.1.evil.example:11434", path)
    assert not path.exists()
    config_set("embedding.api_base", "http://localhost:8080/v1", path)
    assert 'api_base = "http://localhost:8080/v1"' in path.read_text(encoding="utf-8")


def test_config_set_accepts_a_remote_api_base_once_the_user_file_allows_it():
    _write_user_config("[embedding]\nallow_remote = true\n")
    config_set("embedding.api_base", REMOTE, user_config_path())
    assert REMOTE in user_config_path().read_text(encoding="utf-8")
