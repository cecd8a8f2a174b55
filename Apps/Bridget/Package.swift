// swift-tools-version:6.1
// The app: `bridget`, in layers, each a target of its own; no layer imports one above it.
//
//   BridgetCore     configuration, the time grammar, the error table, the plumbing (files, locks, JSON text)
//   BridgetContext  the configured parts assembled (AppContext), the store, the pipelines that write it
//   BridgetAnswers  the questions Bridget answers, with their JSON, and the saved routes and rules they read
//   BridgetRuntime  what keeps a deployment going: refresh, live polling, alert rules, the trait parts' ports
//   BridgetPages   the pages: view models and their templates (`bridget report`, the server's `/`)
//   BridgetAlerts  alert delivery: signed webhooks, ntfy (trait `Alerts`)
//   BridgetWeb     the HTTP server: router, controllers, problems (trait `Server`)
//   BridgetCLI     the commands (swift-argument-parser)
//   bridget        the executable: the composition root, registering the parts the traits built
//
// `swift test --package-path Apps/Bridget` runs the app's tests; the root manifest builds the same targets with the
// packages (Scripts/test.d/manifests checks that the two agree).
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Bridget",
    // The packages' floors (Mutex needs macOS 15 / iOS 18); the command runs on Linux and macOS.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [.executable(name: "bridget", targets: ["bridget"])],
    traits: [
        .trait(name: "Server", description: "bridget serve: the HTTP API and pages (Hummingbird, swift-prometheus)"),
        .trait(name: "Alerts",
               description: "alert delivery by serve and watch: signed webhooks, ntfy (swift-crypto, async-http-client)"),
        .trait(name: "Postgres", description: "store.kind postgres: a store several hosts share (postgres-nio)"),
    ],
    dependencies: [
        .package(path: "../../Packages/BridgetDTOs"),
        .package(path: "../../Packages/BridgetCaching"),
        .package(path: "../../Packages/BridgetNetworking"),
        .package(path: "../../Packages/BridgetPersistence"),
        .package(path: "../../Packages/BridgetAnalysis"),
        .package(path: "../../Packages/BridgetCharts"),
        .package(path: "../../Packages/BridgetPostgres"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // glibc's malloc_trim and mallinfo2, which Swift's Glibc module does not export (no-ops elsewhere).
        .target(name: "CBridgetMemory"),
        // The core, in four targets, each importing only those above it here.
        // The configuration, the time grammar, the error table and the plumbing every other part uses.
        .target(
            name: "BridgetCore",
            dependencies: [
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetCaching", package: "BridgetCaching"),
                .product(name: "BridgetNetworking", package: "BridgetNetworking"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "BridgetSQLite", package: "BridgetPersistence"),
                .product(name: "BridgetAnalysis", package: "BridgetAnalysis"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),
        // The configured parts assembled (`AppContext`), the store, and the work that writes it: sync, import,
        // export, model rebuilds, the live tracker's rules.
        .target(
            name: "BridgetContext",
            dependencies: [
                "BridgetCore", "CBridgetMemory",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetCaching", package: "BridgetCaching"),
                .product(name: "BridgetNetworking", package: "BridgetNetworking"),
                .product(name: "BridgetNDW", package: "BridgetNetworking"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "BridgetSQLite", package: "BridgetPersistence"),
                .product(name: "BridgetAnalysis", package: "BridgetAnalysis"),
                .product(name: "BridgetPostgres", package: "BridgetPostgres", condition: .when(traits: ["Postgres"])),
            ],
            swiftSettings: strictSettings
        ),
        // The questions Bridget answers, each with its JSON beside it, and the saved routes and rules they read.
        .target(
            name: "BridgetAnswers",
            dependencies: [
                "BridgetCore", "BridgetContext",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetCaching", package: "BridgetCaching"),
                .product(name: "BridgetNetworking", package: "BridgetNetworking"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "BridgetAnalysis", package: "BridgetAnalysis"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),
        // What keeps a deployment going: the refresher, the live poller, alert rules and the trait parts' ports.
        .target(
            name: "BridgetRuntime",
            dependencies: [
                "BridgetCore", "BridgetContext", "BridgetAnswers",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetNetworking", package: "BridgetNetworking"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "BridgetAnalysis", package: "BridgetAnalysis"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "BridgetPages",
            dependencies: [
                "BridgetCore", "BridgetContext", "BridgetAnswers",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "BridgetAnalysis", package: "BridgetAnalysis"),
                .product(name: "BridgetCharts", package: "BridgetCharts"),
                .product(name: "BridgetCaching", package: "BridgetCaching"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "BridgetAlerts",
            dependencies: [
                "BridgetCore", "BridgetContext", "BridgetRuntime",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetNetworking", package: "BridgetNetworking"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "BridgetWeb",
            dependencies: [
                "BridgetCore", "BridgetContext", "BridgetAnswers", "BridgetRuntime", "CBridgetMemory",
                "BridgetPages",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetCaching", package: "BridgetCaching"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "BridgetAnalysis", package: "BridgetAnalysis"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "BridgetCLI",
            dependencies: [
                "BridgetCore", "BridgetContext", "BridgetAnswers", "BridgetRuntime",
                "BridgetPages",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetCaching", package: "BridgetCaching"),
                .product(name: "BridgetNetworking", package: "BridgetNetworking"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "BridgetAnalysis", package: "BridgetAnalysis"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "bridget",
            dependencies: [
                "BridgetCLI", "BridgetRuntime", .product(name: "BridgetSQLite", package: "BridgetPersistence"),
                .target(name: "BridgetWeb", condition: .when(traits: ["Server"])),
                .target(name: "BridgetAlerts", condition: .when(traits: ["Alerts"])),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgetAppTests",
            dependencies: [
                .product(name: "PropertyBased", package: "swift-property-based"),
                "BridgetCore", "BridgetContext", "BridgetAnswers", "BridgetRuntime",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetCaching", package: "BridgetCaching"),
                .product(name: "BridgetNetworking", package: "BridgetNetworking"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "BridgetSQLite", package: "BridgetPersistence"),
                .product(name: "BridgetAnalysis", package: "BridgetAnalysis"),
                .product(name: "BridgetPostgres", package: "BridgetPostgres"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgetPagesTests",
            dependencies: [
                "BridgetCore", "BridgetContext",
                "BridgetPages",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
            ],
            swiftSettings: strictSettings
        ),
        // Raw sockets for the server's tests, in process and through the built executable.
        .target(name: "BridgetTestSupport", path: "Tests/BridgetTestSupport", swiftSettings: strictSettings),
        .testTarget(
            name: "BridgetWebTests",
            dependencies: [
                "BridgetCore", "BridgetContext", "BridgetAnswers", "BridgetRuntime",
                "BridgetAlerts",
                "BridgetWeb",
                "BridgetTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "BridgetSQLite", package: "BridgetPersistence"),
                .product(name: "BridgetAnalysis", package: "BridgetAnalysis"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgetCLITests",
            dependencies: [
                "BridgetCLI",
                "BridgetCore", "BridgetRuntime",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
