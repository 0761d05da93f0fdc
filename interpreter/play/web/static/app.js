// Regelwerk in the browser: draws the view data of /api/state (the same the terminal draws).
"use strict";
const $ = (id) => document.getElementById(id);
let lastViewer = null;
let info = null, game = null, at = null, viewerAsk = "auto", filter = null, busy = false, botTimer = null;
let before = null;     // the zones' contents last drawn (zone -> labels): what the last move changed

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
const words = (name) => String(name).replace(/_/g, " ");

function clickable(e, run) {
  // a space or component that chooses: clicked, or reached with Tab and taken with Enter or Space
  e.setAttribute("tabindex", "0");
  e.setAttribute("role", "button");
  e.addEventListener("click", (ev) => { ev.stopPropagation(); run(); });
  e.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); ev.stopPropagation(); run(); } });
  return e;
}

function textColor(hex) {
  // black or white, whichever contrasts more with the colour (WCAG relative luminance)
  if (!hex) return "#000";
  const n = parseInt(hex.slice(1), 16);
  const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  const L = 0.2126 * lin(n >> 16) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
  return (L + 0.05) / 0.05 >= 1.05 / (L + 0.05) ? "#000" : "#fff";
}

function compStyle(c) {
  // one colour, or two halves (a component of two colours: display: components: color: [a, b])
  if (!c.color) return "";
  const cs = c.colors || [c.color];
  if (cs.length > 1) return `background:linear-gradient(90deg, ${cs[0]} 50%, ${cs[1]} 50%)`;   // its face on a white disc
  return `background:${cs[0]};color:${textColor(cs[0])}`;
}

function compEl(c, choosable, compact, zone) {
  // a component drawn as it looks on the table: its face (display: components: text:) in its colours
  // and shape; else its glyph in small cells and its label elsewhere
  const ids = [...new Set([...(choosable.labels[c.label] || []), ...(choosable.pieces[`${zone}\t${c.label}`] || [])])];
  const short = c.face !== undefined ? c.face : compact || c.short === c.glyph ? c.short : c.label;
  const name = c.name || words(c.label);
  // a picture from the rulebook folder (display: components: image:) in place of the coloured shape,
  // drawn as <img> (a script in an SVG file never runs), edged in its colour
  const e = c.image
    ? el("span", {class: "comp pic" + (ids.length ? " clickable" : ""), style: c.color ? `border-color:${c.color}` : "",
                  title: `${name} (${words(c.kind)})`, "data-label": c.label},
         el("img", {src: c.image, alt: "", draggable: "false"}))
    : el("span", {class: "comp" + (c.color ? "" : " plain") + (c.shape ? ` shape-${c.shape}` : "") + (ids.length ? " clickable" : ""),
                  style: compStyle(c), title: `${name} (${words(c.kind)})`, "data-label": c.label},
         c.colors && c.colors.length > 1 ? el("b", {class: "face"}, short) : short);
  if (c.image) { e.setAttribute("role", "img"); e.setAttribute("aria-label", name); }   // a button, if it chooses (below)
  if (short !== c.label) {
    e.setAttribute("aria-label", `${short} (${name})`);   // the face, then what it is
    if (!ids.length) e.setAttribute("role", "img");       // a name on a plain span is not allowed (axe: aria-prohibited-attr)
  }
  if (ids.length) { e.dataset.ids = ids.join(" "); clickable(e, () => choose(ids, e)); }
  return e;
}

