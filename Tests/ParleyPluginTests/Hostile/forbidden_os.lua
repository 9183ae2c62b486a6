-- expect: runtime
bot.hear("go", function()
  assert(os.getenv == nil and os.execute == nil and os.exit == nil and os.remove == nil)
  os.execute("true")
end)
