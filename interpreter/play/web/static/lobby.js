// The lobby (/lobby): the rulebooks, the open tables, making a table.  Text is set as text, never as HTML.
"use strict";
const $ = (id) => document.getElementById(id);
let books = [];

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
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

const book = () => books.find((b) => b.key === $("rulebook").value);

function drawForm() {
  const b = book();
  const ps = $("players");
  const was = Number(ps.value) || b.min_players;
  ps.replaceChildren(...Array.from({length: b.max_players - b.min_players + 1}, (_, i) => el("option", {value: b.min_players + i}, b.min_players + i)));
  ps.value = String(Math.min(Math.max(was, b.min_players), b.max_players));
  drawSeats();
  $("variants").replaceChildren(...b.variants.map((v) => el("label", {}, el("input", {type: "checkbox", value: v, class: "variant"}), ` variant ${v}`)));
  $("options").replaceChildren(...b.options.map((o) => el("label", {title: o.description || ""}, `${o.title || String(o.name).replace(/_/g, " ")} `, el("input", {type: "text", class: "option", "data-name": o.name, placeholder: String(o.default)}))));
}

function drawSeats() {
  const b = book();
  const picks = $("seatpicks");
  const old = [...picks.querySelectorAll("select")].map((s) => s.value);
  picks.replaceChildren();
  for (let i = 0; i < Number($("players").value); i++) {
    const s = el("select", {"data-seat": i, "aria-label": `Player ${i + 1}: who plays`}, ["human", ...b.bots].map((k) => el("option", {value: k}, k)));
    s.value = old[i] || "human";
    picks.append(el("div", {class: "seatrow"}, `Player ${i + 1} `, s, " ", el("input", {type: "text", class: "pname", placeholder: "name", maxlength: 40, "aria-label": `Player ${i + 1}: name`})));
  }
}

function drawTables(tables) {
  const t = $("tables");
  t.replaceChildren(t.rows[0]);
  $("notables").hidden = tables.length > 0;
  for (const row of tables) {
    const seats = row.seats.map((s) => el("div", {}, `${s.name}${s.player && s.player !== s.name ? " (" + s.player + ")" : ""}: `,
      s.kind !== "human" ? s.kind : s.open ? el("button", {class: "join", "data-table": row.id, "data-seat": s.seat, onclick: () => join(row.id, s.seat)}, "join") : "taken"));
    t.append(el("tr", {"data-table": row.id}, el("td", {}, row.game), el("td", {}, seats), el("td", {}, row.decisions),
                el("td", {}, el("a", {href: row.watch, class: "watch"}, "watch"))));
  }
}

async function loadLobby() {
  try {
    const d = await api("GET", "/api/lobby");
    drawTables(d.tables);
    $("status").textContent = "";
    return d;
  } catch (e) { $("status").textContent = e.message; return null; }
}

async function join(tid, seat) {
  try {
    const d = await api("POST", `/api/tables/${encodeURIComponent(tid)}/join`, {seat});
    location.href = d.link;
  } catch (e) { $("status").textContent = e.message; loadLobby(); }
}

async function create(ev) {
  ev.preventDefault();
  const rows = [...$("seatpicks").querySelectorAll(".seatrow")];
  const data = {
    rulebook: $("rulebook").value, players: Number($("players").value),
    seats: rows.map((r) => r.querySelector("select").value),
    names: rows.map((r) => r.querySelector("input").value),
    variants: [...document.querySelectorAll("input.variant:checked")].map((c) => c.value),
    options: Object.fromEntries([...document.querySelectorAll("input.option")].filter((i) => i.value !== "").map((i) => [i.dataset.name, i.value])),
    undo: $("allowundo").checked,
  };
  if ($("seed").value !== "") data.seed = Number($("seed").value);
  try {
    const d = await api("POST", "/api/tables", data);
    $("newerror").textContent = "";
    const list = $("linklist");
    list.replaceChildren();
    for (const s of d.seats) {
      if (!s.link) { list.append(el("div", {class: "link"}, `${s.name}: ${s.kind} (a bot)`)); continue; }
      const url = location.origin + s.link;
      list.append(el("div", {class: "link", "data-seat": s.seat}, `${s.name}: `, el("a", {href: s.link, class: "seatlink"}, "open"),
                     el("input", {type: "text", readonly: "", value: url, "aria-label": `${s.name}'s link`})));
    }
    list.append(el("div", {class: "link"}, "spectators: ", el("a", {href: d.watch, class: "watchlink"}, "open"),
                   el("input", {type: "text", readonly: "", value: location.origin + d.watch, "aria-label": "the spectators' link"})));
    $("links").hidden = false;
    loadLobby();
  } catch (e) { $("newerror").textContent = e.message; }
}

window.addEventListener("DOMContentLoaded", async () => {
  const d = await loadLobby();
  if (!d) return;
  books = d.rulebooks;
  $("rulebook").replaceChildren(...books.map((b) => el("option", {value: b.key}, b.game)));
  $("rulebook").addEventListener("change", drawForm);
  $("players").addEventListener("change", drawSeats);
  $("newform").addEventListener("submit", create);
  drawForm();
  document.body.dataset.state = "ready";
  setInterval(loadLobby, 5000);
});
