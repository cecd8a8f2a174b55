// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetDTOs",
    products: [.library(name: "BridgetDTOs", targets: ["BridgetDTOs"])],
    targets: [
        .target(name: "BridgetDTOs", swiftSettings: strictSettings),
        .testTarget(name: "BridgetDTOsTests", dependencies: ["BridgetDTOs"], swiftSettings: strictSettings),
    ]
)
