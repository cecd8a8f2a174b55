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
        // Test support only: the README example check.
        .package(path: "../BridgetReadmeCheck"),
        .package(path: "../BridgetDTOs"),
        .package(path: "../BridgetPersistence"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        .target(
            name: "BridgetPostgres",
            dependencies: [
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "BridgetPostgresTests",
            dependencies: [
                .product(name: "BridgetReadmeCheck", package: "BridgetReadmeCheck"),
                "BridgetPostgres",
                .product(name: "BridgetDTOs", package: "BridgetDTOs"),
                .product(name: "BridgetPersistence", package: "BridgetPersistence"),
                .product(name: "BridgetPersistenceTesting", package: "BridgetPersistence"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
