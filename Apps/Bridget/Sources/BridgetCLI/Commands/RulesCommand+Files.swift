import ArgumentParser
import BridgetAnswers
import BridgetContext
import BridgetCore
import BridgetDTOs
import Foundation

extension RulesCommand {
    /// `rules import`.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "import", 
            abstract: "Add every deviation of a rules YAML file (as `rules export` writes it); all or none.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The file to read.") var file: String

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let rules = try await RuleBook.open(context, writing: true)
                let catalog = rules.catalog
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw BridgetError(.dataRulesOpen, "cannot read \(file)")
                }
                guard data.count <= RuleCheck.maximumDocumentBytes else {
                    throw BridgetError(.dataRulesFile, "\(file) is larger than \(RuleCheck.maximumDocumentBytes) bytes")
                }
                let incoming = try RuleDocument.deviations(fromYAML: String(decoding: data, as: UTF8.self),
                                                           catalog: catalog, origin: file, clock: context.clock)
                let saved = rules.saved
                let new = try await saved.add(incoming)
                print("imported \(incoming.count) deviations (\(new) new) into \(saved.location)".terminalSafe)
            }
        }
    }

    /// `rules export`.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export", 
            abstract: "Write the kept deviations as a rules YAML file to standard output.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let rules = try await RuleBook.open(context, writing: false)
                print(try RuleDocument.yaml(try await rules.saved.deviations()),
                      terminator: "")
            }
        }
    }
}
