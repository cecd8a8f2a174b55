// swift-tools-version:6.1
// An example app of Bridget's HTTP API, outside the repository's root package: a small command over BridgetClient
// (the client generated from Docs/openapi.yaml), as a phone app would make its three calls.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgeWatch",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: "../../Packages/BridgetClient")],
    targets: [
        .executableTarget(
            name: "BridgeWatch",
            dependencies: [.product(name: "BridgetClient", package: "BridgetClient")],
            swiftSettings: strictSettings
        ),
    ]
)
