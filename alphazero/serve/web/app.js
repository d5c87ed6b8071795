// The web board: talks to the JSON endpoints of alphazero/serve/app.py, draws the board
// the server describes (rows of . X O # cells, legal moves as action -> cell), and never
// blocks: every request is awaited while the page stays live, with a thinking indicator.
"use strict";

const $ = (id) => document.getElementById(id);
const COLOURS = ["Black", "White"];
const page = {
  options: null,     // /api/options
  game: null,        // the session's last view (/api/games/...)
  id: sessionStorage.getItem("gameId"),  // per tab: several tabs play independent games
  busy: false,       // a request is on its way: clicks wait
  thought: null,     // the last analysis of the position on the board
};

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({error: `the server answered ${response.status}.`}));
  if (!response.ok) throw new Error(data.error || `the server answered ${response.status}.`);
  return data;
}

function say(text) { $("message").textContent = text || ""; }

function setBusy(busy, text) {
  page.busy = busy;
  $("thinking").hidden = !busy;
  $("thinking-text").textContent = text || "The agent is thinking…";
  document.body.classList.toggle("busy", busy);
  for (const id of ["undo", "pass", "agent-move", "analyse", "new-game"]) $(id).disabled = busy;
}

// Run one request with the indicator on; its refusal becomes the page's message.
async function withBusy(text, work) {
  if (page.busy) { say("Wait for the agent to finish thinking."); return false; }
  setBusy(true, text);
  try { await work(); return true; }
  catch (error) { say(error.message); return false; }
  finally { setBusy(false); }
}

// --- the set-up form ----------------------------------------------------------------------
function preset() { return page.options.games.find((g) => g.key === $("game").value); }

function fillSetup() {
  const p = preset();
  $("params").replaceChildren(...Object.entries(p.params).map(([key, value]) => {
    const label = document.createElement("label");
    label.textContent = key + " ";
    const input = document.createElement("input");
    input.dataset.param = key;
    input.value = JSON.stringify(value).replaceAll('"', "");
    label.append(input);
    return label;
  }));
  const choices = [];
  if (p.shipped) choices.push(["shipped", `Shipped network (${p.shipped})`]);
  choices.push(["pure", "Pure MCTS (no network)"]);
  for (const path of page.options.checkpoints) choices.push([path, path]);
  $("network").replaceChildren(...choices.map(([value, text]) => new Option(text, value)));
  $("simulations").value = p.simulations;
}

function readParam(text) {
  try { return JSON.parse(text); } catch { return text.trim(); }  // [9, 12], 10, null; or random
}

async function newGame(event) {
  if (event) event.preventDefault();
  const params = {};
  for (const input of $("params").querySelectorAll("input")) params[input.dataset.param] = readParam(input.value);
  const body = {game: $("game").value, params, network: $("network").value,
                colour: $("colour").value, simulations: strength(), moves: $("setup-moves").value};
  const done = await withBusy("Loading the network…", async () => {
    show(await api("/api/games", body));
  });
  if (done) await afterChange();
}

function strength() { return Number($("simulations").value); }

// --- playing ------------------------------------------------------------------------------
function show(view) {
  say("");
  page.game = view;
  if (view.id) { page.id = view.id; sessionStorage.setItem("gameId", view.id); }
  page.thought = null;
  draw();
}

async function afterChange() {
  // The agent plays its whole turn (Connect6: two stones), one request per move.
  while (page.game.agent_to_move) {
    const ok = await withBusy("The agent is thinking…", async () => {
      show(await api(`/api/games/${page.id}/agent`, {simulations: strength()}));
    });
    if (!ok) return;
  }
  if (wantsAnalysis() && page.game.status === "ongoing") await analyse();
}

function actionForCell(cell) {
  const g = page.game, cols = g.rows[0].length;
  for (const [action, target] of Object.entries(g.targets)) {
    if (target === cell || (g.column_moves && target % cols === cell % cols)) return Number(action);
  }
  return null;
}

