// A seat's page at a table (/t/TOKEN): app.js draws the view; this file talks to the table's API
// (/api/t/TOKEN/…) and follows live updates (Server-Sent Events).  Text is set as text, never as HTML.
"use strict";
const TOKEN = location.pathname.split("/").pop();
const TAPI = "/api/t/" + encodeURIComponent(TOKEN);
let shown = null, latest = null;

function newer(u) {
  // an update's id: decision rows written (they only grow, across restarts too), then, within one run
  // of the server (boot), its change count; a restarted server's update with as many rows counts as new
  if (!shown || !u) return true;
  return u.rows > shown.rows || (u.rows === shown.rows && (u.boot !== shown.boot || u.n >= shown.n));
}

function show(p) {
  if (p.game && !newer(p.game.update) && at === null) return;     // an older answer came late
  if (p.game) shown = p.game.update;
  render(p);
  const g = p.game;
  const mine = g.me !== null && !g.over && g.view.to_move === g.me;
  document.body.dataset.state = at !== null ? "travel" : g.over ? "over" : mine ? "mine" : "waiting";
  const seatName = g.me === null ? "a spectator" : g.seat_names[g.me] + (g.player_names[g.me] && g.player_names[g.me] !== g.seat_names[g.me] ? ` (${g.player_names[g.me]})` : "");
  $("whoami").textContent = `You are ${seatName} at table ${g.table}`;
  if (!g.over && at === null) {
    $("status").textContent = g.together ? togetherStatus(g, mine)
      : mine ? "your turn" : `${g.view.to_move_name} to decide` + (g.bots_moving ? " (bot)" : "");
  }
  $("undo").style.display = g.me === null ? "none" : "";
}

function togetherStatus(g, mine) {
  // a decision taken together: every seat in g.together chooses at once; a choice is held (and shown
  // only to its seat, g.held) until the last is in, and may be changed until then
  const who = g.together.map((p) => g.seat_names[p]).join(", ");
  if (!mine) return `${who} choose at once`;
  if (!g.held) return `your turn: ${who} choose at once, nobody sees another's choice before all are in`;
  const opt = g.view.actions.flatMap((a) => a.options).find((o) => o.id === g.held);
  return `your choice is in: ${opt ? opt.say : g.held} (you may change it until everyone has chosen)`;
}

act = async function (id) {           // app.js's act, for a table: the decision and how many were seen
  filter = null;
  const asked = {action: id, at: game.decisions};
  if (latest && latest.game) asked.have = latest.game.update;   // the answer may then be a change from it
  const p = await call("POST", TAPI + "/act", asked);
  const whole = p && merged(p);
  if (whole) show(whole); else if (latest) show(latest);        // (show ignores an update older than it has)
};
botStep = function () {};            // bots move on the server
refresh = async function () {
  const q = new URLSearchParams({seat: viewerAsk});
  if (at !== null) q.set("at", at);
  const p = await call("GET", TAPI + "/state?" + q);
  if (p) show(p);
};

function listen() {
  const es = new EventSource(TAPI + "/events");
  es.onopen = () => { $("live").textContent = "live"; };
  es.onerror = () => {
    $("live").textContent = "reconnecting…";
    if (es.readyState === EventSource.CLOSED && !(latest && latest.game.over)) setTimeout(listen, 2000);  // a refused reconnect
  };
  es.onmessage = (e) => {
    const p = merged(JSON.parse(e.data));
    if (p === null) {                         // a change from an update this page does not have: start afresh
      es.close();
      listen();
      return;
    }
    latest = p;
    if (latest.game.over) es.close();        // a finished game changes no more
    if (at === null && viewerAsk === "auto" && !busy) show(latest);
  };
}

function sameUpdate(a, b) {
  return !!a && !!b && a.boot === b.boot && a.rows === b.rows && a.n === b.n;
}

function merged(p) {
  // A live update may send only what changed since the one before (base): a family shown as it was
  // is {"same": true}, the story only its entries from story_from on.  The whole payload, or null.
  const g = p.game;
  if (!g || g.base === undefined) return p;
  if (!latest || !latest.game || !sameUpdate(latest.game.update, g.base)) return null;
  const old = latest.game;
  const keep = (families, was) => families.map((f, i) => (f && f.same === true ? was[i] : f));
  g.view.shared = keep(g.view.shared, old.view.shared);
  g.view.players.forEach((pl, i) => { pl.families = keep(pl.families, old.view.players[i].families); });
  if (g.story_from !== undefined) g.story = old.story.slice(0, g.story_from).concat(g.story);
  delete g.base;
  delete g.story_from;
  return p;
}

window.addEventListener("DOMContentLoaded", async () => {
  $("download").href = TAPI + "/log";
  $("undo").addEventListener("click", async () => {
    filter = null;
    const p = await call("POST", TAPI + "/undo", {at: game.decisions});
    if (p) show(p);
  });
  $("slider").addEventListener("input", () => {
    const v = Number($("slider").value);
    at = game && v < game.decisions ? v : null;
    refresh();
  });
  $("now").addEventListener("click", () => { at = null; refresh(); });
  $("viewer").addEventListener("change", () => { viewerAsk = $("viewer").value; refresh(); });
  try {
    const p = await api("GET", TAPI + "/state");
    show(p);
    listen();
  } catch (e) {
    document.body.dataset.state = "refused";
    $("whoami").textContent = e.message;
    $("live").textContent = "";
  }
});