function zoneEl(cell, choosable, compact, mode) {
  // mode (display: layout:): "stack" shows the top component and the count, "fan" overlaps them like cards in hand
  if (!cell) return el("div", {class: "zone none"});
  const kids = [];
  if (mode === "stack" && (cell.count || cell.components.length)) {
    const top = cell.components[cell.components.length - 1];
    if (top) kids.push(compEl(top, choosable, compact, cell.name));
    else kids.push(el("span", {class: "back", title: `${cell.count} hidden`}, ""));
    kids.push(el("span", {class: "stackcount", title: `${cell.count} in the pile`}, `${cell.count}`));
  } else if (cell.hidden) {
    if (cell.count) kids.push(el("span", {class: "back", title: `${cell.count} hidden`}, `${cell.count}`));
  } else if (cell.components.length > 10 && !compact && mode !== "fan") {
    const counts = new Map();
    for (const c of cell.components) {
      if (!counts.has(c.label)) counts.set(c.label, [c, 0]);
      counts.get(c.label)[1] += 1;
    }
    for (const [c, n] of counts.values()) kids.push(el("span", {class: "count"}, `${n}×`, compEl(c, choosable, false, cell.name)));
  } else {
    for (const c of cell.components) kids.push(compEl(c, choosable, compact, cell.name));
  }
  const sp = cell.space;
  if (sp && !cell.components.length && !cell.count) {
    // what is printed on the space: its colour (with the glyph, so colour is not the only sign) or its text
    kids.push(el("span", {class: "mark", style: sp.color ? `color:${textColor(sp.color)}` : ""}, sp.text || sp.glyph || ""));
  }
  const options = cell.options || [];
  const e = el("div", {class: "zone" + (options.length ? " clickable" : "") + (cell.components.length || cell.count ? "" : " empty") + (sp ? " printed" : "") + (mode ? ` ${mode}` : ""),
                       "data-zone": cell.name, style: sp && sp.color ? `background:${sp.color}` : "",
                       title: words(cell.name) + (sp && sp.name ? ` (${sp.name})` : "") + (cell.capacity ? ` (holds ${cell.capacity})` : "")}, kids);
  if (options.length) {
    // the name begins with what the space shows (its glyphs), then says which space and what it offers
    e.setAttribute("aria-label", `${e.textContent.trim()} ${words(cell.name)}: ${options.length} choice${options.length === 1 ? "" : "s"}`.trim());
    e.dataset.ids = options.join(" ");
    if (e.querySelector(".comp.clickable")) {
      // its components choose too (display: pick:): they are the buttons, the space takes a mouse click only
      // (a button inside a button is no button to a screen reader)
      e.removeAttribute("aria-label");
      e.addEventListener("click", (ev) => { ev.stopPropagation(); choose(options, e); });
    } else {
      clickable(e, () => choose(options, e));
    }
  }
  if (changed && changed.has(cell.name)) e.classList.add("moved");       // the last move took or put here
  return e;
}

const axis = (fam, index) => (fam.index_titles || {})[index] || words(index);

function ringEl(cells, label, choosable) {
  // spaces around a circle, numbered (a star of spaces, a ring track); the label in the middle
  const n = cells.length;
  const ring = el("div", {class: "ring", role: "group", "aria-label": label});
  cells.forEach(([at, c], i) => {
    const a = 2 * Math.PI * i / n - Math.PI / 2;
    const pos = el("div", {class: "rpos", style: `left:${50 + 38 * Math.cos(a)}%;top:${50 + 38 * Math.sin(a)}%`},
                   c ? zoneEl(c, choosable, true) : el("div", {class: "zone none"}));
    pos.title = `${label}, ${at}`;
    ring.append(pos);
  });
  ring.append(el("div", {class: "rlabel"}, label));
  return ring;
}

