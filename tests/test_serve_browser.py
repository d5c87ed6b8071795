"""The web board in a real browser: headless Chromium (Debian's chromium and chromium-driver)
driven by Selenium. Every board size fits three windows (a desktop, a short laptop window, a
phone) with every cell clickable and its coordinates in the game's notation; games of each
kind are played to the end (Connect6's two stones a turn, an Othello pass, Connect-4's
falling discs and forbidden cell, undo, the analysis views; a Breakthrough piece moved by two
clicks); refused clicks say why; the
move list steps back through a game; a training run's kept games are replayed with their
values."""
import json
import shutil
import tempfile
import threading
import time

import numpy as np
import pytest
import uvicorn
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from alphazero.config.presets import named_game
from alphazero.serve.__main__ import listen
from alphazero.serve.app import create_app
from alphazero.serve.board_view import board_view
from games.core.board_text import read_board
from alphazero.train import game_log
from games import FIRST_WON, ONGOING, SECOND_WON
from helpers import needs_openspiel

pytestmark = pytest.mark.integration  # a server and a browser

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000"]
WINDOWS = [(1400, 857), (1280, 577), (390, 844)]  # a desktop, a short laptop window, a phone
OTHELLO_PASS = "d3 c3 e6 d2 d1 e1 b3 c1"  # classic Othello: black has no move after these
# 40 moves of a course Othello game (random play), so the test plays its last 20 or so
OTHELLO_COURSE = ("c3 f3 e2 d7 b4 b2 f5 c5 g3 d1 d4 g5 g7 f2 d3 h4 f6 e4 g4 d2 e5 e6 e3 a5 f4 c6 "
                  "c2 g2 g1 c1 g6 f7 b3 h2 c7 a3 b7 h6 d5 e7")
