import Testing
@testable import ParleyConfig

@Suite struct StringTests {
    @Test func basicStringEscapes() throws {
        let doc = try parse(#"""
        all = "b\b t\t n\n f\f r\r q\" bs\\ u\u00E9 U\U0001F600 sp\u0020"
        str = "I'm a string. \"You can quote me\". Name\tJos\u00E9\nLocation\tSF."
        tab = "a	b"
        """#)
        #expect(doc["all"] == .string("b\u{08} t\t n\n f\u{0C} r\r q\" bs\\ u\u{E9} U\u{1F600} sp "))
        #expect(doc["str"] == "I'm a string. \"You can quote me\". Name\tJos\u{E9}\nLocation\tSF.")
        #expect(doc["tab"] == "a\tb")
    }

    @Test func literalStrings() throws {
        let doc = try parse(#"""
        winpath  = 'C:\Users\nodejs\templates'
        winpath2 = '\\ServerX\admin$\system32\'
        quoted   = 'Tom "Dubs" Preston-Werner'
        regex    = '<\i\c*\s*>'
        empty    = ''
        emptyb   = ""
        """#)
        #expect(doc["winpath"] == #"C:\Users\nodejs\templates"#)
        #expect(doc["winpath2"] == #"\\ServerX\admin$\system32\"#)
        #expect(doc["quoted"] == #"Tom "Dubs" Preston-Werner"#)
        #expect(doc["regex"] == #"<\i\c*\s*>"#)
        #expect(doc["empty"] == "")
        #expect(doc["emptyb"] == "")
    }

    @Test func multilineBasic() throws {
        let doc = try parse(#"""
        str1 = """
        Roses are red
        Violets are blue"""
        str4 = """Here are two quotation marks: "". Simple enough."""
        str5 = """Here are three quotation marks: ""\"."""
        str6 = """Here are fifteen quotation marks: ""\"""\"""\"""\"""\"."""
        str7 = """"This," she said, "is just a pointless statement.""""
        one = """a""""
        esc = """\t\u0041\n"""
        """#)
        #expect(doc["str1"] == "Roses are red\nViolets are blue")
        #expect(doc["str4"] == #"Here are two quotation marks: "". Simple enough."#)
        #expect(doc["str5"] == #"Here are three quotation marks: """."#)
        #expect(doc["str6"] == .string("Here are fifteen quotation marks: " + String(repeating: "\"", count: 15) + "."))
        #expect(doc["str7"] == #""This," she said, "is just a pointless statement.""#)
        #expect(doc["one"] == "a\"")
        #expect(doc["esc"] == "\tA\n")
    }

    @Test func lineEndingBackslash() throws {
        let doc = try parse("""
        str1 = "The quick brown fox jumps over the lazy dog."
        str2 = \"\"\"
        The quick brown \\


          fox jumps over \\
            the lazy dog.\"\"\"
        str3 = \"\"\"\\
               The quick brown \\
               fox jumps over \\
               the lazy dog.\\
               \"\"\"
        str4 = \"\"\"a \\  \t
           b\"\"\"
        """)
        #expect(doc["str2"] == doc["str1"])
        #expect(doc["str3"] == doc["str1"])
        #expect(doc["str4"] == "a b")
    }

    @Test func multilineLiteral() throws {
        let doc = try parse(#"""
        regex2 = '''I [dw]on't need \d{2} apples'''
        lines  = '''
        The first newline is
        trimmed in raw strings.
           All other whitespace
           is preserved.
        '''
        quot15 = '''Here are fifteen quotation marks: """""""""""""""'''
        apos15 = "Here are fifteen apostrophes: '''''''''''''''"
        str = ''''That,' she said, 'is still pointless.''''
        """#)
        #expect(doc["regex2"] == #"I [dw]on't need \d{2} apples"#)
        #expect(doc["lines"] == "The first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n")
        #expect(doc["quot15"] == .string("Here are fifteen quotation marks: " + String(repeating: "\"", count: 15)))
        #expect(doc["apos15"] == .string("Here are fifteen apostrophes: " + String(repeating: "'", count: 15)))
        #expect(doc["str"] == "'That,' she said, 'is still pointless.'")
    }

    @Test func crlfIsNormalisedInMultilineStrings() throws {
        let doc = try parse("a = \"\"\"\r\none\r\ntwo\"\"\"\r\nb = '''x\r\ny'''\r\n")
        #expect(doc["a"] == "one\ntwo")
        #expect(doc["b"] == "x\ny")
    }

    @Test func unicodeContentAndColumns() throws {
        let doc = try TOMLDocument(parsing: "\u{FEFF}\"ключ\" = \"значение\" # коммент\n\"ʎǝʞ\" = 'é'", file: testFile)
        #expect(doc.plain["ключ"] == "значение")
        #expect(doc.plain["ʎǝʞ"] == "é")
        let entry = try #require(doc.root.entry("ʎǝʞ"))
        #expect(entry.keyPosition == TOMLPosition(line: 2, column: 1))
        #expect(entry.value.position == TOMLPosition(line: 2, column: 9))
        #expect(doc.root.entry("ключ")?.value.position == TOMLPosition(line: 1, column: 10))
        // Bare keys are ASCII in TOML 1.0.
        #expect(parseError("ключ = 1")?.message == "expected a key, got 'к'")
    }

    @Test func bytesInput() throws {
        let doc = try TOMLDocument(parsing: Array("a = 'x'\n".utf8), file: testFile)
        #expect(doc.plain == ["a": "x"])
    }
}