function familyEl(fam, choosable) {
  const box = el("div", {class: "family shape-" + fam.shape + (fam.layout ? ` layout-${fam.layout}` : ""), "data-family": fam.name});
  box.append(el("h4", {}, fam.title || words(fam.name)));
  const mode = fam.layout === "stack" || fam.layout === "fan" ? fam.layout : undefined;
  if (fam.shape === "single") {
    box.append(zoneEl(fam.zone, choosable, false, mode));
  } else if (fam.shape === "grid" && fam.layout === "ring") {
    // a ring per row: stars of numbered spaces
    const rings = el("div", {class: "rings"});
    fam.rows.forEach((r, i) => rings.append(ringEl(fam.cells[i].map((c, j) => [`${axis(fam, fam.column_index)} ${fam.columns[j]}`, c]),
                                                   `${axis(fam, fam.row_index)} ${r}`, choosable)));
    box.append(rings);
  } else if (fam.shape === "row" && fam.layout === "ring") {
    box.append(el("div", {class: "rings"}, ringEl(fam.zones.map((z) => [z.at.join(", "), z]), fam.title || words(fam.name), choosable)));
  } else if (fam.shape === "grid" && fam.layout === "hex") {
    // offset rows of hexagons: every other row half a space to the right
    const hex = el("div", {class: "hexgrid", role: "group", "aria-label": `${fam.title || words(fam.name)}: ${axis(fam, fam.row_index)} down, ${axis(fam, fam.column_index)} across`});
    hex.title = hex.getAttribute("aria-label");
    fam.rows.forEach((r, i) => hex.append(el("div", {class: "hexrow" + (i % 2 ? " odd" : ""), title: `${axis(fam, fam.row_index)} ${r}`},
                                             fam.cells[i].map((c) => zoneEl(c, choosable, true)))));
    box.append(el("div", {class: "scroll"}, hex));
  } else if (fam.shape === "row" && fam.layout === "track") {
    // numbered spaces in a line that wraps: a score or progress track
    const track = el("ol", {class: "track", "aria-label": fam.title || words(fam.name)});
    for (const z of fam.zones) track.append(el("li", {class: "tspace"}, el("span", {class: "tnum"}, z.at.join(", ")), zoneEl(z, choosable, true)));
    box.append(track);
  } else if (fam.shape === "grid" && fam.layout === "pyramid") {
    // rows of different lengths, centred: a tower or a triangle
    const pyr = el("div", {class: "pyramid", role: "group", "aria-label": `${fam.title || words(fam.name)}: ${axis(fam, fam.row_index)} from ${fam.flip_rows ? "the bottom" : "the top"}`});
    for (const [r, cells] of trim(fam.rows.map((r, i) => [r, fam.cells[i]]), fam.flip_rows, fam)) {
      if (r === null) { pyr.append(el("div", {class: "prow gap"}, cells)); continue; }
      pyr.append(el("div", {class: "prow", title: `${axis(fam, fam.row_index)} ${r}`},
                    cells.filter((c) => c).map((c) => zoneEl(c, choosable, true))));
    }
    box.append(pyr);
  } else if (fam.shape === "grid") {
    const t = el("table", {class: "grid"});
    t.setAttribute("aria-label", `${words(fam.name)}: ${axis(fam, fam.row_index)} down, ${axis(fam, fam.column_index)} across`);
    t.append(el("tr", {}, el("th", {class: "corner", title: `${axis(fam, fam.row_index)} down, ${axis(fam, fam.column_index)} across`}, ""),
                fam.columns.map((c) => el("th", {}, c))));
    let rows = fam.rows.map((r, i) => [r, fam.cells[i]]);
    rows = trim(rows, fam.flip_rows, fam);
    for (const [r, cells] of rows) {
      if (r === null) { t.append(el("tr", {class: "gap"}, el("th", {}, "⋮"), el("td", {colspan: fam.columns.length}, cells))); continue; }
      t.append(el("tr", {}, el("th", {}, r), cells.map((c) => el("td", {}, zoneEl(c, choosable, true)))));
    }
    box.append(el("div", {class: "scroll"}, t));
  } else {
    const row = el("div", {class: "zrow"});
    for (const z of fam.zones) row.append(el("div", {class: "slot"}, el("div", {class: "at"}, words(z.at.join(", "))), zoneEl(z, choosable, false, mode)));
    box.append(row);
  }
  return box;
}

function boardEl(b, fams, choosable) {
  // a board's picture with zones laid on it (display: boards:): a family at one point, or each of
  // its spaces at its own; the points are per cent of the picture, so it scales with the page (never
  // wider than its size)
  const box = el("div", {class: "family boardpic", "data-board": b.name});
  box.append(el("h4", {}, b.title));
  const pic = el("div", {class: "bpic", style: `aspect-ratio:${b.size[0]} / ${b.size[1]};max-width:${b.size[0]}px`, role: "group", "aria-label": b.title});
  if (b.image) pic.append(el("img", {class: "bg", src: b.image, alt: "", draggable: "false"}));
  const off = [];
  const at = (pos, kid) => el("div", {class: "onboard", style: `left:${pos[0]}%;top:${pos[1]}%`}, kid);
  for (const fam of fams) {
    if (fam.pos) { pic.append(at(fam.pos, familyEl(fam, choosable))); continue; }
    const cells = fam.shape === "single" ? [fam.zone] : fam.shape === "grid" ? fam.cells.flat() : fam.zones;
    for (const c of cells) {
      if (!c) continue;
      if (c.pos) {
        const z = zoneEl(c, choosable, true);
        z.title = `${fam.title || words(fam.name)} ${c.at.join(", ")}` + (z.title ? ` · ${z.title}` : "");
        pic.append(at(c.pos, z));
      } else off.push(el("div", {class: "slot"}, el("div", {class: "at"}, `${fam.title || words(fam.name)} ${c.at.join(", ")}`), zoneEl(c, choosable, false)));
    }
  }
  box.append(pic);
  if (off.length) box.append(el("div", {class: "zrow"}, off));    // spaces the board gives no point
  return box;
}

