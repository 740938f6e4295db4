"""Issue 33, round four of the outside attack: what the fourth attacker found (docs/security.md,
"Round four")."""

import json
import os
import struct
import time
import urllib.request

from hosts import Host
from test_admission import upgrade
from test_security_round3 import bystander_works, raw_socket, run, still_open

HALF_FINISHED = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"


def healthz_within(port, seconds):
    """Whether `/healthz` answers 200 on one of the tries made every 0.25 s for `seconds`."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as reply:
                if reply.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.25)
    return False


def test_many_addresses_of_half_finished_requests_leave_room_for_a_bystander():
    # Twelve addresses, each inside its 64-socket limit, offer 768 half-finished requests to a
    # host with 512 descriptors. Before, they took every socket the host would accept and the
    # rest, the bystander's too, were closed on arrival until lws cut them 10 s later.
    host = Host(wrapper=("prlimit", "--nofile=512:512", "--"), log_level="info")
    held = []
    try:
        for address in range(12):
            for _ in range(64):
                held.append(raw_socket(host.port, f"127.0.0.{110 + address}", HALF_FINISHED))
        # The sockets cut for the newest arrivals are freed at the host's next turns: within a
        # few tries after the burst (lws would cut the crowd only 10 s after it came; before,
        # every try in those 10 s was closed on arrival), the bystander is served.
        assert healthz_within(host.port, seconds=4)
        run(bystander_works(host.url))
        # The crowd lost its oldest requests to make the room, and no address more than its limit.
        assert len(still_open(held)) < len(held)
        with urllib.request.urlopen(f"http://127.0.0.1:{host.port}/metrics", timeout=10) as reply:
            metrics = reply.read().decode()
        assert 'remote_modal_refusals_total{reason="crowded_pending"}' in metrics, metrics
    finally:
        for sock in held:
            sock.close()
        host.stop()


def test_a_single_half_finished_request_is_never_cut_for_the_crowd():
    # The bystander's own half-finished request (a slow browser) survives the crowd's
    # arrivals: only addresses holding two or more are cut.
    host = Host(wrapper=("prlimit", "--nofile=512:512", "--"), log_level="info")
    held = []
    try:
        slow = raw_socket(host.port, "127.0.0.1", HALF_FINISHED)
        time.sleep(0.2)
        for address in range(12):
            for _ in range(64):
                held.append(raw_socket(host.port, f"127.0.0.{110 + address}", HALF_FINISHED))
        assert still_open([slow]) == [slow]
        slow.sendall(b"\r\n")
        slow.settimeout(10)
        assert slow.recv(64).startswith(b"HTTP/1.1 "), "the slow request was answered"
        slow.close()
    finally:
        for sock in held:
            sock.close()
        host.stop()


def masked(opcode, payload):
    """A client frame (masked, as RFC 6455 requires), payload under 126 bytes."""
    mask = os.urandom(4)
    return struct.pack("!BB", 0x80 | opcode, 0x80 | len(payload)) + mask + bytes(
        byte ^ mask[index % 4] for index, byte in enumerate(payload))


LEFT = {}   # socket -> bytes read past the last frame handed out


def frames(sock, seconds):
    """The host's frames as (opcode, payload) until `seconds` pass or it closes; what was
    read past the last frame taken stays for the next call."""
    sock.settimeout(seconds)
    buffer = LEFT.pop(sock, b"")
    deadline = time.time() + seconds
    while time.time() < deadline:
        while len(buffer) >= 2:
            length, start = buffer[1] & 0x7F, 2
            if length == 126:
                if len(buffer) < 4:
                    break
                length, start = struct.unpack("!H", buffer[2:4])[0], 4
            if len(buffer) < start + length:
                break
            frame = buffer[0] & 0x0F, buffer[start:start + length]
            buffer = buffer[start + length:]
            LEFT[sock] = buffer
            yield frame
        try:
            data = sock.recv(65536)
        except OSError:
            return
        if not data:
            return
        buffer += data


def test_welcomed_websockets_are_never_cut_for_the_crowd():
    # The eviction cuts half-finished requests only: an address holding 40 welcomed
    # WebSockets (a kiosk gateway) keeps every one while 768 half-finished requests from
    # twelve other addresses fill the table around it.
    host = Host(wrapper=("prlimit", "--nofile=512:512", "--"), log_level="info")
    held, kiosks = [], []
    try:
        hello = json.dumps({"type": "hello", "protocol": 1, "client": {"kind": "kiosk", "name": "gateway"}}).encode()
        for _ in range(40):
            status, _, sock = upgrade(host.port, source="127.0.0.140")
            assert status == 101
            sock.sendall(masked(0x1, hello))
            assert any(op == 0x1 and b'"welcome"' in payload for op, payload in frames(sock, 10)), "welcomed"
            kiosks.append(sock)
        for address in range(12):
            for _ in range(64):
                held.append(raw_socket(host.port, f"127.0.0.{110 + address}", HALF_FINISHED))
        assert healthz_within(host.port, seconds=4)
        with urllib.request.urlopen(f"http://127.0.0.1:{host.port}/metrics", timeout=10) as reply:
            metrics = reply.read().decode()
        assert 'remote_modal_refusals_total{reason="crowded_pending"}' in metrics, "the crowd was cut"
        # Every kiosk answers a ping: none was cut.
        for index, sock in enumerate(kiosks):
            sock.sendall(masked(0x9, b"k%d" % index))
            assert any(op == 0xA and payload == b"k%d" % index for op, payload in frames(sock, 10)), \
                f"WebSocket {index} of the gateway was cut"
    finally:
        for sock in held + kiosks:
            sock.close()
        host.stop()
