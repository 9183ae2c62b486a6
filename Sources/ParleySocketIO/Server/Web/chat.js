// Parley web chat: a SocketChat client in the browser. It speaks Engine.IO v4
// and Socket.IO v5 over one WebSocket, with the events every other client of
// the server uses (connectUser, chatMessage, startType, ...).
//
// Everything people send is shown with textContent, never as HTML, so a name
// or a message full of tags is only text.
"use strict";

const MAX_CHARS = 1000;        // longest message the page sends
const TYPING_IDLE_MS = 3000;   // "typing" ends this long after the last key
const RETRY_MAX_S = 30;        // reconnect waits double up to this

const $ = (id) => document.getElementById(id);
const room = new URLSearchParams(location.search).get("room");
// A comma would end the namespace inside the packet, and the server would drop
// the connection as malformed; a control character it refuses.
const roomProblem = room && /[,\u0000-\u001f\u007f]/.test(room)
  ? "A room name cannot hold a comma or a control character: pick another in the address (?room=NAME)."
  : "";
// A room is a namespace of its own; no room is the lobby, the default namespace.
const nsp = room ? "/" + room : "/";
const nspPrefix = nsp === "/" ? "" : nsp + ",";

let ws = null;
let nick = "";
let nextAck = 1;
const acks = new Map();        // ack id -> function(args)
let typingTimer = null;
let droppedNotice = false;     // the server said why the last message was dropped
let joined = false;            // in the room at least once since the form
let stayOut = false;           // removed by the server: the page does not come back by itself
let retries = 0;               // reconnect attempts since the link was lost
let retryTimer = null;
const PLACEHOLDER = $("text").placeholder;

$("room-name").textContent = room ? "· " + room : "· lobby";

function status(text) { $("status").textContent = text; }