function familiesEl(fams, boards, seat, choosable) {
  // the families in order, those on a board (of this kind: shared or a player's) drawn on its picture
  const out = [];
  const drawn = new Set();
  for (const fam of fams) {
    const b = fam.board !== undefined && boards.find((x) => x.name === fam.board && x.seat === seat);
    if (!b) { out.push(familyEl(fam, choosable)); continue; }
    if (drawn.has(b.name)) continue;
    drawn.add(b.name);
    out.push(boardEl(b, fams.filter((f) => f.board === b.name), choosable));
  }
  return out;
}

function tracksEl(view) {
  // each score track: numbered spaces, each seat's marker on its space (its number too: colour is not the only sign)
  return (view.score_tracks || []).map((t) => {
    const ol = el("ol", {class: "strack", "aria-label": t.title});
    for (let i = 0; i < t.length; i++) {
      const n = t.start + i;
      const here = t.markers.filter((m) => m.space === n);
      ol.append(el("li", {class: "tspace" + (here.length ? " marked" : "")}, el("span", {class: "tnum"}, n),
                   here.map((m) => el("span", {class: "marker", style: `background:${m.color};color:${textColor(m.color)}`,
                                               title: `${m.name}: ${m.value}`, "data-seat": m.seat}, m.seat + 1))));
    }
    const said = t.markers.map((m) => `${m.name} ${m.value}`).join(" · ");
    return el("div", {class: "family scoretrack"}, el("h4", {}, t.title, " ", el("span", {class: "tsum"}, said)), ol);
  });
}

function trim(rows, flip, fam) {
  // a long run of empty rows at the far end of a grid says nothing: fold it into one line
  const filled = (cells) => cells.some((c) => c && (c.count || (c.options && c.options.length) || coverable.has(c.name)));
  const order = flip ? rows.slice().reverse() : rows;
  let last = -1;
  order.forEach(([, cells], i) => { if (filled(cells)) last = i; });
  const keep = Math.max(last + 2, Math.min(order.length, 5));
  if (order.length - keep <= 2) return rows;
  const shown = order.slice(0, keep);
  // which rows are left out, in the game's words ("row 6–62: empty")
  const name = fam ? axis(fam, fam.row_index) : "rows";
  const gap = [null, `${name} ${order[keep][0]}–${order[order.length - 1][0]}: empty`];
  return flip ? [gap, ...shown.reverse()] : [...shown, gap];
}

function varsEl(vars) {
  return el("div", {class: "vars"}, vars.map((v) => el("span", {class: "var"}, el("b", {}, v.title || words(v.name)), " ", v.value)));
}

function legendEl(view) {
  // the glyphs and colours on the board, and what they stand for
  const texts = [...document.querySelectorAll("#board .comp, #board .mark")].map((e) => e.textContent);
  const shown = Object.entries(view.symbols).filter(([, st]) => st.glyph && texts.some((t) => t.includes(st.glyph)));
  if (!shown.length) return el("div");
  return el("div", {class: "legend", "aria-label": "key"}, el("b", {}, "Key "),
            shown.map(([name, st]) => el("span", {class: "key"}, el("span", {class: "swatch", style: `background:${st.color};color:${textColor(st.color)}`}, st.glyph), " ", st.name || words(name))));
}

let changed = null;
let coverable = new Set();   // the grid cells some option covers (display: covers:): never folded away

function zoneContents(view) {
  // zone name -> its contents as text, for every zone drawn (shared and per player)
  const out = new Map();
  const cellsOf = (fam) => fam.shape === "single" ? [fam.zone] : fam.shape === "grid" ? fam.cells.flat() : fam.zones;
  const fams = [...view.shared, ...view.players.flatMap((p) => p.families)];
  for (const fam of fams) for (const c of cellsOf(fam)) if (c) out.set(c.name, c.hidden ? `?${c.count}` : c.components.map((x) => x.label).join(" "));
  return out;
}

function diffZones(view) {
  // the zones whose contents changed since the page last drew this game: the last move, marked on the board
  const now = zoneContents(view);
  const prev = before;
  before = now;
  if (!prev) return new Set();
  const out = new Set();
  for (const [name, text] of now) if (prev.has(name) && prev.get(name) !== text) out.add(name);
  return out;
}

