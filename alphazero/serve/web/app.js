// The web board's controller: the page's state, the requests to the JSON endpoints of
// alphazero/serve/app.py, the controls and the keys. It never blocks: every request is
// awaited while the page stays live, with a thinking indicator. What is drawn where:
// board.js (the board), moves.js (the move list), graph.js (a training game's values),
// run.js (a training run's games).
import {drawBoard, movesOf} from "./board.js";
import {drawGraph} from "./graph.js";
import {drawMoves, roundNumbers} from "./moves.js";
import {drawRunGames} from "./run.js";

const $ = (id) => document.getElementById(id);
const page = {
  options: null,     // /api/options
  game: null,        // the game's last view (/api/games/...): its own, newest position
  id: sessionStorage.getItem("gameId"),  // per tab: several tabs play independent games
  busy: false,       // a request that changes the game is on its way: clicks wait
  working: 0,        // actions under way: a click and all it sets off (the agent's reply, an analysis)
  asked: 0,          // the number of the latest request for an earlier position: only its answer is drawn
  viewing: null,     // an earlier position on the board (view only), or null: the game's own
  drawn: null,       // {id, ply} last drawn: a move is animated only when it is new
  thought: null,     // the last analysis of the game's own position
  picked: null,      // in a game of moving pieces, the cell of the piece picked to move, or null
  choicesAsked: 0,   // the number of the latest /api/choices request: only its answer is shown
};
window.page = page;  // for the browser tests

// An event handler that counts as work while it runs, so that the page can tell (and the
// browser tests wait until) it has settled.
function settles(handler) {
  return async (event) => {
    page.working += 1;
    try { await handler(event); } finally { page.working -= 1; }
  };
}

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
  for (const id of ["undo", "pass", "agent-move", "analyse", "new-game", "new-game-here"]) $(id).disabled = busy;
}

// Run one request with the indicator on; its refusal becomes the page's message.
async function withBusy(text, work) {
  if (page.busy) { say("Wait for the agent to finish thinking."); return false; }
  setBusy(true, text);
  try { await work(); return true; }
  catch (error) { say(error.message); return false; }
  finally { setBusy(false); if (page.game) drawControls(page.game); }
}

// --- the set-up form ----------------------------------------------------------------------
// The game list, each game's parameters as selects and checkboxes (the server finds their
// choices by asking the game) or a text box where the game asks for text (OpenSpiel's game), and, for a game whose board is drawn per game, the choice of
// the board last played again or a new one. Every change asks the server what the chosen
// game is called, its rules and which networks play it.
function preset(key = $("game").value) { return page.options.games.find((g) => g.key === key); }

// A game's name in the list: its name and board, or where its board is drawn per game what
// its variant changes in short (the words before a colon); the lines under the list say the rest.
function listName(p) { return [p.name, p.board || p.variant.split(":")[0]].filter(Boolean).join(", "); }

// The board of the last game of each kind whose board is drawn per game: {game, params, board}.
function keptBoard(key) {
  try {
    const kept = JSON.parse(localStorage.getItem("board"));
    return kept && kept.game === key ? kept : null;
  } catch { return null; }
}

function remember(view) {
  localStorage.setItem("lastGame", view.game);
  const p = preset(view.game);
  if (p && JSON.stringify(view.board_params) !== JSON.stringify(p.params)) {
    const board = `${view.rows.length}×${view.rows[0].length}`;
    localStorage.setItem("board", JSON.stringify({game: view.game, params: view.board_params, board}));
  }
}

// The kept board of the chosen game where the person plays it again, else null.
function keptChosen() { return $("board-choice").value === "kept" ? keptBoard(preset().key) : null; }

// The choice of a kept board where there is one; its parameters' fields only for a new board.
function showKeptBoard() {
  const kept = keptBoard(preset().key);
  $("board-choice-box").hidden = !kept;
  if (kept) $("board-choice").options[0].textContent = `This board again (${kept.board})`;
  $("params").hidden = Boolean(keptChosen());
}

