// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .unsafeFlags(["-cross-module-optimization"], .when(configuration: .release)),
]

let package = Package(
    name: "remote-modal",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Reactive", targets: ["Reactive"]),
        .library(name: "ReactiveTestSupport", targets: ["ReactiveTestSupport"]),
        .executable(name: "reactive-bench", targets: ["ReactiveBench"]),
    ],
    targets: [
        .target(name: "Reactive", swiftSettings: strict),
        .target(name: "ReactiveTestSupport", dependencies: ["Reactive"], swiftSettings: strict),
        .target(name: "CAllocationCounter"),
        .executableTarget(
            name: "ReactiveBench", dependencies: ["Reactive", "CAllocationCounter"], swiftSettings: strict),
        .testTarget(
            name: "ReactiveTests",
            dependencies: ["Reactive", "ReactiveTestSupport"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