function animateMoves() {
  // a component that left one zone and arrived in another glides from there to here
  if (!lastRects) return;
  const gone = lastRects;
  lastRects = null;
  for (const z of document.querySelectorAll("#board .zone.moved")) {
    for (const c of z.querySelectorAll(".comp")) {
      const from = gone.get(c.dataset.label);
      if (!from || from.zone === z.dataset.zone) continue;
      const to = c.getBoundingClientRect();
      const dx = from.rect.left - to.left, dy = from.rect.top - to.top;
      if (!dx && !dy) continue;
      c.animate([{transform: `translate(${dx}px, ${dy}px)`}, {transform: "none"}], {duration: 450, easing: "ease-out"});
      gone.delete(c.dataset.label);
    }
  }
}

let lastRects = null;

function motion() {
  // no gliding when the system asks for reduced motion, nor with bots at "instant"
  if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) return false;
  return !($("speed") && $("speed").value === "0");
}

function rememberRects() {
  // where each label was drawn before the next drawing (the first of a label in a zone that changes)
  if (!motion()) { lastRects = null; return; }
  const out = new Map();
  for (const c of document.querySelectorAll("#board .zone .comp")) {
    const z = c.closest(".zone");
    if (!out.has(c.dataset.label)) out.set(c.dataset.label, {zone: z.dataset.zone, rect: c.getBoundingClientRect()});
  }
  lastRects = out;
}

function drawBoard(view) {
  const board = $("board");
  board.replaceChildren();
  // what a click chooses: a component by its label (a parameter's value) or where it lies (display: pick:)
  const choosable = {labels: {}, pieces: {}};
  for (const g of view.actions) for (const o of g.options) {
    for (const lbl of o.components) (choosable.labels[lbl] ||= []).push(o.id);
    for (const [zone, lbl] of o.pieces || []) (choosable.pieces[`${zone}\t${lbl}`] ||= []).push(o.id);
  }
  changed = diffZones(view);
  coverable = new Set(view.actions.flatMap((g) => g.options.flatMap((o) => o.cover ? o.cover.cells : [])));
  const head = [view.game];
  if (view.round !== null && view.round !== undefined) head.push(`${words(view.round_name)} ${view.round}`);
  if (view.phase) head.push(words(view.phase));
  $("title").textContent = head.join(" · ");
  if (view.variables.length) board.append(varsEl(view.variables));
  const boards = view.boards || [];
  const shared = el("div", {class: "shared"});
  shared.append(...familiesEl(view.shared, boards, false, choosable));
  board.append(shared);
  for (const t of tracksEl(view)) board.append(t);         // under the board, as round its edge (the board first)
  const players = el("div", {class: "players"});
  for (const p of view.players) {
    const color = (view.seat_colors || [])[p.seat];
    const panel = el("div", {class: "player" + (p.to_move ? " to-move" : "") + (p.is_viewer ? " me" : ""), "data-seat": p.seat,
                             style: color ? `--seat:${color}` : ""});
    panel.append(el("h3", {}, el("span", {class: "seatdot", "aria-hidden": "true"}), p.name, p.is_viewer ? " (you)" : "", p.to_move ? el("span", {class: "badge"}, "to decide") : ""));
    if (p.variables.length) panel.append(varsEl(p.variables));
    panel.append(...familiesEl(p.families, boards, true, choosable));
    players.append(panel);
  }
  board.append(players);
  board.append(legendEl(view));
  if (view.scores) {
    // the score's named parts per seat (end: parts:), then the total
    const parts = view.score_parts || [];
    const names = parts.length && parts[0].length ? parts[0].map(([n]) => n) : [];
    const t = el("table", {class: "scores"}, el("tr", {}, el("th", {}, "place"), el("th", {}, "seat"),
                 names.map((n) => el("th", {class: "part"}, n)), el("th", {}, "score")));
    const order = view.scores.map((_, i) => i).sort((a, b) => view.ranking[a] - view.ranking[b]);
    for (const i of order) t.append(el("tr", {}, el("td", {}, view.ranking[i]), el("td", {}, view.seats[i]),
                                       (names.length ? parts[i] : []).map(([n, v]) => el("td", {class: "part", "data-part": n}, v)),
                                       el("td", {class: "score", "data-seat": i}, view.scores[i])));
    board.prepend(el("div", {class: "final"}, el("h3", {}, "Game over"), el("div", {class: "scroll"}, t)));
  }
}

// --- choices in steps (the terminal asks the same: interpreter/play/view/steps.py) ---------------
// An action with many options is chosen one step at a time (display: steps:, else one parameter a
// step): the values of the next step are buttons; a value that leaves one option is that option.
// With display: covers:, the last step is the board itself: the cells where the piece fits are
// highlighted and the piece's shape follows the pointer.
const STEP_FROM = 16;      // an action with more options than this is chosen in steps
let stepPath = null;       // {action, chosen: [value key, …]} while a step-by-step choice is open