function fillSetup() {
  const p = preset();
  $("params").replaceChildren(...p.fields.map((field) => {
    const label = document.createElement("label");
    label.className = field.kind;
    let input;
    if (field.kind === "check") {
      input = Object.assign(document.createElement("input"), {type: "checkbox", checked: field.value});
      label.append(input, ` ${field.label}`);
    } else if (field.kind === "text") {
      input = Object.assign(document.createElement("input"), {type: "text", value: field.value, spellcheck: false});
      label.append(`${field.label} `, input);
    } else {
      input = document.createElement("select");
      input.append(...field.choices.map((c, k) => new Option(c.label, k, false,
                                                                JSON.stringify(c.value) === JSON.stringify(field.value))));
      label.append(`${field.label} `, input);
    }
    input.dataset.param = field.key;
    return label;
  }));
  $("simulations").value = p.simulations;
  return updateChoices();
}

function chosenParams() {
  const p = preset(), kept = keptChosen();
  if (kept) return kept.params;
  const params = {...p.params};
  for (const field of p.fields) {
    const input = $("params").querySelector(`[data-param="${field.key}"]`);
    params[field.key] = field.kind === "check" ? input.checked
      : field.kind === "text" ? input.value.trim() : field.choices[Number(input.value)].value;
  }
  return params;
}

async function updateChoices() {
  const p = preset(), ask = ++page.choicesAsked;
  showKeptBoard();
  let c;
  try { c = await api("/api/choices", {game: p.key, params: chosenParams()}); }
  catch (error) { if (ask === page.choicesAsked) { $("form-error").textContent = error.message; } return; }
  if (ask !== page.choicesAsked) return;
  $("form-error").textContent = "";
  // a kept board was drawn by the game's rules: the game's words, not that one board's
  // (unless its parameters name another game: OpenSpiel's)
  const words = keptChosen() && c.name === p.name ? p : c;
  $("game").selectedOptions[0].textContent = listName(words);
  $("variant").textContent = words.variant ? `${words.variant[0].toUpperCase()}${words.variant.slice(1)}.` : "";
  $("rules").textContent = words.rules;
  const was = $("network").value, networks = [];
  if (c.shipped) networks.push(["shipped", "Shipped network", c.shipped]);
  networks.push(["pure", "Pure MCTS (no network)", "Tree search with random playouts"]);
  for (const path of c.checkpoints) networks.push([path, path.split("/").slice(-2).join("/"), path]);
  $("network").replaceChildren(...networks.map(([value, text, title]) => Object.assign(new Option(text, value), {title})));
  if (networks.some(([value]) => value === was)) $("network").value = was;
  const [first, second] = c.colours;
  const seats = {first: `${first} (moves first)`, second: `${second} (moves second)`};
  for (const option of $("colour").options) if (seats[option.value]) option.textContent = seats[option.value];
}

async function newGame(event) {
  if (event) event.preventDefault();
  const body = {game: $("game").value, params: chosenParams(), network: $("network").value,
                colour: $("colour").value, simulations: strength(), moves: $("setup-moves").value};
  const done = await withBusy("Loading the network…", async () => {
    show(await api("/api/games", body));
    remember(page.game);
    await updateChoices();  // the board just drawn is now the one kept
  });
  if (done) await afterChange();
}

function strength() { return Number($("simulations").value); }

// --- playing ------------------------------------------------------------------------------
function show(view) {
  say("");
  if (view.id && view.id !== page.id) { page.id = view.id; sessionStorage.setItem("gameId", view.id); }
  if (page.viewing && page.viewing.ply >= view.moves.length) page.viewing = null;
  page.game = view;
  page.thought = null;
  page.picked = null;
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
  if (wantsAnalysis() && page.game.status === "ongoing" && !page.game.replay) await analyse();
}

function actionForCell(cell) {
  const g = page.game, cols = g.rows[0].length;
  for (const [action, target] of Object.entries(g.targets)) {
    if (target === cell || (g.column_moves && target % cols === cell % cols)) return Number(action);
  }
  return null;
}