async function clickCell(cell) {
  const g = page.game;
  if (!g || page.busy) return;
  if (g.status !== "ongoing") { say("The game is over: start a new game, or undo."); return; }
  if (!g.humans.includes(g.to_move)) { say("It is the agent's turn."); return; }
  const action = actionForCell(cell);
  if (action === null) {
    const must = Object.values(g.buttons);
    say(must.length && !Object.keys(g.targets).length
      ? `You have no move on the board: ${must.join(" or ")}.`
      : "That is not a legal move here.");
    return;
  }
  await play(action);
}

async function play(action) {
  const done = await withBusy("Playing…", async () => {
    show(await api(`/api/games/${page.id}/move`, {action, player: page.game.to_move}));
  });
  if (done) await afterChange();
}

async function undo() {
  const done = await withBusy("Taking back…", async () => { show(await api(`/api/games/${page.id}/undo`, {})); });
  if (done && wantsAnalysis() && page.game.status === "ongoing") await analyse();
}

async function agentMove() {
  const done = await withBusy("The agent is thinking…", async () => {
    show(await api(`/api/games/${page.id}/agent`, {simulations: strength()}));
  });
  if (done) await afterChange();
}

// --- analysis -----------------------------------------------------------------------------
function wantsAnalysis() {
  return ["show-value", "show-heat", "show-line"].some((id) => $(id).checked);
}

async function analyse() {
  if (!page.game || page.game.status !== "ongoing") { say("The game is over: there is nothing to analyse."); return; }
  await withBusy("Analysing…", async () => {
    page.thought = await api(`/api/games/${page.id}/analyse`, {simulations: strength()});
    draw();
  });
}

async function toggleAnalysis() {
  if (wantsAnalysis() && !page.thought && page.game && page.game.status === "ongoing" && !page.busy) await analyse();
  else draw();
}

// --- drawing ------------------------------------------------------------------------------
function draw() {
  const g = page.game;
  if (!g) return;
  $("agent-name").textContent = `${g.game} · agent: ${g.agent}`;
  drawBoard(g);
  const humanTurn = g.status === "ongoing" && g.humans.includes(g.to_move);
  const onlyButtons = humanTurn && !Object.keys(g.targets).length;
  const pass = Object.entries(g.buttons);
  $("pass").hidden = !(humanTurn && pass.length);
  if (pass.length) { $("pass").textContent = pass[0][1]; $("pass").dataset.action = pass[0][0]; }
  $("undo").hidden = false;
  $("agent-move").hidden = g.humans.length !== 2;
  let turn = g.status === "ongoing" ? `${COLOURS[g.to_move]} to move` : "Game over";
  if (g.status === "ongoing" && g.humans.length === 1) turn += humanTurn ? " (you)" : " (the agent)";
  $("turn").textContent = turn;
  if (onlyButtons) say(`You have no move on the board and must ${pass.map((p) => p[1]).join(" or ")}.`);
  $("result").textContent = g.result || "";
  $("result").hidden = !g.result;
  $("caption").replaceChildren(...g.caption.map((line) => Object.assign(document.createElement("div"), {textContent: line})));
  $("moves").replaceChildren(...g.moves.map((m) => Object.assign(document.createElement("li"),
    {textContent: m.text, className: m.mover ? "white" : "black"})));
  drawThought();
}

