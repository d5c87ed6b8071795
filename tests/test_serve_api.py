"""The web board's JSON API (alphazero.serve): games, moves, undo, analysis, and refusals of
forged requests that leave the game as it was."""
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from starlette.testclient import TestClient

from alphazero.search.puct import BatchedSearch
from alphazero.config.paths import PRETRAINED_DIR
from alphazero.serve.__main__ import listen, load_config
from alphazero.serve.app import create_app
from alphazero.serve.board_view import board_view
from alphazero.serve.catalog import CatalogError, resolve_checkpoint
from alphazero.config.errors import ConfigError
from games import ONGOING, game_names, make_game
from helpers import needs_openspiel

ROOT = Path(__file__).resolve().parents[1]
OTHELLO_PASS = "d3 c3 e6 d2 d1 e1 b3 c1"  # classic Othello: black has no move after these


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(max_sessions=8, max_simulations=50_000)) as test_client:
        yield test_client


def new_game(client, **body):
    body = {"network": "pure", "simulations": 8, **body}
    response = client.post("/api/games", json=body)
    assert response.status_code == 200, response.json()
    return response.json()


def refused(response, status: int, words: str) -> str:
    assert response.status_code == status, response.json()
    message = response.json()["error"]
    assert words in message, message
    return message


def test_every_registered_game_is_offered_and_drawn_through_the_contract(client):
    options = client.get("/api/options").json()
    offered = {g["game_name"] for g in options["games"]}
    assert set(game_names()) <= offered
    assert {"connect6", "connect4", "connect4_classic", "othello", "othello_standard"} <= {
        g["key"] for g in options["games"]}
    assert options["first"] == "connect4_classic"  # the page opens on a game people know
    rng = np.random.default_rng(0)
    # Random games to the end: every legal move has a cell or a button
    for name in game_names():
        game = make_game(name)
        state = game.new_state(rng)
        while game.status(state) == ONGOING:
            if game.ply(state) % 5 == 0 or len(game.legal_list(state)) == 1:
                view = board_view(game, state)
                assert sorted([*view.targets, *view.buttons]) == game.legal_list(state)
                assert all("".join(view.rows)[c] == "." for c in view.targets.values())
            game.play(state, int(rng.choice(game.legal_list(state))))


def test_a_game_against_the_agent_connect6_turns_and_undo(client):
    game = new_game(client, game="connect6", colour="first")
    key, cell = game["id"], game["targets"]["44"]
    assert game["to_move"] == 0 and not game["agent_to_move"] and len(game["targets"]) == 100
    after = client.post(f"/api/games/{key}/move", json={"action": 44, "player": 0}).json()
    assert "X" == "".join(after["rows"])[cell] and after["agent_to_move"] and after["last_cells"] == [cell]
    first = client.post(f"/api/games/{key}/agent", json={}).json()
    assert first["agent_to_move"]  # a Connect6 turn is two stones
    second = client.post(f"/api/games/{key}/agent", json={}).json()
    assert not second["agent_to_move"] and [m["mover"] for m in second["moves"]] == [0, 1, 1]
    refused(client.post(f"/api/games/{key}/agent", json={}), 409, "your turn")
    legal = [int(a) for a in second["targets"]]
    one = client.post(f"/api/games/{key}/move", json={"action": legal[0], "player": 0}).json()
    assert one["to_move"] == 0 and len(one["moves"]) == 4  # the second stone is still black's
    undone = client.post(f"/api/games/{key}/undo").json()
    assert len(undone["moves"]) == 3  # back to the start of black's turn
    undone = client.post(f"/api/games/{key}/undo").json()
    assert undone["moves"] == [] and undone["to_move"] == 0  # the agent's turn went with black's
    refused(client.post(f"/api/games/{key}/undo"), 400, "no move of yours")


