// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetDTOs",
    // Clock and Duration.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [.library(name: "BridgetDTOs", targets: ["BridgetDTOs"])],
    // Test support: the README example check.
    dependencies: [.package(path: "../BridgetReadmeCheck")],
    targets: [
        .target(name: "BridgetDTOs", swiftSettings: strictSettings),
        .testTarget(
            name: "BridgetDTOsTests",
            dependencies: ["BridgetDTOs", .product(name: "BridgetReadmeCheck", package: "BridgetReadmeCheck")],
            swiftSettings: strictSettings
        ),
    ]
)
