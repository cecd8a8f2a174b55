// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetNetworking",
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
