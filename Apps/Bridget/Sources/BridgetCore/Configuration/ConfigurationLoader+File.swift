import BridgetDTOs
import Foundation

extension ConfigurationLoader {
    /// Reads a configuration file as UTF-8 text, or says which file and why not (the system's reason, a folder,
    /// the first byte that is not UTF-8 and where it is).
    package static func read(_ path: String, hint: String) throws -> String {
        func unreadable(_ reason: String, code: ErrorCode = .configUnreadable) -> BridgetError {
            BridgetError(code, "cannot read the configuration file \(path): \(reason)", hint: hint)
        }
        let descriptor = SystemCall.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code: ErrorCode = errno == ENOENT ? .configFileNotFound : .configUnreadable
            throw unreadable(String(cString: strerror(errno)), code: code)
        }
        defer { SystemCall.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw unreadable(String(cString: strerror(errno))) }
        guard (status.st_mode & S_IFMT) != S_IFDIR else { throw unreadable("it is a folder, not a file") }

        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { SystemCall.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(String(cString: strerror(errno)))
            }
            bytes += chunk[..<count]
        }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        throw BridgetError(.configNotUTF8, "the configuration file \(path) is not UTF-8 text: " + Self.firstInvalidUTF8(in: bytes),
            hint: "save it as UTF-8")
    }

    /// Where the first byte that is not UTF-8 is, e.g. "byte 0xE9 at line 2, column 21" (columns count bytes).
    package static func firstInvalidUTF8(in bytes: [UInt8]) -> String {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var (offset, line, lineStart) = (0, 1, 0)
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                if encoded.count == 1, encoded.first == 0x0A { (line, lineStart) = (line + 1, offset + 1) }
                offset += encoded.count
            case .error(let length):
                let byte = bytes[offset]
                let hex = String(byte, radix: 16, uppercase: true)
                return "byte 0x\(hex.count < 2 ? "0" + hex : hex) at line \(line), column \(offset - lineStart + 1)"
                    + (length > 1 ? " (an incomplete sequence of \(length) bytes)" : "")
            case .emptyInput:
                return "an invalid byte"
            }
        }
    }
}
