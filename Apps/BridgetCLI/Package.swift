// swift-tools-version:6.1
// The `bridget` command on its own: the composition root and its commands, over the packages by path.
// `swift test --package-path Apps/BridgetCLI` runs its tests; the root manifest builds the same targets with the rest.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetCLI",
    platforms: [.macOS(.v15)],
    products: [.executable(name: "bridget", targets: ["bridget"])],
    // `Server` adds `bridget serve` (Hummingbird) and `store.kind: postgres` (postgres-nio); see the root manifest.
    traits: [.trait(name: "Server", description: "bridget serve (Hummingbird) and the PostgreSQL store (postgres-nio)")],
    dependencies: [
        .package(path: "../../Packages/BridgetDTOs"),
        .package(path: "../../Packages/BridgetCaching"),
        .package(path: "../../Packages/BridgetNetworking"),
        .package(path: "../../Packages/BridgetPersistence"),
        .package(path: "../../Packages/BridgetAnalysis"),
        .package(path: "../../Packages/BridgetCharts"),
        .package(path: "../../Packages/BridgetPostgres"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
    ],
    targets: [
        // glibc's malloc_trim, which Swift's Glibc module does not export (a no-op elsewhere).
        .target(name: "CBridgetMemory"),
        .target(
            name: "BridgetCLI",
            dependencies: [
                "CBridgetMemory",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetCaching", package: "BridgetCaching"),
                .product(name: "BridgetNetworking", package: "BridgetNetworking"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "BridgetAnalysis", package: "BridgetAnalysis"),
                .product(name: "BridgetCharts", package: "BridgetCharts"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Server"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Server"])),
                .product(name: "BridgetPostgres", package: "BridgetPostgres", condition: .when(traits: ["Server"])),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "bridget",
            dependencies: ["BridgetCLI", .product(name: "BridgetPersistence", package: "BridgetPersistence")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgetCLITests",
            dependencies: ["BridgetCLI", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Yams", package: "Yams")],
            swiftSettings: strictSettings
        ),
    ]
)
