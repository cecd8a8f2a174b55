import BridgetDTOs
import Foundation
import NIOCore
import PostgresNIO

/// A batch of events as the plain paths send it (COPY's text, or the upsert's arrays), and what decides whether it
/// may take them.
struct EventBatch: Sendable {
    let events: [BridgeEventDTO]
    /// Each event's opening instant in milliseconds, in order.
    let openedMS: [Int64]
    let closedMS: [Int64?]
    /// The distinct bridges the batch names.
    let bridgeIDs: [String]
    /// No source records, no key twice.
    let isPlain: Bool
    var count: Int { events.count }

    /// Refuses a batch with an instant no store keeps (`StoredInstant`).
    init(_ events: [BridgeEventDTO]) throws {
        self.events = events
        openedMS = try events.map { try PostgresBridgeStore.milliseconds($0.openedAt) }
        closedMS = try events.map { try $0.closedAt.map { try PostgresBridgeStore.milliseconds($0) } }
        // A key as one integer: the instant times 64 plus the bridge's place among the batch's bridges (a batch
        // names a handful; a String's hash per event cost more than the rest of the check).
        var bridges: [String] = []
        var keys = Set<Int64>(minimumCapacity: events.count)
        var plain = true
        let instants = openedMS
        events.withUnsafeBufferPointer { all in
            for index in all.indices {
                // Within the buffer's indices it is not empty, so it has a base address.
                let event = all.baseAddress! + index
                let place: Int
                if let found = bridges.firstIndex(of: event.pointee.bridgeID) {
                    place = found
                } else {
                    place = bridges.count
                    bridges.append(event.pointee.bridgeID)
                }
                // More than 64 bridges in one batch: the row-by-row path, which needs no key set.
                guard plain else { continue }
                if event.pointee.recordID != nil || place >= 64
                    || !keys.insert(instants[index] &* 64 &+ Int64(place)).inserted {
                    plain = false
                }
            }
        }
        bridgeIDs = bridges.sorted()
        isPlain = plain
    }

    /// The columns a batch fills, in the order of `copyText()` and `query(before:after:)`.
    static let columns = ["bridge_id", "opened_ms", "entity_name", "open_local", "closed_ms", "close_local",
                          "minutes_open", "latitude", "longitude", "status"]

    /// Rows sent to COPY at a time.
    static let copyPiece = 1000

    /// Rows of the batch in COPY's text format: a line a row, columns by tabs, `\N` for NULL, and backslash, tab,
    /// newline and carriage return escaped in texts.
    func copyText(_ rows: Range<Int>) -> ByteBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rows.count * 128)
        func null() { bytes.append(contentsOf: [0x5C, 0x4E]) } // \N
        func text(_ value: String?) {
            guard let value else { return null() }
            // Most texts need no escape: copied whole.
            if !value.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
                bytes.append(contentsOf: value.utf8)
                return
            }
            for byte in value.utf8 {
                switch byte {
                case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
                case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
                case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
                default: bytes.append(byte)
                }
            }
        }
        func integer(_ value: Int64?) {
            guard let value else { return null() }
            if value < 0 { bytes.append(0x2D) }
            var magnitude = value.magnitude
            let first = bytes.count
            repeat {
                bytes.append(UInt8(truncatingIfNeeded: magnitude % 10) + 0x30)
                magnitude /= 10
            } while magnitude > 0
            bytes[first...].reverse() // written units first
        }
        // A bridge's coordinates repeat from row to row: each distinct value is written as text once.
        var reals: [(value: Double, text: [UInt8])] = []
        func real(_ value: Double?) {
            guard let value else { return null() }
            if let known = reals.first(where: { $0.value == value && $0.value.sign == value.sign }) {
                return bytes.append(contentsOf: known.text)
            }
            let text = Array(value.description.utf8) // the shortest text that reads back exactly
            if reals.count < 32 { reals.append((value, text)) }
            bytes.append(contentsOf: text)
        }
        // Each event read where it lies: a copy would retain and release each of its strings.
        events.withUnsafeBufferPointer { all in
            for index in rows {
                // `rows` is a piece of the batch's indices (`0..<count`), so here the buffer is not empty and has a
                // base address.
                let event = all.baseAddress! + index
                let (opened, closed) = (openedMS[index], closedMS[index])
                text(event.pointee.bridgeID)
                bytes.append(0x09)
                integer(opened)
                bytes.append(0x09)
                text(event.pointee.bridgeName)
                bytes.append(0x09)
                text(event.pointee.openLocal)
                bytes.append(0x09)
                integer(closed)
                bytes.append(0x09)
                text(event.pointee.closeLocal)
                bytes.append(0x09)
                integer(event.pointee.minutesOpen.map(Int64.init))
                bytes.append(0x09)
                real(event.pointee.latitude)
                bytes.append(0x09)
                real(event.pointee.longitude)
                bytes.append(0x09)
                text(event.pointee.status == .observed ? nil : event.pointee.status.rawValue)
                bytes.append(0x0A)
            }
        }
        return ByteBuffer(bytes: bytes)
    }

    /// `before`, the batch as a table of rows (`unnest` over its ten columns, bound as arrays), then `after`.
    func query(before: String, after: String = "") -> PostgresQuery {
        var binds = PostgresBindings(capacity: 10)
        binds.append(events.map(\.bridgeID))
        binds.append(openedMS)
        binds.append(events.map(\.bridgeName))
        binds.append(events.map(\.openLocal))
        binds.append(NullableArray(closedMS))
        binds.append(NullableArray(events.map(\.closeLocal)))
        binds.append(NullableArray(events.map { $0.minutesOpen.map(Int64.init) }))
        binds.append(NullableArray(events.map(\.latitude)))
        binds.append(NullableArray(events.map(\.longitude)))
        binds.append(NullableArray(events.map { $0.status == .observed ? nil : $0.status.rawValue }))
        let rows = " unnest($1::text[], $2::int8[], $3::text[], $4::text[], $5::int8[], $6::text[], $7::int8[], "
            + "$8::float8[], $9::float8[], $10::text[])\n"
        return PostgresQuery(unsafeSQL: before + rows + after, binds: binds)
    }
}

extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
