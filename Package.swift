// swift-tools-version:6.1
// The root package: builds every local package and the app once, runs the cross-package tests (Tests/), and exports
// each package as a library product, so another project can depend on this repository by URL and pick the products
// it needs (`.product(name: "BridgetNetworking", package: "Bridget")`).
//
// SwiftPM can only export a product made of the package's own targets, so the packages' and the app's targets are
// declared here as well, over the same source folders. Their tests are not: each package under Packages/ (and the app
// under Apps/Bridget) stands alone with its own manifest and runs its own tests there (`swift test --package-path
// Packages/<Name>`), which is how another project reuses one package without the rest; Scripts/test runs them all.
// Scripts/test.d/manifests checks that the two manifests of every target agree (sources, dependencies, settings,
// platforms) and that every module a target imports is one it declares.
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
        .executable(name: "bridget-forecast-check", targets: ["BridgetForecastCheck"]),
        .library(name: "BridgetDTOs", targets: ["BridgetDTOs"]),
        .library(name: "BridgetCaching", targets: ["BridgetCaching"]),
        .library(name: "BridgetNetworking", targets: ["BridgetNetworking"]),
        .library(name: "BridgetNDW", targets: ["BridgetNDW"]),
        .library(name: "BridgetNetworkingTesting", targets: ["BridgetNetworkingTesting"]),
        .library(name: "BridgetPersistence", targets: ["BridgetPersistence"]),
        .library(name: "BridgetSQLite", targets: ["BridgetSQLite"]),
        .library(name: "BridgetPersistenceTesting", targets: ["BridgetPersistenceTesting"]),
        .library(name: "BridgetAnalysis", targets: ["BridgetAnalysis"]),
        .library(name: "BridgetCharts", targets: ["BridgetCharts"]),
        .library(name: "BridgetPostgres", targets: ["BridgetPostgres"]),
    ],
    // One trait a concern, each adding its SwiftNIO dependencies (minutes to build cold), so the plain `bridget` a
    // newcomer builds stays quick: `swift build --traits Server,Alerts,Postgres`. The executable's composition root
    // registers the server and alert delivery the build has; the assembly makes the PostgreSQL store. Scripts/test
    // builds and tests with all three.
    traits: [
        .trait(name: "Server", description: "bridget serve: the HTTP API and pages (Hummingbird, swift-prometheus)"),
        .trait(name: "Alerts",
               description: "alert delivery by serve and watch: signed webhooks, ntfy (swift-crypto, async-http-client)"),
        .trait(name: "Postgres", description: "store.kind postgres: a store several hosts share (postgres-nio)"),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Test support only: the Socrata-shaped fixture server.
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        // The pages' templates.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // The refresher's services (`watch`, and `serve` with the server).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The server (trait `Server` only).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        // Alerts' webhook signatures (HMAC-SHA256), with trait `Alerts`.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // Alerts' deliveries: deadlines, bounded answers, no redirects, the connection to the address checked.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The PostgreSQL store (its own package; the app uses it with trait `Postgres` only).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // The packages (each also in Packages/<Name>/Package.swift).
        // Test support of the packages: the README example check.
        .target(name: "BridgetReadmeCheck", path: "Packages/BridgetReadmeCheck/Sources/BridgetReadmeCheck",
                swiftSettings: strictSettings),
        .target(name: "BridgetDTOs", path: "Packages/BridgetDTOs/Sources/BridgetDTOs", swiftSettings: strictSettings),
        .target(name: "BridgetCharts", path: "Packages/BridgetCharts/Sources/BridgetCharts", swiftSettings: strictSettings),
        .target(name: "BridgetCaching", path: "Packages/BridgetCaching/Sources/BridgetCaching",
                swiftSettings: strictSettings),
        .target(name: "BridgetNetworking", dependencies: ["BridgetDTOs", "BridgetCaching"],
                path: "Packages/BridgetNetworking/Sources/BridgetNetworking", swiftSettings: strictSettings),
        // zlib's inflateInit2, a macro Swift cannot call (gunzip of NDW's .xml.gz).
        .target(name: "CBridgetZlib", path: "Packages/BridgetNetworking/Sources/CBridgetZlib",
                linkerSettings: [.linkedLibrary("z")]),
        // NDW's DATEX II feed (the Netherlands): a provider and a state source.
        .target(name: "BridgetNDW", dependencies: ["BridgetDTOs", "BridgetNetworking", "CBridgetZlib"],
                path: "Packages/BridgetNetworking/Sources/BridgetNDW", swiftSettings: strictSettings),
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
        // The store's protocols, its errors and the in-memory store: no SQLite.
        .target(name: "BridgetPersistence", dependencies: ["BridgetDTOs"],
                path: "Packages/BridgetPersistence/Sources/BridgetPersistence", swiftSettings: strictSettings),
        // The SQLite store, through GRDB.
        .target(
            name: "BridgetSQLite",
            dependencies: [
                "BridgetDTOs", "BridgetPersistence", "CSQLiteSettings", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            path: "Packages/BridgetPersistence/Sources/BridgetSQLite",
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
            dependencies: [
                "BridgetDTOs", "BridgetPersistence", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Packages/BridgetPostgres/Sources/BridgetPostgres",
            swiftSettings: strictSettings
        ),
        // The river model: the learner of links between bridges and the engine that carries vessels along them.
        .target(name: "BridgetRiver", dependencies: ["BridgetDTOs"], path: "Packages/BridgetAnalysis/Sources/BridgetRiver",
                swiftSettings: strictSettings),
        .target(name: "BridgetAnalysis", dependencies: ["BridgetDTOs", "BridgetRiver"],
                path: "Packages/BridgetAnalysis/Sources/BridgetAnalysis", swiftSettings: strictSettings),
        // The forecaster against planted worlds' exact truth (Scripts/bench forecast).
        .executableTarget(name: "BridgetForecastCheck", dependencies: ["BridgetAnalysis"],
                          path: "Packages/BridgetAnalysis/Sources/BridgetForecastCheck", swiftSettings: strictSettings),
        // The app (also in Apps/Bridget/Package.swift), by layer: core (four targets), pages, alerts, web, commands, executable.
        // glibc's malloc_trim and mallinfo2, which Swift's Glibc module does not export (no-ops elsewhere).
        .target(name: "CBridgetMemory", path: "Apps/Bridget/Sources/CBridgetMemory"),
        // The core, in four targets, each importing only those above it.
        .target(
            name: "BridgetCore",
            dependencies: [
                "BridgetDTOs", "BridgetCaching", "BridgetNetworking", "BridgetPersistence", "BridgetSQLite", "BridgetAnalysis",
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Apps/Bridget/Sources/BridgetCore",
            swiftSettings: strictSettings
        ),
        .target(
            name: "BridgetContext",
            dependencies: [
                "BridgetCore", "CBridgetMemory", "BridgetDTOs", "BridgetCaching", "BridgetNetworking", "BridgetNDW",
                "BridgetPersistence", "BridgetSQLite", "BridgetAnalysis",
                .target(name: "BridgetPostgres", condition: .when(traits: ["Postgres"])),
            ],
            path: "Apps/Bridget/Sources/BridgetContext",
            swiftSettings: strictSettings
        ),
        .target(
            name: "BridgetAnswers",
            dependencies: [
                "BridgetCore", "BridgetContext", "BridgetDTOs", "BridgetCaching", "BridgetNetworking", "BridgetPersistence",
                "BridgetAnalysis", .product(name: "Yams", package: "Yams"),
            ],
            path: "Apps/Bridget/Sources/BridgetAnswers",
            swiftSettings: strictSettings
        ),
        .target(
            name: "BridgetRuntime",
            dependencies: [
                "BridgetCore", "BridgetContext", "BridgetAnswers", "BridgetDTOs", "BridgetNetworking",
                "BridgetPersistence", "BridgetAnalysis",
            ],
            path: "Apps/Bridget/Sources/BridgetRuntime",
            swiftSettings: strictSettings
        ),
        .target(
            name: "BridgetPages",
            dependencies: [
                "BridgetCore", "BridgetContext", "BridgetAnswers", "BridgetDTOs", "BridgetPersistence", "BridgetAnalysis", "BridgetCharts", "BridgetCaching",
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            path: "Apps/Bridget/Sources/BridgetPages",
            swiftSettings: strictSettings
        ),
        // Alert delivery (webhooks signed with swift-crypto, ntfy): serve and watch send with trait `Alerts`.
        .target(
            name: "BridgetAlerts",
            dependencies: [
                "BridgetCore", "BridgetContext", "BridgetRuntime", "BridgetDTOs", "BridgetNetworking", "BridgetPersistence",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Apps/Bridget/Sources/BridgetAlerts",
            swiftSettings: strictSettings
        ),
        .target(
            name: "BridgetWeb",
            dependencies: [
                "BridgetCore", "BridgetContext", "BridgetAnswers", "BridgetRuntime", "CBridgetMemory", "BridgetPages", "BridgetDTOs", "BridgetCaching",
                "BridgetPersistence", "BridgetAnalysis",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            path: "Apps/Bridget/Sources/BridgetWeb",
            swiftSettings: strictSettings
        ),
        .target(
            name: "BridgetCLI",
            dependencies: [
                "BridgetCore", "BridgetContext", "BridgetAnswers", "BridgetRuntime", "BridgetPages", "BridgetDTOs", "BridgetCaching", "BridgetNetworking", "BridgetPersistence", "BridgetAnalysis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Apps/Bridget/Sources/BridgetCLI",
            swiftSettings: strictSettings
        ),
        // The composition root: the commands, and the parts the build's traits add.
        .executableTarget(
            name: "bridget",
            dependencies: [
                "BridgetCLI", "BridgetRuntime", "BridgetSQLite",
                .target(name: "BridgetWeb", condition: .when(traits: ["Server"])),
                .target(name: "BridgetAlerts", condition: .when(traits: ["Alerts"])),
            ],
            path: "Apps/Bridget/Sources/bridget",
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
        // Raw sockets for the server's tests, in process and through the built executable.
        .target(name: "BridgetTestSupport", path: "Apps/Bridget/Tests/BridgetTestSupport", swiftSettings: strictSettings),
        // Cross-package tests: the assembled pipeline and the built executable.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "BridgetCore", "bridget", "SocrataFixtureServer", "SocrataFixtureServerTool", "BridgetPostgres",
                "BridgetAnalysis", "BridgetDTOs", "BridgetNetworking", "BridgetPersistence", "BridgetSQLite", "BridgetTestSupport",
                "BridgetAlerts",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/IntegrationTests",
            swiftSettings: strictSettings
        ),
        // The Socrata format's rules as a sync or an import applies them: the Socrata reader (networking) and the
        // shared validator (analysis) together; and the sample provider's data judged by them.
        .testTarget(
            name: "SocrataValidationTests",
            dependencies: [
                "BridgetDTOs", "BridgetNetworking", "BridgetAnalysis",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/SocrataValidationTests",
            swiftSettings: strictSettings
        ),
        // The live and cached providers against the fixture server on 127.0.0.1.
        .testTarget(
            name: "LiveProviderTests",
            dependencies: [
                "BridgetCore", "BridgetContext", "BridgetRuntime", "SocrataFixtureServer", "BridgetAnalysis", "BridgetDTOs", "BridgetTestSupport",
                "BridgetNetworking", "BridgetNDW",
                "BridgetNetworkingTesting",
                "BridgetCaching",
                "BridgetPersistence", "BridgetSQLite",
            ],
            path: "Tests/LiveProviderTests",
            swiftSettings: strictSettings
        ),
    ]
)
