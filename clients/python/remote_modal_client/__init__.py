"""A client of the remote-modal protocol, version 1 (the repository's docs/protocol.md).

`ProtocolClient` is one connection: the handshake, every host message in order, `seq`
de-duplication. `ModalClient` is a session across connections: it resumes after a drop,
keeps each answer until its `dismiss` and sends it again after a resume, and uploads
picked files within the host's window, continuing from what the host holds.
"""
from .client import (CAPABILITIES, HostSilent, ModalClient, ProtocolClient, ProtocolViolation, SessionLost, Upload,
                     backoff_delays, chunk_messages, heartbeat_offer, picked_item)

__all__ = ["CAPABILITIES", "HostSilent", "ModalClient", "ProtocolClient", "ProtocolViolation", "SessionLost",
           "Upload", "backoff_delays", "chunk_messages", "heartbeat_offer", "picked_item"]
