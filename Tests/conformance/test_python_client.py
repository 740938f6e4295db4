"""The Python client package passes every conformance scenario; clients broken on purpose
fail, with the scenario named."""
import asyncio

import pytest

from conformance_client import ConformanceClient
from conformance_host import ConformanceHost, verdicts


def run(host, faults=()):
    try:
        asyncio.run(asyncio.wait_for(ConformanceClient(host.url, faults).run(timeout=60), 120))
    except Exception:  # a broken client may well give up: the host's verdict is what counts
        if not faults:
            raise
    return host.finish()


def test_the_python_client_passes_every_scenario():
    host = ConformanceHost()
    try:
        status, output = run(host)
    finally:
        host.stop()
    found = verdicts(output)
    assert status == 0, output
    assert found and set(found.values()) == {"PASS"}, output
    assert len(found) == 15, output


@pytest.mark.parametrize("fault, scenario, section", [
    ("answer-twice", "alert", "§12.4"),
    ("ignore-dismiss", "dismiss", "§12.5"),
    ("overrun-window", "media", "§7"),
    ("choke-unknown", "unknown-values", "§2"),
    ("no-resume", "drop-dialog", "§9"),
])
def test_a_broken_client_fails_the_scenario_that_checks_its_rule(fault, scenario, section):
    host = ConformanceHost(scenario, timeout=4)
    try:
        status, output = run(host, faults=[fault])
    finally:
        host.stop()
    assert status == 1, output
    assert verdicts(output) == {scenario: "FAIL"}, output
    assert f"scenarios failed: {scenario} (protocol.md {section})" in output, output