# Connect6: black has A1-D1 and plays two stones next
CONNECT6_WIN_NEXT = "A1 A10 C10 B1 C1 E10 G10 D1 J5 A8 C8"
# Each board size once, every game won by a line where it can be, with its set-up key=values
BOARDS = [
    ("gomoku", {"size": 19}, "A1 A19 B1 B19 C1 C19 D1 D19 E1"),
    ("gomoku", {"size": 5}, "A1 A5 B1 B5 C1 C5 D1 D5 E1"),
    ("connect6", {"size": 10}, CONNECT6_WIN_NEXT + " E1 F1"),
    ("connect4", {"rows": 12, "cols": 12, "forbidden": [11, 5]}, "1 2 1 2 1 2 1"),
    ("connect4_classic", {}, "4 4 3 3 2 2 1"),
]
# The set-up form filled in as a person would: the game, then its parameters' choices (or
# text, where the game asks for text), or, for a board the form offers no choice for (a given forbidden cell), that board kept from
# an earlier game ("This board again"); waits for each change to settle; answers the game's
# id before the new one
SET_UP = """
return (async () => {
const [game, params, network, colour, simulations, moves] = arguments, $ = (id) => document.getElementById(id);
const settled = async () => { while (page.working) await new Promise((done) => setTimeout(done, 10)); };
const offered = page.options.games.find((g) => g.key === game);
const pick = (key, value) => {  // the field's value, or -1 where it has no such choice
  const field = offered.fields.find((f) => f.key === key);
  if (field && field.kind === 'text') return value;
  return field ? field.choices.findIndex((c) => JSON.stringify(c.value) === JSON.stringify(value)) : -1;
};
const kept = Object.entries(params).some(([key, value]) => pick(key, value) === -1);
if (kept) localStorage.setItem('board', JSON.stringify({game, params: {...offered.params, ...params}, board: 'kept'}));
else localStorage.removeItem('board');
$('game').value = game;
$('game').dispatchEvent(new Event('change'));
await settled();
if (kept) {
  $('board-choice').value = 'kept';
  $('board-choice').dispatchEvent(new Event('change'));
}
for (const [key, value] of kept ? [] : Object.entries(params)) {
  const input = document.querySelector(`[data-param='${key}']`);
  input.value = pick(key, value);
  input.dispatchEvent(new Event('change', {bubbles: true}));
}
await settled();
$('network').value = network;
$('colour').value = colour;
if ($('network').value !== network || $('colour').value !== colour) throw new Error('no such choice');
$('simulations').value = simulations;
$('setup-moves').value = moves;
const previous = page.id;
$('new-game').click();
return previous;
})();
"""
# Where each of the page's boards is inside the window, and whether a click at each cell's
# centre reaches that cell
GEOMETRY = """
const centre = (box) => [box.left + box.width / 2, box.top + box.height / 2];
const cells = [...document.querySelectorAll('#board .cell')], moves = document.getElementById('moves');
const board = document.getElementById('board').getBoundingClientRect();
const current = moves.querySelector('.current'), list = moves.getBoundingClientRect();
return {
  window: [innerWidth, innerHeight],
  board: [board.left, board.top, board.right, board.bottom],
  page: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
  missed: cells.filter((c) => document.elementFromPoint(...centre(c.getBoundingClientRect())) !== c)
    .map((c) => c.dataset.cell),
  smallest: Math.min(...cells.map((c) => c.getBoundingClientRect().width)),
  labels: [...document.querySelectorAll('#board .label')].map((l) => [l.textContent,
    Number(getComputedStyle(l).gridRowStart), Number(getComputedStyle(l).gridColumnStart)]),
  last: [...document.querySelectorAll('#board .stone.last')].map((s) => s.parentNode.dataset.cell),
  win: [...document.querySelectorAll('#board .cell.win')].map((c) => c.dataset.cell),
  list_scrolls: moves.scrollHeight > moves.clientHeight,
  current_in_list: current !== null && current.getBoundingClientRect().top >= list.top - 1
    && current.getBoundingClientRect().bottom <= list.bottom + 1,  // scrolled to whole pixels
};
"""
# What a person must see whole at every window size: a "New game" button and the board's
# controls inside the window without scrolling; no text cut (wider than its box); every
# choice of every select of the form narrower than its box (less its arrow); no room kept
# for an empty message; and the coordinates' smallest font
FITS = """
const shown = (el) => el.getClientRects().length > 0;
const inside = (el) => { const b = el.getBoundingClientRect();
  return b.left >= 0 && b.top >= 0 && b.right <= innerWidth + 0.5 && b.bottom <= innerHeight + 0.5; };
const newGame = ['new-game', 'new-game-here'].map((id) => document.getElementById(id)).filter(shown);
const controls = [...document.querySelectorAll('#controls button')].filter(shown);
const texts = [...document.querySelectorAll('#status-line > span, #agent-name, #value-text, #value-detail, #line, '
  + '#controls button, #setup label, #views label, .note, #turn, #result')].filter(shown);
const measure = document.createElement('canvas').getContext('2d');
const wide = [...document.querySelectorAll('#setup select')].filter(shown).flatMap((select) => {
  const style = getComputedStyle(select);
  measure.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
  return [...select.options].map((o) => o.textContent).filter((text) => measure.measureText(text).width > room);
});
const message = document.getElementById('message');
return {
  new_game: newGame.length > 0 && newGame.some(inside), controls: controls.length > 0 && controls.every(inside),
  cut: texts.filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.id || el.textContent),
  wide, empty_message: message.textContent ? 0 : message.getBoundingClientRect().height,
  label_px: Math.min(...[...document.querySelectorAll('#board .label')].map((l) => parseFloat(getComputedStyle(l).fontSize))),
};
"""
# The contrast ratio of two CSS colours (WCAG's: 4.5 is enough for text)
CONTRAST = """
const rgb = (text) => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
const light = (colour) => {
  const [r, g, b] = rgb(colour).map((v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const ratio = (a, b) => { const [x, y] = [light(a), light(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
"""


def random_game(key: str, seed: int, **params) -> tuple[list[str], int]:
    """A game of random moves to its end: its moves in notation and its final status."""
    game, rng = named_game(key, **params), np.random.default_rng(seed)
    state, moves = game.new_state(rng), []
    while game.status(state) == ONGOING:
        action = int(rng.choice(game.legal_list(state)))
        moves.append(game.format_move(state, action))
        game.play(state, action)
    return moves, game.status(state)


