"""Elo ratings from a round robin: every pair of players plays one match (pairs of games from
a random opening, colours swapped: `play_match`), and a Bradley-Terry fit turns the scores
into ratings with error bars.

The model: player i scores against player j with probability 1 / (1 + 10^((r_j - r_i) / 400)),
a draw counting half a win. `fit_elo` finds the ratings of maximum likelihood by Newton's
method with one anchor held at 0; a rating's standard error is the square root of its entry
in the inverse of the Fisher information (the negative Hessian of the log-likelihood) at the
fit. As in BayesElo, each pair that played counts one drawn game more than it played, so that
a player who won every game still gets a finite rating (it shrinks ratings by about one game
in `games`: 5% at 20 games a pair).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from tqdm import tqdm

from alphazero.evaluate.match import MatchResult, play_match

ELO_PER_UNIT = 400 / math.log(10)  # Elo points per unit of the logistic scale
VIRTUAL_DRAWS = 1.0  # drawn games added to every pair that played
MAX_STEP = 1.0  # the largest change of one rating in one Newton step (logistic units)


def round_robin(game, players: list, games: int, seed: int, opening_plies: int):
    """Yield (i, j, result from i's view) for every pair i < j of `players` (agents), one
    match of `games` games each, each match from openings of its own."""
    for k, (i, j) in enumerate(itertools.combinations(range(len(players)), 2)):
        with tqdm(total=games, desc=f"match {k + 1}", unit="game", leave=False) as bar:
            result = play_match(game, players[i], players[j], games, seed + k, bar, opening_plies)
        yield i, j, result


def score_table(count: int, results: list[tuple[int, int, MatchResult]]) -> tuple[np.ndarray, np.ndarray]:
    """scores[i, j] (i's wins and half its draws against j) and games[i, j] of `count`
    players from `round_robin`'s results."""
    scores, games = np.zeros((count, count)), np.zeros((count, count))
    for i, j, result in results:
        scores[i, j] += result.wins + 0.5 * result.draws
        scores[j, i] += result.losses + 0.5 * result.draws
        games[i, j] += result.games
        games[j, i] += result.games
    return scores, games


def fit_elo(scores: np.ndarray, games: np.ndarray, anchor: int) -> tuple[np.ndarray, np.ndarray]:
    """Each player's rating and its standard error, in Elo points, `anchor` at 0 (error 0).
    Every player must be linked to the anchor through pairs that played."""
    played = games > 0
    scores = scores + 0.5 * VIRTUAL_DRAWS * played
    games = games + VIRTUAL_DRAWS * played
    free = np.arange(len(games)) != anchor
    theta = np.zeros(len(games))
    for _ in range(1000):
        expected = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))  # P(i beats j)
        gradient = (scores - games * expected).sum(axis=1)
        weights = games * expected * (1 - expected)
        information = np.diag(weights.sum(axis=1)) - weights
        step = np.linalg.solve(information[np.ix_(free, free)], gradient[free])
        largest = np.abs(step).max()
        theta[free] += step * min(1.0, MAX_STEP / largest) if largest > 1e-9 else step
        if largest <= 1e-9:
            break
    errors = np.zeros(len(games))
    errors[free] = np.sqrt(np.diag(np.linalg.inv(information[np.ix_(free, free)])))
    return theta * ELO_PER_UNIT, errors * ELO_PER_UNIT
