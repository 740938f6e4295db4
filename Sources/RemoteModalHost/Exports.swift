// The host API names transport types (`HostTransport`, `ConnectionID`, `HTTPRoute`, ...):
// they come from `Transport`, which does not link libwebsockets.
@_exported import RemoteModalTransport