const stepKey = (o, step) => step.params.map((p) => o.params[p]).join("\u0000");
function stepText(o, step) {
  const shown = step.params.map((p) => (o.shown || {})[p] ?? o.params[p]);
  const raw = step.params.map((p) => o.params[p]);
  if (shown.length > 1) return shown.join(", ");
  if (shown[0] !== raw[0] || !/^-?\d+$/.test(raw[0])) return shown[0];
  return `${step.title} ${shown[0]}`;
}
function remaining(g, chosen, opts) {
  return opts.filter((o) => chosen.every((v, i) => stepKey(o, g.steps[i]) === v));
}
function advance(g, chosen, opts) {
  chosen = chosen.slice();
  while (chosen.length < g.steps.length) {
    const vals = new Set(remaining(g, chosen, opts).map((o) => stepKey(o, g.steps[chosen.length])));
    if (vals.size !== 1) break;
    chosen.push([...vals][0]);
  }
  return chosen;
}

function shapeEl(shape, label) {
  // a piece's cells drawn small (display: covers:), its words beside it for a screen reader
  const rows = Math.max(...shape.map(([r]) => r)) + 1, cols = Math.max(...shape.map(([, c]) => c)) + 1;
  const on = new Set(shape.map(([r, c]) => `${r},${c}`));
  const box = el("span", {class: "shape", "aria-hidden": "true", style: `grid-template-columns:repeat(${cols}, .6em)`});
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) box.append(el("span", {class: on.has(`${r},${c}`) ? "on" : "off"}));
  return box;
}

let pointing = null;       // {options: [...]} while the board is the choice

function clearPointing() {
  pointing = null;
  for (const e of document.querySelectorAll("#board .fits, #board .shadow")) e.classList.remove("fits", "shadow", "clickable");
}

function pointAt(opts) {
  // the cells where the piece fits: each option by the cell its first (top left) part covers
  clearPointing();
  pointing = {options: opts};
  const zoneOf = (name) => document.querySelector(`#board [data-zone="${CSS.escape(name)}"]`);
  let lastTouch = false;
  for (const o of opts) {
    const anchor = zoneOf(o.cover.cells[0]);
    if (!anchor) continue;
    anchor.classList.add("fits", "clickable");
    anchor.dataset.ids = o.id;
    anchor.setAttribute("tabindex", "0");
    anchor.setAttribute("role", "button");
    anchor.setAttribute("aria-label", `${o.say || o.id}`);
    const shadow = (on) => { for (const n of o.cover.cells) { const z = zoneOf(n); if (z) z.classList.toggle("shadow", on); } };
    anchor.addEventListener("pointerenter", () => shadow(true));
    anchor.addEventListener("pointerleave", () => shadow(false));
    anchor.addEventListener("focus", () => shadow(true));
    anchor.addEventListener("blur", () => shadow(false));
    anchor.addEventListener("pointerdown", (ev) => { lastTouch = ev.pointerType === "touch"; });
    const place = (ev) => {
      ev.stopPropagation();
      // a touch shows the piece first (there is no pointer to hover); a second touch places it
      if (lastTouch && !anchor.classList.contains("shadow")) {
        for (const z of document.querySelectorAll("#board .shadow")) z.classList.remove("shadow");
        shadow(true);
        return;
      }
      act(o.id);
    };
    anchor.addEventListener("click", place);
    anchor.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); act(o.id); } });
  }
}

