// swift-tools-version:6.1
// An example consumer of Bridget's packages, outside the repository's root package: it depends on three of them by
// path, as another project would by URL, and uses only their public API.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "ForecastExample",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(path: "../../Packages/BridgetDTOs"),
        .package(path: "../../Packages/BridgetNetworking"),
        .package(path: "../../Packages/BridgetAnalysis"),
    ],
    targets: [
        .executableTarget(
            name: "ForecastExample",
            dependencies: [
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetNetworking", package: "BridgetNetworking"),
                .product(name: "BridgetAnalysis", package: "BridgetAnalysis"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
