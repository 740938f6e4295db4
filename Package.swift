// swift-tools-version:6.0
import PackageDescription

// Release builds: cross-module optimization (generic code specialized across modules) and
// no dynamic exclusivity checks (4% of the host's time per modal round trip; debug builds,
// where every test runs, keep them). See docs/benchmarks.md, round four.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .unsafeFlags(["-cross-module-optimization", "-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

let package = Package(
    name: "remote-modal",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Reactive", targets: ["Reactive"]),
        .library(name: "ReactiveTestSupport", targets: ["ReactiveTestSupport"]),
        .library(name: "WebSocket", targets: ["WebSocket"]),
        .library(name: "ModalProtocol", targets: ["ModalProtocol"]),
        .library(name: "RemoteModal", targets: ["RemoteModal"]),
        .library(name: "Action", targets: ["Action"]),
        .library(name: "Coordinator", targets: ["Coordinator"]),
        .executable(name: "reactive-bench", targets: ["ReactiveBench"]),
        .executable(name: "modal-host", targets: ["ModalHost"]),
        .executable(name: "modal-bench", targets: ["ModalBench"]),
        .executable(name: "kiosk", targets: ["KioskMain"]),
        .executable(name: "chaos-host", targets: ["ChaosHost"]),
        .executable(name: "bench-host", targets: ["BenchHost"]),
    ],
    targets: [
        .target(name: "Locking", swiftSettings: strict),
        .target(name: "Reactive", dependencies: ["Locking"], swiftSettings: strict),
        .target(name: "Logging", dependencies: ["Locking"], swiftSettings: strict),
        .target(name: "Action", dependencies: ["Reactive", "Locking"], swiftSettings: strict),
        .target(name: "Coordinator", dependencies: ["Reactive", "Locking"], swiftSettings: strict),
        .target(name: "ModalProtocol", swiftSettings: strict),
        .systemLibrary(
            name: "CLibWebSockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev", "libssl-dev"])]),
        .target(name: "Transport", swiftSettings: strict),
        .target(
            name: "WebSocket", dependencies: ["CLibWebSockets", "Transport", "Logging", "Locking"],
            swiftSettings: strict),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .target(name: "QRCode", dependencies: ["CQREncode"], swiftSettings: strict),
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
        .target(name: "Redis", dependencies: ["CHiredis"], swiftSettings: strict),
        .target(name: "ReactiveTestSupport", dependencies: ["Reactive", "Locking"], swiftSettings: strict),
        .target(name: "Flags", swiftSettings: strict),
        .target(
            name: "RemoteModalTestSupport", dependencies: ["RemoteModal", "ModalProtocol", "Transport", "Locking"],
            swiftSettings: strict),
        .target(
            name: "RemoteModal",
            dependencies: [
                "Reactive", "Action", "Coordinator", "ModalProtocol", "Transport", "Logging", "Locking", "CMallocStats",
                "Redis",
            ],
            swiftSettings: strict),
        .target(
            name: "DemoHost",
            dependencies: ["RemoteModal", "Reactive", "ModalProtocol", "Flags", "Logging", "WebSocket"],
            swiftSettings: strict),
        .executableTarget(
            name: "ModalHost", dependencies: ["DemoHost", "RemoteModal", "WebSocket", "Logging"], swiftSettings: strict),
        .target(
            name: "Bench", dependencies: ["ModalProtocol", "WebSocket", "Logging", "Locking"], swiftSettings: strict),
        .target(
            name: "Kiosk", dependencies: ["ModalProtocol", "WebSocket", "Logging", "Locking", "QRCode"],
            swiftSettings: strict),
        .executableTarget(name: "KioskMain", dependencies: ["Kiosk", "Flags", "ModalProtocol"], swiftSettings: strict),
        .executableTarget(
            name: "ChaosHost", dependencies: ["DemoHost", "RemoteModal", "WebSocket", "Logging"], swiftSettings: strict),
        .executableTarget(
            name: "BenchHost", dependencies: ["DemoHost", "RemoteModal", "WebSocket", "Logging"], swiftSettings: strict),
        .executableTarget(name: "ModalBench", dependencies: ["Bench", "Flags"], swiftSettings: strict),
        .target(name: "CAllocationCounter"),
        .target(name: "CMallocStats"),
        .executableTarget(
            name: "ReactiveBench", dependencies: ["Reactive", "CAllocationCounter"], swiftSettings: strict),
        .testTarget(
            name: "ReactiveTests",
            dependencies: ["Reactive", "ReactiveTestSupport", "Locking"],
            swiftSettings: strict
        ),
        .testTarget(name: "ModalProtocolTests", dependencies: ["ModalProtocol"], swiftSettings: strict),
        .testTarget(
            name: "RemoteModalTests",
            dependencies: [
                "RemoteModal", "RemoteModalTestSupport", "Transport", "ReactiveTestSupport", "ModalProtocol",
                "Reactive", "Locking",
                "Logging",
                "CMallocStats",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ActionTests", dependencies: ["Action", "Reactive", "ReactiveTestSupport", "Locking"],
            swiftSettings: strict),
        .testTarget(
            name: "CoordinatorTests", dependencies: ["Coordinator", "Reactive", "ReactiveTestSupport", "Locking"],
            swiftSettings: strict),
        .testTarget(
            name: "PortingTests",
            dependencies: [
                "RemoteModal", "RemoteModalTestSupport", "ReactiveTestSupport", "ModalProtocol", "Reactive", "Action",
                "Coordinator", "Locking", "Logging",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "KioskTests", dependencies: ["Kiosk", "ModalProtocol", "Locking", "QRCode"], swiftSettings: strict),
        .testTarget(name: "FlagsTests", dependencies: ["Flags"], swiftSettings: strict),
        .testTarget(name: "BenchTests", dependencies: ["Bench", "ModalProtocol"], swiftSettings: strict),
        .testTarget(name: "RedisTests", dependencies: ["Redis"], swiftSettings: strict),
        .testTarget(name: "WebSocketTests", dependencies: ["WebSocket", "Logging", "Locking"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
