/// Bridget's version, as `--version`, the pages' footers and the server's status say it.
package enum BridgetVersion {
    package static let current = "0.1.0"
}
