import ParleyLua
import Testing

@Test func valuesRoundTripThroughTheCodec() throws {
    let samples: [LuaValue] = [
        .nil, .bool(true), .bool(false), .int(0), .int(.min), .int(.max), .double(1.5), .double(-0.0),
        .string(""), .string("héllo"), .bytes([0, 255, 10, 0]),
        .list([.int(1), .string("two"), .list([])]),
        .record([("a", .int(1)), ("nested", .record([("deep", .list([.bool(true)]))]))]),
    ]
    for v in samples {
        #expect(try LuaValue(decoding: v.encoded) == v)
    }
}

@Test func malformedBytesAreRejectedNotTrapped() {
    let bad: [[UInt8]] = [[], [9], [5, 10, 0, 0, 0, 65], [6, 255, 255, 255, 255, 0, 0, 0, 0], [3, 1, 2], [2, 2]]
    for b in bad {
        #expect(throws: ValueReader.Failure.self) { try LuaValue(decoding: b) }
    }
    // Deep nesting beyond the limit.
    var deep: [UInt8] = []
    for _ in 0..<40 { deep += [6, 1, 0, 0, 0, 0, 0, 0, 0] }
    deep.append(0)
    #expect(throws: ValueReader.Failure.self) { try LuaValue(decoding: deep) }
}
