import CParleyLua
import Foundation
import ParleyLua
import Synchronization

/// A time zone's offsets as the sandbox's `os.date` and `os.time` read them
/// in C: one table per zone for the whole process, built on first use, shared
/// by every VM and never freed (a process meets a handful of zones).
enum ZoneTable {
    /// Addresses by zone identifier (a pointer is not `Sendable`; its address is).
    private static let tables = Mutex<[String: Int]>([:])

    /// The zone's table; nil for UTC, which C handles without one.
    static func address(for zone: TimeZone) -> ZoneTableAddress? {
        guard zone.secondsFromGMT() != 0 || zone.nextDaylightSavingTimeTransition != nil else { return nil }
        let address = tables.withLock { all in
            if let a = all[zone.identifier] { return a }
            let a = Int(bitPattern: make(zone))
            all[zone.identifier] = a
            return a
        }
        return UnsafePointer<parley_zone>(bitPattern: address).map(ZoneTableAddress.init)
    }

    /// Every offset change from 1900 to 2100 (Foundation's transitions);
    /// times outside keep the nearest span's offset.
    private static func make(_ zone: TimeZone) -> UnsafeMutablePointer<parley_zone> {
        func span(from: Int64, at date: Date) -> parley_zone_span {
            var s = parley_zone_span()
            s.from = from
            s.offset = Int32(zone.secondsFromGMT(for: date))
            s.isdst = zone.isDaylightSavingTime(for: date) ? 1 : 0
            let name = Array((zone.abbreviation(for: date) ?? "").utf8.prefix(11))
            withUnsafeMutableBytes(of: &s.abbrev) { b in
                for (i, c) in name.enumerated() { b[i] = c }
            }
            return s
        }
        var date = Date(timeIntervalSince1970: -2_208_988_800)
        let end = Date(timeIntervalSince1970: 4_102_444_800)
        var spans = [span(from: .min, at: date)]
        while let next = zone.nextDaylightSavingTimeTransition(after: date), next < end {
            spans.append(span(from: Int64(next.timeIntervalSince1970), at: next))
            date = next
        }
        let buffer = UnsafeMutablePointer<parley_zone_span>.allocate(capacity: spans.count)
        buffer.initialize(from: spans, count: spans.count)
        let table = UnsafeMutablePointer<parley_zone>.allocate(capacity: 1)
        table.initialize(to: parley_zone(count: Int32(spans.count), spans: buffer))
        return table
    }
}
