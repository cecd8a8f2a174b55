import ArgumentParser
import BridgetContext
import BridgetCore
import Foundation

/// Standard error, and whether it is a terminal.
enum Terminal {
    static func error(_ message: String) { writeError("error: " + message + "\n") }

    static func note(_ message: String) { writeError("note: " + message + "\n") }

    /// Writes lines to standard error, each made safe for a terminal (`terminalSafe`).
    static func writeError(_ text: String) { FileHandle.standardError.write(Data(text.terminalSafeLines.utf8)) }

    /// Redraws the progress line: the cursor back to the line's start, `line` made safe, the rest of the line
    /// cleared. The only place Bridget sends control characters of its own to a terminal.
    static func redrawLine(_ line: String) {
        FileHandle.standardError.write(Data(("\r" + line.terminalSafe + "\u{1B}[K").utf8))
    }

    /// True when standard error is an interactive terminal (progress is drawn only then).
    static var isInteractive: Bool { isatty(STDERR_FILENO) == 1 }
}
