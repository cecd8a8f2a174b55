// swift-tools-version:6.1
// The root package: builds every local package once, runs every test with a single `swift test`, and exports each
// package as a library product, so another project can depend on this repository by URL and pick the products it
// needs (`.product(name: "BridgetNetworking", package: "Bridget")`).
//
// SwiftPM can only export a product made of the package's own targets, so the packages' targets are declared here
// as well, over the same source folders. Each package under Packages/ (and the CLI under Apps/BridgetCLI) still
// stands alone with its own manifest (`swift test --package-path Packages/<Name>`); a change of a package's
// dependencies or settings goes in both manifests.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Bridget",
    // The packages' own floors (Mutex needs macOS 15 / iOS 18); the CLI and its tools run on Linux and macOS.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "bridget", targets: ["bridget"]),
        .executable(name: "socrata-fixture-server", targets: ["SocrataFixtureServerTool"]),
        .library(name: "BridgetDTOs", targets: ["BridgetDTOs"]),
        .library(name: "BridgetCaching", targets: ["BridgetCaching"]),
        .library(name: "BridgetNetworking", targets: ["BridgetNetworking"]),
        .library(name: "BridgetNetworkingTesting", targets: ["BridgetNetworkingTesting"]),
        .library(name: "BridgetPersistence", targets: ["BridgetPersistence"]),
        .library(name: "BridgetPersistenceTesting", targets: ["BridgetPersistenceTesting"]),
        .library(name: "BridgetAnalysis", targets: ["BridgetAnalysis"]),
        .library(name: "BridgetCharts", targets: ["BridgetCharts"]),
        .library(name: "BridgetPostgres", targets: ["BridgetPostgres"]),
    ],
    // `Server` adds `bridget serve` (Hummingbird) and `store.kind: postgres` (postgres-nio): SwiftNIO, minutes to build
    // cold, so the plain `bridget` a newcomer builds stays quick: `swift build --traits Server`. Scripts/test builds and
    // tests with it.
    traits: [.trait(name: "Server", description: "bridget serve (Hummingbird) and the PostgreSQL store (postgres-nio)")],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // Test support only: the Socrata-shaped fixture server.
        .package(url: "https://github.com/swhitty/FlyingFox", exact: "0.27.1"),
        // The server (trait `Server` only).
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        // The PostgreSQL store (its own package; the CLI uses it with trait `Server` only).
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        // The packages (each also in Packages/<Name>/Package.swift).
        .target(name: "BridgetDTOs", path: "Packages/BridgetDTOs/Sources/BridgetDTOs", swiftSettings: strictSettings),
        .target(name: "BridgetCharts", path: "Packages/BridgetCharts/Sources/BridgetCharts", swiftSettings: strictSettings),
        .target(name: "BridgetCaching", path: "Packages/BridgetCaching/Sources/BridgetCaching",
                swiftSettings: strictSettings),
        // zlib's inflateInit2, a macro Swift cannot call (gunzip of NDW's .xml.gz).
        .target(name: "CBridgetZlib", path: "Packages/BridgetNetworking/Sources/CBridgetZlib",
                linkerSettings: [.linkedLibrary("z")]),
        .target(name: "BridgetNetworking", dependencies: ["BridgetDTOs", "BridgetCaching", "CBridgetZlib"],
                path: "Packages/BridgetNetworking/Sources/BridgetNetworking", swiftSettings: strictSettings),
        // The provider conformance suite, for a provider of your own (Swift Testing).
        .target(
            name: "BridgetNetworkingTesting",
            dependencies: ["BridgetDTOs", "BridgetNetworking"],
            path: "Packages/BridgetNetworking/Sources/BridgetNetworkingTesting",
            swiftSettings: strictSettings
        ),
        // sqlite3_config, which is variadic and so out of Swift's reach.
        .target(name: "CSQLiteSettings", path: "Packages/BridgetPersistence/Sources/CSQLiteSettings",
                linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "BridgetPersistence",
            dependencies: [
                "BridgetDTOs", "CSQLiteSettings", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Packages/BridgetPersistence/Sources/BridgetPersistence",
            swiftSettings: strictSettings
        ),
        // The store conformance suite, for a store of your own (Swift Testing).
        .target(
            name: "BridgetPersistenceTesting",
            dependencies: ["BridgetDTOs", "BridgetPersistence"],
            path: "Packages/BridgetPersistence/Sources/BridgetPersistenceTesting",
            swiftSettings: strictSettings
        ),
        .target(
            name: "BridgetPostgres",
            dependencies: ["BridgetDTOs", "BridgetPersistence", .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Packages/BridgetPostgres/Sources/BridgetPostgres",
            swiftSettings: strictSettings
        ),
        .target(name: "BridgetAnalysis", dependencies: ["BridgetDTOs"], path: "Packages/BridgetAnalysis/Sources/BridgetAnalysis",
                swiftSettings: strictSettings),
        // The CLI (also in Apps/BridgetCLI/Package.swift).
        // glibc's malloc_trim, which Swift's Glibc module does not export.
        .target(name: "CBridgetMemory", path: "Apps/BridgetCLI/Sources/CBridgetMemory"),
        .target(
            name: "BridgetCLI",
            dependencies: [
                "CBridgetMemory",
                "BridgetDTOs",
                "BridgetCaching",
                "BridgetNetworking",
                "BridgetPersistence",
                "BridgetAnalysis",
                "BridgetCharts",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Server"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Server"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Server"])),
                .target(name: "BridgetPostgres", condition: .when(traits: ["Server"])),
            ],
            path: "Apps/BridgetCLI/Sources/BridgetCLI",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "bridget",
            dependencies: ["BridgetCLI", "BridgetPersistence"],
            path: "Apps/BridgetCLI/Sources/bridget",
            swiftSettings: strictSettings
        ),
        // The Socrata-shaped server of the tests, also runnable on its own (socrata-fixture-server).
        .target(
            name: "SocrataFixtureServer",
            dependencies: [
                .product(name: "FlyingFox", package: "FlyingFox"),
                "BridgetCaching",
                "BridgetDTOs",
                "BridgetNetworking",
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
            dependencies: ["BridgetDTOs"],
            path: "Packages/BridgetDTOs/Tests/BridgetDTOsTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ChartsPackageTests",
            dependencies: ["BridgetCharts"],
            path: "Packages/BridgetCharts/Tests/BridgetChartsTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CachingPackageTests",
            dependencies: ["BridgetCaching"],
            path: "Packages/BridgetCaching/Tests/BridgetCachingTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NetworkingPackageTests",
            dependencies: ["BridgetNetworking", "BridgetNetworkingTesting"],
            path: "Packages/BridgetNetworking/Tests/BridgetNetworkingTests",
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PersistencePackageTests",
            dependencies: [
                "BridgetPersistence",
                "BridgetPersistenceTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Packages/BridgetPersistence/Tests/BridgetPersistenceTests",
            swiftSettings: strictSettings
        ),
        // Needs the PostgreSQL server Scripts/test starts (Scripts/test.d/postgres); fails, saying so, without one.
        .testTarget(
            name: "PostgresPackageTests",
            dependencies: [
                "BridgetPostgres", "BridgetPersistence", "BridgetPersistenceTesting",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Packages/BridgetPostgres/Tests/BridgetPostgresTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AnalysisPackageTests",
            dependencies: ["BridgetAnalysis"],
            path: "Packages/BridgetAnalysis/Tests/BridgetAnalysisTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgetCLITests",
            dependencies: ["BridgetCLI", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Yams", package: "Yams")],
            path: "Apps/BridgetCLI/Tests/BridgetCLITests",
            swiftSettings: strictSettings
        ),
        // Cross-package tests: the assembled pipeline and the built executable.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "BridgetCLI", "bridget", "SocrataFixtureServer", "SocrataFixtureServerTool", "BridgetPostgres",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/IntegrationTests",
            swiftSettings: strictSettings
        ),
        // The Socrata format's rules as a sync or an import applies them: the Socrata reader (networking) and the
        // shared validator (analysis) together; and the sample provider's data judged by them.
        .testTarget(
            name: "SocrataValidationTests",
            dependencies: ["BridgetDTOs", "BridgetNetworking", "BridgetAnalysis"],
            path: "Tests/SocrataValidationTests",
            swiftSettings: strictSettings
        ),
        // The live and cached providers against the fixture server on 127.0.0.1.
        .testTarget(
            name: "LiveProviderTests",
            dependencies: [
                "BridgetCLI", "SocrataFixtureServer",
                "BridgetNetworking",
                "BridgetNetworkingTesting",
                "BridgetCaching",
                "BridgetPersistence",
            ],
            path: "Tests/LiveProviderTests",
            swiftSettings: strictSettings
        ),
    ]
)
