// Parley dashboard: renders the fleet reports the server streams from
// /events (server-sent events, one snapshot a second). Read-only. All text
// goes in with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const token = new URLSearchParams(location.search).get("token");
const query = token ? "?token=" + encodeURIComponent(token) : "";

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

function svg(tag, attrs = {}) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

// 10000000 as "10M", 1500 as "1.5k".
function short(n) {
  if (n >= 1e6) return `${+(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${+(n / 1e3).toFixed(1)}k`;
  return String(n);
}

function ago(seconds) {
  seconds = Math.max(0, Math.round(seconds));
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

// A small line chart of per-second rates over the last 10 minutes.
function chart(label, values) {
  const max = Math.max(1, ...values);
  const points = values.map((v, i) => `${(i / (values.length - 1)) * 100},${30 - (v / max) * 28}`).join(" ");
  const s = svg("svg", { viewBox: "0 0 100 30", preserveAspectRatio: "none", role: "img",
                         "aria-label": `${label}, last 10 minutes, now ${values[values.length - 1].toFixed(1)} a second` });
  s.append(svg("polyline", { points }));
  const now = values[values.length - 1];
  return el("div", { class: "chart" }, s, `${label}: ${now.toFixed(1)}/s`);
}

// A load error in full is in the cell's title: the table keeps to its card.
function cut(text) {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

function pluginTable(plugins) {
  const head = el("tr", {}, ...["plugin", "events", "errors", "instr. p50/p99", "ms p50/p99", "memory", "outbox", ""]
    .map((h) => el("th", { scope: "col" }, h)));
  const rows = plugins.map((p) => {
    const errors = Object.entries(p.errors).map(([k, n]) => `${k} ${n}`).join(", ") || "0";
    const errorCell = el("td", {}, errors);
    if (errors !== "0") errorCell.className = "bad";
    const row = el("tr", { "data-plugin": p.name },
      el("td", {}, p.name),
      el("td", { class: "events" }, String(p.events)),
      errorCell,
      el("td", {}, `${short(p.instructionsP50)} / ${short(p.instructionsP99)} of ${short(p.instructionLimit)}`),
      el("td", {}, `${p.millisecondsP50.toFixed(2)} / ${p.millisecondsP99.toFixed(2)} of ${p.millisecondLimit}`),
      el("td", {}, `${Math.round(p.memoryBytes / 1024)} KiB of ${Math.round(p.memoryCap / 1048576)} MiB`),
      el("td", {}, String(p.outboxWaiting)),
      el("td", p.loadProblem ? { title: p.loadProblem } : {}, p.isDisabled ? "disabled"
        : !p.running ? `not running: ${cut(p.loadProblem)}`
        : p.loadProblem ? `reload failed, the earlier version runs: ${cut(p.loadProblem)}` : ""));
    if (p.isDisabled || p.loadProblem) row.lastChild.className = "bad";
    return row;
  });
  return el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows));
}

function card(bot, now) {
  const state = el("span", { class: `state ${bot.state}` }, `${bot.state.replace("_", " ")} for ${ago(now - bot.stateSince)}`);
  const facts = [`${bot.transport}`, `loop ${bot.loop}`, `${bot.reconnects} reconnect${bot.reconnects === 1 ? "" : "s"}`];
  if (bot.journalSyncMilliseconds != null) facts.push(`last journal sync ${bot.journalSyncMilliseconds.toFixed(2)} ms`);
  // The bot's loop was too busy to answer this snapshot within a second.
  if (bot.loopBusy) facts.push("loop busy: plugin figures from its last answer");
  return el("article", { class: "card", "data-bot": bot.name, "aria-label": `bot ${bot.name}` },
    el("h2", {}, bot.name, state),
    el("p", { class: "facts" }, facts.join(" · ")),
    chart("events", bot.eventsPerSecond),
    chart("replies", bot.repliesPerSecond),
    pluginTable(bot.plugins));
}

// A loop is late when something held it (a plugin near its time budget, a
// join storm): its bots' links and timers waited that long.
const lateMilliseconds = 100;

function loopLine(loop, i) {
  const text = `loop ${i}: ${loop.bots} bot${loop.bots === 1 ? "" : "s"}, ${loop.lagMilliseconds.toFixed(1)} ms late `
    + `(at most ${loop.lagMaxMilliseconds.toFixed(1)} ms in the last minute)`;
  return el("li", loop.lagMaxMilliseconds >= lateMilliseconds ? { class: "bad", "data-loop": String(i) } : { "data-loop": String(i) }, text);
}

function render(report) {
  $("fleet").textContent = report.botCount > report.bots.length
    ? `${report.botCount} bots; the first ${report.bots.length} are shown.` : `${report.botCount} bot${report.botCount === 1 ? "" : "s"}.`;
  $("loops").replaceChildren(...report.loops.map(loopLine));
  $("bots").replaceChildren(...report.bots.map((b) => card(b, report.time)));
  // Newest first: what just happened is at the top, not below every card.
  $("logs").replaceChildren(...report.logs.slice().reverse().map((l) => {
    const who = [l.bot, l.plugin].filter(Boolean).join("/");
    const time = new Date(l.time * 1000).toLocaleTimeString();
    return el("li", { class: l.level, "data-time": String(l.time) }, `${time} ${l.level} ${who ? who + ": " : ""}${l.text}`);
  }));
}

const events = new EventSource("/events" + query);
events.onopen = () => { $("status").textContent = "Live"; };
events.onerror = () => { $("status").textContent = "Disconnected; retrying…"; };
events.onmessage = (e) => render(JSON.parse(e.data));
