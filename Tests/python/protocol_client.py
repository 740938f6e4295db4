"""The suite's client: the `remote_modal_client` package (clients/python), strict about
`seq`, and checking every message a host sends against the protocol's JSON Schema."""
import json
import os
import sys

# This tree's package first, installed or not (an editable install may name another tree).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "clients", "python"))

from remote_modal_client import CAPABILITIES  # noqa: E402
from remote_modal_client import ProtocolClient as PackageClient  # noqa: E402
from schema import check_host_message  # noqa: E402

__all__ = ["CAPABILITIES", "ProtocolClient", "read_binary_chunk"]


def read_binary_chunk(frame):
    """A binary upload chunk (docs/protocol.md section 7, "Binary chunks") split into its
    header (a dict) and its raw bytes; ValueError when the frame is not one."""
    length = int.from_bytes(frame[:2], "big")
    if len(frame) < 2 or len(frame) < 2 + length:
        raise ValueError("shorter than its header length says")
    header = json.loads(frame[2:2 + length])
    if not isinstance(header, dict):
        raise ValueError("the header is not an object")
    return header, frame[2 + length:]


class ProtocolClient(PackageClient):
    @classmethod
    async def open(cls, url, name="py", group=None, capabilities=CAPABILITIES, resume=None, token=None,
                   affinity=None, source=None, last_seq=None):
        """`source`: the local address to connect from (another loopback address is
        another client to the host); `affinity`: the harness's sticky-routing key."""
        if affinity:
            url = f"{url}{'&' if '?' in url else '?'}affinity={affinity}"
        extra = {"local_addr": (source, 0)} if source else {}
        return await super().open(url, name=name, group=group, capabilities=capabilities, resume=resume,
                                  token=token, last_seq=last_seq, kind="pytest", strict_seq=True,
                                  on_message=check_host_message, **extra)
