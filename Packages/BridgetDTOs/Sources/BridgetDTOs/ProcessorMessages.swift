import Foundation

/// A request to a network processor, for callers that pass messages rather than call methods.
public enum NetworkProcessorMessage: Sendable, Equatable {
    case fetchBridgeCatalog
    case fetchEventPages(since: Date?)
    case checkConnection
}

/// A network processor's reply to a `NetworkProcessorMessage`.
public enum NetworkProcessorResponse: Sendable, Equatable {
    case bridgeCatalog([BridgeInfoDTO])
    /// Every page's rows, concatenated in page order.
    case eventRows([SocrataRow])
    case connectionStatus(ConnectionStatusDTO)
    case failure(BridgetError)
}

/// A request to a background processor.
public enum BackgroundProcessorMessage: Sendable, Equatable {
    case processSyncData(SyncDataDTO)
    case cleanupOldData(olderThan: Date)
    case analyzeTrafficPatterns(bridgeID: String)
    case generateStatistics
}

/// A background processor's reply to a `BackgroundProcessorMessage`.
public enum BackgroundProcessorResponse: Sendable, Equatable {
    case syncProcessed(SyncDataDTO)
    /// Number of events removed.
    case cleanupComplete(removed: Int)
    case analysisComplete(TrafficAnalysisDTO)
    case statisticsComplete(StatisticsDTO)
    case failure(BridgetError)
}
