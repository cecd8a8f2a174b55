import BridgetDTOs
import BridgetNDW
import BridgetNetworking
import BridgetNetworkingTesting
import Testing

/// `NetworkProcessing`'s promises, checked against the sample provider (the live and cached providers run the same
/// suite against the fixture server: Tests/LiveProviderTests at the root).
@Suite("Provider conformance")
struct ProviderConformanceTests {
    @Test("the sample provider keeps the promise", arguments: ProviderConformance.Promise.allCases)
    func sampleProvider(_ promise: ProviderConformance.Promise) async throws {
        try await promise.check {
            SampleProvider(generator: SampleOpeningGenerator(seed: 3),
                           lastDay: CivilCalendar.daysFromCivil(year: 2025, month: 6, day: 30), days: 45, pageSize: 400)
        }
    }

    @Test("the NDW provider keeps the promise on the real snapshot, a file read as one page", arguments: ProviderConformance.Promise.allCases)
    func ndwProvider(_ promise: ProviderConformance.Promise) async throws {
        // A snapshot source: one read is one page (history comes from reading it again and again), so the suite
        // asks for one page, not the two that check a paged source's paging.
        let path = try NDWFixture.url().path
        try await promise.check(minimumPages: 1) { NDWProvider(source: .file(path), client: nil) }
    }

    @Test("a snapshot provider is still held to at least one page")
    func onePageAtLeast() async throws {
        try await withKnownIssue("an empty walk") {
            try await ProviderConformance.checkStableOrder(minimumPages: 1) { BrokenProvider(breaking: .noPages) }
        } matching: { issue in
            if case .expectationFailed = issue.kind { true } else { false }
        }
    }

    @Test("the suite rejects a provider that breaks a promise", arguments: BrokenProvider.Breach.allCases)
    func rejectsABrokenProvider(_ breach: BrokenProvider.Breach) async throws {
        // Passes only if the suite records a failed expectation; anything else it records fails this test.
        try await withKnownIssue("a provider that \(breach)") {
            try await breach.promise.check { BrokenProvider(breaking: breach) }
        } matching: { issue in
            if case .expectationFailed = issue.kind { true } else { false }
        }
    }

    @Test("the suite passes the same wrapper when it breaks nothing, so the failures above are the breaches'")
    func passesTheWrapperUnbroken() async throws {
        try await ProviderConformance.checkAll { BrokenProvider(breaking: nil) }
    }
}
