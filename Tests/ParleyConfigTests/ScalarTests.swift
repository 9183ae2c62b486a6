import Testing
@testable import ParleyConfig

@Suite struct ScalarTests {
    @Test func integers() throws {
        let doc = try parse("""
        int1 = +99
        int2 = 42
        int3 = 0
        int4 = -17
        int5 = 1_000
        int6 = 5_349_221
        int7 = 53_49_221
        int8 = 1_2_3_4_5
        zero1 = +0
        zero2 = -0
        hex1 = 0xDEADBEEF
        hex2 = 0xdeadbeef
        hex3 = 0xdead_beef
        hex4 = 0x00ff
        oct1 = 0o01234567
        oct2 = 0o755
        bin1 = 0b11010110
        bin2 = 0b0000_0001
        max = 9223372036854775807
        min = -9223372036854775808
        hexmax = 0x7FFFFFFFFFFFFFFF
        """)
        let expected: [(String, Int64)] = [
            ("int1", 99), ("int2", 42), ("int3", 0), ("int4", -17), ("int5", 1000), ("int6", 5_349_221),
            ("int7", 5_349_221), ("int8", 12345), ("zero1", 0), ("zero2", 0), ("hex1", 0xDEADBEEF),
            ("hex2", 0xDEADBEEF), ("hex3", 0xDEADBEEF), ("hex4", 255), ("oct1", 0o01234567), ("oct2", 0o755),
            ("bin1", 0b11010110), ("bin2", 1), ("max", .max), ("min", .min), ("hexmax", .max),
        ]
        for (key, value) in expected {
            #expect(doc[key] == .integer(value), "\(key)")
        }
        #expect(doc.count == expected.count)
    }

    @Test func floats() throws {
        let doc = try parse("""
        flt1 = +1.0
        flt2 = 3.1415
        flt3 = -0.01
        flt4 = 5e+22
        flt5 = 1e06
        flt6 = -2E-2
        flt7 = 6.626e-34
        flt8 = 224_617.445_991_228
        flt9 = 0.0
        flt10 = -0.0
        flt11 = 1e1_0
        flt12 = 0e0
        sf1 = inf
        sf2 = +inf
        sf3 = -inf
        sf4 = nan
        sf5 = +nan
        sf6 = -nan
        """)
        let expected: [(String, Double)] = [
            ("flt1", 1.0), ("flt2", 3.1415), ("flt3", -0.01), ("flt4", 5e22), ("flt5", 1e6), ("flt6", -0.02),
            ("flt7", 6.626e-34), ("flt8", 224_617.445_991_228), ("flt9", 0), ("flt10", -0.0), ("flt11", 1e10),
            ("flt12", 0), ("sf1", .infinity), ("sf2", .infinity), ("sf3", -.infinity),
        ]
        for (key, value) in expected {
            #expect(doc[key] == .float(value), "\(key)")
        }
        #expect(doc["flt10"]?.floatValue?.sign == .minus)
        for key in ["sf4", "sf5", "sf6"] {
            #expect(doc[key]?.floatValue?.isNaN == true, "\(key)")
        }
    }

    @Test func booleans() throws {
        let doc = try parse("bool1 = true\nbool2 = false\ntrue = false\n")
        #expect(doc == ["bool1": true, "bool2": false, "true": false])
    }

