import BridgetPersistence
import Foundation

/// The fields of a SQLite file's 100-byte header that say whose database it is.
struct SQLiteHeader {
    /// `PRAGMA application_id`, bytes 68-71.
    let applicationID: Int32

    /// Reads the header of the regular, non-empty file at `path`; throws when it is not a SQLite database.
    init(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreFile.unreadable(path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 100)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                // `bytes` holds 100 bytes, so its buffer is not empty and has an address.
                read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw StoreFile.unreadable(path, String(cString: strerror(errno))) }
            if count == 0 { break }
            filled += count
        }
        guard filled == bytes.count, bytes.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw StoreError.notSQLite(path: path)
        }
        applicationID = Int32(bitPattern: bytes[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }
}
