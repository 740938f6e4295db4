"""The Python client package passes every conformance scenario; clients broken on purpose
fail, with the scenario named."""
import asyncio
import os
import sys

import pytest

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from schema import HOST, problems  # noqa: E402

from conformance_client import ConformanceClient
from conformance_host import ConformanceHost, verdicts


def from_the_future(message):
    """The unknown-values scenario's messages, of a version after 1 on purpose."""
    return (message.get("type") == "forecast" or message.get("level") == "celebration"
            or message.get("code") == "quota_exceeded" or message.get("reason") == "withdrawn"
            or (message.get("type") == "present" and message["modal"].get("title") == "From the future"))


def run(host, faults=(), seen=None):
    client = ConformanceClient(host.url, faults)
    if seen is not None:
        client.client.on_message = seen.append
    try:
        asyncio.run(asyncio.wait_for(client.run(timeout=60), 120))
    except Exception:  # a broken client may well give up: the host's verdict is what counts
        if not faults:
            raise
    return host.finish()


def test_the_python_client_passes_every_scenario():
    host = ConformanceHost()
    seen = []
    try:
        status, output = run(host, seen=seen)
    finally:
        host.stop()
    found = verdicts(output)
    assert status == 0, output
    assert found and set(found.values()) == {"PASS"}, output
    assert len(found) == 15, output
    assert "conformance: all 15 scenarios passed" in output, output
    # What the conformance host sends is v1 itself, but for what is meant to be newer.
    assert sum(map(from_the_future, seen)) == 5
    # Growable values of a later version and a message type of one validate too (section 2).
    for message in seen:
        assert not problems(HOST, message), (message, problems(HOST, message))


def test_the_same_answer_twice_back_to_back_passes():
    # protocol.md section 5: the same answer again, before its dismiss was seen, is no second answer.
    host = ConformanceHost("alert", "drop-answer", timeout=4)
    try:
        status, output = run(host, faults=["answer-twice"])
    finally:
        host.stop()
    assert status == 0, output
    assert verdicts(output) == {"alert": "PASS", "drop-answer": "PASS"}, output


@pytest.mark.parametrize("fault, scenario, section", [
    ("answer-changed", "alert", "§12.4"),
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
