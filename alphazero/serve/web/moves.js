// The move list: numbered rounds of one turn per side (a Connect6 turn is its two stones; an
// Othello pass is a move) under a head naming the sides, each move a button that shows the
// position after it, the shown one highlighted and kept in sight.

const el = (tag, className, text) => Object.assign(document.createElement(tag), {className, textContent: text ?? ""});

// The number of the round each move belongs to, from its movers (0 first, 1 second): a
// round is the first side's turn and the second's (a Connect6 turn's two stones are one
// turn). The move list, the replay's "Move N of M" and the expected line all count so.
export function roundNumbers(movers) {
  let round = 0;
  return movers.map((mover, i) => {
    if ((i === 0 || movers[i - 1] !== mover) && (mover === 0 || round === 0)) round += 1;
    return round;
  });
}

// `moves`: [{text, mover}] in order; `shown`: how many of them the board shows;
// `pick(ply)`: show the position after `ply` moves.
export function drawMoves(head, list, moves, colours, shown, pick) {
  head.replaceChildren(el("span", "number"), el("span", "turn", colours[0]), el("span", "turn", colours[1]));
  const rounds = [], numbers = roundNumbers(moves.map((move) => move.mover));
  let round = null, turn = null;
  moves.forEach((move, i) => {
    const newTurn = i === 0 || moves[i - 1].mover !== move.mover;
    if (numbers[i] > rounds.length) {
      round = el("div", "round");
      round.append(el("span", "number", `${numbers[i]}.`), el("span", "turn"), el("span", "turn"));
      rounds.push(round);
    }
    if (newTurn) turn = round.children[1 + move.mover];
    const button = el("button", `ply ${move.mover ? "white" : "black"}`, move.text);
    button.type = "button";
    button.dataset.ply = i + 1;
    if (i + 1 === shown) button.classList.add("current");
    button.addEventListener("click", () => pick(i + 1));
    turn.append(button);
  });
  list.replaceChildren(...rounds);
  keepInSight(list);
  if (!watched.has(list)) { watched.add(list); new ResizeObserver(() => keepInSight(list)).observe(list); }
}

const watched = new WeakSet();  // lists that keep their shown move in sight as they resize

// Scroll the list alone (scrollIntoView would scroll the page too) to show the shown move.
function keepInSight(list) {
  const item = list.querySelector(".current");
  if (!item) return;
  const box = list.getBoundingClientRect(), at = item.getBoundingClientRect();
  if (at.top < box.top) list.scrollTop -= box.top - at.top;
  else if (at.bottom > box.bottom) list.scrollTop += at.bottom - box.bottom;
}
