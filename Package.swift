// swift-tools-version:6.0
import PackageDescription

// Every module carries the project's prefix, so a dependent whose graph already holds
// swift-log's `Logging`, a `Redis` or a `WebSocket` module builds next to this one. No
// target has unsafe flags (SwiftPM refuses them in a versioned dependency): the release
// tuning the benchmarks use (cross-module optimization, no dynamic exclusivity checks) is
// passed on the command line by the Makefile and scripts/ (`RELEASE_FLAGS`).
let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "remote-modal",
    platforms: [.macOS(.v15)],
    products: [
        // What a host application imports: the host API, the reactive core, Action,
        // coordinators, the wire vocabulary and the WebSocket transport.
        .library(name: "RemoteModal", targets: ["RemoteModal"]),
        .library(name: "RemoteModalHost", targets: ["RemoteModalHost"]),
        .library(name: "RemoteModalReactive", targets: ["RemoteModalReactive"]),
        .library(name: "RemoteModalAction", targets: ["RemoteModalAction"]),
        .library(name: "RemoteModalCoordinator", targets: ["RemoteModalCoordinator"]),
        .library(name: "RemoteModalProtocol", targets: ["RemoteModalProtocol"]),
        .library(name: "RemoteModalTransport", targets: ["RemoteModalTransport"]),
        .library(name: "RemoteModalWebSocket", targets: ["RemoteModalWebSocket"]),
        .library(name: "RemoteModalLogging", targets: ["RemoteModalLogging"]),
        .library(name: "RemoteModalLocking", targets: ["RemoteModalLocking"]),
        // SHA-256 and HMAC-SHA256 from libcrypto, with no C types in its API.
        .library(name: "RemoteModalCrypto", targets: ["RemoteModalCrypto"]),
        // The Redis backplane for several hosts (links hiredis).
        .library(name: "RemoteModalCluster", targets: ["RemoteModalCluster"]),
        // For a dependent's tests: an in-memory transport and backplane, virtual time.
        .library(name: "RemoteModalTestSupport", targets: ["RemoteModalTestSupport"]),
        .library(name: "RemoteModalReactiveTestSupport", targets: ["RemoteModalReactiveTestSupport"]),
        // The client core (issue #29): one protocol client under every client.
        .library(name: "RemoteModalClient", targets: ["RemoteModalClient"]),
        .library(name: "RemoteModalClientWebSocket", targets: ["RemoteModalClientWebSocket"]),
        // A client that answers by meaning: for tests, scripted kiosks and harnesses.
        .library(name: "RemoteModalRobot", targets: ["RemoteModalRobot"]),
        .executable(name: "modal-host", targets: ["RemoteModalHostMain"]),
        .executable(name: "kiosk", targets: ["RemoteModalKioskMain"]),
        .executable(name: "modal-bench", targets: ["RemoteModalBenchMain"]),
        .executable(name: "reactive-bench", targets: ["RemoteModalReactiveBenchMain"]),
        .executable(name: "chaos-host", targets: ["RemoteModalChaosHostMain"]),
        .executable(name: "bench-host", targets: ["RemoteModalBenchHostMain"]),
        // The conformance host (issue #28): scripted scenarios that judge any client.
        .library(name: "RemoteModalConformance", targets: ["RemoteModalConformance"]),
        .executable(name: "remote-modal-conformance", targets: ["RemoteModalConformanceMain"]),
    ],
    targets: [
        // C libraries, each behind one C module with one Swift importer.
        .systemLibrary(
            name: "CRemoteModalLibWebSockets", pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev", "libssl-dev"])]),
        // libev: the loop libwebsockets runs on (with its plugin, libwebsockets-evlib-ev, at run time).
        .systemLibrary(name: "CRemoteModalLibEV", providers: [.apt(["libev-dev", "libwebsockets-evlib-ev"])]),
        .systemLibrary(name: "CRemoteModalHiredis", providers: [.apt(["libhiredis-dev"])]),
        .systemLibrary(name: "CRemoteModalCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CRemoteModalQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .target(name: "CRemoteModalMallocStats"),
        .target(name: "CRemoteModalAllocationCounter"),

        // Foundations: no I/O.
        .target(name: "RemoteModalLocking", swiftSettings: strict),
        .target(name: "RemoteModalLogging", dependencies: ["RemoteModalLocking"], swiftSettings: strict),
        .target(name: "RemoteModalFlags", swiftSettings: strict),
        .target(name: "RemoteModalReactive", dependencies: ["RemoteModalLocking"], swiftSettings: strict),
        .target(
            name: "RemoteModalAction", dependencies: ["RemoteModalReactive", "RemoteModalLocking"],
            swiftSettings: strict),
        .target(
            name: "RemoteModalCoordinator", dependencies: ["RemoteModalReactive", "RemoteModalLocking"],
            swiftSettings: strict),
        .target(name: "RemoteModalProtocol", swiftSettings: strict),
        .target(name: "RemoteModalTransport", swiftSettings: strict),
        .target(name: "RemoteModalCrypto", dependencies: ["CRemoteModalCrypto"], swiftSettings: strict),

        // Transport, host, cluster.
        .target(
            name: "RemoteModalWebSocket",
            dependencies: [
                "CRemoteModalLibWebSockets", "CRemoteModalLibEV", "RemoteModalTransport", "RemoteModalLogging",
                "RemoteModalLocking",
            ],
            swiftSettings: strict),
        .target(
            name: "RemoteModalHost",
            dependencies: [
                "RemoteModalReactive", "RemoteModalAction", "RemoteModalCoordinator", "RemoteModalProtocol",
                "RemoteModalTransport", "RemoteModalLogging", "RemoteModalLocking", "RemoteModalCrypto",
            ],
            swiftSettings: strict),
        .target(
            name: "RemoteModal",
            dependencies: [
                "RemoteModalHost", "RemoteModalReactive", "RemoteModalAction", "RemoteModalCoordinator",
                "RemoteModalProtocol", "RemoteModalTransport", "RemoteModalWebSocket",
            ],
            swiftSettings: strict),
        .target(name: "RemoteModalRedis", dependencies: ["CRemoteModalHiredis"], swiftSettings: strict),
        .target(
            name: "RemoteModalCluster", dependencies: ["RemoteModalHost", "RemoteModalRedis"], swiftSettings: strict),
        .target(
            name: "RemoteModalTestSupport",
            dependencies: [
                "RemoteModalHost", "RemoteModalProtocol", "RemoteModalTransport", "RemoteModalLocking",
                "RemoteModalLogging", "RemoteModalReactive", "RemoteModalReactiveTestSupport", "RemoteModalClient",
                "RemoteModalRobot",
            ],
            swiftSettings: strict),
        .target(
            name: "RemoteModalReactiveTestSupport", dependencies: ["RemoteModalReactive", "RemoteModalLocking"],
            swiftSettings: strict),

        // The demo, the kiosk, the benchmarks: libraries the executables wire together.
        .target(
            name: "RemoteModalDemo",
            dependencies: [
                "RemoteModalHost", "RemoteModalReactive", "RemoteModalAction", "RemoteModalProtocol",
                "RemoteModalFlags",
                "RemoteModalLogging", "RemoteModalLocking", "RemoteModalWebSocket", "RemoteModalCluster",
            ],
            swiftSettings: strict),
        .target(name: "RemoteModalQRCode", dependencies: ["CRemoteModalQREncode"], swiftSettings: strict),
        .target(
            name: "RemoteModalKiosk",
            dependencies: [
                "RemoteModalProtocol", "RemoteModalClient", "RemoteModalClientWebSocket", "RemoteModalRobot",
                "RemoteModalQRCode",
            ],
            swiftSettings: strict),
        .target(
            name: "RemoteModalBench",
            dependencies: [
                "RemoteModalProtocol", "RemoteModalWebSocket", "RemoteModalLogging", "RemoteModalLocking",
                "RemoteModalCrypto",
            ],
            swiftSettings: strict),

        // Executables: flags and wiring only.
        .executableTarget(
            name: "RemoteModalHostMain",
            dependencies: [
                "RemoteModalDemo", "RemoteModalHost", "RemoteModalWebSocket", "RemoteModalLogging",
                "CRemoteModalMallocStats",
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "RemoteModalChaosHostMain",
            dependencies: [
                "RemoteModalDemo", "RemoteModalHost", "RemoteModalWebSocket", "RemoteModalLogging",
                "CRemoteModalMallocStats",
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "RemoteModalBenchHostMain",
            dependencies: [
                "RemoteModalDemo", "RemoteModalHost", "RemoteModalWebSocket", "RemoteModalLogging",
                "CRemoteModalMallocStats",
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "RemoteModalKioskMain",
            dependencies: ["RemoteModalKiosk", "RemoteModalFlags", "RemoteModalProtocol"],
            swiftSettings: strict),
        .executableTarget(
            name: "RemoteModalBenchMain", dependencies: ["RemoteModalBench", "RemoteModalFlags"], swiftSettings: strict),
        .executableTarget(
            name: "RemoteModalReactiveBenchMain",
            dependencies: ["RemoteModalReactive", "CRemoteModalAllocationCounter"],
            swiftSettings: strict),

        // The client core (issue #29): a pure state machine and its driver on the protocol only,
        // and a link on libwebsockets in a module of its own.
        .target(
            name: "RemoteModalClient",
            dependencies: ["RemoteModalProtocol", "RemoteModalCrypto", "RemoteModalLocking"], swiftSettings: strict
        ),
        .target(
            name: "RemoteModalRobot", dependencies: ["RemoteModalClient", "RemoteModalLocking", "RemoteModalProtocol"],
            swiftSettings: strict),
        .target(
            name: "RemoteModalClientWebSocket",
            dependencies: ["RemoteModalClient", "RemoteModalLocking", "RemoteModalWebSocket", "RemoteModalTransport"],
            swiftSettings: strict),
        .testTarget(
            name: "ClientTests",
            dependencies: [
                "RemoteModalClient", "RemoteModalClientWebSocket", "RemoteModalProtocol", "RemoteModalTestSupport",
                "RemoteModalHost", "RemoteModalDemo", "RemoteModalReactive", "RemoteModalLogging",
                "RemoteModalWebSocket", "RemoteModalLocking",
            ],
            swiftSettings: strict),

        // The conformance host: scenarios on the transport vocabulary, wired to libwebsockets
        // by its executable.
        .target(
            name: "RemoteModalConformance",
            dependencies: ["RemoteModalProtocol", "RemoteModalTransport", "RemoteModalCrypto"],
            swiftSettings: strict),
        .executableTarget(
            name: "RemoteModalConformanceMain",
            dependencies: ["RemoteModalConformance", "RemoteModalWebSocket", "RemoteModalFlags"],
            swiftSettings: strict),
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "RemoteModalConformance", "RemoteModalProtocol", "RemoteModalTransport", "RemoteModalTestSupport",
                "RemoteModalLocking",
                // The robot over a real socket (RobotConformanceTests).
                "RemoteModalClient", "RemoteModalClientWebSocket", "RemoteModalRobot", "RemoteModalWebSocket",
            ],
            swiftSettings: strict),

        // Tests.
        .testTarget(
            name: "ReactiveTests",
            dependencies: ["RemoteModalReactive", "RemoteModalReactiveTestSupport", "RemoteModalLocking"],
            swiftSettings: strict),
        .testTarget(name: "ModalProtocolTests", dependencies: ["RemoteModalProtocol"], swiftSettings: strict),
        .testTarget(
            name: "RemoteModalTests",
            dependencies: [
                "RemoteModalHost", "RemoteModalTestSupport", "RemoteModalTransport", "RemoteModalReactiveTestSupport",
                "RemoteModalProtocol", "RemoteModalReactive", "RemoteModalAction", "RemoteModalCoordinator",
                "RemoteModalLocking", "RemoteModalLogging", "CRemoteModalMallocStats", "RemoteModalCrypto",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ActionTests",
            dependencies: [
                "RemoteModalAction", "RemoteModalReactive", "RemoteModalReactiveTestSupport", "RemoteModalLocking",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CoordinatorTests",
            dependencies: [
                "RemoteModalCoordinator", "RemoteModalReactive", "RemoteModalReactiveTestSupport", "RemoteModalLocking",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "PortingTests",
            dependencies: [
                "RemoteModal", "RemoteModalHost", "RemoteModalTestSupport", "RemoteModalReactiveTestSupport",
                "RemoteModalProtocol", "RemoteModalReactive", "RemoteModalAction", "RemoteModalCoordinator",
                "RemoteModalLocking", "RemoteModalLogging",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "KioskTests",
            dependencies: ["RemoteModalKiosk", "RemoteModalProtocol", "RemoteModalClient", "RemoteModalQRCode"],
            swiftSettings: strict),
        .testTarget(name: "FlagsTests", dependencies: ["RemoteModalFlags"], swiftSettings: strict),
        .testTarget(name: "DemoTests", dependencies: ["RemoteModalDemo", "RemoteModalFlags"], swiftSettings: strict),
        .testTarget(name: "CryptoTests", dependencies: ["RemoteModalCrypto"], swiftSettings: strict),
        .testTarget(
            name: "BenchTests", dependencies: ["RemoteModalBench", "RemoteModalProtocol"], swiftSettings: strict),
        .testTarget(name: "RedisTests", dependencies: ["RemoteModalRedis"], swiftSettings: strict),
        .testTarget(
            name: "WebSocketTests",
            dependencies: ["RemoteModalWebSocket", "RemoteModalTransport", "RemoteModalLogging", "RemoteModalLocking"],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
