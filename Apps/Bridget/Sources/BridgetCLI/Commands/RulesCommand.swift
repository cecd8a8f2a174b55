import ArgumentParser
import BridgetAnswers
import BridgetContext
import BridgetCore
import BridgetDTOs
import Foundation

/// `bridget rules`: the rules forecasts know, and the dated deviations an operator adds.
struct RulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "The rules forecasts know: curfews, federal holidays, dated closures.",
        discussion: """
            Standing rules come with the city: the Ship Canal's four bridges need not open to \
            small vessels on weekdays 07:00-09:00 and 16:00-18:00 (33 CFR 117.1051), except on \
            federal holidays (computed, on their observed days), when forecasts treat the day \
            as a Sunday. Dated deviations (the Coast Guard's temporary ones: a bridge kept \
            closed for a run, a lock stoppage) are added here; a forecast inside one says \
            "closed for ... until ..." and gives no opening. They are kept where \
            rules.storage says: a YAML file beside the config (rules.path), or the store, \
            which every host sharing it reads. The sample provider adds its own calendar's \
            (Beat the Bridge in May, a 10K in October).
              bridget rules list
              bridget rules add beat-the-bridge-2027 --bridge Montlake \\
                --from "2027-05-16 08:00" --until "2027-05-16 10:30" \\
                --reason "Beat the Bridge run" --source "Federal Register"
              bridget rules remove beat-the-bridge-2027
              bridget rules export > rules.yaml; bridget rules import rules.yaml
            What is refused, and why: a change that would leave the rules over 1,000,000 \
            bytes as written (refused whole; the file as it was stays), a file key Bridget \
            does not know (a misspelt key would otherwise be a rule silently lost), and a \
            time of day or a span in a rule (a saved rule names one time). A rules file over \
            the limit never stops a forecast: it warns and uses the standing rules, and \
            `rules list`, `remove` and `export` still read it.
            """,
        subcommands: [List.self, Add.self, Remove.self, Import.self, Export.self],
        defaultSubcommand: List.self)

    /// `rules list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", 
            abstract: "The standing rules, the next federal holidays and every dated deviation.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: FormatOptions
        @Option(name: .long, help: "Only what concerns this bridge (id or name), with what its model learnt.")
        var bridge: String?

        struct Answer: Encodable {
            let curfews: [CurfewRule]
            let holidays: [FederalHoliday]
            let deviations: [RuleDeviationDTO]
            let kept: String
            let bridge: [String]?
        }

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let rules = try await RuleBook.open(context, writing: false)
                let (catalog, calendar) = (rules.catalog, try await rules.calendar())
                let clock = context.clock
                let now = context.assembly.now()
                let today = LocalDay(containing: now, time: clock).number
                let (year, _, _) = CivilCalendar.civilFromDays(today)
                let holidays = (FederalHoliday.observed(in: year) + FederalHoliday.observed(in: year + 1))
                    .filter { $0.dayNumber >= today }.prefix(11)
                var lines: [String]?
                var deviations = calendar.deviations
                if let bridge {
                    let target = try context.bridge(named: bridge, in: catalog)
                    let book = try await rules.book()
                    lines = RulesAnswer.lines(for: target, calendar: calendar, model: try? await book.model(target.id),
                                              catalog: catalog, today: today, nowReading: clock.reading(for: now))
                    deviations = deviations.filter { $0.bridgeIDs.contains(target.id) }
                }
                let location = rules.saved.location
                let names = { (ids: [String]) in ids.map { catalog.bridge(id: $0)?.name ?? $0 }.joined(separator: ", ") }
                let rows = deviations.map { deviation in
                    [Cell(deviation.id), Cell(names(deviation.bridgeIDs)), Cell(RulesAnswer.text(deviation)),
                     Cell(deviation.reason)]
                }
                var notes = [""]
                if let lines {
                    notes += lines
                } else {
                    for rule in calendar.curfews {
                        notes.append("\(names(rule.bridgeIDs)): no opening for small vessels on weekdays "
                                     + rule.windows.map(\.text).joined(separator: " and ") + " (\(rule.source)); "
                                     + "\(rule.exemptVessels) passed; federal holidays exempt.")
                    }
                    notes.append("Federal holidays ahead: " + holidays.map { "\($0.name) \($0.date)" }.joined(separator: ", ")
                                 + ".")
                }
                notes.append("Deviations are kept in \(location)"
                             + (context.configuration.provider == .sample ? "; the sample calendar's are added." : "."))
                try OutputWriter(format: output.format).write(
                    Answer(curfews: calendar.curfews, holidays: Array(holidays), deviations: deviations, kept: location,
                           bridge: lines),
                    tabular: Tabular(columns: ["id", "bridges", "closed", "reason"], rows: rows),
                    csv: Tabular(columns: ["id", "bridge_ids", "from_local", "until_local", "reason", "source"],
                                 rows: deviations.map { deviation in
                                     [Cell(deviation.id), Cell(deviation.bridgeIDs.joined(separator: " ")),
                                      Cell(deviation.from), Cell(deviation.until), Cell(deviation.reason),
                                      Cell(deviation.source ?? "")]
                                 }),
                    notes: notes)
            }
        }
    }

    /// `rules add`.
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", 
            abstract: "Keep a bridge closed to vessels from one local time to another (replaces one of the same id).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "An id: lower-case letters, digits and dashes (e.g. beat-the-bridge-2027).") var id: String
        @Option(name: .long, help: "A bridge id or name; repeat for several.") var bridge: [String] = []
        @Option(name: .long, help: ArgumentHelp("""
            Local start: 2027-05-16 08:00 (PDT or PST after it picks the occurrence of a repeated hour; a time the \
            clocks skip moves forward by the gap, as --at's does; years 1900 to 2999).
            """, valueName: "time")) var from: String
        @Option(name: .long, help: ArgumentHelp("Local end: 2027-05-16 10:30 (the same forms).", valueName: "time"))
        var until: String
        @Option(name: .long, help: "Why, in one line (shown with every forecast it changes).") var reason: String
        @Option(name: .long, help: "Where it was published (a Federal Register citation, a URL).") var source: String?

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let rules = try await RuleBook.open(context, writing: true)
                let catalog = rules.catalog
                let deviation = try RuleCheck.deviation(
                    id: id, bridges: bridge, from: from, until: until, reason: reason, source: source, catalog: catalog,
                    origin: "rules add", clock: context.clock)
                let saved = rules.saved
                let new = try await saved.add([deviation])
                print(((new == 1 ? "added" : "replaced") + " \(deviation.id): "
                       + deviation.bridgeIDs.map { catalog.bridge(id: $0)?.name ?? $0 }.joined(separator: ", ")
                       + " closed \(RulesAnswer.text(deviation)) (\(saved.location))").terminalSafe)
            }
        }
    }

    /// `rules remove`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a dated deviation by its id.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The deviation's id (see `bridget rules list`).") var id: String

        func run() async throws {
            try await reportingErrors {
                let context = try global.context()
                let saved = try await RuleBook.open(context, writing: true).saved
                guard try await saved.remove(id: id) else {
                    throw BridgetError(.inputUnknownRule, "no deviation '\(id.prefix(64))' is kept in \(saved.location)",
                                                  hint: "see `bridget rules list`")
                }
                print("removed \(id.terminalSafe)")
            }
        }
    }

}
