// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetAnalysis",
    products: [.library(name: "BridgetAnalysis", targets: ["BridgetAnalysis"])],
    dependencies: [.package(path: "../BridgetDTOs")],
    targets: [
        .target(name: "BridgetAnalysis", dependencies: ["BridgetDTOs"], swiftSettings: strictSettings),
        .testTarget(name: "BridgetAnalysisTests", dependencies: ["BridgetAnalysis"], swiftSettings: strictSettings),
    ]
)