function drawBoard(g) {
  const board = $("board"), rows = g.rows.length, cols = g.rows[0].length;
  board.className = `game-${g.game_name}`;
  board.style.setProperty("--rows", rows);
  board.style.setProperty("--cols", cols);
  const legal = new Set(Object.values(g.targets));
  const empties = g.rows.join("").split("").filter((c) => c === ".").length;
  const hints = $("show-hints").checked && g.status === "ongoing" && g.humans.includes(g.to_move)
    && legal.size < empties;  // where every empty cell is legal, dots say nothing
  const cells = [];
  g.rows.join("").split("").forEach((mark, i) => {
    const cell = document.createElement("div");
    cell.className = "cell";
    cell.dataset.cell = i;
    const row = Math.floor(i / cols), col = i % cols;
    if (row === 0) cell.classList.add("top");
    if (row === rows - 1) cell.classList.add("bottom");
    if (col === 0) cell.classList.add("left");
    if (col === cols - 1) cell.classList.add("right");
    if (mark === "#") cell.classList.add("blocked");
    if (mark === "X" || mark === "O") {
      const stone = document.createElement("div");
      stone.className = `stone ${mark === "X" ? "black" : "white"}`;
      if (i === g.last_cell) {
        stone.classList.add("last");
        if (g.column_moves) { stone.classList.add("drop"); stone.style.setProperty("--fall", Math.floor(i / cols) + 1); }
      }
      cell.append(stone);
    } else if (hints && legal.has(i)) {
      cell.append(Object.assign(document.createElement("div"), {className: "hint"}));
    }
    if (mark !== "#") cell.addEventListener("click", () => clickCell(i));
    cells.push(cell);
  });
  board.replaceChildren(...cells);
}

function drawThought() {
  const t = page.thought, board = $("board");
  $("value").hidden = !(t && $("show-value").checked);
  $("line").hidden = !(t && $("show-line").checked);
  if (!t) return;
  const black = Math.round(50 * (t.value_black + 1));
  $("value-black").style.width = `${black}%`;
  $("value-text").textContent = `Black ${black}% · White ${100 - black}% (value ${t.value_black >= 0 ? "+" : ""}${t.value_black.toFixed(2)} for Black, ${t.visits} visits)`;
  if ($("show-heat").checked) {
    const top = Math.max(...Object.values(t.shares));
    for (const [action, share] of Object.entries(t.shares)) {
      const cell = board.querySelector(`[data-cell="${t.targets[action]}"]`);
      if (t.targets[action] === undefined || !cell) continue;
      const heat = Object.assign(document.createElement("div"), {className: "heat"});
      heat.style.setProperty("--heat", (share / top).toFixed(3));
      if (share >= 0.01) heat.textContent = `${Math.round(100 * share)}`;
      cell.append(heat);
    }
  }
  if ($("show-line").checked) {
    $("line").replaceChildren(Object.assign(document.createElement("span"), {textContent: "Expected line: "}),
      ...t.line.map((move, k) => Object.assign(document.createElement("span"),
        {textContent: `${k + 1}. ${move} `, className: t.line_movers[k] ? "white" : "black"})));
    t.line_cells.forEach((cell, k) => {
      const target = cell === null ? null : board.querySelector(`[data-cell="${cell}"]`);
      if (!target || target.querySelector(".stone")) return;
      target.append(Object.assign(document.createElement("div"),
        {className: `ghost ${t.line_movers[k] ? "white" : "black"}`, textContent: k + 1}));
    });
  }
}

// --- start --------------------------------------------------------------------------------
async function start() {
  page.options = await api("/api/options");
  $("game").replaceChildren(...page.options.games.map((g) => new Option(g.key, g.key)));
  $("simulations").max = page.options.max_simulations;
  $("game").addEventListener("change", fillSetup);
  $("setup").addEventListener("submit", newGame);
  $("undo").addEventListener("click", undo);
  $("pass").addEventListener("click", () => play(Number($("pass").dataset.action)));
  $("agent-move").addEventListener("click", agentMove);
  $("analyse").addEventListener("click", analyse);
  for (const id of ["show-value", "show-heat", "show-line", "show-hints"]) $(id).addEventListener("change", toggleAnalysis);
  const first = page.options.games.find((g) => g.shipped) || page.options.games[0];
  $("game").value = first.key;
  fillSetup();
  if (page.id) {
    try {
      show(await api(`/api/games/${page.id}`));
      $("game").value = page.game.game;
      fillSetup();
      return;
    }
    catch { sessionStorage.removeItem("gameId"); }
  }
  await newGame();
}

start().catch((error) => say(`The page could not start: ${error.message}`));