def test_the_agent_opens_when_the_person_plays_second_and_undo_keeps_its_opening(client):
    game = new_game(client, game="connect4_classic", colour="second")
    key = game["id"]
    assert game["agent_to_move"]
    refused(client.post(f"/api/games/{key}/move", json={"action": 3, "player": 0}), 400,
            "red is the agent's side")
    refused(client.post(f"/api/games/{key}/undo"), 400, "no move of yours")
    view = client.post(f"/api/games/{key}/agent", json={"simulations": 20}).json()
    assert view["to_move"] == 1 and len(view["moves"]) == 1 and view["thought"]["line"]
    view = client.post(f"/api/games/{key}/move", json={"action": 0, "player": 1}).json()
    view = client.post(f"/api/games/{key}/agent", json={}).json()
    assert len(client.post(f"/api/games/{key}/undo").json()["moves"]) == 1


def test_forged_and_illegal_requests_are_refused_and_change_nothing(client):
    key = new_game(client, game="connect4_classic", colour="first", moves="4 4 4 4 4 4")["id"]
    before = client.get(f"/api/games/{key}").json()
    move = f"/api/games/{key}/move"
    refused(client.post(move, json={"action": 7, "player": 0}), 400, "off the board")
    refused(client.post(move, json={"action": -1, "player": 0}), 400, "off the board")
    refused(client.post(move, json={"action": 10**12, "player": 0}), 400, "off the board")
    refused(client.post(move, json={"action": "3", "player": 0}), 400, "action number")
    refused(client.post(move, json={"action": True, "player": 0}), 400, "action number")
    refused(client.post(move, json={"action": 2.5, "player": 0}), 400, "action number")
    refused(client.post(move, json={"action": 2, "player": 1}), 400, "red's turn, not yellow's")
    refused(client.post(move, json={"action": 2, "player": "black"}), 400, "0 (who moves first) or 1")
    refused(client.post(move, json={"action": 3, "player": 0}), 400, "not a legal move")  # full
    refused(client.post(move, content=b"{not json"), 400, "not valid JSON")
    refused(client.post(move, content=b"[1, 2]"), 400, "JSON object")
    refused(client.post(move, content=b"\xff\xfe"), 400, "not valid JSON")
    refused(client.post(move, content=b"{}" + b" " * 70_000), 413, "at most")
    refused(client.post(f"/api/games/{key}/analyse", json={"simulations": 0}), 400, "simulations")
    refused(client.post(f"/api/games/{key}/analyse", json={"simulations": 10**9}), 400, "simulations")
    refused(client.post(f"/api/games/{key}/analyse", json={"simulations": "many"}), 400, "simulations")
    refused(client.post("/api/games/nosuchgame/move", json={"action": 1, "player": 0}), 404, "no such game")
    refused(client.get("/api/nothing"), 404, "Not Found")
    assert client.get(f"/api/games/{key}").json() == before


def test_the_form_offers_each_games_parameters_as_choices_the_game_accepts(client):
    offered = {g["key"]: g for g in client.get("/api/options").json()["games"]}
    fields = {key: {f["key"]: f for f in g["fields"]} for key, g in offered.items()}
    sizes = fields["connect6"]["size"]
    assert sizes["kind"] == "select" and [c["value"] for c in sizes["choices"]] == list(range(6, 20))
    rows = fields["connect4"]["rows"]["choices"]  # the course range first, then fixed sizes
    assert rows[0] == {"value": [9, 12], "label": "9–12, random"}
    assert [c["value"] for c in rows[1:]] == list(range(4, 13))
    assert [c["label"] for c in fields["connect4_classic"]["forbidden"]["choices"]] == ["none", "random"]
    assert fields["gomoku"]["exact_five"] == {"key": "exact_five", "label": "Exact five", "kind": "check",
                                              "value": False}
    assert fields["othello"] == fields["othello_standard"] == {}  # the rule sets are two games
    assert fields["openspiel"]["game"] == {"key": "game", "label": "Which game", "kind": "text",
                                           "value": "connect_four"}  # any of OpenSpiel's games
    assert offered["connect4"]["variant"].startswith("course rules")
    assert offered["connect4_classic"]["title"] == "Connect-4, 6×7"
    assert offered["connect4_classic"]["colours"] == ["Red", "Yellow"]
    assert offered["connect4_classic"]["board_style"] == "columns"


