// The transport vocabulary (connection ids, close codes, messages, HTTP types, the
// HostTransport seam) lives in `Transport`, which does not link libwebsockets; importing
// WebSocket brings it along.
@_exported import RemoteModalTransport
