import Testing
@testable import ParleyConfig

/// Every parse error names the file and the line; redefinitions also name the key.
@Suite struct ParseErrorTests {
    static let syntaxCases: [InvalidCase] = [
        // keys and lines
        InvalidCase("key = # INVALID", line: 1, .syntax, "expected a value, got '#'"),
        InvalidCase("key =\nvalue = 1", line: 1, .syntax, "expected a value, got end of line"),
        InvalidCase("a = 1\nfirst = \"Tom\" last = \"Preston-Werner\" # INVALID", line: 2, .syntax, "expected end of line after value, got 'l'"),
        InvalidCase("a = 1\n\n= \"no key name\"", line: 3, .syntax, "expected a key, got '='"),
        InvalidCase("\"\"\"key\"\"\" = \"multi-line key\"", line: 1, .syntax, "multi-line string cannot be a key"),
        InvalidCase("a b = 1", line: 1, .syntax, "expected '=' after key 'a', got 'b'"),
        InvalidCase("a. = 1", line: 1, .syntax, "expected a key, got '='"),
        InvalidCase(".a = 1", line: 1, .syntax, "expected a key, got '.'"),
        InvalidCase("a = 1\nb", line: 2, .syntax, "expected '=' after key 'b', got end of file"),
        InvalidCase("a = ", line: 1, .syntax, "expected a value, got end of file"),
        InvalidCase("x = 1\ny = hello", line: 2, .syntax, "strings must be quoted"),
        InvalidCase("a = TRUE", line: 1, .syntax, "strings must be quoted"),
        InvalidCase("a = truex", line: 1, .syntax, "strings must be quoted"),
        InvalidCase("a = 1 # ok\r\nb = 2\rc = 3", line: 2, .syntax, "carriage return"),
        InvalidCase("a = 1\n# bell \u{07}\n", line: 2, .syntax, "control character U+0007"),
        InvalidCase("a = 1\n\n\u{7F} = 2", line: 3, .syntax, "expected a key"),
        // headers
        InvalidCase("[a", line: 1, .syntax, "expected ']'"),
        InvalidCase("\n[[a]\nb = 1", line: 2, .syntax, "expected ']]'"),
        InvalidCase("[]", line: 1, .syntax, "expected a key"),
        InvalidCase("[a.]", line: 1, .syntax, "expected a key"),
        InvalidCase("[a] b = 1", line: 1, .syntax, "expected end of line after table header"),
        InvalidCase("[ [a] ]", line: 1, .syntax, "expected a key"),
        InvalidCase("[[a] ]", line: 1, .syntax, "expected ']]'"),
        // strings
        InvalidCase("a = 1\nb = \"unterminated", line: 2, .syntax, "unterminated string"),
        InvalidCase("a = \"line\nbreak\"", line: 1, .syntax, "newline before the closing"),
        InvalidCase("a = 'line\nbreak'", line: 1, .syntax, "newline before the closing"),
        InvalidCase("a = \"\\x41\"", line: 1, .syntax, "invalid escape sequence \\x"),
        InvalidCase("a = \"\\e\"", line: 1, .syntax, "invalid escape sequence \\e"),
        InvalidCase("a = \"\\ \"", line: 1, .syntax, "invalid escape"),
        InvalidCase("a = \"\\u12\"", line: 1, .syntax, "exactly 4 hex digits"),
        InvalidCase("a = \"\\U0000004\"", line: 1, .syntax, "exactly 8 hex digits"),
        InvalidCase("a = \"\\uD800\"", line: 1, .syntax, "not a Unicode scalar"),
        InvalidCase("a = \"\\U00110000\"", line: 1, .syntax, "not a Unicode scalar"),
        InvalidCase("a = \"nul \u{00} here\"", line: 1, .syntax, "control character U+0000"),
        InvalidCase("a = 'del \u{7F}'", line: 1, .syntax, "control character U+007F"),
        InvalidCase("a = 1\nb = \"\"\"\nnever\nclosed", line: 2, .syntax, "unterminated multi-line string"),
        InvalidCase("a = '''\nnever closed", line: 1, .syntax, "unterminated multi-line string"),
        InvalidCase("a = \"\"\"x\"\"\"\"\"\"", line: 1, .syntax, "too many quote"),
        InvalidCase("a = \"\"\"\nx \\ y\"\"\"", line: 2, .syntax, "must end the line"),
        InvalidCase("a = \"\"\"\nx\ry\"\"\"", line: 2, .syntax, "carriage return"),
        InvalidCase("a = \"\"\"\u{01}\"\"\"", line: 1, .syntax, "control character U+0001"),
        // integers
        InvalidCase("a = +0x1", line: 1, .syntax, "sign is not allowed"),
        InvalidCase("a = -0b1", line: 1, .syntax, "sign is not allowed"),
        InvalidCase("a = 0x", line: 1, .syntax, "invalid integer '0x'"),
        InvalidCase("a = 0xG", line: 1, .syntax, "invalid integer"),
        InvalidCase("a = 0o8", line: 1, .syntax, "invalid integer"),
        InvalidCase("a = 0b2", line: 1, .syntax, "invalid integer"),
        InvalidCase("a = 0x_1", line: 1, .syntax, "invalid integer"),
        InvalidCase("a = 1__2", line: 1, .syntax, "invalid number"),
        InvalidCase("a = _1", line: 1, .syntax, "invalid number"),
        InvalidCase("a = 1_", line: 1, .syntax, "invalid number"),
        InvalidCase("a = 01", line: 1, .syntax, "invalid number"),
        InvalidCase("a = -01", line: 1, .syntax, "invalid number"),
        InvalidCase("a = 1-2", line: 1, .syntax, "invalid number"),
        InvalidCase("a = 9223372036854775808", line: 1, .syntax, "does not fit in 64 bits"),
        InvalidCase("a = -9223372036854775809", line: 1, .syntax, "does not fit in 64 bits"),
        InvalidCase("a = 99999999999999999999999", line: 1, .syntax, "does not fit in 64 bits"),
        InvalidCase("a = 0x8000000000000000", line: 1, .syntax, "does not fit in 64 bits"),
        InvalidCase("a = 0X1F", line: 1, .syntax, ""),
        // floats
        InvalidCase("a = .7", line: 1, .syntax, "invalid float '.7'"),
        InvalidCase("a = 7.", line: 1, .syntax, "invalid float"),
        InvalidCase("a = 3.e+20", line: 1, .syntax, "invalid float"),
        InvalidCase("a = 1e", line: 1, .syntax, "invalid float"),
        InvalidCase("a = 1e_1", line: 1, .syntax, "invalid float"),
        InvalidCase("a = 1.2.3", line: 1, .syntax, "invalid float"),
        InvalidCase("a = 1.5_", line: 1, .syntax, "invalid float"),
        InvalidCase("a = 00.5", line: 1, .syntax, "invalid float"),
        InvalidCase("a = 1e400", line: 1, .syntax, "out of range"),
        InvalidCase("a = infinity", line: 1, .syntax, "strings must be quoted"),
        InvalidCase("a = -nana", line: 1, .syntax, "invalid"),
        // dates
        InvalidCase("a = 1979-13-01", line: 1, .syntax, "invalid date or time '1979-13-01'"),
        InvalidCase("a = 1979-05-27T07:32", line: 1, .syntax, "invalid date or time"),
        // arrays
        InvalidCase("a = [1, 2", line: 1, .syntax, "unterminated array"),
        InvalidCase("a = [\n1,\n2\n", line: 1, .syntax, "unterminated array (opened at line 1)"),
        InvalidCase("a = [1 2]", line: 1, .syntax, "expected ',' or ']' in array, got '2'"),
        InvalidCase("a = [1,,2]", line: 1, .syntax, "expected a value, got ','"),
        InvalidCase("a = [,]", line: 1, .syntax, "expected a value, got ','"),
        // inline tables
        InvalidCase("a = {b = 1,}", line: 1, .syntax, "trailing comma"),
        InvalidCase("a = {b = 1\n}", line: 1, .syntax, "must be on one line"),
        InvalidCase("a = {\nb = 1}", line: 1, .syntax, "must be on one line"),
        InvalidCase("a = {b = 1 c = 2}", line: 1, .syntax, "expected ',' or '}'"),
        InvalidCase("a = {b = 1", line: 1, .syntax, "unterminated inline table"),
        InvalidCase("a = {,}", line: 1, .syntax, "expected a key"),
    ]