def test_choices_follow_the_chosen_board_and_offer_only_networks_a_new_game_accepts(client):
    choices = "/api/choices"
    big = client.post(choices, json={"game": "connect6", "params": {"size": 19}}).json()
    assert big["title"] == "Connect6, 19×19" and big["shipped"] is None and big["checkpoints"] == []
    wide = client.post(choices, json={"game": "connect4_classic",
                                      "params": {"rows": 10, "cols": 11, "forbidden": None}}).json()
    assert wide["title"] == "Connect-4, 10×11" and wide["shipped"] == "checkpoints/pretrained/connect4.pt"
    for game in ("connect6", "connect4_classic"):
        shown = client.post(choices, json={"game": game}).json()
        offered = {shown["shipped"], *shown["checkpoints"]}
        for path in sorted(Path(ROOT, "checkpoints/pretrained").glob("*.pt")):
            network = str(path.relative_to(ROOT))
            answer = client.post("/api/games", json={"game": game, "network": network, "simulations": 2})
            assert (answer.status_code == 200) == (network in offered), (game, network, answer.json())
    refused(client.post(choices, json={"game": "connect6", "params": {"size": 40}}), 400, "size=40")
    refused(client.post(choices, json={"game": "chess"}), 400, "unknown game 'chess'")
    refused(client.post(choices, json={"game": "connect6", "params": "big"}), 400, "params")


