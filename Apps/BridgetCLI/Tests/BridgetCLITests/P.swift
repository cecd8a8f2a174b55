import Testing
@Test func p() {}
