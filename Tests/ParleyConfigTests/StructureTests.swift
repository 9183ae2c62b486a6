import Testing
@testable import ParleyConfig

/// Keys, tables, inline tables, arrays and arrays of tables, mostly from the TOML 1.0 spec.
@Suite struct StructureTests {
    @Test func commentsAndBlankLines() throws {
        let doc = try parse("""
        # This is a full-line comment
        key = "value"  # This is a comment at the end of a line
        another = "# This is not a comment"

        \t   # indented comment
        """)
        #expect(doc == ["key": "value", "another": "# This is not a comment"])
        #expect(try parse("") == [:])
        #expect(try parse("\n\n# only comments\r\n") == [:])
    }

    @Test func bareAndQuotedKeys() throws {
        let doc = try parse("""
        key = "value"
        bare_key = "value"
        bare-key = "value"
        1234 = "value"
        "127.0.0.1" = "value"
        "character encoding" = "value"
        "ʎǝʞ" = "value"
        'key2' = "value"
        'quoted "value"' = "value"
        "" = "blank"
        "\\u0041" = "escaped key"
        """)
        #expect(doc.keys == ["key", "bare_key", "bare-key", "1234", "127.0.0.1", "character encoding", "ʎǝʞ",
                             "key2", "quoted \"value\"", "", "A"])
    }

    @Test func dottedKeys() throws {
        let doc = try parse("""
        name = "Orange"
        physical.color = "orange"
        physical.shape = "round"
        site."google.com" = true
        fruit . flavor = "banana"
        3.14159 = "pi"
        apple.type = "fruit"
        orange.type = "fruit"
        apple.skin = "thin"
        """)
        #expect(doc == [
            "name": "Orange",
            "physical": ["color": "orange", "shape": "round"],
            "site": ["google.com": true],
            "fruit": ["flavor": "banana"],
            "3": ["14159": "pi"],
            "apple": ["type": "fruit", "skin": "thin"],
            "orange": ["type": "fruit"],
        ])
    }

    @Test func tables() throws {
        let doc = try parse("""
        [table-1]
        key1 = "some string"
        key2 = 123

        [table-2]
        key1 = "another string"
        key2 = 456

        [dog."tater.man"]
        type.name = "pug"

        [a.b.c]            # this is best practice
        [ d.e.f ]          # same as [d.e.f]
        [ g .  h  . i ]    # same as [g.h.i]
        [ j . "ʞ" . 'l' ]  # same as [j."ʞ".l]
        """)
        #expect(doc == [
            "table-1": ["key1": "some string", "key2": 123],
            "table-2": ["key1": "another string", "key2": 456],
            "dog": ["tater.man": ["type": ["name": "pug"]]],
            "a": ["b": ["c": [:]]],
            "d": ["e": ["f": [:]]],
            "g": ["h": ["i": [:]]],
            "j": ["ʞ": ["l": [:]]],
        ])
    }

    @Test func superTablesMayBeDefinedAfterwards() throws {
        let doc = try parse("""
        # [x] you
        # [x.y] don't
        # [x.y.z] need these
        [x.y.z.w] # for this to work

        [x] # defining a super-table afterward is ok
        k = 1
        """)
        #expect(doc == ["x": ["y": ["z": ["w": [:]]], "k": 1]])
    }

    @Test func outOfOrderTablesAndDottedSubtables() throws {
        let doc = try parse("""
        [fruit]
        apple.color = "red"
        apple.taste.sweet = true

        [fruit.apple.texture]  # you can add sub-tables
        smooth = true

        [animal]
        [fruit.orange]
        [a.b.c]
        z = 9
        [a]
        b.d = 1
        """)
        #expect(doc == [
            "fruit": ["apple": ["color": "red", "taste": ["sweet": true], "texture": ["smooth": true]], "orange": [:]],
            "animal": [:],
            "a": ["b": ["c": ["z": 9], "d": 1]],
        ])
    }

    @Test func rootTableKeysBeforeHeaders() throws {
        let doc = try parse("""
        # Top-level table begins.
        name = "Fido"
        breed = "pug"

        # Top-level table ends.
        [owner]
        name = "Regina Dogman"
        member_since = 1999-08-04
        """)
        #expect(doc["name"] == "Fido")
        #expect(doc["owner"]?.tableValue?["name"] == "Regina Dogman")
        #expect(doc["owner"]?.tableValue?["member_since"]?.datetimeValue?.kind == .localDate)
    }

    @Test func inlineTables() throws {
        let doc = try parse("""
        name = { first = "Tom", last = "Preston-Werner" }
        point = { x = 1, y = 2 }
        animal = { type.name = "pug" }
        empty = {}
        spaced = {   }
        nested = { a = { b = { c = [1, { d = 2 }] } } }
        multi = { s = \"\"\"
        x\"\"\", arr = [
          1, 2,
        ] }
        """)
        #expect(doc == [
            "name": ["first": "Tom", "last": "Preston-Werner"],
            "point": ["x": 1, "y": 2],
            "animal": ["type": ["name": "pug"]],
            "empty": [:],
            "spaced": [:],
            "nested": ["a": ["b": ["c": [1, ["d": 2]]]]],
            "multi": ["s": "x", "arr": [1, 2]],
        ])
    }

    @Test func arrays() throws {
        let doc = try parse("""
        integers = [ 1, 2, 3 ]
        colors = [ "red", "yellow", "green" ]
        nested_arrays_of_ints = [ [ 1, 2 ], [3, 4, 5] ]
        nested_mixed_array = [ [ 1, 2 ], ["a", "b", "c"] ]
        string_array = [ "all", 'strings', \"\"\"are the same\"\"\", '''type''' ]
        numbers = [ 0.1, 0.2, 0.5, 1, 2, 5 ]
        contributors = [
          "Foo Bar <foo@example.com>",
          { name = "Baz Qux", email = "bazqux@example.com", url = "https://example.com/bazqux" }
        ]
        integers2 = [
          1, 2, 3
        ]
        integers3 = [
          1,
          2, # this is ok
        ]
        empty = []
        empty2 = [ # comment
        ]
        """)
        #expect(doc == [
            "integers": [1, 2, 3],
            "colors": ["red", "yellow", "green"],
            "nested_arrays_of_ints": [[1, 2], [3, 4, 5]],
            "nested_mixed_array": [[1, 2], ["a", "b", "c"]],
            "string_array": ["all", "strings", "are the same", "type"],
            "numbers": [0.1, 0.2, 0.5, 1, 2, 5],
            "contributors": ["Foo Bar <foo@example.com>",
                             ["name": "Baz Qux", "email": "bazqux@example.com", "url": "https://example.com/bazqux"]],
            "integers2": [1, 2, 3],
            "integers3": [1, 2],
            "empty": [],
            "empty2": [],
        ])
    }

    @Test func arraysOfTables() throws {
        let doc = try parse("""
        [[products]]
        name = "Hammer"
        sku = 738594937

        [[products]]  # empty table within the array

        [[products]]
        name = "Nail"
        sku = 284758393

        color = "gray"
        """)
        #expect(doc == ["products": [["name": "Hammer", "sku": 738594937], [:], ["name": "Nail", "sku": 284758393, "color": "gray"]]])
    }

    @Test func nestedArraysOfTablesContent() throws {
        let doc = try parse("""
        [[fruits]]
        name = "apple"

        [fruits.physical]  # subtable
        color = "red"
        shape = "round"

        [[fruits.varieties]]  # nested array of tables
        name = "red delicious"

        [[fruits.varieties]]
        name = "granny smith"


        [[fruits]]
        name = "banana"

        [[fruits.varieties]]
        name = "plantain"
        """)
        #expect(doc == ["fruits": [
            ["name": "apple", "physical": ["color": "red", "shape": "round"],
             "varieties": [["name": "red delicious"], ["name": "granny smith"]]],
            ["name": "banana", "varieties": [["name": "plantain"]]],
        ]])
    }

    @Test func arrayOfInlineTablesAndImplicitParents() throws {
        let doc = try parse("""
        points = [ { x = 1, y = 2, z = 3 },
                   { x = 7, y = 8, z = 9 },
                   { x = 2, y = 4, z = 8 } ]
        [[a.b]]
        x = 1
        [a]
        y = 2
        """)
        #expect(doc["points"] == [["x": 1, "y": 2, "z": 3], ["x": 7, "y": 8, "z": 9], ["x": 2, "y": 4, "z": 8]])
        #expect(doc["a"] == ["b": [["x": 1]], "y": 2])
    }

    @Test func specFullExample() throws {
        let doc = try parse("""
        # This is a TOML document

        title = "TOML Example"

        [owner]
        name = "Tom Preston-Werner"
        dob = 1979-05-27T07:32:00-08:00

        [database]
        enabled = true
        ports = [ 8000, 8001, 8002 ]
        data = [ ["delta", "phi"], [3.14] ]
        temp_targets = { cpu = 79.5, case = 72.0 }

        [servers]

        [servers.alpha]
        ip = "10.0.0.1"
        role = "frontend"

        [servers.beta]
        ip = "10.0.0.2"
        role = "backend"
        """)
        #expect(doc.keys == ["title", "owner", "database", "servers"])
        #expect(doc["owner"]?.tableValue?["dob"]?.datetimeValue?.offsetMinutes == -480)
        #expect(doc["database"] == [
            "enabled": true, "ports": [8000, 8001, 8002], "data": [["delta", "phi"], [3.14]],
            "temp_targets": ["cpu": 79.5, "case": 72.0],
        ])
        #expect(doc["servers"] == ["alpha": ["ip": "10.0.0.1", "role": "frontend"], "beta": ["ip": "10.0.0.2", "role": "backend"]])
    }

    @Test func positionsOfKeysValuesAndTables() throws {
        let root = try TOMLDocument(parsing: """
        a = 1
          b.c = "x"

        [t]
        arr = [
          1,
          2 ]
        [[list]]
        [[list]]
        inline = { k = 1 }
        """, file: testFile).root
        #expect(root.entry("a")?.keyPosition == TOMLPosition(line: 1, column: 1))
        #expect(root.entry("a")?.value.position == TOMLPosition(line: 1, column: 5))
        let b = try #require(root["b"]?.tableValue)
        #expect(root.entry("b")?.keyPosition == TOMLPosition(line: 2, column: 3))
        #expect(b.entry("c")?.keyPosition == TOMLPosition(line: 2, column: 5))
        #expect(b.entry("c")?.value.position == TOMLPosition(line: 2, column: 9))
        #expect(b.path == ["b"])
        let t = try #require(root["t"]?.tableValue)
        #expect(t.position.line == 4)
        #expect(t.entry("arr")?.value.line == 5)
        #expect(t["arr"]?.arrayValue?.map(\.line) == [6, 7])
        let list = try #require(root["list"]?.arrayValue)
        #expect(list.map(\.line) == [8, 9])
        let second = try #require(list[1].tableValue)
        #expect(second.path == ["list"])
        #expect(second["inline"]?.tableValue?.path == ["list", "inline"])
        #expect(second["inline"]?.position == TOMLPosition(line: 10, column: 10))
        #expect(second.file == testFile)
    }

    @Test func insertionOrderIsPreserved() throws {
        let doc = try parse("z = 1\ny = 2\n[m]\nb = 1\na = 2\n[c]\nx.q = 1\nx.p = 2\n")
        #expect(doc.keys == ["z", "y", "m", "c"])
        #expect(doc["m"]?.tableValue?.keys == ["b", "a"])
        #expect(doc["c"]?.tableValue?["x"]?.tableValue?.keys == ["q", "p"])
    }

    @Test func depthLimitIsExact() throws {
        let ok = "a = " + String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(parseError(ok) == nil)
        let tooDeep = "a = " + String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(parseError(tooDeep)?.message.contains("deeper than 64") == true)
        let custom = try TOMLParser(file: "x", maxDepth: 3).parse("a = [[[1]]]")
        #expect(custom.plain == ["a": [[[1]]]])
        #expect(throws: ConfigError.self) { try TOMLParser(file: "x", maxDepth: 3).parse("a = [[[[1]]]]") }
        #expect(throws: ConfigError.self) { try TOMLParser(file: "x", maxDepth: 2).parse("[a.b.c]") }
    }

    @Test func plainValueTable() {
        var table: TOMLValue.Table = ["b": 1, "a": 2]
        #expect(table.keys == ["b", "a"])
        table["c"] = "x"
        table["b"] = nil
        #expect(table.keys == ["a", "c"])
        #expect(table["c"] == "x")
        #expect(Array(table.map(\.key)) == ["a", "c"])
        #expect(table != ["c": "x", "a": 2])
        #expect(TOMLValue.integer(1).typeName == "integer")
    }
}
