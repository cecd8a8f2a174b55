// swift-tools-version:6.1
// A Swift client of Bridget's HTTP API, generated from Docs/openapi.yaml by Apple's swift-openapi-generator (a build
// plugin: the types and the `Client` are written at build time, never committed), with a small hand-written layer
// for what generated code leaves awkward: the change stream as an AsyncSequence that resumes with Last-Event-ID, and
// pages of events as an AsyncSequence that follows `next`. URLSession is its transport, so it runs on iOS, macOS and
// Linux alike. It stands alone: no dependency on the app or the other packages.
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetClient",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [.library(name: "BridgetClient", targets: ["BridgetClient"])],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
    ],
    targets: [
        .target(
            name: "BridgetClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            swiftSettings: strictSettings,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .testTarget(name: "BridgetClientTests", dependencies: ["BridgetClient"], swiftSettings: strictSettings),
    ]
)