    @Test(arguments: syntaxCases)
    func syntaxErrors(_ c: InvalidCase) {
        check(c)
    }

    static let redefinitionCases: [InvalidCase] = [
        InvalidCase("name = \"Tom\"\nname = \"Pradyun\"", line: 2, .redefinition, "duplicate key (first defined at line 1)", key: "name"),
        InvalidCase("spelling = \"favorite\"\n\"spelling\" = \"favourite\"", line: 2, .redefinition, "duplicate key", key: "spelling"),
        InvalidCase("fruit.apple = 1\nfruit.apple.smooth = true", line: 2, .redefinition, "already defined as integer at line 1, not a table", key: "fruit.apple"),
        InvalidCase("[fruit]\napple = \"red\"\n\n[fruit]\norange = \"orange\"", line: 4, .redefinition, "table [fruit] is defined twice (first at line 1)", key: "fruit"),
        InvalidCase("[fruit]\napple = \"red\"\n\n[fruit.apple]\ntexture = \"smooth\"", line: 4, .redefinition, "already defined as string", key: "fruit.apple"),
        InvalidCase("[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n\n[fruit.apple]", line: 5, .redefinition, "already defined by dotted keys at line 2", key: "fruit.apple"),
        InvalidCase("[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.taste]", line: 4, .redefinition, "dotted keys", key: "fruit.apple.taste"),
        InvalidCase("[product]\ntype = { name = \"Nail\" }\ntype.edible = false", line: 3, .redefinition, "cannot extend inline table (defined at line 2)", key: "product.type"),
        InvalidCase("[product]\ntype.name = \"Nail\"\ntype = { edible = false }", line: 3, .redefinition, "duplicate key: already a table", key: "product.type"),
        InvalidCase("a = {b = 1}\n[a.c]", line: 2, .redefinition, "cannot extend inline table", key: "a"),
        InvalidCase("a = {b = 1}\n[a]", line: 2, .redefinition, "cannot extend inline table", key: "a"),
        InvalidCase("a = {b.c = 1, b.c.d = 2}", line: 1, .redefinition, "not a table", key: "a.b.c"),
        InvalidCase("a = {b = 1, b = 2}", line: 1, .redefinition, "duplicate key", key: "a.b"),
        InvalidCase("fruits = []\n\n[[fruits]]", line: 3, .redefinition, "cannot append to static array (defined at line 1)", key: "fruits"),
        InvalidCase("a = [{b = 1}]\n[a.c]", line: 2, .redefinition, "cannot extend static array", key: "a"),
        InvalidCase("[fruit.physical]\ncolor = \"red\"\n\n[[fruit]]\nname = \"apple\"", line: 4, .redefinition, "already a table (line 1)", key: "fruit"),
        InvalidCase("[[fruits]]\nname = \"apple\"\n\n[[fruits.varieties]]\nname = \"red delicious\"\n\n[fruits.varieties]\nname = \"granny smith\"", line: 7, .redefinition, "is an array of tables", key: "fruits.varieties"),
        InvalidCase("[[fruits]]\n[fruits.physical]\ncolor = \"red\"\n\n[[fruits.physical]]\ncolor = \"green\"", line: 5, .redefinition, "already a table", key: "fruits.physical"),
        InvalidCase("[a.b.c]\n  z = 9\n\n[a]\n  b.c.t = \"not allowed\"", line: 5, .redefinition, "cannot add to table [a.b.c] (defined at line 1) with dotted keys", key: "a.b.c"),
        InvalidCase("[a.b.c.d]\n  z = 9\n\n[a]\n  b.c.d.k.t = 1", line: 5, .redefinition, "with dotted keys", key: "a.b.c.d"),
        InvalidCase("[a.b.c]\n[a]\nb.d = 1\n[a.b]", line: 4, .redefinition, "dotted keys at line 3", key: "a.b"),
        InvalidCase("[[a]]\n[b]\n[a]", line: 3, .redefinition, "array of tables", key: "a"),
        InvalidCase("[[t.a]]\n[t]\na.x = 1", line: 3, .redefinition, "array of tables", key: "t.a"),
        InvalidCase("a = 1\n[a]", line: 2, .redefinition, "already defined as integer", key: "a"),
        InvalidCase("a = 1\n[[a]]", line: 2, .redefinition, "already defined as integer", key: "a"),
        InvalidCase("a = 1\n[a.b]", line: 2, .redefinition, "already defined as integer", key: "a"),
        InvalidCase("[a]\n[a.b]\n[a]", line: 3, .redefinition, "defined twice", key: "a"),
        InvalidCase("[a.b]\nc = 1\n[a]\nb = 2", line: 4, .redefinition, "duplicate key: already a table", key: "a.b"),
        InvalidCase("[t]\n\"a b\".c = 1\n\"a b\" = 2", line: 3, .redefinition, "duplicate key", key: "t.\"a b\""),
    ]

