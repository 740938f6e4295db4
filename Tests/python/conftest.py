"""Shared fixtures for the outside-client suites."""
import pytest

from hosts import Host, OIDCProvider


@pytest.fixture
def echo_host():
    host = Host("--echo", "--max-message-bytes", "100000")
    yield host
    host.stop()


@pytest.fixture
def demo_host():
    host = Host("--retention", "5")
    yield host
    host.stop()


@pytest.fixture
def oidc_host():
    provider = OIDCProvider()
    host = Host("--oidc-issuer", provider.issuer, "--oidc-client-id", "remote-modal-demo")
    yield host, provider
    host.stop()
    provider.stop()
