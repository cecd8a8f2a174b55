import Foundation

/// The onward chances an engine has worked out (shared by copies of the engine, behind a lock): where every minute lets
/// vessels through, by target; else by target, window and the minutes each bridge on the way holds vessels in, at
/// most `heldLimit` of them (a full cache starts again: the patterns in use come back at once).
final class OnwardCache: @unchecked Sendable {
    /// A window's pattern: each bridge's held minutes as bits (bridges in the plan's order, 64 minutes a word).
    struct HeldKey: Hashable {
        let target: String
        let window: Int
        let held: [UInt64]
    }

    static let heldLimit = 4_096
    private let lock = NSLock()
    private var byTarget: [String: [[[Double]]]] = [:]
    private var byPattern: [HeldKey: [[[Double]]]] = [:]

    func value(_ target: String) -> [[[Double]]]? {
        lock.lock()
        defer { lock.unlock() }
        return byTarget[target]
    }

    func set(_ target: String, _ value: [[[Double]]]) {
        lock.lock()
        defer { lock.unlock() }
        byTarget[target] = value
    }

    func value(_ key: HeldKey) -> [[[Double]]]? {
        lock.lock()
        defer { lock.unlock() }
        return byPattern[key]
    }

    func set(_ key: HeldKey, _ value: [[[Double]]]) {
        lock.lock()
        defer { lock.unlock() }
        if byPattern.count >= Self.heldLimit { byPattern.removeAll(keepingCapacity: true) }
        byPattern[key] = value
    }
}
