"""Record the default agent's moves of every shipped network at fixed positions and seeds
(tests/data/pinned_moves.json, checked by tests/test_pinned_moves.py):
`python bench/pin_moves.py tests/data/pinned_moves.json`."""
import json, sys
import numpy as np
from alphazero.config.presets import compose_play
from alphazero.config.settings import build_game
from alphazero.play import make_agent
from alphazero.config.threads import use_search_threads

KEYS = ["connect4", "connect4_classic", "connect6", "gomoku", "gomoku8", "othello"]
out = {}
use_search_threads(1)
for key in KEYS:
    cfg = compose_play([f"game={key}", "seed=0", "threads=1"])
    game = build_game(cfg)
    agent = make_agent(game, cfg)
    rng = np.random.default_rng(12345)
    positions = []
    plies_list = [0, 3, 6, 11] + ([46] if key == "othello" else [])
    for plies in plies_list:
        for attempt in range(20):
            state = game.new_state(np.random.default_rng(0))
            moves = []
            ok = True
            for _ in range(plies):
                legal = game.legal_list(state)
                a = int(rng.choice(legal))
                moves.append(game.format_move(state, a))
                game.play(state, a)
                if game.status(state) != 0:
                    ok = False
                    break
            if not ok:
                continue
            agent.reset()
            action = int(agent.best_actions(state[None])[0])
            # the margin of the most visited move over the next, from the search that played it
            search = next(iter(agent._searches.values()))
            visits = np.sort(search.visit_counts()[0])[::-1]
            margin = float(visits[0] - visits[1]) / max(float(visits.sum()), 1.0)
            solved = agent.endgame is not None and bool(agent.endgame.covers(state[None])[0])
            if margin < 0.05 and not solved:
                continue
            positions.append({"moves": moves, "move": game.format_move(state, action),
                              "margin": round(float(margin), 3), "value": round(float(agent.last_values[0]), 3)})
            print(key, plies, positions[-1], flush=True)
            break
    out[key] = positions
json.dump(out, open(sys.argv[1], "w"), indent=1)
