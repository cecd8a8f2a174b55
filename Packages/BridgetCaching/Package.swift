// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetCaching",
    // Synchronization's Mutex (MemoryCache's state), with Clock and Duration.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [.library(name: "BridgetCaching", targets: ["BridgetCaching"])],
    // Test support: the README example check.
    dependencies: [.package(path: "../BridgetReadmeCheck")],
    targets: [
        .target(name: "BridgetCaching", swiftSettings: strictSettings),
        .testTarget(
            name: "BridgetCachingTests",
            dependencies: ["BridgetCaching", .product(name: "BridgetReadmeCheck", package: "BridgetReadmeCheck")],
            swiftSettings: strictSettings
        ),
    ]
)
