import BridgetDTOs
import BridgetPersistence
import Foundation
import GRDB

extension SQLiteBridgeStore {
    func read<T: Sendable>(_ action: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await translatingErrors(action) { try await pool.read(body) }
    }

    /// Runs `body` in a write transaction; once it commits, the change log's readers in this process wake.
    func write<T: Sendable>(_ action: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let result = try await translatingErrors(action) { try await writingPool().write(body) }
        bell.ring()
        return result
    }

    func translatingErrors<T>(_ action: String, _ access: () async throws -> T) async throws -> T {
        do {
            return try await access()
        } catch let error as StoreError {
            throw error
        } catch let error as PassedThrough {
            throw error.error
        } catch let error as CancellationError {
            throw error // GRDB rolls back an interrupted transaction; the caller decides what cancellation means
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
            throw CancellationError()
        } catch {
            throw Self.storeError(error, path: path, action: action)
        }
    }

    /// A failure while doing `action` as a `StoreError`: a SQLite failure keeps its result code and message.
    static func storeError(_ error: any Error, path: String, action: String) -> StoreError {
        guard let databaseError = error as? DatabaseError else {
            return .failed(path: path, action: action, reason: "\(error)")
        }
        return .sqlite(path: path, action: action, resultCode: databaseError.extendedResultCode.rawValue,
                       message: databaseError.message ?? "\(databaseError.resultCode)")
    }

    static func bridge(_ row: Row) -> BridgeInfoDTO {
        BridgeInfoDTO(id: row["id"], name: row["name"], displayName: row["display_name"], latitude: row["latitude"],
                      longitude: row["longitude"], waterway: row["waterway"], kind: row["kind"])
    }

    /// The event columns in the order `event(_:)` reads them by index (faster than by name, row after row).
    static let eventColumns = "bridge_id, opened_at, entity_name, open_local, closed_at, close_local, minutes_open, "
        + "latitude, longitude, status, record_id, record_version, live"

    static func event(_ row: Row) throws -> BridgeEventDTO {
        let openedText: String = row[1]
        guard let openedAt = StoredTimestamp.date(openedText) else {
            throw StoreError.corruptEvent(detail: "an unreadable opened_at '\(openedText)'")
        }
        var closedAt: Date?
        if let closedText = row[4] as String? {
            guard let date = StoredTimestamp.date(closedText) else {
                throw StoreError.corruptEvent(detail: "an unreadable closed_at '\(closedText)'")
            }
            closedAt = date
        }
        // NULL is an observed opening (v9); a source's announced one says 'planned', one seen live 'live' (v13);
        // anything else is damage.
        let statusText: String = row[9] ?? OpeningStatus.observed.rawValue
        guard let status = OpeningStatus(rawValue: statusText), row[9] as String? != OpeningStatus.observed.rawValue else {
            throw StoreError.corruptEvent(detail: "an unknown status '\(statusText)'")
        }
        var live: LiveWindow?
        if let liveText = row[12] as String? {
            guard let window = LiveWindow(storedText: liveText) else {
                throw StoreError.corruptEvent(detail: "an unreadable live window '\(liveText)'")
            }
            live = window
        }
        return BridgeEventDTO(
            bridgeID: row[0], bridgeName: row[2], openedAt: openedAt, openLocal: row[3], closedAt: closedAt,
            closeLocal: row[5], minutesOpen: row[6], latitude: row[7], longitude: row[8], status: status,
            recordID: row[10], recordVersion: row[11], live: live)
    }

    static func syncRun(_ row: Row) -> SyncRunRecord {
        let rejectionText: String = row["rejections"]
        let byReason = (try? JSONDecoder().decode([RejectionReason: Int].self, from: Data(rejectionText.utf8))) ?? [:]
        return SyncRunRecord(
            id: row["id"], provider: row["provider"],
            startedAt: StoredTimestamp.date(row["started_at"]) ?? Date(timeIntervalSince1970: 0),
            finishedAt: (row["finished_at"] as String?).flatMap(StoredTimestamp.date),
            status: SyncRunStatus(rawValue: row["status"]) ?? .failed,
            watermarkBefore: (row["watermark_before"] as String?).flatMap(StoredTimestamp.date),
            watermarkAfter: (row["watermark_after"] as String?).flatMap(StoredTimestamp.date),
            fetched: row["fetched"],
            counts: UpsertCounts(inserted: row["inserted"], updated: row["updated"], unchanged: row["unchanged"]),
            rejections: RejectionCounts(byReason), error: row["error"], fingerprint: row["fingerprint"])
    }
}

/// An error of the caller's code run inside a store access (a fold's update): handed back as it was thrown, not
/// described as the store's failure.
struct PassedThrough: Error {
    let error: any Error
}
