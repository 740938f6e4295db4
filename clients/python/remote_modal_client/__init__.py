"""A client of the remote-modal protocol, version 1 (the repository's docs/protocol.md).

`ProtocolClient` is one connection: the handshake, every host message in order, `seq`
de-duplication. `ModalClient` is a session across connections: it resumes after a drop,
keeps each answer until its `dismiss` and sends it again after a resume, and uploads
picked files within the host's window, continuing from what the host holds (as binary
chunks when the host's `welcome` offers them, `binary_chunk`; base64 in text otherwise).
"""
from .client import (CAPABILITIES, HostSilent, ModalClient, ProtocolClient, ProtocolViolation, SessionLost, Upload,
                     backoff_delays, binary_chunk, chunk_messages, heartbeat_offer, picked_item)

__all__ = ["CAPABILITIES", "HostSilent", "ModalClient", "ProtocolClient", "ProtocolViolation", "SessionLost",
           "Upload", "backoff_delays", "binary_chunk", "chunk_messages", "heartbeat_offer", "picked_item"]