def test_the_icon_is_served(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.text.startswith("<svg")


@needs_openspiel
def test_breakthrough_moves_from_cell_to_cell_and_a_bad_move_is_one_sentence(client):
    game = new_game(client, game="openspiel", params={"game": "breakthrough(rows=6,columns=6)"})
    key, move = game["id"], f"/api/games/{game['id']}/move"
    assert game["board_style"] == "chequered" and game["coordinates"]["columns"] == list("abcdef")
    # each legal move with the cell its piece leaves and the one it goes to: black's front
    # row (cells 6-11) steps to the row below, straight or aside
    moves = {(game["origins"][a], game["targets"][a]): int(a) for a in game["targets"]}
    assert len(moves) == 16 and all(6 <= leaves <= 11 and abs(to - leaves - 6) <= 1 for leaves, to in moves)
    assert game["refusals"]["0"] == "That piece has no legal move here."  # behind the front row
    assert game["refusals"]["12"].startswith("Pick one of your pieces")
    after = client.post(move, json={"action": moves[(6, 12)], "player": 0}).json()  # a5a4
    assert after["moves"][-1]["text"] == "a5a4" and after["rows"][1][0] == "." and after["rows"][2][0] == "X"
    assert after["last_cells"] == [12] and after["left_cells"] == [6] and after["agent_to_move"]
    replied = client.post(f"/api/games/{key}/agent", json={}).json()
    del replied["thought"]  # the agent's search, not part of the game's view
    assert len(replied["moves"]) == 2 and len(replied["left_cells"]) == 1 and replied["to_move"] == 0
    message = refused(client.post(move, json={"action": moves[(6, 12)], "player": 0}), 400,
                      "a5a4 is not a legal move here.")  # a5 is empty now
    assert message.count(".") == 1 and "\n" not in message
    assert client.get(f"/api/games/{key}").json() == replied  # nothing changed; the server goes on
    thought = client.post(f"/api/games/{key}/analyse", json={"simulations": 8}).json()
    assert set(thought["shares"]) <= set(thought["origins"]) == set(replied["origins"])
    refused(client.post("/api/games", json={"game": "openspiel", "params": {"game": "checkers"},
                                             "network": "pure"}), 400, "the page cannot show it")


def test_new_game_requests_are_checked(client):
    games = "/api/games"
    refused(client.post(games, json={"game": "chess"}), 400, "unknown game 'chess'")
    refused(client.post(games, json={"game": "connect6", "params": {"size": 40}}), 400, "size=40")
    refused(client.post(games, json={"game": "connect6", "params": [1]}), 400, "params")
    refused(client.post(games, json={"game": "connect6", "colour": "red"}), 400, "colour")
    refused(client.post(games, json={"game": "connect6", "moves": "F5 F5"}), 400, "move 2: F5 is already occupied")
    refused(client.post(games, json={"game": "connect6", "moves": {"a": 1}}), 400, "moves must be")
    refused(client.post(games, json={"game": "connect6", "params": {"size": 19}, "network": "shipped"}),
            400, "no network is shipped")
    for forged in ("../../../../etc/passwd", "/etc/passwd", "checkpoints/../pyproject.toml",
                   str(ROOT / "conf" / "play.yaml")):
        refused(client.post(games, json={"game": "connect6", "network": forged}), 400,
                "outside the checkpoint folders")
    refused(client.post(games, json={"game": "connect6", "network": "checkpoints/none.pt"}), 400,
            "no checkpoint file")
    refused(client.post(games, json={"game": "connect6", "network": "checkpoints/pretrained/othello.pt"}),
            400, "othello")  # the checkpoint check names the game it was trained for


def test_checkpoints_resolve_inside_the_checkpoint_folders_only(tmp_path):
    inside = tmp_path / "checkpoints" / "run"
    inside.mkdir(parents=True)
    (inside / "latest.pt").write_bytes(b"x")
    outside = tmp_path / "secret.pt"
    outside.write_bytes(b"x")
    (inside / "link.pt").symlink_to(outside)
    roots = [PRETRAINED_DIR.parent, tmp_path / "checkpoints"]
    assert resolve_checkpoint(str(inside / "latest.pt"), roots) == inside / "latest.pt"
    for forged in (str(outside), str(inside / "link.pt"), str(inside / ".." / ".." / "secret.pt"), "",
                   None, 5, "a\x00b"):
        with pytest.raises(CatalogError):
            resolve_checkpoint(forged, roots)


def test_analysis_with_the_shipped_network_changes_nothing(client):
    game = client.post("/api/games", json={"game": "connect6", "network": "shipped", "colour": "both",
                                           "simulations": 32, "moves": "F5 E6 E5"}).json()
    key = game["id"]
    thought = client.post(f"/api/games/{key}/analyse", json={}).json()
    assert -1 <= thought["value_black"] <= 1 and thought["visits"] == 31
    assert abs(sum(thought["shares"].values()) - 1) < 1e-3
    assert set(thought["shares"]) <= set(game["targets"])
    assert len(thought["line"]) >= 2 and thought["line"][0] == thought["move"]
    assert thought["line_movers"][:2] == [0, 0] and thought["line_cells"][0] is not None
    assert client.get(f"/api/games/{key}").json() == {k: v for k, v in game.items() if k != "id"}
    # analysis mode: the agent moves only when asked, for either side, and undo takes one turn
    view = client.post(f"/api/games/{key}/agent", json={"simulations": 8}).json()
    assert len(view["moves"]) == 4 and view["to_move"] == 0
    assert len(client.post(f"/api/games/{key}/undo").json()["moves"]) == 3


def test_othello_pass_is_a_button_and_the_end_has_a_result(client):
    game = new_game(client, game="othello_standard", colour="first", moves=OTHELLO_PASS)
    assert game["targets"] == {} and game["buttons"] == {"64": "pass"} and game["to_move"] == 0
    view = client.post(f"/api/games/{game['id']}/move", json={"action": 64, "player": 0}).json()
    assert view["moves"][-1]["text"] == "pass" and view["agent_to_move"]
    while view["status"] == "ongoing":
        if view["agent_to_move"]:
            view = client.post(f"/api/games/{game['id']}/agent", json={"simulations": 4}).json()
        else:
            action = int(next(iter(view["targets"] or view["buttons"])))
            view = client.post(f"/api/games/{game['id']}/move", json={"action": action, "player": 0}).json()
    assert view["result"].endswith(("You win!", "The agent wins.", "Draw."))
    refused(client.post(f"/api/games/{game['id']}/analyse", json={}), 400, "game is over")


def test_sessions_are_independent_and_a_search_blocks_only_its_own(client):
    slow = new_game(client, game="connect6", colour="second")["id"]
    other = new_game(client, game="connect6", colour="first")["id"]
    agent = client.app.state.server.sessions[slow].session.agent
    searching, release = threading.Event(), threading.Event()
    think = agent.think

    def held_think(state, simulations):  # a search that lasts until the test releases it
        searching.set()
        release.wait(30)
        return think(state, simulations)

    agent.think = held_think
    answer = {}
    thread = threading.Thread(target=lambda: answer.update(
        client.post(f"/api/games/{slow}/agent", json={}).json()))
    thread.start()
    try:
        assert searching.wait(30)
        refused(client.post(f"/api/games/{slow}/undo"), 409, "still thinking")
        refused(client.post(f"/api/games/{slow}/analyse", json={}), 409, "still thinking")
        refused(client.post(f"/api/games/{slow}/move", json={"action": 0, "player": 0}), 409,
                "still thinking")
        view = client.post(f"/api/games/{other}/move", json={"action": 0, "player": 0}).json()
        assert len(view["moves"]) == 1 and client.get(f"/api/games/{slow}").json()["moves"] == []
    finally:
        release.set()
        thread.join()
    assert len(answer["moves"]) == 1 and client.get(f"/api/games/{other}").json()["moves"] == view["moves"]


def test_old_sessions_make_room_for_new_ones(client):
    keys = [new_game(client, game="connect4_classic")["id"] for _ in range(9)]
    assert client.get(f"/api/games/{keys[0]}").status_code == 404
    assert client.get(f"/api/games/{keys[-1]}").status_code == 200


def test_principal_variation_follows_the_most_visited_children():
    from alphazero.config.settings import default_config
    from alphazero.search.puct import SearchConfig
    game = make_game("connect4", rows=6, cols=7, forbidden=None)

    def uniform(planes, legal):
        return legal / legal.sum(axis=1, keepdims=True), np.zeros(len(planes), dtype=np.float32)

    search = BatchedSearch(game, 1, 200, SearchConfig.from_cfg(default_config().mcts))
    search.set_root(0, game.new_state())
    search.run(uniform)
    line = search.principal_variation(0)
    visits = search.visit_counts()[0]
    assert len(line) >= 2 and visits[line[0]] == visits.max()
    state = game.new_state()
    for action in line:
        assert game.legal_mask(state)[action]
        game.play(state, action)


def test_command_line_settings_and_a_busy_port_are_one_sentence():
    with pytest.raises(ConfigError, match="port must be a whole number"):
        load_config(["port=99999"])
    with pytest.raises(ConfigError, match="no setting 'colour'"):
        load_config(["colour=red"])
    taken = listen("127.0.0.1", 0)
    port = taken.getsockname()[1]
    try:
        with pytest.raises(ConfigError, match=f"port {port} on 127.0.0.1 is busy"):
            listen("127.0.0.1", port)
    finally:
        taken.close()


@pytest.mark.integration
def test_the_server_starts_on_loopback_and_says_where():
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    server = subprocess.Popen([sys.executable, "-m", "alphazero.serve", "port=0"], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        assert line.startswith("Serving the board at http://127.0.0.1:"), line + server.stderr.read()
        url = line.split()[4]
        import urllib.request
        with urllib.request.urlopen(url, timeout=10) as page:
            assert b"/static/app.js" in page.read()
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_course_network_plays_and_analyses_a_chosen_course_board(client):
    """A 9x10 board with a forbidden cell: the shipped course network (trained on 12x12
    planes) searches it, and the heat map covers the board's own 10 columns."""
    game = client.post("/api/games", json={
        "game": "connect4", "network": "shipped", "colour": "both", "simulations": 16,
        "params": {"rows": 9, "cols": 10, "forbidden": [4, 4]}}).json()
    assert "connect4.pt" in game["agent"], game
    thought = client.post(f"/api/games/{game['id']}/analyse", json={}).json()
    assert -1 <= thought["value_black"] <= 1 and thought["visits"] == 15
    view = client.post(f"/api/games/{game['id']}/agent", json={}).json()
    assert len(view["moves"]) == 1


# ----------------------------------------------------------------------------- bad input of any kind

# what each field takes when it is right; the fuzz sends these half of the time
GOOD_VALUES = {"game": ["connect4_classic", "connect6", "othello_standard", "gomoku8"],
               "colour": ["first", "second", "both"], "simulations": [2, 8], "params": [{}],
               "moves": ["", "4 4", "F5 E6", "d3 c3"], "seed": [0, 5], "network": ["pure"],
               "action": [0, 3, 44, 64], "player": [0, 1]}
NEW_GAME, MOVE = ("POST", "/api/games", tuple(GOOD_VALUES)), ("POST", "{game}/move", ("action", "player"))
ROUTES = [("GET", "/api/options", ()), ("POST", "/api/choices", ("game", "params")), NEW_GAME, NEW_GAME, NEW_GAME, ("GET", "{game}", ()), MOVE, MOVE,
          ("POST", "{game}/undo", ()), ("POST", "{game}/agent", ("simulations",)),
          ("POST", "{game}/analyse", ("simulations",)), ("GET", "{game}/positions/1", ()),
          ("GET", "/api/run/games", ()), ("POST", "/api/run/games/0", ())]
METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]


def random_json(rng, depth: int = 0):
    """A JSON value of any type."""
    kind = rng.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([-1, 0, 1, 2, 3, 8, 64, 10**6, 10**30, -2**63])
    if kind == 2:
        return rng.choice([0.5, 2.0, -1e308, 1e308, float("nan"), float("inf")])
    if kind == 3:
        return rng.choice(["shipped", "pass", "/etc/passwd", "../../pyproject.toml", "a\x00b",
                           "checkpoints/pretrained/connect6.pt", "\u2603" * 20, ""])
    if kind == 4:
        return "".join(chr(rng.randrange(1, 0x2FFF)) for _ in range(rng.randrange(12)))
    if kind == 5:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 6:
        return {rng.choice(["size", "rows", "cols", "forbidden", "rules", "x"]): random_json(rng, depth + 1)
                for _ in range(rng.randrange(4))}
    return {"a": {"b": [random_json(rng, depth + 1)]}}


def random_body(rng, fields: tuple) -> bytes:
    """A body for a route taking `fields`: each present field right or of any JSON type, or a
    body that is no JSON object at all."""
    import json
    chosen = rng.sample(fields, rng.randrange(len(fields) + 1)) + rng.sample(["other", "game"], 1)
    body = {key: rng.choice(GOOD_VALUES[key]) if key in GOOD_VALUES and rng.random() < 0.5
            else random_json(rng) for key in chosen}
    if body.get("simulations") not in (None, 2, 8):
        body["simulations"] = 8  # a valid budget only small: the fuzz must stay fast
    text = json.dumps(body)
    kind = rng.randrange(12)
    if kind == 0:
        return text[:rng.randrange(len(text))].encode()  # truncated
    if kind == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))  # mostly not UTF-8
    if kind == 2:
        return json.dumps(random_json(rng)).encode()  # any JSON, maybe no object
    if kind == 3:
        return b"[" * 30_000  # nested deeper than the parser recurses
    return text.encode()


