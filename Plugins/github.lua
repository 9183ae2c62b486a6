-- github.lua: posts GitHub pushes to a room.
--
-- Config (bot.toml):
--   [bot.plugin.github]
--   room = "dev"                    -- where pushes are announced
--   [bot.webhooks.github]
--   secret_env = "GITHUB_WEBHOOK_SECRET"   -- the secret set on GitHub's webhook page
--
-- Run with `parley run bot.toml --http 127.0.0.1:8080` behind your reverse
-- proxy and give GitHub the URL https://YOUR.HOST/hooks/BOT/github/push
-- (content type application/json). With a secret configured, Parley answers
-- 401 to any request whose X-Hub-Signature-256 does not match, before this
-- plugin sees it.

local room = bot.config.room or "dev"

-- A commit subject can be as long as its author liked: the room gets the start of it.
local function subject(message)
  local first = message:match("^[^\r\n]*")
  if #first > 200 then first = first:sub(1, 200):gsub("[\128-\191]*$", ""):gsub("[\192-\255]$", "") .. "…" end
  return first
end

bot.webhook("push", function(req)
  local event = req.headers["x-github-event"]
  -- GitHub sends a "ping" when the webhook is created.
  if event == "ping" then return { status = 200, body = "pong" } end
  if event ~= "push" then return { status = 202, body = "ignored" } end

  local push = bot.json.decode(req.body)
  if type(push) ~= "table" or type(push.repository) ~= "table" or type(push.ref) ~= "string"
     or (push.commits ~= nil and type(push.commits) ~= "table") then
    return { status = 400, body = "not a push payload" }
  end
  local who = type(push.pusher) == "table" and push.pusher.name or "someone"
  local repo = push.repository.full_name or "?"
  local tag = push.ref:match("^refs/tags/(.+)")
  local branch = push.ref:gsub("^refs/heads/", "")
  local line
  if push.deleted then
    line = ("%s deleted %s %s of %s"):format(who, tag and "tag" or "branch", tag or branch, repo)
  elseif tag then
    line = ("%s pushed tag %s to %s"):format(who, tag, repo)
  else
    local commits = push.commits or {}
    line = ("%s pushed %d commit%s to %s of %s"):format(who, #commits, #commits == 1 and "" or "s", branch, repo)
    -- The first line of the newest commit's message says what it was about.
    local head = commits[#commits]
    if type(head) == "table" and type(head.message) == "string" then line = line .. ": " .. subject(head.message) end
  end
  -- A refused send (the outbox full, say) is a failure GitHub should see and retry.
  local ok, why = bot.send(room, line)
  if not ok then return { status = 503, body = "not announced: " .. why } end
  -- Returning nothing answers 204; once answered, the send is in the journal.
end)
