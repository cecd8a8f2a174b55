// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetCharts",
    // Plain Swift and Foundation's number formatting: anywhere the other packages run.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [.library(name: "BridgetCharts", targets: ["BridgetCharts"])],
    targets: [
        .target(name: "BridgetCharts", swiftSettings: strictSettings),
        .testTarget(name: "BridgetChartsTests", dependencies: ["BridgetCharts"], swiftSettings: strictSettings),
    ]
)
