import Foundation

/// Why the disk cache could not do what was asked: the facts only (the folder and the system's reason). What a user
/// should do about it is for the application to say, which knows how its cache folder is configured.
public enum CacheError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The cache folder (or one above it) could not be created.
    case cannotCreateFolder(path: String, reason: String)
    /// An entry could not be written into the cache folder (a full disk, a read-only folder).
    case cannotWrite(folder: String, reason: String)

    /// A stable machine-readable code, e.g. `cache.write`.
    public var code: String {
        switch self {
        case .cannotCreateFolder: "cache.folder"
        case .cannotWrite: "cache.write"
        }
    }

    public var description: String {
        switch self {
        case .cannotCreateFolder(let path, let reason): "cannot create the cache folder \(path): \(reason)"
        case .cannotWrite(let folder, let reason): "cannot write to the cache folder \(folder): \(reason)"
        }
    }

    public var errorDescription: String? { description }
}
