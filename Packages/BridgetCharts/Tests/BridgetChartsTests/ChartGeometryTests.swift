import BridgetCharts
import Foundation
import Testing

@Suite("chart geometry")
struct ChartGeometryTests {
    @Test("a scale maps the domain's ends to the range's ends, backwards too (SVG's y grows downwards)")
    func scalesMapEnds() {
        let x = LinearScale(domain: 10...20, from: 0, to: 300)
        #expect(x(10) == 0 && x(20) == 300 && x(15) == 150)
        let y = LinearScale(domain: 0...4, from: 200, to: 0)
        #expect(y(0) == 200 && y(4) == 0 && y(1) == 150)
        // One value: the middle of the range, never a division by zero.
        #expect(LinearScale(domain: 5...5, from: 0, to: 100)(5) == 50)
    }

    @Test("ticks are round numbers (1, 2 or 5 times a power of ten apart) within the domain")
    func roundTicks() {
        #expect(LinearScale(domain: 0...10, from: 0, to: 1).ticks(count: 5) == [0, 2, 4, 6, 8, 10])
        #expect(LinearScale(domain: 0...1, from: 0, to: 1).ticks(count: 5) == [0, 0.2, 0.4, 0.6, 0.8, 1])
        #expect(LinearScale(domain: 0...0.35, from: 0, to: 1).ticks(count: 4) == [0, 0.1, 0.2, 0.3])
        #expect(LinearScale(domain: 3...1_234, from: 0, to: 1).ticks(count: 5) == [200, 400, 600, 800, 1_000, 1_200])
        for (low, high) in [(0.0, 7.3), (-4.2, 17.0), (1e-3, 9e-3), (12_345.0, 98_765.0)] {
            let ticks = LinearScale(domain: low...high, from: 0, to: 1).ticks(count: 5)
            #expect(!ticks.isEmpty && ticks.allSatisfy { (low...high).contains($0) }, "\(low)...\(high): \(ticks)")
            let steps = zip(ticks, ticks.dropFirst()).map { $1 - $0 }
            let step = steps.first ?? 1
            let mantissa = step / pow(10, log10(step).rounded(.down))
            #expect([1, 2, 5].contains { abs(mantissa - $0) < 1e-9 }, "\(low)...\(high): step \(step)")
        }
        #expect(LinearScale(domain: 4...4, from: 0, to: 1).ticks() == [4])
    }

    @Test("nice widens the domain to the nearest ticks; a scale over no data or one value still draws")
    func niceAndEmpty() {
        #expect(LinearScale(domain: 0.3...9.2, from: 0, to: 1).nice().domain == 0...10)
        #expect(LinearScale(covering: [], from: 0, to: 100).domain == 0...1)
        #expect(LinearScale(covering: [.nan, .infinity], from: 0, to: 100).domain == 0...1)
        #expect(LinearScale(covering: [0, 0, 0], from: 0, to: 100).domain == 0...1)
        let single = LinearScale(covering: [42], from: 0, to: 100)
        #expect(single.domain.contains(42) && single.domain.lowerBound < 42 && single.domain.upperBound > 42)
        #expect(LinearScale(covering: [3, 7], from: 0, to: 100, includingZero: true).domain.lowerBound == 0)
    }

    @Test("bands divide the range evenly, with padding between them")
    func bands() {
        let hours = BandScale(count: 24, from: 0, to: 480)
        #expect(hours.step == 20 && hours.bandwidth == 20 && hours.position(0) == 0 && hours.position(23) == 460)
        let padded = BandScale(count: 4, from: 0, to: 100, padding: 0.2)
        #expect(padded.bandwidth == 20 && padded.position(0) == 2.5 && padded.center(1) == 37.5)
        #expect(BandScale(count: 0, from: 0, to: 100).bandwidth == 0)
    }

    @Test("paths: a line through points, an area to a baseline, nothing for no data; numbers stay short")
    func paths() {
        #expect(ChartPaths.line([]) == "" && ChartPaths.area([], baseline: 0) == "")
        #expect(ChartPaths.line([(0, 10), (5.5, 2.25), (10, 0)]) == "M0 10L5.5 2.25L10 0")
        #expect(ChartPaths.area([(0, 10), (10, 0)], baseline: 20) == "M0 10L10 0L10 20L0 20Z")
        #expect(ChartPaths.line([(3, 4)]) == "M3 4h0.01")
        #expect(ChartPaths.number(1.0 / 3) == "0.33" && ChartPaths.number(-0.001) == "0" && ChartPaths.number(.nan) == "0")
        #expect(ChartPaths.label(1_500, step: 500) == "1,500" && ChartPaths.label(0.05, step: 0.05) == "0.05")
        #expect(ChartPaths.label(0.3, step: 0.1) == "0.3")
    }

    @Test("the palette runs dark to light with distinct colours, clamped at its ends")
    func palette() {
        let colours = (0...8).map { ChartPalette.sequential(Double($0) / 8) }
        #expect(Set(colours).count == 9 && colours.first == "#00224e" && colours.last == "#fee838")
        func luminance(_ hex: String) -> Double {
            let value = Int(hex.dropFirst(), radix: 16) ?? 0
            return 0.2126 * Double(value >> 16) + 0.7152 * Double((value >> 8) & 0xff) + 0.0722 * Double(value & 0xff)
        }
        #expect(zip(colours, colours.dropFirst()).allSatisfy { luminance($0) < luminance($1) }, "\(colours)")
        #expect(ChartPalette.sequential(-1) == colours.first && ChartPalette.sequential(.nan) == colours.first)
        #expect(ChartPalette.sequential(2) == colours.last && ChartPalette.empty != colours.first)
    }

    @Test("light to dark: one hue whose every step is darker, its light end still told from white, clamped")
    func lightToDark() {
        let colours = (0...7).map { ChartPalette.lightToDark(Double($0) / 7) }
        #expect(Set(colours).count == 8 && colours.first == "#e3eef9" && colours.last == "#08306b")
        func luminance(_ hex: String) -> Double {
            let value = Int(hex.dropFirst(), radix: 16) ?? 0
            return 0.2126 * Double(value >> 16) + 0.7152 * Double((value >> 8) & 0xff) + 0.0722 * Double(value & 0xff)
        }
        #expect(zip(colours, colours.dropFirst()).allSatisfy { luminance($0) > luminance($1) }, "\(colours)")
        #expect(luminance(colours[0]) < luminance("#ffffff") - 10)
        #expect(ChartPalette.lightToDark(.nan) == colours.first && ChartPalette.lightToDark(3) == colours.last)
    }
}
