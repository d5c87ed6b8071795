"""The web board in a real browser: headless Chromium (Debian's chromium and chromium-driver)
driven by Selenium plays a short game of each kind to the end, with Connect6's double moves,
an Othello pass, Connect-4's falling discs and forbidden cell, undo and the analysis views."""
import shutil
import tempfile
import threading
import time

import pytest
import uvicorn
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from alphazero.serve.__main__ import listen
from alphazero.serve.app import create_app

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000"]
OTHELLO_PASS = "d3 c3 e6 d2 d1 e1 b3 c1"  # classic Othello: black has no move after these
# 40 moves of a course Othello game (random play), so the test plays its last 20 or so
OTHELLO_COURSE = ("c3 f3 e2 d7 b4 b2 f5 c5 g3 d1 d4 g5 g7 f2 d3 h4 f6 e4 g4 d2 e5 e6 e3 a5 f4 c6 "
                  "c2 g2 g1 c1 g6 f7 b3 h2 c7 a3 b7 h6 d5 e7")
# Connect6: black has A1-D1 and plays two stones next
CONNECT6_WIN_NEXT = "A1 A10 C10 B1 C1 E10 G10 D1 J5 A8 C8"


@pytest.fixture(scope="module")
def url():
    sock = listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning"))
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
        """Until no request is on its way and the agent has played its whole turn."""
        # Asked every 20 ms, not Selenium's 500: a game to its end waits once a move.
        WebDriverWait(self.driver, timeout, poll_frequency=0.02).until(lambda d: self.js(
            "return page.game !== null && !page.busy && !page.game.agent_to_move"))
        time.sleep(0.05)  # let a follow-up (analysis) request start if there is one
        WebDriverWait(self.driver, timeout, poll_frequency=0.02).until(
            lambda d: self.js("return !page.busy"))

    def new_game(self, game, colour="first", network="shipped", simulations=2, moves="", params=None):
        Select(self.el("game")).select_by_value(game)
        self.js("document.getElementById('game').dispatchEvent(new Event('change'))")
        for key, value in (params or {}).items():
            self.js("document.querySelector(`[data-param='${arguments[0]}']`).value = arguments[1]",
                    key, value)
        Select(self.el("network")).select_by_value(network)
        Select(self.el("colour")).select_by_value(colour)
        self.js("document.getElementById('simulations').value = arguments[0]", simulations)
        self.js("document.getElementById('setup-moves').value = arguments[0]", moves)
        previous = self.js("return page.id")
        self.el("new-game").click()
        self.wait_idle()
        assert self.js("return page.id") != previous, self.message()
        assert len(self.game()["moves"]) >= len(moves.split())

    def el(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def game(self):
        return self.js("return page.game")

    def message(self):
        return self.el("message").text

    def click_cell(self, cell):
        self.driver.find_element(By.CSS_SELECTOR, f'#board [data-cell="{cell}"]').click()
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


def test_connect6_double_moves_undo_analysis_and_a_win(browser, url):
    board = Board(browser, url)
    board.new_game("connect6", colour="first", simulations=2)
    board.click_cell(44)  # black's opening is one stone, then the agent plays two
    game = board.game()
    assert [m["mover"] for m in game["moves"]] == [0, 1, 1] and stones(game) == 3
    free = sorted(game["targets"].values())
    board.click_cell(free[0])
    assert board.game()["to_move"] == 0 and "stone 2 of 2" in board.el("caption").text
    board.click_cell(free[1])
    assert [m["mover"] for m in board.game()["moves"]] == [0, 1, 1, 0, 0, 1, 1]
    board.click_cell(44)  # occupied: a message, nothing changes
    assert "not a legal move" in board.message() and len(board.game()["moves"]) == 7
    board.el("undo").click()
    board.wait_idle()
    assert len(board.game()["moves"]) == 3  # the agent's turn and the person's two stones
    for box in ("show-heat", "show-value", "show-line"):
        board.el(box).click()
        board.wait_idle()
    assert browser.find_elements(By.CSS_SELECTOR, "#board .heat")
    assert browser.find_elements(By.CSS_SELECTOR, "#board .ghost")
    assert "Black" in board.el("value-text").text and "Expected line" in board.el("line").text
    board.new_game("connect6", colour="first", moves=CONNECT6_WIN_NEXT)
    board.click_cell(94)  # E1
    assert not board.game()["result"]
    board.click_cell(95)  # F1: six in a row
    assert board.el("result").text == "Black wins. You win!"
    assert browser.find_element(By.ID, "undo").is_enabled()


def test_course_connect4_with_board_size_forbidden_cell_and_falling_discs(browser, url):
    board = Board(browser, url)
    board.new_game("connect4", network="pure", simulations=5,
                   params={"rows": "9", "cols": "10", "forbidden": "[4, 4]"})
    game = board.game()
    assert len(game["rows"]) == 9 and len(game["rows"][0]) == 10 and game["rows"][4][4] == "#"
    assert "blocked" in browser.find_element(By.CSS_SELECTOR, '#board [data-cell="44"]').get_attribute("class")
    board.click_cell(4)  # the top of column 5: the disc falls to the bottom
    game = board.game()
    assert "".join(game["rows"])[84] == "X" and game["moves"][0]["text"] == "5"
    # a column click: the top cell of the leftmost open column
    result = board.play_to_the_end(lambda game, cell: cell % len(game["rows"][0]))
    assert result.endswith(("You win!", "The agent wins.", "Draw."))


def test_classic_connect4_against_the_shipped_network(browser, url):
    board = Board(browser, url)
    board.new_game("connect4_classic", simulations=2)
    board.click_cell(3)
    assert browser.find_elements(By.CSS_SELECTOR, "#board .stone.drop")
    assert board.play_to_the_end().endswith(("You win!", "The agent wins.", "Draw."))


def test_othello_classic_pass_and_course_game_to_the_end(browser, url):
    board = Board(browser, url)
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
    assert board.play_to_the_end().endswith(("You win!", "The agent wins.", "Draw."))
