#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's file calls under names no method shadows (`ImportSource.open`, `close()`), from whichever C
/// library the platform has: the CLI builds on glibc, musl and Darwin alike.
enum SystemCall {
    /// `open(2)`; the descriptor, or -1 with `errno` set.
    static func open(_ path: String, _ flags: Int32) -> Int32 {
        #if canImport(Darwin)
        Darwin.open(path, flags)
        #elseif canImport(Musl)
        Musl.open(path, flags)
        #else
        Glibc.open(path, flags)
        #endif
    }

    /// `close(2)`.
    @discardableResult
    static func close(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
        Darwin.close(descriptor)
        #elseif canImport(Musl)
        Musl.close(descriptor)
        #else
        Glibc.close(descriptor)
        #endif
    }

    /// `read(2)`; the bytes read, 0 at the end, or -1 with `errno` set.
    static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.read(descriptor, buffer, count)
        #elseif canImport(Musl)
        Musl.read(descriptor, buffer, count)
        #else
        Glibc.read(descriptor, buffer, count)
        #endif
    }

    /// The columns of the terminal `descriptor` is, or `nil` (not a terminal, or it does not say).
    static func terminalColumns(_ descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
