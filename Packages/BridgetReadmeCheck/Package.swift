// swift-tools-version:6.1
// Test support of the packages: each package's README example is compiled and run by its tests, and this checks that
// the README still shows that code, word for word (a test dependency of each package, nothing else).
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BridgetReadmeCheck",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [.library(name: "BridgetReadmeCheck", targets: ["BridgetReadmeCheck"])],
    targets: [
        .target(name: "BridgetReadmeCheck", swiftSettings: strictSettings),
    ]
)
