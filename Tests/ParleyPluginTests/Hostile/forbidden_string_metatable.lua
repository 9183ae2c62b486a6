-- expect: runtime
-- The string metatable is locked: getmetatable gives a marker, not the table.
bot.hear("go", function()
  local mt = getmetatable("")
  assert(type(mt) == "string")
  setmetatable(("x"), {})
end)
