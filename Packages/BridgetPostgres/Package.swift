// swift-tools-version:6.1
// The PostgreSQL store: the store boundary of BridgetPersistence on a database server several hosts share. Its own
// package so that a project that needs only SQLite never builds SwiftNIO.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetPostgres",
    // BridgetPersistence's platforms (Synchronization's Mutex).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "BridgetPostgres", targets: ["BridgetPostgres"]),
    ],
    dependencies: [
        .package(path: "../BridgetDTOs"),
        .package(path: "../BridgetPersistence"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        .target(
            name: "BridgetPostgres",
            dependencies: [
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgetPostgresTests",
            dependencies: [
                "BridgetPostgres",
                .product(name: "BridgetPersistenceTesting", package: "BridgetPersistence"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
