// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetNetworking",
    // Synchronization's Mutex (the client's in-flight table, the transport's exchanges).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "BridgetNetworking", targets: ["BridgetNetworking"]),
        // NDW's DATEX II feed (the Netherlands): a provider and a state source over the same client.
        .library(name: "BridgetNDW", targets: ["BridgetNDW"]),
        // The provider conformance suite, for a provider of your own (Swift Testing).
        .library(name: "BridgetNetworkingTesting", targets: ["BridgetNetworkingTesting"]),
    ],
    dependencies: [
        // Test support only: the README example check.
        .package(path: "../BridgetReadmeCheck"),
        // Test support only: HTTP servers on 127.0.0.1 for the transport's redirect tests.
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        .package(path: "../BridgetDTOs"),
        .package(path: "../BridgetCaching"),
    ],
    targets: [
        .target(
            name: "BridgetNetworking",
            dependencies: ["BridgetDTOs", "BridgetCaching"],
            swiftSettings: strictSettings
        ),
        // zlib's inflateInit2, a macro Swift cannot call (gunzip of NDW's .xml.gz). zlib is in macOS's SDK; on Linux
        // its headers come with zlib1g-dev (Scripts/setup).
        .target(name: "CBridgetZlib", linkerSettings: [.linkedLibrary("z")]),
        .target(
            name: "BridgetNDW",
            dependencies: ["BridgetDTOs", "BridgetNetworking", "CBridgetZlib"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "BridgetNetworkingTesting",
            dependencies: ["BridgetDTOs", "BridgetNetworking"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgetNetworkingTests",
            dependencies: [
                .product(name: "BridgetReadmeCheck", package: "BridgetReadmeCheck"),
                .product(name: "FlyingFox", package: "FlyingFox"),
                "BridgetNetworking", "BridgetNDW", "BridgetNetworkingTesting", .product(name: "BridgetDTOs", package: "BridgetDTOs"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
    ]
)
