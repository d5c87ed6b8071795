// A training game's value graph: the search's value before each move, for the first
// player (+1 a sure win, 0 even, -1 a sure loss, labelled on its axis), ending at the
// game's result, with the shown position marked. Pointing at it reads the value of the
// move under the pointer; a click shows the position there.

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 300, HEIGHT = 140, LEFT = 26, RIGHT = 6, TOP = 20, BOTTOM = 18;

function shape(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

// `values`: one per position before a move; `final`: the result for the first player (1, 0,
// -1) or null while the game goes on; `shown`: the position on the board; `name(ply)`: the
// move played from position `ply` in words ("Move 4, White"), or the end's.
export function drawGraph(svg, values, final, shown, pick, name) {
  const points = final === null ? values : [...values, final];
  const last = Math.max(points.length - 1, 1);
  const x = (ply) => LEFT + (WIDTH - LEFT - RIGHT) * ply / last;
  const y = (value) => TOP + (HEIGHT - TOP - BOTTOM) * (1 - value) / 2;
  const plyAt = (event) => {
    const at = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
    return Math.max(0, Math.min(Math.round((at.x - LEFT) / (WIDTH - LEFT - RIGHT) * last), points.length - 1));
  };
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  const line = points.map((v, ply) => `${x(ply).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const marked = Math.min(shown, points.length - 1);
  const scale = [[1, "+1"], [0, "0"], [-1, "−1"]].map(([value, text]) =>
    shape("text", {x: LEFT - 4, y: y(value) + 4, "text-anchor": "end", class: "scale"}, text));
  const hover = shape("line", {x1: 0, x2: 0, y1: TOP, y2: HEIGHT - BOTTOM, class: "hover", visibility: "hidden"});
  const reading = shape("text", {x: WIDTH - RIGHT, y: 14, "text-anchor": "end", class: "reading"}, "");
  svg.replaceChildren(
    shape("line", {x1: LEFT, x2: LEFT, y1: TOP, y2: HEIGHT - BOTTOM, class: "frame"}),
    shape("line", {x1: LEFT, x2: WIDTH - RIGHT, y1: y(0), y2: y(0), class: "axis"}),
    ...scale,
    shape("text", {x: LEFT, y: HEIGHT - 3, "text-anchor": "start"}, "start"),
    shape("text", {x: WIDTH - RIGHT, y: HEIGHT - 3, "text-anchor": "end"}, final === null ? "now" : "end"),
    shape("polyline", {points: line, class: "values"}),
    shape("line", {x1: x(shown), x2: x(shown), y1: TOP, y2: HEIGHT - BOTTOM, class: "now"}),
    shape("circle", {cx: x(marked), cy: y(points[marked] ?? 0), r: 3, class: "now"}),
    hover, reading);
  svg.onmousemove = (event) => {
    const ply = plyAt(event), value = points[ply];
    hover.setAttribute("x1", x(ply));
    hover.setAttribute("x2", x(ply));
    hover.setAttribute("visibility", "visible");
    reading.textContent = `${name(ply)}: ${value >= 0 ? "+" : "−"}${Math.abs(value).toFixed(2)}`;
  };
  svg.onmouseleave = () => { hover.setAttribute("visibility", "hidden"); reading.textContent = ""; };
  svg.onclick = (event) => pick(plyAt(event));
}