    @Test(arguments: redefinitionCases)
    func redefinitionErrors(_ c: InvalidCase) {
        check(c)
    }

    @Test func descriptionFormat() throws {
        let error = try #require(parseError("a = 1\n\nb.c = 1\nb.c = 2"))
        #expect(error.description == "test.toml:4: key 'b.c': duplicate key (first defined at line 3)")
        #expect(error.column == 3)  // the component that clashes
        let syntax = try #require(parseError("a = [1 2]"))
        #expect(syntax.description == "test.toml:1: expected ',' or ']' in array, got '2'")
        #expect(syntax.column == 8)
    }

    @Test func invalidUTF8ReportsItsLine() throws {
        var bytes = Array("a = 1\nb = 2\nc = \"".utf8)
        bytes += [0xC3, 0x28, 0x22, 0x0A]
        let error = configError { _ = try TOMLDocument(parsing: bytes, file: "bin.toml") }
        #expect(error?.line == 3)
        #expect(error?.description.hasPrefix("bin.toml:3: invalid UTF-8") == true)
        for bad: [UInt8] in [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80], [0xFF]] {
            #expect(throws: ConfigError.self) { try TOMLDocument(parsing: Array("a = '".utf8) + bad + Array("'".utf8)) }
        }
    }

    @Test func missingFileIsAnIOError() {
        let error = configError { _ = try TOMLDocument(contentsOfFile: "/nonexistent/parley/bot.toml") }
        #expect(error?.kind == .io)
        #expect(error?.line == 0)
        #expect(error?.description.hasPrefix("/nonexistent/parley/bot.toml: cannot open file") == true)
    }
}

extension ParseErrorTests {
    @Test func invisibleCharactersAreNamedInMessages() {
        #expect(parseError("a = \u{FEFF}1")?.message == "expected a value, got U+FEFF")
        #expect(parseError("a = \u{200B}1")?.message == "expected a value, got U+200B")
        #expect(parseError("a = é")?.message == "expected a value, got 'é'")
    }
}
