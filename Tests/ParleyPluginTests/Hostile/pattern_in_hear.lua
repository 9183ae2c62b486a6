-- expect: budget
-- The plugin's own bot.hear pattern is charged to the plugin.
bot.hear(("a-"):rep(5) .. "b", function() end)
