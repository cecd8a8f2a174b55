// swift-tools-version:6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetPersistence",
    // Synchronization's Mutex (the background checkpointer).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "BridgetPersistence", targets: ["BridgetPersistence"]),
        .library(name: "BridgetSQLite", targets: ["BridgetSQLite"]),
        // The store conformance suite, for a store of your own (Swift Testing).
        .library(name: "BridgetPersistenceTesting", targets: ["BridgetPersistenceTesting"]),
    ],
    dependencies: [
        // Test support only: the README example check.
        .package(path: "../BridgetReadmeCheck"),
        .package(path: "../BridgetDTOs"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // sqlite3_config, which is variadic and so out of Swift's reach.
        .target(name: "CSQLiteSettings", linkerSettings: [.linkedLibrary("sqlite3")]),
        // The store's protocols, its errors and the in-memory store: no SQLite.
        .target(name: "BridgetPersistence", dependencies: ["BridgetDTOs"], swiftSettings: strictSettings),
        // The SQLite store, through GRDB.
        .target(
            name: "BridgetSQLite",
            dependencies: [
                "BridgetDTOs", "BridgetPersistence", "CSQLiteSettings", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "BridgetPersistenceTesting",
            dependencies: ["BridgetDTOs", "BridgetPersistence"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgetPersistenceTests",
            dependencies: [
                .product(name: "BridgetReadmeCheck", package: "BridgetReadmeCheck"),
                "BridgetPersistence", "BridgetSQLite", "BridgetPersistenceTesting",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"), .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
