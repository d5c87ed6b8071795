// Drawing one position on the board: the cells the server describes (rows of . X O #), the
// coordinates around them in the game's notation, the marks of the last turn (and the cells
// its moved pieces left), the winning line and the turned discs, and on the live position the
// hints, the piece picked in a game of moving pieces and the agent's analysis.
// The board is a CSS grid whose cell size style.css derives from the space it is given.

const el = (tag, className, text) => Object.assign(document.createElement(tag), {className, textContent: text ?? ""});

// `position`: what to draw (rows, coordinates, last_cells, win_line, turned);
// `game`: the game's live view (game_name, column_moves, targets, origins);
// `show`: {hints, animate (the position follows the one drawn before by one move),
//          picked (the cell of the piece picked to move, or null),
//          thought (an analysis of this position, or null), heat (bool), line (the expected
//          line's stones [{cell, mover, round}], or null)}.
export function drawBoard(board, position, game, show) {
  const rows = position.rows.length, cols = position.rows[0].length, coords = position.coordinates;
  board.dataset.style = game.board_style;
  const sides = {
    top: coords.columns_at === "top" && coords.columns.length > 0,
    bottom: coords.columns_at === "bottom" && coords.columns.length > 0,
    left: coords.rows_at === "left" && coords.rows.length > 0,
    right: coords.rows_at === "right" && coords.rows.length > 0,
  };
  board.style.setProperty("--rows", rows);
  board.style.setProperty("--cols", cols);
  for (const [side, on] of Object.entries(sides)) board.style.setProperty(`--label-${side}`, on ? 1 : 0);
  const last = new Set(position.last_cells), win = new Set(position.win_line), turned = new Set(position.turned);
  const left = new Set(position.left_cells);
  // a game of moving pieces hints the pieces that can move, and once one is picked where it goes
  const moving = Object.keys(game.origins).length > 0;
  const starts = new Set(Object.values(game.origins));
  const legal = new Set(moving ? movesOf(game, show.picked).map(([, to]) => to) : Object.values(game.targets));
  const empties = position.rows.join("").split("").filter((c) => c === ".").length;
  const hints = show.hints && (moving || legal.size < empties);  // where every empty cell is legal, dots say nothing
  const items = [];
  position.rows.join("").split("").forEach((mark, i) => {
    const row = Math.floor(i / cols), col = i % cols;
    const cell = el("div", "cell");
    cell.dataset.cell = i;
    cell.style.gridArea = `${row + 2} / ${col + 2}`;
    if (row === 0) cell.classList.add("top");
    if (row === rows - 1) cell.classList.add("bottom");
    if (col === 0) cell.classList.add("left");
    if (col === cols - 1) cell.classList.add("right");
    if ((row + col) % 2) cell.classList.add("dark");  // a chequered board's dark squares
    if (mark === "#") cell.classList.add("blocked");
    if (win.has(i)) cell.classList.add("win");
    if (left.has(i)) cell.classList.add("moved-from");
    if (i === show.picked) cell.classList.add("picked");
    else if (hints && show.picked === null && starts.has(i)) cell.classList.add("movable");
    if (mark === "X" || mark === "O") {
      const stone = el("div", `stone ${mark === "X" ? "black" : "white"}`);
      if (last.has(i)) stone.classList.add("last");
      if (show.animate && last.has(i) && game.column_moves) {
        stone.classList.add("drop");
        stone.style.setProperty("--fall", row + 1);
      }
      if (show.animate && turned.has(i)) stone.classList.add("flip");
      cell.append(stone);
      if (hints && legal.has(i)) cell.append(el("div", "hint capture"));  // a piece taken there
    } else if (hints && legal.has(i)) {
      cell.append(el("div", "hint"));
    }
    items.push(cell);
  });
  items.push(...labels(coords, sides, rows, cols));
  board.replaceChildren(...items);
  if (show.thought) drawThought(board, show.thought, show);
}

// The legal moves of the piece on cell `from` as [action, to] (none for null): the actions
// whose origin it is.
export function movesOf(game, from) {
  return Object.entries(game.origins).filter(([, cell]) => cell === from)
    .map(([action]) => [Number(action), game.targets[action]]);
}

function labels(coords, sides, rows, cols) {
  const made = [];
  const put = (text, row, col) => {
    const label = el("div", "label", text);
    label.style.gridArea = `${row} / ${col}`;
    made.push(label);
  };
  coords.columns.forEach((text, c) => put(text, sides.top ? 1 : rows + 2, c + 2));
  coords.rows.forEach((text, r) => put(text, r + 2, sides.left ? 1 : cols + 2));
  return made;
}

// The heat map (each move's share of the root's visits, its percentage along the cell's top)
// and the principal variation (ghost stones numbered by round, below the percentage where a
// cell has both: style.css keeps them apart). In a game of moving pieces a cell's heat is the
// share of the moves to it: of every piece, or of the piece picked.
function drawThought(board, t, show) {
  const cellOf = (cell) => (cell === null || cell === undefined ? null : board.querySelector(`[data-cell="${cell}"]`));
  if (show.heat) {
    const onCell = new Map();
    for (const [action, share] of Object.entries(t.shares)) {
      if (show.picked !== null && t.origins[action] !== show.picked) continue;
      onCell.set(t.targets[action], (onCell.get(t.targets[action]) || 0) + share);
    }
    const top = Math.max(...onCell.values());
    for (const [target, share] of onCell) {
      const cell = cellOf(target);
      if (!cell) continue;
      const heat = el("div", "heat");
      heat.style.setProperty("--heat", (share / top).toFixed(3));
      if (share >= 0.01) heat.append(el("span", "share", `${Math.round(100 * share)}`));
      cell.append(heat);
    }
  }
  if (show.line) {
    for (const stone of show.line) {
      const target = cellOf(stone.cell);
      if (!target || target.querySelector(".stone, .ghost")) continue;
      target.append(el("div", `ghost ${stone.mover ? "white" : "black"}`, stone.round));
    }
  }
}