    @Test func offsetDateTimes() throws {
        let doc = try TOMLDocument(parsing: """
        odt1 = 1979-05-27T07:32:00Z
        odt2 = 1979-05-27T00:32:00-07:00
        odt3 = 1979-05-27T00:32:00.999999-07:00
        odt4 = 1979-05-27 07:32:00Z
        odt5 = 1979-05-27t07:32:00.123456789123z
        odt6 = 1979-05-27T07:32:00+05:30
        """, file: testFile).root
        let odt1 = try #require(doc["odt1"]?.datetimeValue)
        #expect(odt1.kind == .offsetDateTime)
        #expect(odt1.text == "1979-05-27T07:32:00Z")
        #expect([odt1.year, odt1.month, odt1.day, odt1.hour, odt1.minute, odt1.second] == [1979, 5, 27, 7, 32, 0])
        #expect(odt1.offsetMinutes == 0)
        #expect(doc["odt2"]?.datetimeValue?.offsetMinutes == -420)
        #expect(doc["odt3"]?.datetimeValue?.nanosecond == 999_999_000)
        #expect(doc["odt4"]?.datetimeValue?.text == "1979-05-27 07:32:00Z")
        #expect(doc["odt4"]?.datetimeValue?.kind == .offsetDateTime)
        #expect(doc["odt5"]?.datetimeValue?.nanosecond == 123_456_789)
        #expect(doc["odt6"]?.datetimeValue?.offsetMinutes == 330)
        #expect(doc["odt1"]?.typeName == "offset date-time")
    }

    @Test func localDatesAndTimes() throws {
        let doc = try TOMLDocument(parsing: """
        ldt1 = 1979-05-27T07:32:00
        ldt2 = 1979-05-27T00:32:00.999999
        ld1 = 1979-05-27
        leap = 2024-02-29
        lt1 = 07:32:00
        lt2 = 00:32:00.999999
        leapsecond = 23:59:60
        arr = [1979-05-27, 07:32:00, 1979-05-27 07:32:00]
        """, file: testFile).root
        #expect(doc["ldt1"]?.datetimeValue?.kind == .localDateTime)
        #expect(doc["ldt2"]?.datetimeValue?.nanosecond == 999_999_000)
        #expect(doc["ldt1"]?.datetimeValue?.offsetMinutes == nil)
        let ld1 = try #require(doc["ld1"]?.datetimeValue)
        #expect(ld1.kind == .localDate)
        #expect(ld1.hour == nil)
        #expect(ld1.description == "1979-05-27")
        #expect(doc["leap"]?.datetimeValue?.day == 29)
        let lt1 = try #require(doc["lt1"]?.datetimeValue)
        #expect(lt1.kind == .localTime)
        #expect(lt1.year == nil)
        #expect([lt1.hour, lt1.minute, lt1.second, lt1.nanosecond] == [7, 32, 0, 0])
        #expect(doc["lt2"]?.datetimeValue?.nanosecond == 999_999_000)
        #expect(doc["leapsecond"]?.datetimeValue?.second == 60)
        let kinds = doc["arr"]?.arrayValue?.compactMap { $0.datetimeValue?.kind }
        #expect(kinds == [.localDate, .localTime, .localDateTime])
        #expect(doc["arr"]?.plain == .array([
            .datetime(try #require(TOMLDateTime(parsing: "1979-05-27"))),
            .datetime(try #require(TOMLDateTime(parsing: "07:32:00"))),
            .datetime(try #require(TOMLDateTime(parsing: "1979-05-27 07:32:00"))),
        ]))
    }

    @Test(arguments: ["1979-13-01", "1979-00-10", "1979-02-30", "2023-02-29", "1900-02-29", "1979-04-31",
                      "1979-05-27T24:00:00", "1979-05-27T07:60:00", "1979-05-27T07:32:61", "1979-05-27T07:32",
                      "1979-05-27T07:32:00.", "1979-05-27T07:32:00+25:00", "1979-05-27T07:32:00+05",
                      "1979-5-27", "79-05-27", "1979-05-27X07:32:00", "7:32:00", "07:32:00Z", "1979-05-27Z"])
    func invalidDateTimes(_ text: String) {
        #expect(TOMLDateTime(parsing: text) == nil)
        check(InvalidCase("a = \(text)", line: 1, .syntax))
    }

    @Test func valuesFollowedByCommentsAndWhitespace() throws {
        let doc = try parse("a = 1#c\nb = 2.5 \t# c\nc = true#\nd = 1979-05-27#\ne = 'x'#")
        #expect(doc == ["a": 1, "b": 2.5, "c": true, "d": .datetime(try #require(TOMLDateTime(parsing: "1979-05-27"))), "e": "x"])
    }
}