// Every click that plays nothing says why.
async function clickCell(cell) {
  const g = page.game;
  if (!g) return;
  if (page.busy) { say("Wait for the agent to finish thinking."); return; }
  if (g.replay) { say("This game is one the training run played: step through it with ← and → or the move list."); return; }
  if (page.viewing) { say(`The board shows move ${page.viewing.ply}: go back to the game to play.`); return; }
  if (g.status !== "ongoing") { say("The game is over: start a new game, or undo."); return; }
  if (!g.humans.includes(g.to_move)) { say("It is the agent's turn."); return; }
  const buttons = Object.values(g.buttons);
  if (buttons.length && !Object.keys(g.targets).length) { say(`You have no move on the board: ${buttons.join(" or ")}.`); return; }
  if (Object.keys(g.origins).length) { await pickOrMove(cell); return; }
  const action = g.refusals[cell] ? null : actionForCell(cell);
  if (action === null) { say(g.refusals[cell] || "That is not a legal move here."); return; }
  await play(action);
}

// A game of moving pieces: a click on a piece that can move picks it (its targets are
// hinted), a click on one of its targets plays that move, a click elsewhere drops the pick.
async function pickOrMove(cell) {
  const move = movesOf(page.game, page.picked).find(([, to]) => to === cell);
  if (move) { await play(move[0]); return; }
  const picks = page.picked === null || cell !== page.picked;
  if (movesOf(page.game, cell).length && picks) { page.picked = cell; say(""); }
  else if (page.picked !== null) { page.picked = null; say(""); }
  else say(page.game.refusals[cell]);
  draw();
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

// --- stepping through the game -----------------------------------------------------------
function shownPly() { return page.viewing ? page.viewing.ply : page.game.moves.length; }

// Show the position after `ply` moves; the game's own position ends the viewing.
async function viewPly(ply) {
  const g = page.game;
  if (!g) return;
  ply = Math.max(0, Math.min(ply, g.moves.length));
  const ask = ++page.asked;
  if (ply === g.moves.length) { page.viewing = null; say(""); draw(); return; }
  try {
    const position = await api(`/api/games/${page.id}/positions/${ply}`);
    if (ask === page.asked) { page.viewing = position; say(""); draw(); }
  } catch (error) { say(error.message); }
}
const pickPly = settles(viewPly);

function stepKeys(event) {
  if (!page.game || event.target.closest("input, textarea, select")) return;
  const ply = shownPly(), to = {ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: page.game.moves.length}[event.key];
  if (to === undefined) return;
  event.preventDefault();
  return viewPly(to);
}

// --- a training run's games ---------------------------------------------------------------
async function loadRun() {
  try {
    const data = await api("/api/run/games");
    $("run-name").textContent = data.run;
    drawRunGames($("run-games").tBodies[0], data.games, (game) => resultWords(game.result, preset(game.game)),
                 settles(openRunGame));
  } catch (error) { say(error.message); }
}

function resultWords(result, p) {
  const colours = p ? p.colours : ["Black", "White"];
  return {"black won": `${colours[0]} won`, "white won": `${colours[1]} won`, draw: "Draw"}[result] || result;
}

async function openRunGame(index) {
  const done = await withBusy("Opening the game…", async () => {
    page.viewing = null;
    show(await api(`/api/run/games/${index}`, {}));
  });
  if (done) await viewPly(0);
}

function showTab(name) {
  $("setup").hidden = name !== "setup";
  $("run").hidden = name !== "run";
  $("tab-setup").classList.toggle("on", name === "setup");
  $("tab-run").classList.toggle("on", name === "run");
  if (name === "run") return loadRun();
}

// --- analysis -----------------------------------------------------------------------------
function wantsAnalysis() {
  return ["show-value", "show-heat", "show-line"].some((id) => $(id).checked);
}

async function analyse() {
  if (!page.game || page.game.status !== "ongoing") { say("The game is over: there is nothing to analyse."); return; }
  await withBusy("Analysing…", async () => {
    page.thought = await api(`/api/games/${page.id}/analyse`, {simulations: strength()});
    say("");
    draw();
  });
}

async function toggleAnalysis() {
  const g = page.game;
  if (wantsAnalysis() && !page.thought && g && g.status === "ongoing" && !g.replay && !page.busy) await analyse();
  else draw();
}

// --- drawing ------------------------------------------------------------------------------
function draw() {
  const g = page.game;
  if (!g) return;
  const shown = page.viewing || g, live = !page.viewing;
  // the look follows the board's style and the sides' colours, never a game's name
  document.body.dataset.style = g.board_style;
  [document.body.dataset.first, document.body.dataset.second] = g.colours.map((c) => c.toLowerCase());
  const board = g.board ? g.title : `${g.title} · ${g.rows.length}×${g.rows[0].length}`;
  $("agent-name").textContent = g.replay
    ? `${board} · game ${g.replay.index}, played by ${g.agent}`
    : `${board} · agent: ${g.agent}`;
  const animate = page.drawn !== null && page.drawn.id === page.id && shown.ply === page.drawn.ply + 1;
  page.drawn = {id: page.id, ply: shown.ply};
  const line = live && page.thought ? expectedLine(g, page.thought) : null;
  drawBoard($("board"), shown, g, {
    hints: live && $("show-hints").checked && humanTurn(g), animate, picked: live ? page.picked : null,
    thought: live ? page.thought : null, heat: $("show-heat").checked, line: $("show-line").checked && line});
  drawStatus(g, shown, live);
  drawControls(g);
  drawMoves($("moves-head"), $("moves"), g.moves, g.colours, shown.ply, pickPly);
  drawThought(live);
  $("graph-box").hidden = !(g.replay && g.replay.values.length);
  if (g.replay) drawGraph($("graph"), g.replay.values, finalValue(g), shown.ply, pickPly, (ply) => moveName(g, ply + 1));
}

function humanTurn(g) { return g.status === "ongoing" && g.humans.includes(g.to_move) && !g.replay; }

function finalValue(g) { return {"black won": 1, "white won": -1, draw: 0}[g.status] ?? null; }

function drawStatus(g, shown, live) {
  for (const side of [0, 1]) {
    const chip = $(`player-${side}`);
    let role = "";
    if (!g.replay && g.humans.length === 1) role = g.humans.includes(side) ? " (you)" : " (agent)";
    chip.querySelector(".name").textContent = g.colours[side] + role;
    chip.querySelector(".count").textContent = shown.counts[side];
    chip.classList.toggle("to-move", shown.to_move === side);
  }
  let turn = "";
  if (!shown.result) {
    turn = `${g.colours[shown.to_move]} to move`;
    if (shown.turn_stone) turn += `: stone ${shown.turn_stone[0]} of ${shown.turn_stone[1]}`;
  }
  if (!live || g.replay) {
    const rounds = roundNumbers(g.moves.map((m) => m.mover));
    const last = rounds.at(-1) ?? 0;
    turn = (shown.ply ? `${moveName(g, shown.ply)} of ${last}` : `The start (${last} moves)`) + (turn ? ` · ${turn}` : "");
  }
  $("turn").textContent = turn;
  $("result").textContent = shown.result || "";
  $("result").hidden = !shown.result;
  const pass = Object.values(g.buttons);
  if (live && humanTurn(g) && pass.length && !Object.keys(g.targets).length) {
    say(`You have no move on the board and must ${pass.join(" or ")}.`);
  }
}

// The `ply`-th move in words, numbered by rounds as the move list is: "White's move 4";
// past the last move, "The result".
function moveName(g, ply) {
  if (ply > g.moves.length) return "The result";
  const round = roundNumbers(g.moves.slice(0, ply).map((m) => m.mover)).at(-1);
  return `${g.colours[g.moves[ply - 1].mover]}'s move ${round}`;
}

function drawControls(g) {
  const live = !page.viewing, ply = shownPly();
  $("first").disabled = $("prev").disabled = ply === 0;
  $("next").disabled = $("last").disabled = ply === g.moves.length;
  $("back").hidden = live || Boolean(g.replay);
  const pass = Object.entries(g.buttons);
  $("pass").hidden = !(live && humanTurn(g) && pass.length);
  if (pass.length) { $("pass").textContent = pass[0][1]; $("pass").dataset.action = pass[0][0]; }
  $("undo").hidden = Boolean(g.replay);
  $("undo").disabled = page.busy || !live || !g.can_undo;
  $("agent-move").hidden = g.humans.length !== 2 || Boolean(g.replay);
  $("agent-move").disabled = page.busy || !live || g.status !== "ongoing";
  $("insight").hidden = Boolean(g.replay);
}

function drawThought(live) {
  const t = live ? page.thought : null, g = page.game;
  $("value").hidden = !(t && $("show-value").checked);
  $("line").hidden = !(t && $("show-line").checked);
  if (!t) return;
  const first = Math.round(50 * (t.value_black + 1)), [one, two] = g.colours;
  $("value-black").style.width = `${first}%`;
  $("value-text").textContent = `${one} ${first}% · ${two} ${100 - first}%`;
  $("value-detail").textContent = `value ${t.value_black >= 0 ? "+" : ""}${t.value_black.toFixed(2)} for ${one} · ${t.visits} visits`;
  const span = (className, text) => Object.assign(document.createElement("span"), {className, textContent: text});
  const turns = [];
  for (const stone of expectedLine(g, t)) {
    const turn = turns.at(-1);
    if (turn && turn.mover === stone.mover && turn.round === stone.round) turn.moves.push(stone.move);
    else turns.push({...stone, moves: [stone.move]});
  }
  // numbered as the move list: a round's number before its first side's turn, "N…" where
  // the line starts with the second side's
  $("line").replaceChildren(span("head", "Expected line:"), ...turns.map((turn, k) => {
    const number = turn.mover === 0 ? `${turn.round}.` : k === 0 ? `${turn.round}…` : "";
    const chip = span(`turn ${turn.mover ? "white" : "black"}`, "");
    chip.append(span("number", number), span("swatch " + (turn.mover ? "white" : "black"), ""), span("", turn.moves.join(" ")));
    return chip;
  }));
}

// The principal variation's stones, each with its round number continuing the game's.
function expectedLine(g, t) {
  const movers = [...g.moves.map((m) => m.mover), ...t.line_movers];
  const rounds = roundNumbers(movers).slice(g.moves.length);
  return t.line.map((move, k) => ({move, mover: t.line_movers[k], round: rounds[k], cell: t.line_cells[k]}));
}

// --- start --------------------------------------------------------------------------------
async function start() {
  page.options = await api("/api/options");
  $("game").replaceChildren(...page.options.games.map((g) => new Option(listName(g), g.key)));
  $("simulations").max = page.options.max_simulations;
  const on = (target, event, handler) => target.addEventListener(event, settles(handler));
  on($("game"), "change", fillSetup);
  on($("params"), "change", updateChoices);
  on($("board-choice"), "change", updateChoices);
  on($("setup"), "submit", newGame);
  // the browser's own refusal of a field (a number out of range) replaces any older message
  $("setup").addEventListener("invalid", () => say(""), true);
  on($("undo"), "click", undo);
  on($("pass"), "click", () => play(Number($("pass").dataset.action)));
  on($("agent-move"), "click", agentMove);
  on($("analyse"), "click", analyse);
  on($("board"), "click", (event) => {
    const cell = event.target.closest(".cell");
    return cell && clickCell(Number(cell.dataset.cell));
  });
  on($("first"), "click", () => viewPly(0));
  on($("prev"), "click", () => viewPly(shownPly() - 1));
  on($("next"), "click", () => viewPly(shownPly() + 1));
  on($("last"), "click", () => viewPly(page.game.moves.length));
  on($("back"), "click", () => viewPly(page.game.moves.length));
  on(document, "keydown", stepKeys);
  for (const id of ["show-value", "show-heat", "show-line", "show-hints"]) on($(id), "change", toggleAnalysis);
  if (page.options.run) {
    $("tabs").hidden = false;
    on($("tab-setup"), "click", () => showTab("setup"));
    on($("tab-run"), "click", () => showTab("run"));
    on($("run-reload"), "click", loadRun);
  }
  // the game last played in this browser, else the one people know
  $("game").value = preset(localStorage.getItem("lastGame")) ? localStorage.getItem("lastGame") : page.options.first;
  if (page.id) {
    try {
      show(await api(`/api/games/${page.id}`));
      if (preset(page.game.game)) $("game").value = page.game.game;
      await fillSetup();
      return;
    }
    catch { sessionStorage.removeItem("gameId"); }
  }
  await fillSetup();
  await newGame();
}

settles(start)().catch((error) => say(`The page could not start: ${error.message}`));