OTHELLO_GAME = random_game("othello", 1)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A training run's folder with two kept games, as the training loop keeps them: a course
    Othello game and a course Connect-4 game on the board drawn for it."""
    folder = tmp_path_factory.mktemp("run")
    drawn = {"rows": 9, "cols": 10, "forbidden": [4, 4]}
    kept = []
    for index, (key, params, (moves, status)) in enumerate([
            ("othello", {"rules": "course"}, OTHELLO_GAME),
            ("connect4", drawn, random_game("connect4", 2, **drawn))]):
        values = np.random.default_rng(index).uniform(-1, 1, len(moves)).round(3).tolist()
        result = {FIRST_WON: "black won", SECOND_WON: "white won"}.get(status, "draw")
        kept.append({"index": 40 + index, "network": 7 + index, "game": key, "params": params,
                     "moves": moves, "values": values, "result": result})
    game_log.write(folder, kept, max_bytes=10**6)
    return folder


@pytest.fixture(scope="module")
def url(run):
    sock = listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(create_app(run=run), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    server.should_exit = True
    thread.join(30)


@pytest.fixture(scope="module")
def browser():
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if shutil.which(path) is None:
            pytest.fail(f"{path} is missing: install Debian's {package} package "
                        "(apt-get install chromium chromium-driver; make test does).")
    options = Options()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.TemporaryDirectory()
    options.add_argument(f"--user-data-dir={profile.name}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()
    profile.cleanup()


class Board:
    """The page, as a person uses it: the set-up form, clicks on cells and buttons."""

    def __init__(self, driver, url):
        self.driver = driver
        driver.get(url)
        self.wait_idle()

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait_idle(self, timeout=60):
        """Until the page has settled: the last click and all it set off (the agent's whole
        turn, an analysis) are done."""
        # Asked every 20 ms, not Selenium's 500: a game to its end waits once a move.
        WebDriverWait(self.driver, timeout, poll_frequency=0.02).until(lambda d: self.js(
            "return window.page !== undefined && page.game !== null && !page.working"
            " && !page.game.agent_to_move"))

    def new_game(self, game, colour="first", network="shipped", simulations=2, moves="", params=None):
        """Fill in the set-up form and start the game (in one script: a round trip a field
        adds up over the module's games)."""
        previous = self.js(SET_UP, game, params or {}, network, colour, simulations, moves)
        self.wait_idle()
        assert self.js("return page.id") != previous, self.message()
        assert len(self.game()["moves"]) >= len(moves.split())

    def el(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def cell(self, cell):
        return self.driver.find_element(By.CSS_SELECTOR, f'#board [data-cell="{cell}"]')

    def game(self):
        return self.js("return page.game")

    def shown(self):
        """The position on the board: an earlier one being viewed, or the game's own."""
        return self.js("return page.viewing || page.game")

    def message(self):
        return self.el("message").text

    def marked(self, selector):
        return sorted(int(c) for c in self.js(
            "return [...document.querySelectorAll(arguments[0])].map((e) => e.closest('.cell').dataset.cell)",
            selector))

    def click_cell(self, cell):
        self.cell(cell).click()
        self.wait_idle()

    def press(self, key):
        self.driver.find_element(By.TAG_NAME, "body").send_keys(key)
        self.wait_idle()

    def play_to_the_end(self, pick_cell=lambda game, cell: cell, limit=200):
        """The person plays the first legal move (or the pass button) until the game ends."""
        for _ in range(limit):
            game = self.game()
            if game["status"] != "ongoing":
                return self.el("result").text
            if game["targets"]:
                self.click_cell(pick_cell(game, min(game["targets"].values())))
            else:
                self.el("pass").click()
                self.wait_idle()
        raise AssertionError("the game did not end")


def stones(game):
    return "".join(game["rows"]).count("X") + "".join(game["rows"]).count("O")


def window(driver, width, height):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    driver.execute_script("window.scrollTo(0, 0)")
    driver.execute_async_script("requestAnimationFrame(() => requestAnimationFrame(arguments[0]))")


def coordinates_spell_the_moves(labels, key, params):
    """The labels around the board name each legal move of the start as the game writes it."""
    game = named_game(key, **params)
    state = game.new_state()
    view = board_view(game, state)
    rows, cols = len(view.rows), len(view.rows[0])
    column = {c - 2: text for text, r, c in labels if r in (1, rows + 2) and 2 <= c < cols + 2}
    row = {r - 2: text for text, r, c in labels if c in (1, cols + 2) and 2 <= r < rows + 2}
    for action, cell in view.targets.items():
        r, c = divmod(cell, cols)
        name = column[c] + ("" if view.column_moves else row[r])
        assert name == game.format_move(state, action), (key, params, cell, name)


def test_the_first_screen_is_classic_connect4_then_the_last_game_on_its_board(browser, url):
    Board(browser, url).js("localStorage.clear(); sessionStorage.clear()")
    board = Board(browser, url)  # a first visit
    assert board.game()["game"] == "connect4_classic" and board.game()["title"] == "Connect-4, 6×7"
    assert board.el("agent-name").text.startswith("Connect-4, 6×7")
    board.new_game("connect4", network="pure")  # the course variant: what it changes, its rules
    assert board.el("variant").text == "Course rules: 9-12 rows and columns, one forbidden cell."
    assert "forbidden cell that no disc may fill" in board.el("rules").text
    assert Select(board.el("game")).first_selected_option.text == "Connect-4, course rules"
    drawn = board.game()["board_params"]
    board.js("sessionStorage.clear()")  # a new tab: the game itself is not resumed
    board = Board(browser, url)
    assert board.game()["game"] == "connect4" and board.game()["board_params"] == drawn  # its board kept
    assert Select(board.el("board-choice")).first_selected_option.text.startswith("This board again")
    Select(board.el("board-choice")).select_by_value("new")  # unless asked for a new one
    board.wait_idle()
    board.el("new-game").click()
    board.wait_idle()
    assert board.game()["params"]["rows"] == [9, 12] and board.game()["board_params"] != board.game()["params"]
    Select(board.el("game")).select_by_value("connect6")  # the title follows the chosen board
    board.wait_idle()
    Select(browser.find_element(By.CSS_SELECTOR, "[data-param='size']")).select_by_visible_text("19")
    board.wait_idle()
    assert Select(board.el("game")).first_selected_option.text == "Connect6, 19×19"
    assert [o.get_attribute("value") for o in Select(board.el("network")).options] == ["pure"]  # none plays 19x19
    board.el("setup-moves").send_keys("hello")
    board.el("new-game").click()
    board.wait_idle()
    assert board.message().startswith("move 1: 'hello'")
    board.el("simulations").clear()
    board.el("simulations").send_keys("999999")
    board.el("new-game").click()  # the browser refuses the field: the old message goes
    board.wait_idle()
    assert board.message() == ""


def test_every_board_fits_every_window_with_its_coordinates_and_marks(browser, url):
    board = Board(browser, url)
    try:
        for key, params, moves in BOARDS + [("othello", {}, " ".join(OTHELLO_GAME[0]))]:
            board.new_game(key, colour="both", network="pure", moves=moves, params=params)
            game, labels = board.game(), None
            for width, height in WINDOWS:
                window(browser, width, height)
                seen = board.js(GEOMETRY)
                where = (key, params, width, height)
                left, top, right, bottom = seen["board"]
                assert seen["window"] == [width, height], where
                assert 0 <= left and 0 <= top and right <= width and bottom <= height, (where, seen["board"])
                assert seen["missed"] == [] and seen["smallest"] >= 12, (where, seen["missed"], seen["smallest"])
                assert seen["page"][0] <= width, where  # never sideways
                if width >= 1000:
                    assert seen["page"][1] <= height, where  # the panels scroll, not the page
                if labels is None:
                    coordinates_spell_the_moves(seen["labels"], key, params)
                    labels = seen["labels"]
                assert seen["labels"] == labels, where
                assert [int(c) for c in seen["last"]] == game["last_cells"] != [], where
                assert sorted(int(c) for c in seen["win"]) == game["win_line"], where
                assert seen["current_in_list"] and seen["list_scrolls"] == (key == "othello"), where
                fits = board.js(FITS)
                assert fits["new_game"] and fits["controls"], (where, fits)
                assert fits["cut"] == [] and fits["wide"] == [] and fits["empty_message"] == 0, (where, fits)
                assert fits["label_px"] >= 11, (where, fits)
            if key == "othello":
                assert game["win_line"] == [] and len(game["moves"]) >= 58
            else:
                assert len(game["win_line"]) >= {"gomoku": 5, "connect6": 6}.get(key, 4), key
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert len(board.marked("#board .cell.win")) == 0  # Othello: won by counting, no line


def test_connect6_double_moves_undo_analysis_and_a_win(browser, url):
    board = Board(browser, url)
    board.new_game("connect6", colour="first", simulations=2)
    board.click_cell(44)  # black's opening is one stone, then the agent plays two
    game = board.game()
    assert [m["mover"] for m in game["moves"]] == [0, 1, 1] and stones(game) == 3
    assert board.marked("#board .stone.last") == sorted(game["last_cells"]) and len(game["last_cells"]) == 2
    free = sorted(game["targets"].values())
    board.click_cell(free[0])
    assert board.game()["to_move"] == 0 and "stone 2 of 2" in board.el("turn").text
    board.click_cell(free[1])
    assert [m["mover"] for m in board.game()["moves"]] == [0, 1, 1, 0, 0, 1, 1]
    board.click_cell(44)  # occupied: the game's own words, and nothing changes
    assert board.message() == "E6 is already occupied." and len(board.game()["moves"]) == 7
    board.el("undo").click()
    board.wait_idle()
    assert len(board.game()["moves"]) == 3 and board.message() == ""  # a success clears it
    for box in ("show-heat", "show-value", "show-line"):
        board.el(box).click()
        board.wait_idle()
    assert browser.find_elements(By.CSS_SELECTOR, "#board .heat")
    assert browser.find_elements(By.CSS_SELECTOR, "#board .ghost")
    assert "Black" in board.el("value-text").text and "Expected line" in board.el("line").text
    # the heat's percentages and the line's numbered stones never cover each other, and each
    # reads clearly on its own background, as the expected line does on its panel
    assert board.js("""
      return [...document.querySelectorAll('#board .cell')].filter((cell) => {
        const share = cell.querySelector('.share'), ghost = cell.querySelector('.ghost');
        if (!share || !ghost) return false;
        const a = share.getBoundingClientRect(), b = ghost.getBoundingClientRect();
        return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      }).length""") == 0
    assert board.js(CONTRAST + """
      const panel = getComputedStyle(document.getElementById('insight')).backgroundColor;
      return Math.min(...[...document.querySelectorAll('#board .share, #board .ghost')].map((el) =>
        ratio(getComputedStyle(el).color, getComputedStyle(el).backgroundColor)),
        ...[...document.querySelectorAll('#line span')].map((el) => ratio(getComputedStyle(el).color, panel)))""") >= 4.5
    assert board.js("return document.querySelector('#line .number').textContent") == "2."  # as the move list
    try:  # the analysis' words whole at every window size
        for width, height in WINDOWS:
            window(browser, width, height)
            assert board.js(FITS)["cut"] == [], (width, height)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert board.js("return document.querySelectorAll('#board .share').length") > 0
    board.new_game("connect6", colour="first", moves=CONNECT6_WIN_NEXT)
    board.click_cell(94)  # E1
    assert not board.game()["result"]
    board.click_cell(95)  # F1: six in a row
    assert board.el("result").text == "Black wins. You win!"
    assert board.marked("#board .stone.last") == [94, 95]  # both stones of the winning turn
    assert board.marked("#board .cell.win") == [90, 91, 92, 93, 94, 95]
    assert browser.find_element(By.ID, "undo").is_enabled()


def test_course_connect4_with_board_size_forbidden_cell_and_falling_discs(browser, url):
    board = Board(browser, url)
    board.new_game("connect4", network="pure", simulations=5, moves="1 1 1 1 1 1 1 1",
                   params={"rows": 8, "cols": 10, "forbidden": [4, 4]})
    game = board.game()
    assert len(game["rows"]) == 8 and len(game["rows"][0]) == 10 and game["rows"][4][4] == "#"
    assert "blocked" in board.cell(44).get_attribute("class")
    assert [p.text for p in browser.find_elements(By.CSS_SELECTOR, "#player-0 .name, #player-1 .name")] == [
        "Red (you)", "Yellow (agent)"]
    board.click_cell(44)  # the forbidden cell says why
    assert "forbidden cell" in board.message() and len(board.game()["moves"]) == 8
    board.click_cell(20)  # column 1 is full: the set-up box's words
    assert board.message() == "column 1 is full."
    board.click_cell(4)  # the top of column 5: the disc falls to the bottom
    game = board.game()
    assert "".join(game["rows"])[74] == "X" and game["moves"][8]["text"] == "5"
    assert board.message() == ""
    # a column click: the top cell of the leftmost open column
    result = board.play_to_the_end(lambda game, cell: cell % len(game["rows"][0]))
    assert result.endswith(("You win!", "The agent wins.", "Draw."))


def test_classic_connect4_drops_a_new_disc_only(browser, url):
    board = Board(browser, url)
    board.new_game("connect4_classic", simulations=2)
    board.click_cell(3)
    assert board.marked("#board .stone.drop") == board.game()["last_cells"]  # the agent's reply
    board.el("show-hints").click()  # a redraw of the same position drops nothing
    board.wait_idle()
    assert board.marked("#board .stone.drop") == []
    assert board.play_to_the_end().endswith(("You win!", "The agent wins.", "Draw."))


def test_othello_classic_pass_and_course_game_to_the_end(browser, url):
    board = Board(browser, url)
    board.new_game("othello_standard", colour="both", network="pure", moves="d3")
    board.click_cell(18)  # c3 turns d4: it turns over once
    assert board.marked("#board .stone.flip") == [27] == board.game()["turned"]
    board.el("show-hints").click()  # hints off and on: two redraws of the same position
    board.el("show-hints").click()
    board.wait_idle()
    assert board.marked("#board .stone.flip") == []
    board.new_game("othello_standard", network="pure", simulations=4, moves=OTHELLO_PASS)
    assert board.el("pass").is_displayed() and "must pass" in board.message()
    board.click_cell(0)
    assert "no move on the board" in board.message()
    board.el("pass").click()
    board.wait_idle()
    assert board.game()["moves"][8]["text"] == "pass" and len(board.game()["moves"]) >= 10
    assert board.play_to_the_end().endswith(("You win!", "The agent wins.", "Draw."))
    board.new_game("othello", colour="second", simulations=2, moves=OTHELLO_COURSE)
    assert browser.find_elements(By.CSS_SELECTOR, "#board .hint")  # legal-move hints
    board.click_cell(0)
    assert board.message() == "The corners are never played in course Othello."
    assert board.play_to_the_end().endswith(("You win!", "The agent wins.", "Draw."))


@needs_openspiel
def test_breakthrough_moves_a_piece_by_two_clicks_and_a_click_elsewhere_drops_it(browser, url):
    board = Board(browser, url)
    board.new_game("openspiel", colour="both", network="pure",  # typed in the form's text box
                   params={"game": "breakthrough(rows=6,columns=6)"})
    assert Select(board.el("game")).first_selected_option.text == "Breakthrough, 6×6"
    assert board.js("return document.getElementById('board').dataset.style") == "chequered"
    assert board.marked("#board .cell.movable") == list(range(6, 12))  # black's front row
    board.click_cell(0)  # behind it: no move
    assert board.message() == "That piece has no legal move here."
    board.click_cell(7)  # b5: picked, its three targets hinted
    assert board.marked("#board .cell.picked") == [7] and board.marked("#board .hint") == [12, 13, 14]
    board.click_cell(21)  # elsewhere: the pick is dropped and nothing is played
    assert board.marked("#board .cell.picked") == [] and board.game()["moves"] == []
    board.click_cell(7)
    board.click_cell(13)  # b4
    game = board.game()
    assert [move["text"] for move in game["moves"]] == ["b5b4"] and game["rows"][1][1] == "."
    assert game["rows"][2][1] == "X" and board.marked("#board .stone.last") == [13]
    assert board.marked("#board .cell.moved-from") == [7] and game["to_move"] == 1


def test_the_move_list_shows_earlier_positions_and_a_training_game_replays(browser, url):
    board = Board(browser, url)
    moves = OTHELLO_GAME[0]
    board.new_game("othello", colour="both", network="pure", moves=" ".join(moves))
    rounds = board.js("return document.querySelectorAll('#moves .round').length")
    assert rounds == len({i for i, m in enumerate(board.game()["moves"]) if m["mover"] == 0})
    browser.find_element(By.CSS_SELECTOR, '#moves [data-ply="10"]').click()
    board.wait_idle()
    assert board.shown()["rows"] == position(moves[:10]) and board.el("back").is_displayed()
    assert board.marked("#board .stone.last") == board.shown()["last_cells"]
    board.click_cell(0)
    assert "go back to the game" in board.message()
    board.press(Keys.ARROW_LEFT)
    assert board.shown()["ply"] == 9 and board.message() == ""
    board.el("back").click()
    board.wait_idle()
    assert board.js("return page.viewing") is None and not board.el("back").is_displayed()
    browser.find_element(By.CSS_SELECTOR, '#moves [data-ply="3"]').click()
    board.wait_idle()
    browser.find_element(By.CSS_SELECTOR, f'#moves [data-ply="{len(moves)}"]').click()
    board.wait_idle()
    assert board.js("return page.viewing") is None  # the last move is the game's own position
    # a training run's games: the list, one opened at its start, stepped through
    board.el("tab-run").click()
    board.wait_idle()
    rows = [r.text.split() for r in browser.find_elements(By.CSS_SELECTOR, "#run-games tbody tr")]
    assert rows[1][:2] == ["40", "7"] and rows[1][-1] == str(len(moves))  # newest first
    browser.find_element(By.CSS_SELECTOR, '#run-games tr[data-index="40"]').click()
    board.wait_idle()
    assert board.game()["replay"]["index"] == 40 and board.shown()["ply"] == 0
    assert board.el("undo").is_displayed() is False and board.el("graph-box").is_displayed()
    for _ in range(3):
        board.press(Keys.ARROW_RIGHT)
    assert board.shown()["rows"] == position(moves[:3])
    # one numbering: the replay's words and the move list's highlighted round agree
    rounds = board.js("return document.querySelectorAll('#moves .round').length")
    assert board.el("turn").text.startswith(f"Black's move 2 of {rounds} ")
    assert board.js("return document.querySelector('#moves .current').closest('.round')"
                    ".querySelector('.number').textContent") == "2."
    # the value graph: its scale, and the move under the pointer read out
    assert board.js("return [...document.querySelectorAll('#graph text.scale')].map((t) => t.textContent)") == [
        "+1", "0", "−1"]
    reading = board.js("""
      const svg = document.getElementById('graph'), box = svg.getBoundingClientRect();
      svg.dispatchEvent(new MouseEvent('mousemove', {clientX: box.right - 2, clientY: box.top + box.height / 2}));
      return svg.querySelector('text.reading').textContent;""")
    assert reading.startswith("The result: ")
    points = board.js("return document.querySelector('#graph .values').getAttribute('points').split(' ').length")
    assert points == len(moves) + 1  # a value before each move, then the result
    marker = board.js("return Number(document.querySelector('#graph line.now').getAttribute('x1'))")
    board.press(Keys.END)
    assert board.js("return page.viewing") is None and board.el("result").text
    assert board.js("return Number(document.querySelector('#graph line.now').getAttribute('x1'))") > marker
    board.click_cell(27)
    assert "training run played" in board.message()


def position(moves: list[str]) -> list[str]:
    """The course Othello board after `moves`, as the page gets it."""
    game = named_game("othello")
    state = game.play_moves(game.new_state(), moves)
    return read_board(game.render(state), game.width)[0]
