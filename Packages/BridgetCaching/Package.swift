// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetCaching",
    // MemoryCache's injected Clock and Duration.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [.library(name: "BridgetCaching", targets: ["BridgetCaching"])],
    targets: [
        .target(name: "BridgetCaching", swiftSettings: strictSettings),
        .testTarget(name: "BridgetCachingTests", dependencies: ["BridgetCaching"], swiftSettings: strictSettings),
    ]
)