def random_request(rng, keys: list[str]) -> tuple[str, str, bytes]:
    method, path, fields = rng.choice(ROUTES)
    game = f"/api/games/{rng.choice(keys + ['nosuchgame', '%00', 'x' * 300])}"
    if rng.random() < 0.1:
        path = "/api/" + "".join(rng.choice("abc/._-%~") for _ in range(rng.randrange(20)))
    if rng.random() < 0.15:
        method = rng.choice(METHODS)
    return method, path.format(game=game), random_body(rng, fields)


@pytest.mark.integration  # hundreds of requests against the whole app
def test_random_and_malformed_requests_get_a_4xx_and_the_board_still_plays(client):
    import random
    rng = random.Random(7)
    keys = [new_game(client, game=name, colour="both")["id"] for name in GOOD_VALUES["game"]]
    for _ in range(300):
        method, path, body = random_request(rng, keys)
        headers = {"content-type": "application/json"}
        if rng.random() < 0.03:
            headers["content-length"] = rng.choice(["99999999999", "-1", "abc"])
        response = client.request(method, path, content=body, headers=headers)
        assert 200 <= response.status_code < 500, (method, path, body[:200], response.text)
        if response.status_code >= 400 and method != "HEAD":
            assert response.json()["error"], response.text
    game = new_game(client, game="othello_standard", colour="first", moves="d3 c3")
    action = int(next(iter(game["targets"])))
    assert client.post(f"/api/games/{game['id']}/move", json={"action": action, "player": 0}).json()["agent_to_move"]
    assert len(client.post(f"/api/games/{game['id']}/agent", json={}).json()["moves"]) == 4


