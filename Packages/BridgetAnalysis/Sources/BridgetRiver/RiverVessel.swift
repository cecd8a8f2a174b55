/// A past opening as evidence for the river model: where and when (a minute of the source's wall clock), where its
/// vessel came from, and how likely each of its links has been answered already.
public struct RiverVessel: Sendable, Equatable {
    public let bridgeID: String
    public let minute: Int64
    /// The chance of each origin: `""` a vessel starting out here, else the bridge it raised before.
    public var origins: [String: Double]
    /// By bridge: the chance that this vessel has raised it already (so it brings no opening there any more).
    public var passed: [String: Double]

    public init(bridgeID: String, minute: Int64, origins: [String: Double] = ["": 1], passed: [String: Double] = [:]) {
        self.bridgeID = bridgeID
        self.minute = minute
        self.origins = origins
        self.passed = passed
    }
}
