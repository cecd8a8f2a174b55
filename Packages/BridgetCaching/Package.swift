// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetCaching",
    products: [.library(name: "BridgetCaching", targets: ["BridgetCaching"])],
    dependencies: [.package(path: "../BridgetDTOs")],
    targets: [
        .target(name: "BridgetCaching", dependencies: ["BridgetDTOs"], swiftSettings: strictSettings),
        .testTarget(name: "BridgetCachingTests", dependencies: ["BridgetCaching"], swiftSettings: strictSettings),
    ]
)