function stepGroupEl(g, opts) {
  // the next step of a step-by-step choice: its values, or the board when it is the choice
  const open = stepPath && stepPath.action === g.action;
  const chosen = advance(g, open ? stepPath.chosen : [], opts);
  const left = remaining(g, chosen, opts);
  const box = el("div", {class: "group steps", role: "group", "aria-label": g.title || g.action, "data-action": g.action});
  const said = chosen.map((_, i) => stepText(left[0], g.steps[i]));
  const head = el("div", {class: "gname"}, [g.title || g.action, ...said].join(" · "));
  if (open && stepPath.chosen.length) {
    head.append(" ", el("button", {class: "stepback", type: "button", onclick: () => {
      const full = advance(g, stepPath.chosen, opts);
      let c = stepPath.chosen.slice();
      while (c.length) { c.pop(); if (advance(g, c, opts).length !== full.length) break; }
      stepPath = c.length ? {action: g.action, chosen: c, decisions: game.decisions} : null;
      drawActions(game.view);
    }}, "back"));
  }
  box.append(head);
  if (chosen.length >= g.steps.length || left.length <= 1) {
    for (const o of left) box.append(el("button", {class: "opt", "data-id": o.id, title: o.id, onclick: () => act(o.id)}, o.say || o.id));
    return box;
  }
  const step = g.steps[chosen.length];
  const by = new Map();
  for (const o of left) { const k = stepKey(o, step); if (!by.has(k)) by.set(k, []); by.get(k).push(o); }
  const last = chosen.length === g.steps.length - 1;
  const list = el("div", {class: "values"});
  for (const [k, under] of by) {
    const o = under[0];
    const text = under.length === 1 && by.size <= 8 ? (o.say || o.id) : stepText(o, step);
    const kids = [o.cover && !last ? shapeEl(o.cover.shape) : null, text, under.length > 1 ? el("span", {class: "n"}, ` ${under.length}`) : null];
    if (under.length === 1) list.append(el("button", {class: "opt", "data-id": o.id, title: o.say || o.id, onclick: () => act(o.id)}, kids));
    else list.append(el("button", {class: "step", "data-step": k, "aria-label": `${text}: ${under.length} choices`,
                                   onclick: () => { stepPath = {action: g.action, chosen: [...chosen, k], decisions: game.decisions}; drawActions(game.view); }}, kids));
  }
  if (last && left.every((o) => o.cover)) {
    // the board is the choice: the cells where the piece fits are marked; the list stays, folded
    box.append(el("p", {class: "point"}, shapeEl(left[0].cover.shape), ` Point at a marked cell to put it there (${left.length} places).`));
    box.append(el("details", {class: "list"}, el("summary", {}, `or choose from the list`), list));
    box.dataset.pointing = "1";
    requestAnimationFrame(() => pointAt(left));
  } else {
    box.append(el("div", {class: "ask"}, `Choose the ${step.title}:`), list);
  }
  return box;
}

function drawActions(view) {
  const box = $("actions");
  box.replaceChildren();
  clearPointing();
  if (!filter) for (const e of document.querySelectorAll("#board .picked, #board .narrows")) e.classList.remove("picked", "narrows");
  if (!view.actions.length) return;
  box.append(el("h3", {}, "Your choices", filter ? el("a", {href: "#", class: "showall", onclick: (e) => { e.preventDefault(); filter = null; drawActions(view); }}, " (show all)") : ""));
  for (const g of view.actions) {
    const opts = g.options.filter((o) => !filter || filter.includes(o.id));
    if (!opts.length) continue;
    if (opts.length > STEP_FROM && (g.steps || []).length > 1) { box.append(stepGroupEl(g, opts)); continue; }
    const group = el("div", {class: "group", role: "group", "aria-label": g.title || g.action},
                     el("div", {class: "gname"}, g.title || g.action));
    const num = g.number ? numberGroup(g.action, g.number, opts) : null;
    if (num) { group.append(num); box.append(group); continue; }
    for (const o of opts) {
      group.append(el("button", {class: "opt", "data-id": o.id, title: o.id, onclick: () => act(o.id)}, o.say || o.id));
    }
    box.append(group);
  }
}

