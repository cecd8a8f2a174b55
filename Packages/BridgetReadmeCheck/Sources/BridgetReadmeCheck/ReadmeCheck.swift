import Foundation

/// The check of a package's README example: its first Swift block, after the block's imports, must appear word for
/// word in the test file that compiles and runs it, so the README never shows code that does not build or run.
public enum ReadmeCheck {
    /// What is wrong, or `nil` when the README's example is in the test file. `testFile` is the test's `#filePath`
    /// (`Packages/<Name>/Tests/<Target>/<File>.swift`), whose package's README.md is read; `function` names the
    /// test's copy in the message.
    public static func mismatch(testFile: String, function: String) -> String? {
        let readmePath = packageFolder(of: testFile) + "/README.md"
        guard let readme = try? String(contentsOfFile: readmePath, encoding: .utf8) else {
            return "cannot read \(readmePath)"
        }
        guard let source = try? String(contentsOfFile: testFile, encoding: .utf8) else { return "cannot read \(testFile)" }
        return mismatch(readme: readme, source: source, function: function)
    }

    /// What is wrong with `readme`'s example against `source`, or `nil` when `source` holds it.
    public static func mismatch(readme: String, source: String, function: String) -> String? {
        guard let block = readme.components(separatedBy: "```swift\n").dropFirst().first?.components(separatedBy: "```")
            .first
        else { return "README.md has no ```swift block" }
        let code = block.components(separatedBy: "\n\n").dropFirst().joined(separator: "\n\n") // after the imports
        guard !code.isEmpty else { return "README.md's first Swift block holds imports only" }
        return source.contains("\n" + code) ? nil : "README.md's example and \(function) differ: change both"
    }

    /// `Packages/<Name>`, from the path of a file in `Packages/<Name>/Tests/<Target>/`.
    public static func packageFolder(of testFile: String) -> String {
        URL(fileURLWithPath: testFile).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }
}
