import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way Bridget writes a file of its own (rules, routes, exports, reports, rejected rows, a route's chart):
///
/// - **Where**: the path itself; or, when it is a symbolic link, the regular file it names, if that file exists and
///   belongs to this user. A link to nothing (a dangling link), to another user's file or to something that is not
///   a regular file is refused, so a write never creates a file where a link points, nor with the link's own mode.
/// - **Mode**: a new file gets `mode` exactly (not the umask's guess); a replaced file keeps its own.
/// - **Whole**: a replacement is written to a temporary file beside the target, flushed, and renamed over it, so a
///   crash leaves the old file or the new one.
/// - **Bounded**: `maximumBytes` is checked on what will be written, before anything is.
package enum OwnFile {
    /// The mode of a new file: the owner reads and writes, everyone else reads.
    package static let defaultMode: mode_t = 0o644

    /// Why a file was not written.
    package enum Refusal: Error, LocalizedError, Equatable {
        case danglingLink(path: String, destination: String)
        case foreignLink(path: String, destination: String)
        case notAFile(path: String, what: String)
        case tooLarge(path: String, bytes: Int, limit: Int)
        case system(path: String, call: String, reason: String)

        package var errorDescription: String? {
            switch self {
            case .danglingLink(let path, let destination):
                "\(path) is a symbolic link to \(destination), which does not exist: Bridget does not create a file "
                    + "where a link points (remove the link, or create the file it names)"
            case .foreignLink(let path, let destination):
                "\(path) is a symbolic link to \(destination), which belongs to another user: Bridget writes only its "
                    + "user's files"
            case .notAFile(let path, let what):
                "\(path) is \(what), not a regular file"
            case .tooLarge(let path, let bytes, let limit):
                "\(path) would be \(bytes) bytes, over its limit of \(limit): nothing was changed"
            case .system(let path, let call, let reason):
                "\(call) \(path): \(reason)"
            }
        }
    }

    /// The file a write of `path` goes to (see the type's rules): `path`, or the file its link names.
    package static func target(of path: String) throws -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT else { throw failure(path, "inspect") }
            return path
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return path
        case S_IFLNK:
            let destination = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            guard let resolved = realpath(path, nil) else { throw Refusal.danglingLink(path: path, destination: destination) }
            defer { free(resolved) }
            let real = String(cString: resolved)
            var target = stat()
            guard stat(real, &target) == 0 else { throw Refusal.danglingLink(path: path, destination: destination) }
            guard target.st_mode & S_IFMT == S_IFREG else {
                throw Refusal.notAFile(path: path, what: "a link to something that is not a regular file")
            }
            guard target.st_uid == geteuid() else { throw Refusal.foreignLink(path: path, destination: real) }
            return real
        case S_IFDIR:
            throw Refusal.notAFile(path: path, what: "a folder")
        default:
            throw Refusal.notAFile(path: path, what: "a device, socket or pipe")
        }
    }

    /// Replaces the file at `path` whole with `data` (see the type's rules); its folder is made when missing only
    /// with `makingFolder` (a file of Bridget's own place, such as the rules; not a path a user typed).
    package static func replace(_ path: String, with data: Data, mode: mode_t = defaultMode, maximumBytes: Int? = nil,
                                makingFolder: Bool = false) throws
    {
        if let maximumBytes, data.count > maximumBytes {
            throw Refusal.tooLarge(path: path, bytes: data.count, limit: maximumBytes)
        }
        let staged = try stage(path, mode: mode, makingFolder: makingFolder)
        do {
            try data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    // `baseAddress!`: the bytes are not empty inside this loop.
                    let written = SystemCall.write(staged.descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw failure(staged.temporary, "write")
                    }
                    offset += written
                }
            }
            try staged.commit()
        } catch {
            staged.abandon()
            throw error
        }
    }

    /// A file being written under a temporary name beside its target, renamed over it by `commit`.
    package final class Staged: Sendable {
        package let target: String
        package let temporary: String
        package let descriptor: Int32
        /// Whether the file is still being written (neither committed nor abandoned): each happens once.
        private let open = Locked(true)

        fileprivate init(target: String, temporary: String, descriptor: Int32) {
            self.target = target
            self.temporary = temporary
            self.descriptor = descriptor
        }

        /// Flushes the bytes and renames the file over its target.
        package func commit() throws {
            guard open.withLock({ open in defer { open = false }; return open }) else { return }
            guard fsync(descriptor) == 0 else {
                let error = OwnFile.failure(temporary, "flush")
                SystemCall.close(descriptor)
                unlink(temporary)
                throw error
            }
            SystemCall.close(descriptor)
            guard rename(temporary, target) == 0 else {
                let error = OwnFile.failure(target, "rename into place")
                unlink(temporary)
                throw error
            }
        }

        /// Closes and removes the temporary file (a failure before `commit`).
        package func abandon() {
            guard open.withLock({ open in defer { open = false }; return open }) else { return }
            SystemCall.close(descriptor)
            unlink(temporary)
        }
    }

    /// A temporary file beside `path`'s target, created with `mode` (a new target's) or the target's own mode; the
    /// folder is made when missing only with `makingFolder`.
    package static func stage(_ path: String, mode: mode_t = defaultMode, makingFolder: Bool = false) throws -> Staged {
        let target = try self.target(of: path)
        let url = URL(fileURLWithPath: target)
        let folder = url.deletingLastPathComponent()
        if makingFolder {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw Refusal.system(path: folder.path, call: "create the folder", reason: error.localizedDescription)
            }
        }
        var existing = stat()
        let finalMode = stat(target, &existing) == 0 ? existing.st_mode & 0o7777 : mode
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).partial").path
        let descriptor = SystemCall.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, finalMode)
        guard descriptor >= 0 else { throw failure(temporary, "create") }
        // The umask narrows the mode `open` gives; the mode asked for is the mode the file has.
        guard fchmod(descriptor, finalMode) == 0 else {
            let error = failure(temporary, "set the mode of")
            SystemCall.close(descriptor)
            unlink(temporary)
            throw error
        }
        return Staged(target: target, temporary: temporary, descriptor: descriptor)
    }

    /// A descriptor appending to `path`'s target (created with `mode` when missing), for a log of records.
    package static func openForAppending(_ path: String, mode: mode_t = defaultMode) throws -> Int32 {
        let target = try self.target(of: path)
        let existed = FileManager.default.fileExists(atPath: target)
        let descriptor = SystemCall.open(target, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw failure(target, "open") }
        if !existed, fchmod(descriptor, mode) != 0 {
            let error = failure(target, "set the mode of")
            SystemCall.close(descriptor)
            throw error
        }
        return descriptor
    }

    fileprivate static func failure(_ path: String, _ call: String) -> Refusal {
        .system(path: path, call: "cannot \(call)", reason: String(cString: strerror(errno)))
    }
}
