import Foundation

/// Why an analysis could not answer: the facts of the question it was asked (the bridge, the route, the period), in a
/// sentence `description` gives. What a user should do about it is for the application to say.
///
/// Every case has a stable `code` (`analysis.unknown-bridge`, …) that an application can show or use as a problem
/// type.
public enum AnalysisError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The history has no bridge with the id.
    case unknownBridge(id: String)
    /// A route names a bridge that has no opening model (or is not in the catalog).
    case bridgeWithoutModel(route: String, bridgeID: String)
    /// A crossing of a route (numbered from 1) names no bridge.
    case emptyCrossing(route: String, position: Int)
    /// The test period ends before it starts (`trainUntil` and `testUntil` are day numbers).
    case emptyTestPeriod(trainUntil: Int, testUntil: Int)
    /// No stored opening before the training cut-off (a day number).
    case noTrainingData(trainUntil: Int)
    /// The history handed a bridge's records out of time order (an `EventHistory` that breaks its contract).
    case unorderedHistory(bridgeID: String)

    /// A stable machine-readable code, e.g. `analysis.unknown-bridge`.
    public var code: String {
        switch self {
        case .unknownBridge: "analysis.unknown-bridge"
        case .bridgeWithoutModel: "analysis.bridge-without-model"
        case .emptyCrossing: "analysis.empty-crossing"
        case .emptyTestPeriod: "analysis.empty-test-period"
        case .noTrainingData: "analysis.no-training-data"
        case .unorderedHistory: "analysis.unordered-history"
        }
    }

    public var description: String {
        switch self {
        case .unknownBridge(let id): "no bridge with id \(id) in the store"
        case .bridgeWithoutModel(let route, let bridgeID): "route \(route) names bridge \(bridgeID), which has no model"
        case .emptyCrossing(let route, let position): "crossing \(position) of route \(route) names no bridge"
        case .emptyTestPeriod: "the test period is empty: it must end after it starts"
        case .noTrainingData: "no stored openings before the training cut-off"
        case .unorderedHistory(let bridgeID): "the history read bridge \(bridgeID)'s openings out of time order"
        }
    }

    public var errorDescription: String? { description }
}
