// The umbrella a host application imports: `import RemoteModal` brings the host API
// (ModalHost, sessions, presenters, controls, RemoteModal.*), the reactive core, Action,
// coordinators, the wire vocabulary and the libwebsockets transport. The logger is left
// out on purpose: its `Logger` would make swift-log's ambiguous in an app that has both
// (`import RemoteModalLogging` where the host's own logger is wanted).
@_exported import RemoteModalAction
@_exported import RemoteModalCoordinator
@_exported import RemoteModalHost
@_exported import RemoteModalProtocol
@_exported import RemoteModalReactive
@_exported import RemoteModalTransport
@_exported import RemoteModalWebSocket