def test_wrong_json_types_for_each_field_are_one_sentence(client):
    key = new_game(client, game="connect4_classic")["id"]
    refused(client.post("/api/games", json={"game": {"a": 1}}), 400, "unknown game")
    refused(client.post("/api/games", json={"game": "connect6", "colour": []}), 400, "colour")
    refused(client.post("/api/games", json={"game": "connect6", "seed": 1.5}), 400, "seed")
    refused(client.post("/api/games", json={"game": "connect6", "network": {"a": 1}}), 400, "checkpoint")
    refused(client.post(f"/api/games/{key}/move", json={"action": 3, "player": 1.0}), 400, "player")
    refused(client.post(f"/api/games/{key}/move", json={"action": 3, "player": True}), 400, "player")
    refused(client.post(f"/api/games/{key}/agent", json={"simulations": [8]}), 400, "simulations")
    refused(client.post(f"/api/games/{key}/move", content=b"[" * 30_000), 400, "not valid JSON")
    assert client.get(f"/api/games/{key}").json()["moves"] == []


@pytest.fixture
def live_server(client):
    """The client's app served by uvicorn on a free loopback port, in a thread."""
    import uvicorn
    sock = listen("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(client.app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]})
    thread.start()
    while not server.started:
        time.sleep(0.01)
    yield sock.getsockname()[:2]
    server.should_exit = True
    thread.join(10)
    sock.close()


def answer_before_the_body_ends(address, head: bytes, chunks) -> bytes:
    """Send a request's head, then its body chunk by chunk while no answer has come; the
    answer, read while the body was still unfinished."""
    import socket
    with socket.create_connection(address, timeout=10) as connection:
        connection.sendall(head)
        connection.settimeout(0.05)
        for chunk in chunks:
            try:
                answer = connection.recv(65536)
                break
            except TimeoutError:
                connection.sendall(chunk)
        else:
            raise AssertionError("the server read the whole body without answering")
        connection.settimeout(10)
        while b"\r\n\r\n" not in answer:
            answer += connection.recv(65536)
        return answer


def test_a_body_over_the_limit_is_refused_before_it_is_read(live_server):
    declared = (b"POST /api/games HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                b"content-length: 30000000\r\n\r\n")
    answer = answer_before_the_body_ends(live_server, declared, [b" " * 65536] * 400)
    assert answer.startswith(b"HTTP/1.1 413") and b"connection: close" in answer.lower()
    chunked = (b"POST /api/games HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
               b"transfer-encoding: chunked\r\n\r\n")
    answer = answer_before_the_body_ends(live_server, chunked, [b"2000\r\n" + b" " * 0x2000 + b"\r\n"] * 400)
    assert answer.startswith(b"HTTP/1.1 413") and b"connection: close" in answer.lower()