function clock(date) {
  return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

// One line in the conversation: a message (who, text, id) or a notice.
function line({ who, text, id, notice }) {
  const li = document.createElement("li");
  const time = document.createElement("time");
  const now = new Date();
  time.dateTime = now.toISOString();
  time.textContent = clock(now);
  li.append(time);
  if (notice) {
    li.className = "notice";
    li.append(text);
  } else {
    const w = document.createElement("span");
    w.className = "who";
    w.textContent = who + ":";
    const t = document.createElement("span");
    t.className = "text";
    t.textContent = text;
    li.append(w, t);
    if (id) li.dataset.id = id;
  }
  const list = $("messages");
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
  list.append(li);
  if (atBottom) list.scrollTop = list.scrollHeight;
}

function notice(text) { line({ text, notice: true }); }

// The message box and its Send button, open to type in or closed.
function boxOpen(open) {
  for (const id of ["text", "send"]) $(id).toggleAttribute("disabled", !open);
}

// Out of the room for now: the box closes (keeping what was typed), and the
// people list and typing line empty, as nobody here is told who is in.
function outOfRoom(why, placeholder) {
  status(why);
  boxOpen(false);
  $("text").placeholder = placeholder;
  $("people").replaceChildren();
  $("typing").textContent = "";
}

// Removed from the room (kicked, or the server ended the session): the page
// stays out, and says how to come back.
function removed(why) {
  stayOut = true;
  outOfRoom(why, "Reload the page to join again");
}

// The link dropped (a server restart, a network blip): try again after a
// wait that doubles up to RETRY_MAX_S, with jitter so that a restarted
// server is not met by every page at once; then rejoin under the same name.
function lost() {
  if (retries === 0) notice("The connection to the server was lost. Reconnecting…");
  const wait = Math.min(RETRY_MAX_S, 2 ** retries) * (0.5 + Math.random() / 2);
  retries += 1;
  outOfRoom(`Disconnected: reconnecting in ${Math.max(1, Math.round(wait))} s`, "Reconnecting…");
  retryTimer = setTimeout(() => { retryTimer = null; connect(); }, wait * 1000);
}

// Engine.IO packet "4" carries Socket.IO; "42" is an event, "43" an ack.
function emit(name, args, onAck) {
  if (!ws || ws.readyState !== WebSocket.OPEN) return;
  let id = "";
  if (onAck) {
    id = String(nextAck++);
    acks.set(id, onAck);
  }
  ws.send("42" + nspPrefix + id + JSON.stringify([name, ...args]));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${scheme}://${location.host}/socket.io/?EIO=4&transport=websocket`);
  status("Connecting…");
  ws.onmessage = (e) => engineIO(String(e.data));
  ws.onclose = () => {
    if (!nick || stayOut) return;
    // Never in the room: the form is still up, and says so.
    if (!joined) {
      nick = "";
      return status("Could not connect to the server");
    }
    lost();
  };
}

function engineIO(packet) {
  switch (packet[0]) {
    case "0": ws.send("40" + nspPrefix); break;   // open: join the room's namespace
    case "2": ws.send("3"); break;                // ping: pong
    case "4": socketIO(packet.slice(1)); break;
  }
}

function socketIO(packet) {
  const type = packet[0];
  let rest = packet.slice(1);
  if (rest.startsWith("/")) {
    const comma = rest.indexOf(",");
    if (rest.slice(0, comma) !== nsp) return;
    rest = rest.slice(comma + 1);
  }
  const ackId = (rest.match(/^\d+/) || [""])[0];
  rest = rest.slice(ackId.length);
  switch (type) {
    case "0":
      status(`Connected as ${nick}`);
      boxOpen(true);
      $("text").placeholder = PLACEHOLDER;
      if (retries > 0) notice(`Reconnected: back in the room as ${nick}.`);
      retries = 0;
      joined = true;
      // Refused (a moderator's name, on a server with a moderator token; an
      // empty or over-long name; the name taken while this page was away):
      // back to the form, which says why.
      emit("connectUser", [nick], (answer) => {
        if (Array.isArray(answer) && answer[0] === false) backToForm(`Not joined: ${answer[1]}`);
      });
      $("join").hidden = true;
      $("chat").hidden = false;
      $("text").focus();
      break;
    case "1":
      removed("Removed from the room");
      break;
    case "2": {
      const [name, ...args] = JSON.parse(rest);
      if (handlers[name]) handlers[name](...args);
      break;
    }
    case "3": {
      const done = acks.get(ackId);
      acks.delete(ackId);
      if (done) done(JSON.parse(rest));
      break;
    }
    case "4": {
      // The join form is still showing: the status line is where it is read.
      let why = "";
      try { why = (JSON.parse(rest) || {}).message || ""; } catch (_) { /* no reason given */ }
      status(why ? `The server refused the room: ${why}` : "The server refused the room");
      break;
    }
  }
}

const handlers = {
  userList(users) {
    const ul = $("people");
    ul.replaceChildren();
    for (const u of users || []) {
      const li = document.createElement("li");
      li.textContent = u.nickname + (u.isConnected ? "" : " (away)");
      if (!u.isConnected) li.className = "offline";
      ul.append(li);
    }
  },
  userConnectUpdate(user) { if (user && user.nickname !== nick) notice(`${user.nickname} joined`); },
  userExitUpdate(name) { if (name && name !== nick) notice(`${name} left`); },
  newChatMessage(who, text, date, id) { line({ who, text, id }); },
  userTypingUpdate(set) {
    const names = Object.keys(set || {}).filter((n) => n !== nick);
    $("typing").textContent = names.length === 0 ? ""
      : names.length === 1 ? `${names[0]} is typing…` : `${names.join(", ")} are typing…`;
  },
  userKicked({ nickname, reason, by }) {
    if (nickname !== nick) return notice(`${nickname} was removed by ${by}: ${reason}`);
    notice(`You were removed by ${by}: ${reason}`);
    removed(`Removed from the room by ${by}`);
  },
  nameTaken({ nickname }) {
    notice(`Someone else joined as ${nickname} (another tab?), and this page left the room.`);
    removed(`${nickname} is in use by another connection`);
  },
  userMuted({ nickname, seconds, reason, by }) {
    notice(`${nickname === nick ? "You are" : nickname + " is"} muted for ${seconds} s by ${by}: ${reason}`);
  },
  messageDropped({ seconds, reason }) {
    // Its ack (a refusal) follows: one notice is enough.
    droppedNotice = true;
    notice(`Not sent: you are muted for ${seconds} more seconds (${reason}).`);
  },
  messageDeleted({ id, by }) {
    for (const li of $("messages").children) {
      if (li.dataset.id === id) {
        li.classList.add("deleted");
        li.title = `deleted by ${by}`;
      }
    }
  },
};

function stopTyping() {
  if (typingTimer === null) return;
  clearTimeout(typingTimer);
  typingTimer = null;
  emit("stopType", [nick]);
}

$("join").addEventListener("submit", (e) => {
  e.preventDefault();
  if (roomProblem) return status(roomProblem);
  nick = $("nickname").value.trim();
  if (!nick) return;
  connect();
});
if (roomProblem) status(roomProblem);

$("text").addEventListener("input", () => {
  if (typingTimer === null) emit("startType", [nick]);
  else clearTimeout(typingTimer);
  typingTimer = setTimeout(stopTyping, TYPING_IDLE_MS);
});

$("say").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = $("text");
  const text = input.value;
  if (!text.trim()) return;
  if (!ws || ws.readyState !== WebSocket.OPEN) return notice("Not sent: the connection is closed.");
  const length = [...text].length;
  if (length > MAX_CHARS) {
    notice(`Message too long: ${length} characters, at most ${MAX_CHARS}. Not sent.`);
    return;
  }
  stopTyping();
  droppedNotice = false;
  emit("chatMessage", [nick, text], (reply) => {
    if (reply[0] === false && !droppedNotice) notice(`Not sent: ${reply[1] || "refused by the server"}`);
  });
  input.value = "";
});

// Out of the room and back at the join form, which says why.
function backToForm(why) {
  nick = "";
  joined = false;
  stayOut = false;
  retries = 0;
  if (retryTimer !== null) clearTimeout(retryTimer);
  retryTimer = null;
  ws.onclose = null;   // leaving is not a lost connection
  ws.close();
  $("chat").hidden = true;
  $("join").hidden = false;
  $("messages").replaceChildren();
  $("people").replaceChildren();
  status(why);
}

$("leave").addEventListener("click", () => {
  stopTyping();
  emit("exitUser", [nick]);
  backToForm("You left");
});
