"""Shared fixtures for the outside-client suites."""
import pytest

from hosts import Host


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
