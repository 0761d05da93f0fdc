// A seat's page at a table (/t/TOKEN): app.js draws the view; this file talks to the table's API
// (/api/t/TOKEN/…) and follows live updates (Server-Sent Events).  Text is set as text, never as HTML.
"use strict";
const TOKEN = location.pathname.split("/").pop();
const TAPI = "/api/t/" + encodeURIComponent(TOKEN);
let shown = -1, latest = null;

function show(p) {
  if (p.game && p.game.version < shown && at === null) return;     // an older answer came late
  if (p.game) shown = p.game.version;
  render(p);
  const g = p.game;
  const mine = g.me !== null && !g.over && g.view.to_move === g.me;
  document.body.dataset.state = at !== null ? "travel" : g.over ? "over" : mine ? "mine" : "waiting";
  const seatName = g.me === null ? "a spectator" : g.seat_names[g.me] + (g.player_names[g.me] && g.player_names[g.me] !== g.seat_names[g.me] ? ` (${g.player_names[g.me]})` : "");
  $("whoami").textContent = `You are ${seatName} at table ${g.table}`;
  if (!g.over && at === null) {
    $("status").textContent = mine ? "your turn" : `${g.view.to_move_name} to decide` + (g.bots_moving ? " (bot)" : "");
  }
  $("undo").style.display = g.me === null ? "none" : "";
}

act = async function (id) {           // app.js's act, for a table: the decision and how many were seen
  filter = null;
  const p = await call("POST", TAPI + "/act", {action: id, at: game.decisions});
  if (p) show(p); else if (latest) show(latest);
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
  es.onerror = () => { $("live").textContent = "reconnecting…"; };
  es.onmessage = (e) => {
    latest = JSON.parse(e.data);
    if (latest.game.over) es.close();        // a finished game changes no more
    if (at === null && viewerAsk === "auto" && !busy) show(latest);
  };
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
