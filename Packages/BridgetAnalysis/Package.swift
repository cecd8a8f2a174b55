// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetAnalysis",
    // Clock and Duration.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "BridgetAnalysis", targets: ["BridgetAnalysis"]),
        // The forecaster against planted worlds' exact truth (Scripts/bench forecast).
        .executable(name: "bridget-forecast-check", targets: ["BridgetForecastCheck"]),
    ],
    // BridgetReadmeCheck: test support only (the README example check).
    dependencies: [.package(path: "../BridgetDTOs"), .package(path: "../BridgetReadmeCheck")],
    targets: [
        // The river model: the learner of links between bridges and the engine that carries vessels along them.
        .target(name: "BridgetRiver", dependencies: ["BridgetDTOs"], swiftSettings: strictSettings),
        .target(name: "BridgetAnalysis", dependencies: ["BridgetDTOs", "BridgetRiver"], swiftSettings: strictSettings),
        .executableTarget(name: "BridgetForecastCheck", dependencies: ["BridgetAnalysis"], swiftSettings: strictSettings),
        .testTarget(
            name: "BridgetAnalysisTests",
            dependencies: [
                "BridgetAnalysis", "BridgetRiver", .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetReadmeCheck", package: "BridgetReadmeCheck"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
