import ArgumentParser
import BridgetAnalysis
import BridgetAnswers
import BridgetCore
import BridgetDTOs
import Foundation

extension RouteCommand {
    /// `route export`.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export", 
            abstract: "Write saved routes as YAML (the routes file's form), to share or keep.",
            discussion: """
                  bridget route export > routes.yaml
                  bridget route export --from-store | bridget route import -
                """)
        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: ArgumentHelp("The file to write, or - for standard output.", valueName: "file"))
        var out: String = "-"
        @Flag(name: .long, help: "The routes an earlier Bridget kept in the data store, instead of the routes file.")
        var fromStore = false

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let book = try await RouteBook.opening(context, forReading: true)
                let routes = fromStore ? try await book.storedRoutes() : try await book.routes()
                let text = try RouteFile.yaml(routes)
                if out == "-" {
                    print(text, terminator: "")
                } else {
                    do {
                        try OwnFile.replace(out, with: Data(text.utf8))
                    } catch {
                        throw BridgetError(.dataExportOpen, "cannot write \(out): \(error.localizedDescription)")
                    }
                    Terminal.writeError("Exported \(routes.count) routes to \(out).\n")
                }
            }
        }
    }

    /// `route import`.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "import", 
            abstract: "Add routes from a YAML file (as route export writes); a route of the same name is replaced.",
            discussion: """
                --from-store copies the routes the configured data store holds (where an earlier \
                Bridget kept them) and remembers the store, so a route removed later is not offered \
                back by doctor.
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The YAML file, or - for standard input.", valueName: "file")) var file: String?
        @Flag(name: .long, help: "Copy the routes the data store holds instead of reading a file.")
        var fromStore = false

        func validate() throws {
            guard (file == nil) == fromStore else {
                throw ValidationError(fromStore ? "give either a file or --from-store, not both"
                                                : "give a YAML file (or - for standard input), or --from-store")
            }
        }

        func run() async throws {
            try await reportingErrors {
                if fromStore {
                    let context = try global.context()
                    let imported = try await RouteBook.opening(context, forReading: true).importFromStore()
                    print("imported \(imported.count) routes from the store at \(context.assembly.storeDescription) "
                          + "(\(imported.added) new, \(imported.count - imported.added) replaced) into \(imported.location)")
                    return
                }
                let file = self.file ?? "-"
                let data: Data? = file == "-" ? FileHandle.standardInput.readDataToEndOfFile()
                    : FileManager.default.contents(atPath: file)
                guard let data else { throw BridgetError(.dataImportOpen, "cannot read \(file)") }
                let context = try global.context()
                let imported = try await RouteBook.opening(context, forReading: true).importYAML(String(decoding: data, as: UTF8.self), origin: file == "-" ? "standard input" : file)
                print("imported \(imported.count) routes (\(imported.added) new, \(imported.count - imported.added) replaced) "
                      + "into " + imported.location)
            }
        }
    }

    /// `route move`.
    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "move", 
            abstract: "Copy every saved route from the routes file into the store, or back (--to file).",
            discussion: """
                For a deployment whose hosts share a PostgreSQL store: routes saved with `bridget route add` on \
                one machine go into the store, where every host serves them. A route of the same name is \
                replaced; the source keeps its copy. Then set routes.storage (or leave auto, which is the store \
                for PostgreSQL).
                  bridget route move --to store
                """)
        @OptionGroup var global: GlobalOptions

        @Option(name: .long, help: "Where the routes go: store or file.") var to: RouteBook.Place

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let moved = try await RouteBook.opening(context).move(to: to)
                print("copied \(moved.count) routes from \(moved.from) to \(moved.into) (\(moved.added) new, "
                      + "\(moved.count - moved.added) replaced)")
                if moved.readElsewhere {
                    Terminal.note("routes.storage is \(context.configuration.routeStorage.rawValue): bridget reads routes "
                                  + "from \(context.configuration.routesInStore ? "the store" : "the file"); set it to "
                                  + "\(to.rawValue) to read them from \(moved.into)")
                }
            }
        }
    }
}