// an action whose one parameter is a number in a range (the view marks it: group.number) is
// entered as a number: an input bounded by the legal values and a button; a value that is not
// legal says which are
function numberGroup(action, param, opts) {
  const re = new RegExp(`^${action}\\((${param})=(-?\\d+)\\)$`);
  const parts = opts.map((o) => re.exec(o.id));
  if (parts.some((m) => !m)) return null;
  const ids = new Map(parts.map((m, i) => [Number(m[2]), opts[i].id]));
  const values = [...ids.keys()].sort((a, b) => a - b);
  const input = el("input", {type: "number", class: "numberpick", min: values[0], max: values[values.length - 1],
                             step: "1", value: values[0], "aria-label": `${parts[0][1]} (${values[0]} to ${values[values.length - 1]})`});
  const why = el("span", {class: "error", role: "status"});
  const go = () => {
    const id = ids.get(Number(input.value));
    if (id === undefined) { why.textContent = ` ${parts[0][1]} is ${values[0]} to ${values[values.length - 1]}`; return; }
    act(id);
  };
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); go(); } });
  return el("div", {class: "numberrow"}, el("label", {}, `${parts[0][1]} `, input), " ",
            el("button", {class: "opt", onclick: go}, action), why);
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
  if (lastViewer !== view.viewer || at !== null) before = null;     // another seat's view or the past: nothing to compare
  lastViewer = view.viewer;
  if (stepPath && (at !== null || game.decisions !== stepPath.decisions)) stepPath = null;
  rememberRects();
  drawBoard(view);
  animateMoves();
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
  const seatOf = (line) => game.seat_names.findIndex((n) => line.startsWith(n + ":") || line.trimStart().startsWith(n + " "));
  // looking at the past: the story up to that decision (the (at+1)-th decision and what follows are later)
  let lines = game.story;
  if (at !== null) {
    let n = 0;
    const cut = lines.findIndex((line) => game.seat_names.some((name) => line.startsWith(name + ":")) && ++n > at);
    if (cut >= 0) lines = lines.slice(0, cut);
  }
  story.replaceChildren(...lines.map((line) => {
    const s = seatOf(line);
    const color = s >= 0 ? (view.seat_colors || [])[s] : null;
    return el("li", {class: (line.startsWith("──") ? "head" : line.startsWith("  ") ? "said" : "") + (color ? " seat" : ""),
                     style: color ? `--seat:${color}` : ""}, line);
  }));
  const lastMove = [...story.children].reverse().find((li) => !li.classList.contains("said") && !li.classList.contains("head"));
  if (lastMove) lastMove.classList.add("last");
  story.scrollTop = story.scrollHeight;
  if (botTimer) clearTimeout(botTimer);
  if (at === null && game.bot_to_move && !game.over) botTimer = setTimeout(botStep, Number($("speed").value));
}

// --- acting --------------------------------------------------------------------------
function say(msg) { $("message").textContent = msg || ""; }

async function call(method, path, data) {
  if (busy) return null;
  busy = true;
  document.body.dataset.busy = "1";          // a request in flight (tests wait for its answer)
  try { const p = await api(method, path, data); say(""); return p; }
  catch (e) { say(e.message); return null; }
  finally { busy = false; delete document.body.dataset.busy; }
}

function choose(ids, from) {
  // a click on the board: one choice is taken; several narrow the list (a second click narrows further:
  // a space, then the tile to put there)
  let pick = ids;
  if (filter) {
    const both = ids.filter((i) => filter.includes(i));
    if (both.length) pick = both;
  }
  if (pick.length === 1) return act(pick[0]);
  filter = pick;
  for (const e of document.querySelectorAll("#board .picked")) e.classList.remove("picked");
  if (from) from.classList.add("picked");
  for (const e of document.querySelectorAll("#board [data-ids]")) {
    e.classList.toggle("narrows", e.dataset.ids.split(" ").some((i) => pick.includes(i)) && e !== from);
  }
  drawActions(game.view);
}

async function act(id) {
  filter = null;
  stepPath = null;
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
    const oldNames = [...picks.querySelectorAll("input.seatname")].map((s) => s.value);
    picks.replaceChildren();
    for (let i = 0; i < Number(ps.value); i++) {
      const s = el("select", {"data-seat": i}, info.seat_kinds.map((k) => el("option", {value: k}, k)));
      s.value = old[i] || (i === 0 ? "human" : "random");
      const name = el("input", {type: "text", class: "seatname", maxlength: "40", placeholder: `Player ${i + 1}`,
                                "aria-label": `name of player ${i + 1}`});
      name.value = oldNames[i] || "";
      picks.append(el("label", {}, `Player ${i + 1} `, s, " ", name));
    }
  };
  ps.addEventListener("change", drawSeats);
  drawSeats();
  $("variants").replaceChildren(...info.variants.map((v) => el("label", {}, el("input", {type: "checkbox", value: v, class: "variant"}), ` variant ${v}`)));
  $("options").replaceChildren(...info.options.map((o) => el("label", {title: o.description || ""}, `${o.title || words(o.name)} `, el("input", {type: "text", class: "option", "data-name": o.name, placeholder: String(o.default)}))));
}

async function newGame(ev) {
  ev.preventDefault();
  const data = {
    players: Number($("players").value), seed: Number($("seed").value || 0),
    seats: [...$("seatpicks").querySelectorAll("select")].map((s) => s.value),
    names: [...$("seatpicks").querySelectorAll("input.seatname")].map((s) => s.value.trim()),
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
