import RemoteModalClient
import RemoteModalDemo
import RemoteModalHost
import RemoteModalProtocol
import RemoteModalTestSupport

func signInAsAnn() async throws -> String {
    let transport = InMemoryTransport()
    let host = ModalHost(configuration: ModalHostConfiguration(), transport: transport)
    let flows = DemoFlows.install(on: host)
    defer { flows.dispose() }
    try host.start()
    let client = RemoteModalClient(
        configuration: ClientConfiguration(client: ClientDescription(kind: "robot", name: "ann")),
        link: InMemoryLink(transport))
    let robot = ModalRobot(client: client)
    client.start()
    defer { client.stop() }
    try await robot.tap("signIn")
    try await robot.alert(titled: "Sign in").fill(.email, "ann@example.com").fill(.password, "pw").choose("Sign In")
    return try await robot.status().text  // "Signed in as ann@example.com"
}
