// The Traverse hub dashboard: lays out the views the hub sends on /dashboard/events.
// Every text from the hub goes in through textContent, never as markup: names come from users.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const HISTORY = 120; // views kept for the throughput line (a minute at two a second)
const history = [];

function el(tag, attributes, text) {
  const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attributes || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function formatRtt(micros) {
  if (micros < 0) return "not measured yet";
  return micros < 1000 ? micros + " µs" : (micros / 1000).toFixed(2) + " ms";
}

function formatRate(bytesPerSecond) {
  const units = ["B/s", "KB/s", "MB/s", "GB/s"];
  let value = bytesPerSecond, unit = 0;
  while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit++; }
  return (unit === 0 ? value : value.toFixed(1)) + " " + units[unit];
}

// total: how many rows there are when the view carries only the first of them (the hub caps a view's nodes and names).
function fillTable(id, rows, emptyText, total, what) {
  const body = document.querySelector("#" + id + " tbody");
  const columns = document.querySelectorAll("#" + id + " thead th").length;
  body.replaceChildren();
  if (rows.length === 0) {
    const tr = el("tr");
    tr.append(el("td", { colspan: columns, class: "empty" }, emptyText));
    body.append(tr);
  }
  for (const cells of rows) {
    const tr = el("tr");
    for (const cell of cells) tr.append(el("td", { title: cell }, cell));
    body.append(tr);
  }
  if (total > rows.length) {
    const tr = el("tr");
    tr.append(el("td", { colspan: columns, class: "more" }, "… and " + (total - rows.length) + " more " + what + " (GET /status lists all " + total + ")"));
    body.append(tr);
  }
}

// Hubs on a circle in name order (the server sorts them), so a hub keeps its place between views.
function drawGraph(view) {
  const svg = document.getElementById("graph");
  const width = 600, height = 440, cx = width / 2, cy = height / 2, radius = Math.min(cx, cy) - 60;
  const position = new Map();
  view.hubs.forEach((hub, i) => {
    const angle = -Math.PI / 2 + (2 * Math.PI * i) / view.hubs.length;
    const r = view.hubs.length === 1 ? 0 : radius;
    position.set(hub.id, { x: cx + r * Math.cos(angle), y: cy + r * Math.sin(angle) });
  });
  svg.replaceChildren();
  for (const link of view.links) {
    const a = position.get(link.a), b = position.get(link.b);
    if (!a || !b) continue;
    const own = link.a === view.hubId || link.b === view.hubId;
    const g = el("svg:g", { class: own ? "link self" : "link", "data-a": link.aName, "data-b": link.bName });
    g.append(el("svg:line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y }));
    // The label sits in the middle, except on a line through the centre, where lines between opposite hubs all cross.
    const t = Math.hypot((a.x + b.x) / 2 - cx, (a.y + b.y) / 2 - cy) < 20 ? 0.3 : 0.5;
    g.append(el("svg:text", { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t }, formatRtt(link.rttMicros)));
    g.append(el("svg:title", {}, link.aName + " – " + link.bName + ": " + formatRtt(link.rttMicros) + " (measured by " + link.measuredBy + ")"));
    svg.append(g);
  }
  for (const hub of view.hubs) {
    const p = position.get(hub.id);
    const g = el("svg:g", { class: "hub" + (hub.self ? " self" : "") + (hub.reachable ? "" : " unreachable"), "data-name": hub.name });
    g.append(el("svg:circle", { cx: p.x, cy: p.y, r: 18 }));
    g.append(el("svg:text", { x: p.x, y: p.y + (p.y >= cy ? 38 : -28) }, hub.name));
    g.append(el("svg:title", {}, hub.name + " (" + hub.id + ")" + (hub.self ? ", this hub" : hub.reachable ? ", " + hub.hops + " hop(s) away" : ", unreachable")));
    svg.append(g);
  }
}

function drawHistory() {
  const svg = document.getElementById("relay-history");
  const max = Math.max(1, ...history);
  // The newest view at the right edge; older ones to its left.
  const step = 300 / (HISTORY - 1), start = 300 - (history.length - 1) * step;
  const points = history.map((v, i) => (start + i * step).toFixed(1) + "," + (57 - v / max * 54).toFixed(1));
  svg.replaceChildren(el("svg:polyline", { points: points.join(" ") }));
}

function show(view) {
  document.getElementById("hub-name").textContent = view.hubName;
  document.title = "Traverse hub " + view.hubName;
  drawGraph(view);
  fillTable("links", view.links.map(l => [l.aName, l.bName, formatRtt(l.rttMicros), l.measuredBy]), "no links to other hubs");
  fillTable("nodes", view.nodes.map(n => [n.id, n.address || "", formatRtt(n.rttMicros), n.names.join(", ")]), "no nodes linked here",
      view.nodeCount, "nodes");
  fillTable("names", view.names.map(n => [n.name, String(n.port), n.nodeId, n.hubName]), "no names registered", view.nameCount, "names");
  const modules = Object.entries(view.connectionSetUps).map(([module, count]) => [module, String(count)]);
  modules.push(["long-poll sessions open", String(view.longPollSessions)]);
  fillTable("modules", modules, "");
  document.getElementById("relay-rate").textContent = formatRate(view.relay.totalPerSecond);
  document.getElementById("relay-split").textContent = formatRate(view.relay.deliveredPerSecond) + " delivered to nodes here, "
      + formatRate(view.relay.forwardedPerSecond) + " forwarded to other hubs";
  history.push(view.relay.totalPerSecond);
  while (history.length > HISTORY) history.shift();
  drawHistory();
}

function setState(text, cls) {
  const state = document.getElementById("feed-state");
  state.textContent = text;
  state.className = "state " + cls;
}

// EventSource reconnects by itself after a dropped stream; after a refusal (too many dashboards) it gives up, so try again later.
function connect() {
  const source = new EventSource("/dashboard/events");
  source.addEventListener("view", event => {
    show(JSON.parse(event.data));
    setState("live, updated " + new Date().toLocaleTimeString(), "live");
  });
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {
      setState("feed refused or lost: retrying in 5 s", "lost");
      setTimeout(connect, 5000);
    } else {
      setState("feed lost: reconnecting…", "lost");
    }
  };
}

connect();
