-- expect: budget
-- Fifty thousand handlers that do nothing. The routing between them is the
-- prelude's and runs with the hook off, so each entry into plugin code is
-- charged a full hook period (1,000 instructions): the event's 10,000,000
-- run out after 10,000 handlers instead of the whole list running unmetered.
for _ = 1, 50000 do bot.on("message", function() end) end
