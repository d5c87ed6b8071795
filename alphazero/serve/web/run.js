// A training run's kept self-play games (python -m alphazero.serve run=FOLDER): the list,
// newest first, each row opening its game on the board to be stepped through.

const el = (tag, className, text) => Object.assign(document.createElement(tag), {className, textContent: text ?? ""});

// `games`: [{index, network, game, result, length}] oldest first; `says(game)`: its result
// in the pieces' colours; `open(index)`: show that game.
export function drawRunGames(body, games, says, open) {
  body.replaceChildren(...games.slice().reverse().map((game) => {
    const row = el("tr");
    row.dataset.index = game.index;
    row.tabIndex = 0;
    row.append(el("td", "", `${game.index}`), el("td", "", `${game.network}`),
               el("td", "", says(game)), el("td", "", `${game.length}`));
    row.addEventListener("click", () => open(game.index));
    row.addEventListener("keydown", (event) => { if (event.key === "Enter") open(game.index); });
    return row;
  }));
}
