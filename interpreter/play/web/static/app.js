// Regelwerk in the browser: draws the view data of /api/state (the same the terminal draws).
"use strict";
const $ = (id) => document.getElementById(id);
let lastViewer = null;
let info = null, game = null, at = null, viewerAsk = "auto", filter = null, busy = false, botTimer = null;

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "style") e.style.cssText = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(k instanceof Node ? k : String(k));
  return e;
}

async function api(method, path, data) {
  const res = await fetch(path, {method, headers: {"Content-Type": "application/json"},
                                 body: data === undefined ? undefined : JSON.stringify(data)});
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

// --- drawing -------------------------------------------------------------------------
function textColor(hex) {
  if (!hex) return "#222";
  const n = parseInt(hex.slice(1), 16), r = n >> 16, g = (n >> 8) & 255, b = n & 255;
  return (0.299 * r + 0.587 * g + 0.114 * b) > 150 ? "#222" : "#fff";
}

function compEl(c, choosable, compact) {
  const style = c.color ? `background:${c.color};color:${textColor(c.color)}` : "";
  const short = compact || c.short === c.glyph ? c.short : c.label;
  const e = el("span", {class: "comp" + (c.color ? "" : " plain") + (choosable[c.label] ? " clickable" : ""),
                        style, title: `${c.label} (${c.kind})`, "data-label": c.label}, short);
  if (choosable[c.label]) e.addEventListener("click", (ev) => { ev.stopPropagation(); choose(choosable[c.label]); });
  return e;
}

function zoneEl(cell, choosable, compact) {
  if (!cell) return el("div", {class: "zone none"});
  const kids = [];
  if (cell.hidden) {
    kids.push(el("span", {class: "back", title: `${cell.count} hidden`}, cell.count ? `${cell.count}` : "0"));
  } else if (cell.components.length > 10 && !compact) {
    const counts = new Map();
    for (const c of cell.components) {
      if (!counts.has(c.label)) counts.set(c.label, [c, 0]);
      counts.get(c.label)[1] += 1;
    }
    for (const [c, n] of counts.values()) kids.push(el("span", {class: "count"}, `${n}×`, compEl(c, choosable)));
  } else {
    for (const c of cell.components) kids.push(compEl(c, choosable, compact));
  }
  const options = cell.options || [];
  const e = el("div", {class: "zone" + (options.length ? " clickable" : "") + (cell.components.length || cell.hidden ? "" : " empty"),
                       "data-zone": cell.name, title: cell.name + (cell.capacity ? ` (holds ${cell.capacity})` : "")}, kids);
  if (options.length) e.addEventListener("click", () => choose(options));
  return e;
}

function familyEl(fam, choosable) {
  const box = el("div", {class: "family shape-" + fam.shape, "data-family": fam.name});
  box.append(el("h4", {}, fam.name));
  if (fam.shape === "single") {
    box.append(zoneEl(fam.zone, choosable));
  } else if (fam.shape === "grid") {
    const t = el("table", {class: "grid"});
    t.append(el("tr", {}, el("th", {class: "corner"}, `${fam.row_index}\\${fam.column_index}`),
                fam.columns.map((c) => el("th", {}, c))));
    let rows = fam.rows.map((r, i) => [r, fam.cells[i]]);
    rows = trim(rows, fam.flip_rows);
    for (const [r, cells] of rows) {
      if (r === null) { t.append(el("tr", {class: "gap"}, el("th", {}, "⋮"), el("td", {colspan: fam.columns.length}, cells))); continue; }
      t.append(el("tr", {}, el("th", {}, r), cells.map((c) => el("td", {}, zoneEl(c, choosable, true)))));
    }
    box.append(t);
  } else {
    const row = el("div", {class: "zrow"});
    for (const z of fam.zones) row.append(el("div", {class: "slot"}, el("div", {class: "at"}, z.at.join(", ")), zoneEl(z, choosable)));
    box.append(row);
  }
  return box;
}

function trim(rows, flip) {
  // a long run of empty rows at the far end of a grid says nothing: fold it into one line
  const filled = (cells) => cells.some((c) => c && (c.count || (c.options && c.options.length)));
  const order = flip ? rows.slice().reverse() : rows;
  let last = -1;
  order.forEach(([, cells], i) => { if (filled(cells)) last = i; });
  const keep = Math.max(last + 2, Math.min(order.length, 5));
  if (order.length - keep <= 2) return rows;
  const shown = order.slice(0, keep);
  const gap = [null, `${order.length - keep} empty rows`];
  return flip ? [gap, ...shown.reverse()] : [...shown, gap];
}

function varsEl(vars) {
  return el("div", {class: "vars"}, vars.map((v) => el("span", {class: "var"}, el("b", {}, v.name), " ", v.value)));
}

function drawBoard(view) {
  const board = $("board");
  board.replaceChildren();
  const choosable = {};
  for (const g of view.actions) for (const o of g.options) for (const lbl of o.components) (choosable[lbl] ||= []).push(o.id);
  const head = [view.game];
  if (view.round !== null && view.round !== undefined) head.push(`${view.round_name} ${view.round}`);
  if (view.phase) head.push(`phase ${view.phase}`);
  $("title").textContent = head.join(" · ");
  if (view.variables.length) board.append(varsEl(view.variables));
  const shared = el("div", {class: "shared"});
  for (const fam of view.shared) shared.append(familyEl(fam, choosable));
  board.append(shared);
  const players = el("div", {class: "players"});
  for (const p of view.players) {
    const panel = el("div", {class: "player" + (p.to_move ? " to-move" : "") + (p.is_viewer ? " me" : ""), "data-seat": p.seat});
    panel.append(el("h3", {}, p.name, p.is_viewer ? " (you)" : "", p.to_move ? el("span", {class: "badge"}, "to decide") : ""));
    if (p.variables.length) panel.append(varsEl(p.variables));
    for (const fam of p.families) panel.append(familyEl(fam, choosable));
    players.append(panel);
  }
  board.append(players);
  if (view.scores) {
    const t = el("table", {class: "scores"}, el("tr", {}, el("th", {}, "place"), el("th", {}, "seat"), el("th", {}, "score")));
    const order = view.scores.map((_, i) => i).sort((a, b) => view.ranking[a] - view.ranking[b]);
    for (const i of order) t.append(el("tr", {}, el("td", {}, view.ranking[i]), el("td", {}, view.seats[i]), el("td", {class: "score", "data-seat": i}, view.scores[i])));
    board.prepend(el("div", {class: "final"}, el("h3", {}, "Game over"), t));
  }
}

function drawActions(view) {
  const box = $("actions");
  box.replaceChildren();
  if (!view.actions.length) return;
  box.append(el("h3", {}, "Your choices", filter ? el("a", {href: "#", class: "showall", onclick: (e) => { e.preventDefault(); filter = null; drawActions(view); }}, " (show all)") : ""));
  for (const g of view.actions) {
    const opts = g.options.filter((o) => !filter || filter.includes(o.id));
    if (!opts.length) continue;
    const group = el("div", {class: "group"}, el("div", {class: "gname"}, g.action));
    for (const o of opts) {
      const params = Object.entries(o.params).map(([k, v]) => `${k}=${v}`).join(", ");
      group.append(el("button", {class: "opt", "data-id": o.id, title: o.id, onclick: () => act(o.id)}, params || g.action));
    }
    box.append(group);
  }
}

function render(p) {
  info = p.info;
  game = p.game;
  document.body.dataset.state = !game ? "empty" : at !== null ? "travel" : game.over ? "over" : game.bot_to_move ? "bot" : "human";
  if (!game) { $("status").textContent = "start a game"; return; }
  document.body.dataset.decisions = game.decisions;
  const view = game.view;
  // hot-seat: a screen between two people's turns, so nobody sees another's hidden components
  const people = game.seats.filter((k) => k === "human").length;
  if (people > 1 && !game.open_view && at === null && view.viewer !== null && lastViewer !== null && view.viewer !== lastViewer) {
    $("passmsg").textContent = `Pass to ${view.viewer_name}`;
    $("pass").hidden = false;
  }
  lastViewer = view.viewer;
  drawBoard(view);
  drawActions(view);
  $("status").textContent = at !== null ? `looking at decision ${at} of ${game.decisions}` :
    game.over ? "game over" : `${view.to_move_name} to decide`;
  $("slider").max = game.decisions;
  $("slider").value = at === null ? game.decisions : at;
  $("atlabel").textContent = `${at === null ? game.decisions : at} / ${game.decisions}`;
  $("now").disabled = at === null;
  $("undo").disabled = !game.can_undo || at !== null;
  const sel = $("viewer");
  const want = viewerAsk;
  sel.replaceChildren(el("option", {value: "auto"}, "the person to move"), el("option", {value: "none"}, "an onlooker"),
                      game.seat_names.map((n, i) => el("option", {value: String(i)}, n)));
  sel.value = want;
  $("viewas").style.display = game.open_view ? "" : "none";
  const story = $("story");
  story.replaceChildren(...game.story.map((line) => el("li", {class: line.startsWith("──") ? "head" : line.startsWith("  ") ? "said" : ""}, line)));
  story.scrollTop = story.scrollHeight;
  if (botTimer) clearTimeout(botTimer);
  if (at === null && game.bot_to_move && !game.over) botTimer = setTimeout(botStep, Number($("speed").value));
}

// --- acting --------------------------------------------------------------------------
function say(msg) { $("message").textContent = msg || ""; }

async function call(method, path, data) {
  if (busy) return null;
  busy = true;
  try { const p = await api(method, path, data); say(""); return p; }
  catch (e) { say(e.message); return null; }
  finally { busy = false; }
}

function choose(ids) {
  if (ids.length === 1) return act(ids[0]);
  filter = ids;
  drawActions(game.view);
}

async function act(id) {
  filter = null;
  const p = await call("POST", "/api/act", {action: id});
  if (p) render(p);
}

async function botStep() {
  botTimer = null;
  const p = await call("POST", "/api/bot", {seat: viewerAsk});
  if (p) render(p);
}

async function refresh() {
  const q = new URLSearchParams({seat: viewerAsk});
  if (at !== null) q.set("at", at);
  const p = await call("GET", "/api/state?" + q);
  if (p) render(p);
}

function setupForm() {
  const ps = $("players");
  ps.replaceChildren();
  for (let n = info.min_players; n <= info.max_players; n++) ps.append(el("option", {value: n}, n));
  const drawSeats = () => {
    const picks = $("seatpicks");
    const old = [...picks.querySelectorAll("select")].map((s) => s.value);
    picks.replaceChildren();
    for (let i = 0; i < Number(ps.value); i++) {
      const s = el("select", {"data-seat": i}, info.seat_kinds.map((k) => el("option", {value: k}, k)));
      s.value = old[i] || (i === 0 ? "human" : "random");
      picks.append(el("label", {}, `Player ${i + 1} `, s));
    }
  };
  ps.addEventListener("change", drawSeats);
  drawSeats();
  $("variants").replaceChildren(...info.variants.map((v) => el("label", {}, el("input", {type: "checkbox", value: v, class: "variant"}), ` variant ${v}`)));
  $("options").replaceChildren(...info.options.map((o) => el("label", {}, `${o.name} `, el("input", {type: "text", class: "option", "data-name": o.name, placeholder: String(o.default)}))));
}

async function newGame(ev) {
  ev.preventDefault();
  const data = {
    players: Number($("players").value), seed: Number($("seed").value || 0),
    seats: [...$("seatpicks").querySelectorAll("select")].map((s) => s.value),
    variants: [...document.querySelectorAll("input.variant:checked")].map((c) => c.value),
    options: Object.fromEntries([...document.querySelectorAll("input.option")].filter((i) => i.value !== "").map((i) => [i.dataset.name, i.value])),
  };
  try {
    const p = await api("POST", "/api/new", data);
    $("newerror").textContent = "";
    at = null; filter = null; lastViewer = null; $("pass").hidden = true;
    render(p);
  } catch (e) { $("newerror").textContent = e.message; }
}

window.addEventListener("DOMContentLoaded", async () => {
  if (document.body.dataset.table !== undefined) return;     // a table's page: table.js starts it
  const params = new URLSearchParams(location.search);
  if (params.has("speed")) $("speed").value = params.get("speed");
  $("newform").addEventListener("submit", newGame);
  $("undo").addEventListener("click", async () => { filter = null; const p = await call("POST", "/api/undo"); if (p) render(p); });
  $("slider").addEventListener("input", () => {
    const v = Number($("slider").value);
    at = game && v < game.decisions ? v : null;
    refresh();
  });
  $("now").addEventListener("click", () => { at = null; refresh(); });
  $("ready").addEventListener("click", () => { $("pass").hidden = true; });
  $("viewer").addEventListener("change", () => { viewerAsk = $("viewer").value; refresh(); });
  const p = await api("GET", "/api/state");
  info = p.info;
  setupForm();
  if (p.game) { $("newgame").open = false; render(p); }
  else render(p);
});
