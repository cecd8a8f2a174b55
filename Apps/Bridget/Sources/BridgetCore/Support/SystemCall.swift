import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's file calls under names no method shadows (`ImportSource.open`, `close()`), from whichever C
/// library the platform has: the CLI builds on glibc, musl and Darwin alike.
package enum SystemCall {
    /// `open(2)`; the descriptor, or -1 with `errno` set.
    package static func open(_ path: String, _ flags: Int32) -> Int32 {
        #if canImport(Darwin)
        Darwin.open(path, flags)
        #elseif canImport(Musl)
        Musl.open(path, flags)
        #else
        Glibc.open(path, flags)
        #endif
    }

    /// `open(2)` with `O_CREAT`'s mode; the descriptor, or -1 with `errno` set.
    package static func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if canImport(Darwin)
        Darwin.open(path, flags, mode)
        #elseif canImport(Musl)
        Musl.open(path, flags, mode)
        #else
        Glibc.open(path, flags, mode)
        #endif
    }

    /// `write(2)`; the bytes written, or -1 with `errno` set.
    package static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.write(descriptor, buffer, count)
        #elseif canImport(Musl)
        Musl.write(descriptor, buffer, count)
        #else
        Glibc.write(descriptor, buffer, count)
        #endif
    }

    /// `close(2)`.
    @discardableResult
    package static func close(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
        Darwin.close(descriptor)
        #elseif canImport(Musl)
        Musl.close(descriptor)
        #else
        Glibc.close(descriptor)
        #endif
    }

    /// `read(2)`; the bytes read, 0 at the end, or -1 with `errno` set.
    package static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.read(descriptor, buffer, count)
        #elseif canImport(Musl)
        Musl.read(descriptor, buffer, count)
        #else
        Glibc.read(descriptor, buffer, count)
        #endif
    }

    /// Holds an exclusive `flock(2)` on the file at `path` (created when missing) while `body` runs: other processes
    /// that take the same lock wait. Throws `POSIXError` when the file cannot be opened or locked.
    package static func withExclusiveLock<T>(on path: String, _ body: () throws -> T) throws -> T {
        let descriptor = try openLockFile(path)
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// A lock file opened for reading and writing, created (mode 0644) when missing.
    private static func openLockFile(_ path: String) throws -> Int32 {
        #if canImport(Darwin)
        let descriptor = Darwin.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #elseif canImport(Musl)
        let descriptor = Musl.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #else
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #endif
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return descriptor
    }
}
