-- Conformance of Parley's pattern functions against stock Lua 5.4.
--
-- Runs with two globals: `stock` (Lua's own find/match/gmatch/gsub) and
-- `ours` (Parley's budgeted implementation). Every case is run through both
-- under pcall; results must agree in count, type and value, errors must both
-- happen with the same message (ignoring a "file:line:" prefix). For gsub
-- with a function replacement the arguments the function received are
-- compared too; for gmatch every step of the iteration is compared.
--
-- No print/io here (the sandbox has neither): returns passed, failed, details.

local stock, ours = stock, ours
local pcall, select, type, tostring = pcall, select, type, tostring
local concat = table.concat
local unpack = table.unpack or unpack
local rep, char, format = string.rep, string.char, string.format
-- Harness helpers use only stock functions so a broken `ours` cannot hide
-- its own failures.
local sgsub = stock.gsub

local function pack(...)
  return { n = select("#", ...), ... }
end

-- Text form of one value; tostring keeps 1 and 1.0 apart.
local function show(v)
  local t = type(v)
  if t == "string" then return format("%q", v) end
  if t == "number" or t == "boolean" or t == "nil" then
    return t .. ":" .. tostring(v)
  end
  return t   -- tables, functions: identity differs between runs
end

local function show_list(t)
  local out = {}
  for i = 1, t.n do out[i] = show(t[i]) end
  return t.n .. "[" .. concat(out, ", ") .. "]"
end

local function strip_position(msg)
  if type(msg) ~= "string" then return show(msg) end
  return (sgsub(msg, "^[^\n]-:%d+: ", "", 1))
end

local cases = {}

-- A case: function name then the arguments exactly (trailing nils count).
local function C(fname, ...)
  cases[#cases + 1] = pack(fname, ...)
end

-- A function replacement whose calls are recorded and compared.
local function R(f) return { recorded = f } end

---------------------------------------------------------------------------
-- find: plain, specials shortcut, init handling
---------------------------------------------------------------------------
C("find", "hello world", "o")
C("find", "hello world", "o", 6)
C("find", "hello world", "o", 9)
C("find", "hello world", "wor")
C("find", "hello world", "xyz")
C("find", "hello world", "")
C("find", "hello world", "", 12)
C("find", "hello world", "", 13)
C("find", "hello world", "", 100)
C("find", "hello world", "o", -3)
C("find", "hello world", "o", -100)
C("find", "hello world", "o", 0)
C("find", "hello world", "l", -1)
C("find", "", "")
C("find", "", "", 1)
C("find", "", "", 2)
C("find", "", "a")
C("find", "a.b", ".", 1, true)
C("find", "a.b", ".")
C("find", "a+b", "+", 1, true)
C("find", "a+b", "a+b", 1, true)
C("find", "a+b", "a+b")
C("find", "a(b)c", "(b)", 1, true)
C("find", "x)y", ")")
C("find", "x]y", "]")
C("find", "a%b", "%", 1, true)
C("find", "aaab", "aab")
C("find", "abababc", "ababc")
C("find", "hello", "lo", 1, 1)
C("find", "hello", "l+", 1, false)
C("find", "hello", "l+", 1, nil)
C("find", "hello", "l", 2.0)
C("find", "hello", "l", "3")
C("find", "hello", "l", 2.5)
C("find", "hello", "l", "x")
C("find", 12345, 34)
C("find", 12345, "%d+", 2)
C("find", "abc", "b", math.maxinteger)
C("find", "abc", "b", math.mininteger)
C("find", "abc", "", math.maxinteger)
C("find", "abc", "^", 4)
C("find", "abc", "$", 4)
C("find", "abc", "a", nil, true)
C("find")
C("find", "abc")
C("find", nil, "a")
C("find", {}, "a")
C("find", "abc", {})

---------------------------------------------------------------------------
-- match: classes
---------------------------------------------------------------------------
local all = {}
for i = 0, 255 do all[#all + 1] = char(i) end
all = concat(all)
for _, cl in ipairs { "a", "c", "d", "g", "l", "p", "s", "u", "w", "x" } do
  C("gsub", all, "%" .. cl, "")
  C("gsub", all, "%" .. cl:upper(), "")
  C("gsub", all, "[%" .. cl .. "]", "")
  C("gsub", all, "[^%" .. cl .. "]", "")
  C("gsub", all, "%" .. cl .. "+", "<%0>")             -- greedy runs of the class
  C("gsub", all, "%" .. cl:upper() .. "*", "<%0>")
end
C("gsub", all, ".", "x")
C("gsub", all, "%z", "")           -- deprecated %z (NUL), still in 5.4
C("gsub", all, "%Z", "")
C("gsub", all, "[a-f]", "")
C("gsub", all, "[^a-f]", "")
C("gsub", all, "[\128-\255]", "")
C("gsub", all, "[%z]", "")
C("match", "  hello  ", "^%s*(.-)%s*$")
C("match", "key = value", "(%w+)%s*=%s*(%w+)")
C("match", "2024-01-15", "(%d+)-(%d+)-(%d+)")
C("match", "0x1F", "0[xX](%x+)")
C("match", "Hello World", "%u%l+")
C("match", "a.b", "%.")
C("match", "a%b", "%%")
C("match", "a]b", "%]")
C("match", "tab\there", "%c")
C("match", "a,b;c", "%p+")
C("match", "caf\195\169", "[\128-\255]+")
C("match", "\226\130\172 euro", "^[\192-\247][\128-\191]*")

---------------------------------------------------------------------------
-- sets
---------------------------------------------------------------------------
C("match", "a]b", "[]]")
C("match", "a]b", "[^]]+")
C("match", "a-b", "[a-]+")
C("match", "-ab", "[-a]+")
C("match", "a-z", "[%-]")
C("match", "abc-xyz", "[a-c]+")
C("match", "ABCdef", "[A-Z]+")
C("match", "a^b", "[%^b]+")
C("match", "a^b", "[b^]+")
C("match", "x[y", "[[]")
C("match", "hello123", "[%a%d]+")
C("match", "hello 123", "[^%s]+$")
C("match", "]]]", "[]]+")
C("match", "z-a", "[z-a]")
C("match", "b", "[z-a]")
C("match", "%", "[%%]")
C("match", "abc", "[a")
C("match", "abc", "[a%")
C("match", "abc", "[")
C("match", "abc", "[^")
C("match", "abc", "[]")
C("match", "abc", "[^]")
C("match", "abc", "[%]")
C("match", "a]", "[%]]")

---------------------------------------------------------------------------
-- quantifiers
---------------------------------------------------------------------------
C("match", "aaa", "a*")
C("match", "aaa", "a+")
C("match", "aaa", "a-")
C("match", "aaa", "a-$")
C("match", "aaab", "a-b")
C("match", "aaa", "a?")
C("match", "bbb", "a?b")
C("match", "ab", "a?ab")
C("match", "<a><b>", "<.*>")
C("match", "<a><b>", "<.->")
C("match", "xyz", "a*")
C("match", "xyz", "a+")
C("match", "xyz", "a-")
C("match", "", "a*")
C("match", "", "a+")
C("match", "", ".-")
C("match", "aaa", "^a*a$")
C("match", "abc", "*a")
C("match", "a*b", "a*%*")
C("match", "+x", "+")
C("match", "a-b", "a%-b")
C("match", "aaaa", "(a-)(a+)")
C("match", "aaaa", "(a*)(a*)")
C("match", "aaaa", "(a?)(a?)(a*)")

---------------------------------------------------------------------------
-- anchors
---------------------------------------------------------------------------
C("match", "hello", "^h")
C("match", "hello", "^e")
C("match", "hello", "o$")
C("match", "hello", "l$")
C("match", "a$b", "$b")
C("match", "a$b", "a$b")
C("match", "a^b", "a^b")
C("match", "^ab", "^^a")
C("match", "hello", "^hello$")
C("match", "hello", "^")
C("match", "hello", "$")
C("match", "", "^$")
C("find", "hello", "^l", 3)
C("find", "hello", "^l", 4)
C("find", "xhello", "^hello")
C("match", "hello", "^(h)(e)")

---------------------------------------------------------------------------
-- captures, position captures, back-references
---------------------------------------------------------------------------
C("match", "hello world", "(h)(e)(l)(l)(o)")
C("match", "hello", "()ll()")
C("find", "hello", "()ll()")
C("find", "hello", "(l)(l)")
C("match", "hello", "((l)(l))")
C("match", "hello", "(h(e(l)))")
C("match", "hello", "()")
C("match", "", "()")
C("match", "abc", "()(b)()")
C("match", "say \"hi\" there", "([\"'])(.-)%1")
C("match", "abcabc", "(abc)%1")
C("match", "abcabd", "(abc)%1")
C("match", "aa", "(a)%1")
C("match", "aaaa", "(a+)%1")
C("match", "xyxyxy", "^(xy)%1*$")
C("match", "abab", "()a%1")
C("match", "abc", "%1")
C("match", "abc", "%0")
C("match", "abc", "(a)%2")
C("match", "abc", "(a%1)")
C("match", "abc", "(a)%9")
C("match", "abc", "(")
C("match", "abc", "(()")
C("match", "abc", "a)")
C("match", "abc", ")")
C("match", "abc", "(a))")
C("find", "abc", "(b")
C("match", ("x"):rep(40), ("(x)"):rep(32))
C("match", ("x"):rep(40), ("(x)"):rep(33))
C("match", ("x"):rep(40), ("()"):rep(32))
C("match", ("x"):rep(40), ("()"):rep(33))
C("match", "a", ("(a?)"):rep(32))
C("match", "", "(()())")

---------------------------------------------------------------------------
-- %b and %f
---------------------------------------------------------------------------
C("match", "f(a(b)c)d", "%b()")
C("match", "f(a(b)c", "%b()")
C("match", "[[x]]", "%b[]")
C("match", "if x then y end end", "%bie")
C("match", "aXbXc", "%bXX")
C("match", "((()))", "^%b()$")
C("match", "(()", "%b()")
C("match", "abc", "%b")
C("match", "abc", "%ba")
C("match", "a(b)c", "%b()c")
C("match", "a(b)c", "(%b())")
C("match", "THE (quick) fox", "%f[%a]%a+")
C("match", "THE (quick) fox", "%f[%l]%a+")
C("gsub", "THE (quick) fox", "%f[%a]%a+", "W")
C("gsub", "hello world", "%f[%w]%w+", "<%0>")
C("gsub", "hello world", "%f[%W]", "|")
C("gsub", "abc", "%f[%z]", "|")
C("gsub", "abc", "%f[^%z]", "|")
C("gsub", "a\0b", "%f[%z]", "|")
C("match", "abc", "%f")
C("match", "abc", "%fa")
C("match", "abc", "%f[a")
C("find", "foo bar", "%f[%a]", 2)
C("find", "foo", "%f[%A]$")

---------------------------------------------------------------------------
-- malformed patterns
---------------------------------------------------------------------------
C("match", "abc", "%")
C("match", "abc", "a%")
C("find", "abc", "%")
C("gsub", "abc", "%", "x")
C("gmatch", "abc", "%")
C("match", "abc", "[%a")
C("match", "", "[a")
C("match", "", "%")
C("match", "", "(")
C("gsub", "abc", "(", "x")
C("gsub", "abc", "(", "%1")
C("gsub", "abc", "(", R(function(...) return "x" end))
C("gsub", "abc", "(", { a = "x" })
C("gsub", "abc", ")", "x")
C("match", ("a"):rep(300), ("a?"):rep(199))
C("match", ("a"):rep(300), ("a?"):rep(200))
C("match", ("a"):rep(300), ("a?"):rep(201))
C("match", ("a"):rep(300), ("a*"):rep(198) .. "$")
C("match", ("a"):rep(300) .. "b", ("a*"):rep(198) .. "b")
C("match", ("a"):rep(300), ("a*"):rep(199))
C("match", ("a"):rep(300), ("a*"):rep(200))
C("match", ("a"):rep(300), ("a-"):rep(200) .. "$")
C("match", ("a"):rep(12), ("a?"):rep(12) .. ("a"):rep(12))
C("match", ("x"):rep(300), (".?"):rep(150) .. "(" .. (".?"):rep(60) .. ")")

---------------------------------------------------------------------------
-- NUL bytes in subject and pattern
---------------------------------------------------------------------------
C("find", "a\0b", "\0")
C("find", "a\0b", "\0", 1, true)
C("find", "a\0b\0c", "b\0c")
C("find", "a\0b", "%z")
C("match", "a\0b", "(.)%z?(.)")
C("match", "a\0\0b", "\0+")
C("match", "a\0b", "[\0]")
C("match", "a\0b", "[^\0]+$")
C("match", "a\0b", "[%z\0]")
C("match", "a\0b", "a.b")
C("find", "a\0b", "\0*b")
C("find", "a\0b", "a\0+")
C("find", "a.\0b", ".\0", 1, true)
C("find", "a\0.b", "\0.", 1)
C("match", "x\0", "x%\0")
C("match", "\0", "%b\0\0")
C("match", "(\0)", "%b(\0")
C("gsub", "a\0b\0c", "\0", "-")
C("gsub", "a\0b", ".", "%0%0")
C("gsub", "abc", "b", "\0")
C("gsub", "abc", "b", "%\0")

---------------------------------------------------------------------------
-- gmatch
---------------------------------------------------------------------------
C("gmatch", "hello world from lua", "%a+")
C("gmatch", "k1=v1, k2=v2", "(%w+)=(%w+)")
C("gmatch", "abc", "")
C("gmatch", "abc", ".-")
C("gmatch", "abc", "a*")
C("gmatch", "xaaxbbx", "a*")
C("gmatch", "aaa", "()a")
C("gmatch", "abc", "()")
C("gmatch", "^a^b", "^.")
C("gmatch", "abc", "^a")
C("gmatch", "hello", "l", 4)
C("gmatch", "hello", "l", -2)
C("gmatch", "hello", ".", 0)
C("gmatch", "hello", ".", -100)
C("gmatch", "hello", ".", 6)
C("gmatch", "hello", ".", 7)
C("gmatch", "hello", "", 6)
C("gmatch", "hello", "", 7)
C("gmatch", "hello", "", math.maxinteger)
C("gmatch", "", "")
C("gmatch", "", "x*")
C("gmatch", "one two  three", "%S*")
C("gmatch", "a,b,,c", "([^,]*)")
C("gmatch", "abc", "(")
C("gmatch", "abc", "%1")
C("gmatch", "abc", "[a")
C("gmatch")
C("gmatch", "abc")
C("gmatch", "abc", "a", "x")
C("gmatch", "f(a)(b(c))", "%b()")
C("gmatch", "THE (quick) fox", "%f[%a]%a+")
C("gmatch", "\0a\0b", "%Z")

---------------------------------------------------------------------------
-- gsub
---------------------------------------------------------------------------
C("gsub", "hello world", "o", "0")
C("gsub", "hello world", "o", "0", 1)
C("gsub", "hello world", "o", "0", 0)
C("gsub", "hello world", "o", "0", -1)
C("gsub", "hello world", "o", "0", 2.0)
C("gsub", "hello world", "o", "0", 1.5)
C("gsub", "hello world", "o", "0", "1")
C("gsub", "hello world", "o", "0", math.maxinteger)
C("gsub", "hello world", "(o)", "[%1]")
C("gsub", "hello world", "o", "[%0]")
C("gsub", "hello world", "o", "[%1]")
C("gsub", "hello world", "o", "[%2]")
C("gsub", "hello world", "(o)", "[%2]")
C("gsub", "hello world", "o", "100%%")
C("gsub", "hello world", "o", "%")
C("gsub", "hello world", "o", "%a")
C("gsub", "hello world", "x", "%a")
C("gsub", "hello world", "(w)(o)", "%2%1")
C("gsub", "hello world", "()o", "%1")
C("gsub", "hello world", "()(o)()", "%1-%2-%3")
C("gsub", "hello", "", "-")
C("gsub", "hello", "x*", "-")
C("gsub", "hello", ".-", "-")
C("gsub", "abc", "b*", "X")
C("gsub", "", "", "X")
C("gsub", "", "x", "X")
C("gsub", "hello world", "^h", "H")
C("gsub", "hello world", "^o", "O")
C("gsub", "hello world", "^", ">")
C("gsub", "hello world", "$", "<")
C("gsub", "hello world", "^.-", "<")
C("gsub", "hello hello", "^hello", "bye")
C("gsub", "hello world", "%w+", "%0 %0", 1)
C("gsub", "hello world", "(%w+) (%w+)", "%2 %1")
C("gsub", "abc", "%w", "%1")
C("gsub", "abc", "", "%1")
C("gsub", "abc", "b", 5)
C("gsub", "abc", "b", 1.5)
C("gsub", 123, 2, 9)
C("gsub", "abc", "b", true)
C("gsub", "abc", "b")
C("gsub", "abc", "b", nil)
C("gsub", "abc", "b", nil, "x")
C("gsub", "abc", "b", "x", "y")
C("gsub")
C("gsub", "abc")

-- table replacements
local T = { hello = "HI", world = false, x = 1, y = 2.5, z = {}, w = true }
C("gsub", "hello world", "%w+", T)
C("gsub", "hello world foo", "%w+", T)
C("gsub", "x y", "%w", T)
C("gsub", "y", "%w", T)
C("gsub", "z", "%w", T)
C("gsub", "w", "%w", T)
C("gsub", "hello world", "(h)(e)", { h = "H" })
C("gsub", "hello", "()l", { [3] = "L" })
C("gsub", "$name and $age", "%$(%w+)", { name = "Ann", age = 42 })
C("gsub", "$name and $missing", "%$(%w+)", { name = "Ann" })
C("gsub", "abc", "", { [""] = "-" })
C("gsub", "abc", "b", setmetatable({}, { __index = function(_, k) return k:upper() end }))

-- function replacements (calls recorded)
C("gsub", "hello world", "%w+", R(function(w) return w:upper() end))
C("gsub", "hello world", "(%w+) (%w+)", R(function(a, b) return b .. a end))
C("gsub", "hello world", "%w+", R(function() return nil end))
C("gsub", "hello world", "%w+", R(function() return false end))
C("gsub", "hello world", "%w+", R(function() end))
C("gsub", "hello world", "%w+", R(function() return 42 end))
C("gsub", "hello world", "%w+", R(function() return 4.5 end))
C("gsub", "hello world", "%w+", R(function() return true end))
C("gsub", "hello world", "%w+", R(function() return {} end))
C("gsub", "hello world", "%w+", R(function(...) return select("#", ...) end))
C("gsub", "hello world", "()o()", R(function(a, b) return a .. ":" .. b end))
C("gsub", "hello world", "o", R(function(...) return "" end), 1)
C("gsub", "abc", "", R(function(...) return "." end))
C("gsub", "abc", "x*", R(function(...) return "[" .. ... .. "]" end))
C("gsub", "hello", "l", R(function() error("boom") end))
C("gsub", "hello", "l", R(function() error({}) end))
C("gsub", "hello", "(l)(l)", R(function(a, b) return a .. b .. a end))
C("gsub", ("abc "):rep(20), "%w+", R(function(w) return #w end))

---------------------------------------------------------------------------
-- assorted real-world patterns
---------------------------------------------------------------------------
C("match", "!help me please", "^!(%w+)")
C("match", "!help me please", "^!(%w+)%s*(.*)$")
C("match", "user@example.com", "^([%w%.%-_]+)@([%w%.%-]+)%.(%a+)$")
C("match", "http://host:8080/path?q=1", "^(%a+)://([^:/]+):?(%d*)(/?[^?]*)%??(.*)$")
C("match", "  padded  ", "^%s*(.-)%s*$")
C("find", "The quick brown fox", "%s(%a+)%s", 5)
C("match", "2021-13-45T25:61:00Z", "^(%d%d%d%d)%-(%d%d)%-(%d%d)T(%d%d):(%d%d):(%d%d)Z$")
C("match", "-12.5e+3", "^[+-]?%d+%.?%d*[eE]?[+-]?%d*$")
C("gsub", "a  b   c", "%s+", " ")
C("gsub", "CamelCaseString", "(%u)", " %1")
C("gsub", "hello", "(.)", "%1%1")
C("gsub", "one,two,,three", "([^,]*)", "<%1>")
C("gsub", "x = 1; y = 2", "(%w+)%s*=%s*(%w+)", "%2=%1")
C("match", ("a"):rep(1000) .. "b", "^(a*)b$")
C("match", ("a"):rep(1000), "(a-)a$")
C("find", ("ab"):rep(500), "ba", 900)
C("find", ("a"):rep(100), ("a-"):rep(3) .. "b")

---------------------------------------------------------------------------
-- more corners
---------------------------------------------------------------------------
C("match", "(a)*", "%b()*")
C("match", "x(a)**", "%b()%*+")
C("match", "ab*", "%f[%w]%w*%*")
C("match", "xd-", "[a-%d]+")
C("match", "a-z%", "[%a-z]+")
C("match", "-a", "-a")
C("match", "", "a-")
C("match", "b", "a-b")
C("match", "abc", "a.-$")
C("match", "a.b.c", "^(.-)%.")
C("match", "a.b.c", "^(.*)%.")
C("match", "[]", "[][]+")
C("match", "^^", "[^^]")
C("match", "x^", "[^^]")
C("match", "a-]", "[a-]]")
C("match", "abc", "[%w-]+")
C("match", "key_1-x", "[%w_-]+")
C("match", "\255\254", "[\254-\255]+")
C("match", "\200", "%a")
C("match", "\200", "%A")
C("gmatch", "h\195\169llo w\195\182rld", "[\0-\127\194-\253][\128-\191]*")
C("gmatch", "one two three", "(%w+)%s*", 5)
C("gmatch", "one two three", "^%w+")
C("gmatch", "aaa", "a-", 2)
C("gmatch", "abab", "()b()")
C("gmatch", "x", "()", 2)
C("gmatch", "abc", "%f[%w]", -1)
C("gsub", "abc", "^", "x", 0)
C("gsub", "abc", "", "x", 2)
C("gsub", "abc", "^a*", "x", 5)
C("gsub", "aaa", "a-", "x")
C("gsub", "aaa", "a*", "-", 1)
C("gsub", "abc", "b-$", "X")
C("gsub", "hello", "l+", "%%1")
C("gsub", "hello", "(l)", "%1%")
C("gsub", "hello", "(l)", "%%%1%%")
C("gsub", "hello", "", "%0")
C("gsub", "hello", "()", "%1")
C("gsub", "hello", "()", "%0")
C("gsub", "hello", "()", { [1] = "one", [3] = false })
C("gsub", "hello", "(h)(e)(l)(l)(o)", "%5%4%3%2%1")
C("gsub", "hello", "(h)(e)(l)(l)(o)", "%6")
C("gsub", "hello", ".", R(function(c) if c == "l" then return nil end return c:upper() end))
C("gsub", "hello", "(.)(.)", R(function(a, b) return b .. a end))
C("find", "a+b", "+", 2)
C("find", "a+b", "a+", 1)
C("find", "aaa", "a", 3, true)
C("find", "aaa", "a", 4, true)
C("find", "aaa", "", 4, true)
C("find", "aaa", "", 5, true)
C("find", "hello", "l", -2, true)
C("find", "hello", "(l)(l)(o)", -3)
C("find", "hello", "()", 3)
C("match", "hello", ".", 0)
C("match", "hello", ".", -1)
C("match", "hello", ".", 6)
C("match", "hello", "$", 6)
C("match", "hello", "()$", 6)
C("match", "hello", ".", 7)
C("match", "hello", "l", 1.0)
C("match", "hello")
C("match", nil, "x")
C("gmatch", "abc", "a", 1.5)
C("match", ("x"):rep(100000), ".-$")
C("match", ("x"):rep(100000), "^(.*)x$")
C("gsub", ("ab"):rep(5000), "%w", "%0%0")
C("find", ("x"):rep(10000) .. "y", ("x"):rep(50) .. "y", 1, true)
C("match", ("("):rep(250) .. (")"):rep(250), "%b()")
C("match", ("("):rep(250) .. (")"):rep(249), "%b()")

-- recursion depth right at the limit behind a leading item (the lead fast
-- path must spend depth exactly as stock does)
local XA = "zzx" .. ("a"):rep(300)
for _, k in ipairs { 197, 198, 199, 200 } do
  C("find", XA, "x" .. ("a?"):rep(k))
  C("find", XA, "x+" .. ("a?"):rep(k))
  C("find", XA, "[x]+" .. ("a?"):rep(k))
  C("find", XA, "(x)" .. ("a?"):rep(k))
  C("gsub", XA, "%l+" .. ("a?"):rep(k), "-")
end
C("gmatch", XA, "x" .. ("a?"):rep(199))
C("gmatch", XA, "x" .. ("a?"):rep(200))
C("gmatch", XA, "x+" .. ("a?"):rep(198))
C("gmatch", XA, "x+" .. ("a?"):rep(199))

-- runs of literal bytes (compared in one go by ours): where a run ends
-- (quantifier, capture, anchor, class, end of pattern or subject), runs that
-- fail part way, and runs retried while an item before them backtracks
C("match", "hello world", "^hello (%w+)")
C("match", "hello", "^hello world")
C("match", "hellO world", "^hello")
C("find", "abcabcabd", "abcabd")
C("find", "abcabcabd", "(abcabd)")
C("match", "aaab", "aa+b")
C("match", "abbbc", "ab*c")
C("match", "ac", "ab?c")
C("match", "abbbc", "ab-c")
C("match", "abc", "abc$")
C("match", "abc$d", "abc$d")
C("match", "a^b", "a^b")
C("match", "a]b", "a]b")
C("match", "x)y", "x)y")
C("match", "a\0b\0c", "a\0b")
C("match", "a\0b\0c", "(b\0c)$")
C("match", "barfoo", "%w+foo")
C("match", "barfoofoo", "(%w-)foo")
C("match", "aXbXcEND", "(.-)END")
C("match", "say hello there", "hello t(%a+)")
C("match", "hello world", "(hello) (world)")
C("match", "abab", "(ab)%1")
C("find", ("ab"):rep(60) .. "c", ("ab"):rep(50) .. "c")
C("find", ("ab"):rep(60) .. "d", ("ab"):rep(50) .. "c")
C("gsub", "hello hello", "hel+o", "x")
C("gsub", "one two one", "one", "%0!")
C("gmatch", "key=val; k2=v2", "(%w+)=(%w+)")
C("gmatch", "!ping !pong !ping", "!p(i)ng")

-- greedy runs of '.', a class, an escaped byte and a literal (scanned in a
-- tight loop by ours), then given back one at a time
C("match", "aaa", "^(a*)(a+)$")
C("match", "aaa", "a*a")
C("match", "aab", "a+b")
C("match", "", ".*")
C("match", "", "a*")
C("match", "x...y", "x(.*)y")
C("match", "x...y", "x(%.+)y")
C("match", "123abc", "(%d+)(%a)")
C("match", "123", "%d+%d")
C("match", "  x", "^%s*(.+)$")
C("match", "abc", "%w*$")
C("match", "abc\0", "%Z*")
C("find", "xxxxxxxxy", "x+y")
C("find", "ababab", "[ab]+b")
C("gsub", "aaa bbb", "%a+", "<%0>")

-- random cases from a fixed seed: short patterns built from pieces that
-- exercise literal runs, greedy and lazy items, classes, sets, captures,
-- anchors, %b, %f and back-references (malformed ones included, whose
-- errors must match too), over short subjects of the same few bytes
do
  math.randomseed(20261122)
  local random = math.random
  local pieces = { "a", "b", "ab", "ba", "aab", ".", "%w", "%a", "%d", "%s", "%W",
    "[ab]", "[^a]", "[%d ]", "(", ")", "()", "+", "*", "-", "?", "^", "$",
    "%b()", "%f[%w]", "%1", " ", "x", "1", "%" }
  local bytes = { "a", "b", " ", "(", ")", "x", "1" }
  local fns = { "find", "match", "gmatch", "gsub" }
  for _ = 1, 4000 do
    local p = {}
    for i = 1, random(1, 6) do p[i] = pieces[random(#pieces)] end
    local subj = {}
    for i = 1, random(0, 10) do subj[i] = bytes[random(#bytes)] end
    local fname = fns[random(#fns)]
    if fname == "gsub" then
      C("gsub", concat(subj), concat(p), "<%0>")
    else
      C(fname, concat(subj), concat(p))
    end
  end
end
---------------------------------------------------------------------------
-- runner
---------------------------------------------------------------------------

-- Run one case against one implementation; returns a comparable string.
local function run(impl, c)
  local fname = c[1]
  local log = {}
  local args = { n = c.n - 1 }
  for i = 2, c.n do
    local a = c[i]
    if type(a) == "table" and a.recorded then
      local f = a.recorded
      a = function(...)
        log[#log + 1] = show_list(pack(...))
        return f(...)
      end
    end
    args[i - 1] = a
  end
  local ok, res = pcall(function()
    -- Called by field name (not tail calls) so that "bad argument" messages
    -- name the function the same way for both implementations.
    if fname == "find" then
      local r = pack(impl.find(unpack(args, 1, args.n)))
      return show_list(r)
    elseif fname == "match" then
      local r = pack(impl.match(unpack(args, 1, args.n)))
      return show_list(r)
    elseif fname == "gsub" then
      local r = pack(impl.gsub(unpack(args, 1, args.n)))
      return show_list(r)
    elseif fname == "gmatch" then
      local it = impl.gmatch(unpack(args, 1, args.n))
      local steps = {}
      for _ = 1, 200 do
        local r = pack(it())
        steps[#steps + 1] = show_list(r)
        if r.n == 0 or r[1] == nil then break end
      end
      -- An exhausted iterator must stay exhausted.
      steps[#steps + 1] = show_list(pack(it()))
      return concat(steps, " ; ")
    end
    error("unknown function " .. tostring(fname))
  end)
  local out
  if ok then out = "ok " .. res else out = "error " .. strip_position(res) end
  if #log > 0 then out = out .. " calls{" .. concat(log, " | ") .. "}" end
  return out
end

local function describe(c)
  local parts = {}
  for i = 2, c.n do
    local a = c[i]
    if type(a) == "table" and a.recorded then parts[#parts + 1] = "<function>"
    elseif type(a) == "string" and #a > 60 then parts[#parts + 1] = show(a:sub(1, 57) .. "...")
    else parts[#parts + 1] = show(a) end
  end
  return c[1] .. "(" .. concat(parts, ", ") .. ")"
end

local passed, failed, details = 0, 0, {}
for i, c in ipairs(cases) do
  local want = run(stock, c)
  local got = run(ours, c)
  if want == got then
    passed = passed + 1
  else
    failed = failed + 1
    details[#details + 1] = format("#%d %s\n  stock: %s\n  ours:  %s",
      i, describe(c), want:sub(1, 400), got:sub(1, 400))
  end
end

return passed, failed, concat(details, "\n")
