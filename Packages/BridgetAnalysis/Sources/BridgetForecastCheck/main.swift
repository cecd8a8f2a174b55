import BridgetAnalysis
import Foundation

// The forecaster against the exact truth of planted worlds: for each, the Brier skill over the base rate of the
// forecaster, of the time of week alone and of the truth, and the forecaster's share of the truth's skill.
//   bridget-forecast-check [--days N] [--test-days N] [--step M] [--seed S] [--world NAME]...
var days = 430
var testDays = 60
var step = 10
var seed: UInt64 = 1
var only: [String] = []
var arguments = CommandLine.arguments.dropFirst()
@MainActor func value(_ name: String) -> String {
    guard let next = arguments.popFirst() else {
        FileHandle.standardError.write(Data("bridget-forecast-check: \(name) needs a value\n".utf8))
        exit(64)
    }
    return next
}
while let argument = arguments.popFirst() {
    switch argument {
    case "--days": days = Int(value(argument)) ?? -1
    case "--test-days": testDays = Int(value(argument)) ?? -1
    case "--step": step = Int(value(argument)) ?? -1
    case "--seed": seed = UInt64(value(argument)) ?? 0
    case "--world": only.append(value(argument))
    case "--help", "-h":
        print("usage: bridget-forecast-check [--days N] [--test-days N] [--step MINUTES] [--seed S] [--world NAME]...")
        print("worlds: " + PlantedWorld.all().map(\.name).joined(separator: ", "))
        exit(0)
    default:
        FileHandle.standardError.write(Data("bridget-forecast-check: unknown argument \(argument) (see --help)\n".utf8))
        exit(64)
    }
}
guard days > 60, days <= 3_650, testDays > 0, testDays < days - 35, step > 0, step <= 1_440, seed > 0 else {
    let message = "bridget-forecast-check: --days from 61 to 3650, --test-days at least 1 and 35 days short of "
        + "--days, --step from 1 to 1440, --seed at least 1\n"
    FileHandle.standardError.write(Data(message.utf8))
    exit(64)
}
let worlds = PlantedWorld.all(days: days, seed: seed).filter { only.isEmpty || only.contains($0.name) }
guard !worlds.isEmpty else {
    FileHandle.standardError.write(Data("bridget-forecast-check: no such world (see --help)\n".utf8))
    exit(64)
}
print("forecast: \(days) days a world, the last \(testDays) tested every \(step) min (seed \(seed))")
var worst = 1.0
for world in worlds {
    let check = world.check(testDays: testDays, stepMinutes: step)
    print(check.text)
    worst = min(worst, check.windows.map(\.shareOfTruth).min() ?? 1)
}
print(String(format: "forecast: the lowest share of the truth's skill: %.0f%%", worst * 100))
