// A training game's value graph: the search's value before each move, for the first
// player (above the middle line: it expected to win), ending at the game's result, with the
// shown position marked. A click shows the position there.

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 300, HEIGHT = 100, MARGIN = 6;

function shape(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

// `values`: one per position before a move; `final`: the result for the first player (1, 0,
// -1) or null while the game goes on; `shown`: the position on the board.
export function drawGraph(svg, values, final, shown, pick) {
  const points = final === null ? values : [...values, final];
  const last = Math.max(points.length - 1, 1);
  const x = (ply) => MARGIN + (WIDTH - 2 * MARGIN) * ply / last;
  const y = (value) => HEIGHT / 2 - (HEIGHT / 2 - MARGIN) * value;
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  const line = points.map((v, ply) => `${x(ply).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const marked = Math.min(shown, points.length - 1);
  svg.replaceChildren(
    shape("line", {x1: MARGIN, x2: WIDTH - MARGIN, y1: HEIGHT / 2, y2: HEIGHT / 2, class: "axis"}),
    shape("polyline", {points: line, class: "values"}),
    shape("line", {x1: x(shown), x2: x(shown), y1: 0, y2: HEIGHT, class: "now"}),
    shape("circle", {cx: x(marked), cy: y(points[marked] ?? 0), r: 3, class: "now"}));
  svg.onclick = (event) => {
    const at = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
    pick(Math.max(0, Math.min(Math.round((at.x - MARGIN) / (WIDTH - 2 * MARGIN) * last), points.length - 1)));
  };
}
