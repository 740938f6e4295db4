"""The keepalive spreads a second's pings over that second (issue #31): with hundreds of
idle connections due at once, the host pings them in batches about 5 ms apart on libev, not
all in one burst (a burst of pings, and the pongs it brings back, stood in the way of a new
session's welcome once a second). Arrival times are the kernel's (SO_TIMESTAMPNS), so a
reader that falls behind does not squeeze them together."""
import json
import os
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hosts import Host  # noqa: E402
from test_admission import upgrade  # noqa: E402

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
CONNECTIONS = 400


def masked(opcode, payload):
    """A client frame (masked, as RFC 6455 requires of a client), under 64 KiB."""
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    size = bytes([0x80 | len(payload)]) if len(payload) < 126 else bytes([0x80 | 126]) + struct.pack("!H", len(payload))
    return bytes([0x80 | opcode]) + size + mask + body


def frames(buffer):
    """Complete server frames at the front of `buffer`: [(opcode, payload)], and the rest."""
    out = []
    while len(buffer) >= 2:
        length = buffer[1] & 0x7F
        start = 2
        if length == 126:
            if len(buffer) < 4:
                break
            length, start = struct.unpack("!H", buffer[2:4])[0], 4
        elif length == 127:
            if len(buffer) < 10:
                break
            length, start = struct.unpack("!Q", buffer[2:10])[0], 10
        if len(buffer) < start + length:
            break
        out.append((buffer[0] & 0x0F, buffer[start:start + length]))
        buffer = buffer[start + length:]
    return out, buffer


def ping_arrivals(host, seconds):
    """Opens CONNECTIONS idle sessions, answers every ping with a pong for `seconds`, and
    returns the kernel's arrival time of each ping."""
    hello = json.dumps({"type": "hello", "protocol": 1, "client": {"kind": "test", "name": "idle"},
                        "capabilities": ["alert"]}).encode()
    sockets = {}
    for _ in range(CONNECTIONS):
        status, rest, sock = upgrade(host.port)
        assert status == 101, (status, rest)
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        sock.sendall(masked(0x1, hello))
        sock.setblocking(False)
        sockets[sock.fileno()] = [sock, b""]
    arrivals = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ready, _, _ = select.select(list(sockets), [], [], 0.2)
        for fd in ready:
            sock, buffer = sockets[fd]
            try:
                data, ancillary, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(16))
            except BlockingIOError:
                continue
            assert data, "the host closed an idle connection that answers its pings"
            stamp = None
            for level, kind, value in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    seconds_part, nanoseconds = struct.unpack("qq", value[:16])
                    stamp = seconds_part + nanoseconds / 1e9
            found, buffer = frames(buffer + data)
            sockets[fd][1] = buffer
            for opcode, payload in found:
                if opcode == 0x9:
                    assert stamp is not None, "the kernel gave no receive time"
                    arrivals.append(stamp)
                    sock.setblocking(True)
                    sock.sendall(masked(0xA, payload))
                    sock.setblocking(False)
    for sock, _ in sockets.values():
        sock.close()
    return sorted(arrivals)


def bursts(arrivals, gap=0.002):
    """The arrivals split where more than `gap` seconds pass between two."""
    groups = [[arrivals[0]]]
    for stamp in arrivals[1:]:
        if stamp - groups[-1][-1] > gap:
            groups.append([])
        groups[-1].append(stamp)
    return groups


def rounds(arrivals):
    """The pings grouped by the host's second (a pause of over 300 ms separates two)."""
    out = [[arrivals[0]]]
    for stamp in arrivals[1:]:
        if stamp - out[-1][-1] > 0.3:
            out.append([])
        out[-1].append(stamp)
    return out


def test_a_seconds_pings_go_out_in_batches_spread_over_it():
    host = Host("--ping-interval", "1", "--max-sessions-per-address", "1000", "--max-connections-per-address", "1000", "--event-loop", "libev")
    try:
        arrivals = ping_arrivals(host, 6)
    finally:
        host.stop()
    busy = [r for r in rounds(arrivals) if len(r) >= 100]
    assert busy, f"no second pinged 100 connections or more: {len(arrivals)} pings"
    for pings in busy:
        spread = pings[-1] - pings[0]
        # 16 a batch at the least, batches 5 ms apart at the least: a second with n due takes
        # (n / 16 - 1) x 5 ms or longer; all at once it took about a millisecond.
        floor = (len(pings) // 16 - 1) * 0.005
        assert spread >= floor * 0.8, f"{len(pings)} pings within {spread * 1000:.1f} ms (floor {floor * 1000:.0f} ms)"
        assert len(bursts(pings)) >= len(pings) // 32, f"{len(pings)} pings in {len(bursts(pings))} bursts"


def test_the_poll_fallback_pings_the_same_connections():
    """The same crowd under lws's poll(): every connection is still pinged (the fallback takes
    the next batch at the next turn, so it is not spread; this pins the comparison above)."""
    host = Host("--ping-interval", "1", "--max-sessions-per-address", "1000", "--max-connections-per-address", "1000", "--event-loop", "poll")
    try:
        arrivals = ping_arrivals(host, 4)
    finally:
        host.stop()
    assert len(arrivals) >= CONNECTIONS, f"{len(arrivals)} pings for {CONNECTIONS} idle connections in 4 s"
