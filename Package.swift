// swift-tools-version:6.1
// The root package: builds every local package once and runs every test with a single `swift test`.
// Each package under Packages/ also stands alone (`swift test --package-path Packages/<Name>`).
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Bridget",
    products: [
        .executable(name: "bridget", targets: ["bridget"]),
        .executable(name: "socrata-fixture-server", targets: ["SocrataFixtureServerTool"]),
    ],
    dependencies: [
        .package(path: "Packages/BridgetDTOs"),
        .package(path: "Packages/BridgetCaching"),
        .package(path: "Packages/BridgetNetworking"),
        .package(path: "Packages/BridgetPersistence"),
        .package(path: "Packages/BridgetAnalysis"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // Test support only: the Socrata-shaped fixture server.
        .package(url: "https://github.com/swhitty/FlyingFox", exact: "0.27.1"),
    ],
    targets: [
        // glibc's malloc_trim, which Swift's Glibc module does not export.
        .target(name: "CBridgetMemory", path: "Apps/BridgetCLI/Sources/CBridgetMemory"),
        .target(
            name: "BridgetCLI",
            dependencies: [
                "CBridgetMemory",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetCaching", package: "BridgetCaching"),
                .product(name: "BridgetNetworking", package: "BridgetNetworking"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "BridgetAnalysis", package: "BridgetAnalysis"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Apps/BridgetCLI/Sources/BridgetCLI",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "bridget",
            dependencies: ["BridgetCLI", .product(name: "BridgetPersistence", package: "BridgetPersistence")],
            path: "Apps/BridgetCLI/Sources/bridget",
            swiftSettings: strictSettings
        ),
        // The Socrata-shaped server of the tests, also runnable on its own (socrata-fixture-server).
        .target(
            name: "SocrataFixtureServer",
            dependencies: [
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetNetworking", package: "BridgetNetworking"),
            ],
            path: "Tests/SocrataFixtureServer",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "SocrataFixtureServerTool",
            dependencies: ["SocrataFixtureServer"],
            path: "Tests/SocrataFixtureServerTool",
            swiftSettings: strictSettings
        ),
        // One test target per package's own Tests/ folder, so one build runs them all.
        .testTarget(
            name: "DTOsPackageTests",
            dependencies: [.product(name: "BridgetDTOs", package: "BridgetDTOs")],
            path: "Packages/BridgetDTOs/Tests/BridgetDTOsTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CachingPackageTests",
            dependencies: [.product(name: "BridgetCaching", package: "BridgetCaching")],
            path: "Packages/BridgetCaching/Tests/BridgetCachingTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NetworkingPackageTests",
            dependencies: [.product(name: "BridgetNetworking", package: "BridgetNetworking")],
            path: "Packages/BridgetNetworking/Tests/BridgetNetworkingTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PersistencePackageTests",
            dependencies: [
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Packages/BridgetPersistence/Tests/BridgetPersistenceTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AnalysisPackageTests",
            dependencies: [.product(name: "BridgetAnalysis", package: "BridgetAnalysis")],
            path: "Packages/BridgetAnalysis/Tests/BridgetAnalysisTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgetCLITests",
            dependencies: ["BridgetCLI", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Apps/BridgetCLI/Tests/BridgetCLITests",
            swiftSettings: strictSettings
        ),
        // Cross-package tests: the assembled pipeline and the built executable.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "BridgetCLI", "bridget", "SocrataFixtureServer", "SocrataFixtureServerTool",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/IntegrationTests",
            swiftSettings: strictSettings
        ),
        // The live and cached providers against the fixture server on 127.0.0.1.
        .testTarget(
            name: "LiveProviderTests",
            dependencies: [
                "BridgetCLI", "SocrataFixtureServer",
                .product(name: "BridgetNetworking", package: "BridgetNetworking"),
                .product(name: "BridgetCaching", package: "BridgetCaching"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
            ],
            path: "Tests/LiveProviderTests",
            swiftSettings: strictSettings
        ),
    ]
)
