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
    products: [.library(name: "BridgetNetworking", targets: ["BridgetNetworking"])],
    dependencies: [
        .package(path: "../BridgetDTOs"),
        .package(path: "../BridgetCaching"),
    ],
    targets: [
        .target(name: "BridgetNetworking", dependencies: ["BridgetDTOs", "BridgetCaching"], swiftSettings: strictSettings),
        .testTarget(name: "BridgetNetworkingTests", dependencies: ["BridgetNetworking"], swiftSettings: strictSettings),
    ]
)
