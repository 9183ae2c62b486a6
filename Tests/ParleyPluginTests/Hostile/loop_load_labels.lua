-- expect: runtime
-- The compiler matches labels and gotos in time that grows with their square:
-- a chunk with thousands of them is refused before it is compiled.
bot.hear("go", function()
  local p = {}
  for i = 1, 3000 do p[#p + 1] = "goto l" .. i .. " " end
  for i = 1, 3000 do p[#p + 1] = "::l" .. i .. ":: do end" end
  assert(load("do " .. table.concat(p, " ") .. " end", "x", "t", {}))
end)
