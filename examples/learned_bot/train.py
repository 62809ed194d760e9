"""Train a small policy for Twenty Down on the PettingZoo environment, with numpy alone.

    python examples/learned_bot/train.py --minutes 8 --out examples/learned_bot/bot/policy.npz

The policy is linear: one score per action from the seat's observation vector (the game's
encoding, docs/research.md), illegal actions masked out, softmax. It learns by REINFORCE
(Williams 1992) in self-play (the policy plays all four seats; ``--against-random``: one seat
against three uniformly random players): each decision is credited with the rewards that
follow it, discounted by ``GAMMA`` per decision of its seat (rewards per deal — the points it
lost or won, / 10 — and its rank at the end), less a running mean. Every setting is below;
the whole run is seeded.

``bot/learned_bot.py`` fields the saved policy as the arena bot ``learned-td``.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from arena.envs import pettingzoo_env

GAMMA = 0.9  # about one deal of the learner's decisions
LEARNING_RATE = 0.05
BASELINE_DECAY = 0.99


def policy_probs(weights, bias, x, mask):
    logits = x @ weights + bias
    logits = np.where(mask > 0, logits, -np.inf)
    logits -= logits.max()
    p = np.exp(logits)
    return p / p.sum()


def play_episode(env, weights, bias, rng: np.random.Generator, seed: int, learners: set[str]):
    """One game; per learning seat, its vectors, masks, actions and the reward after each
    action (the others play uniformly at random)."""
    steps = {agent: ([], [], [], []) for agent in learners}
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        mine = steps.get(agent)
        if mine is not None and mine[0]:
            mine[3].append(reward)
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"]
        if mine is not None:
            x = obs["observation"]
            action = int(rng.choice(len(mask), p=policy_probs(weights, bias, x, mask)))
            mine[0].append(x)
            mine[1].append(mask)
            mine[2].append(action)
        else:
            legal = mask.nonzero()[0]
            action = int(legal[rng.integers(len(legal))])
        env.step(action)
    return [
        (np.array(xs), np.array(masks), np.array(acts), returns_to_go(np.array(rewards)))
        for xs, masks, acts, rewards in steps.values()
        if xs
    ]


def returns_to_go(rewards):
    out = np.zeros_like(rewards)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + GAMMA * running
        out[t] = running
    return out


def train(seconds: float, seed: int = 0, max_games: int | None = None, selfplay: bool = True):
    """Train for ``seconds`` (or ``max_games`` games); return (weights, bias, games played).
    ``selfplay``: the policy plays all four seats (four times the data a game); else one seat,
    in turn, against three random players."""
    env = pettingzoo_env("twenty-down", rewards="deal")
    size = env.encoding.observation_size
    actions = env.encoding.num_actions
    rng = np.random.default_rng(seed)
    seeds = random.Random(seed)
    weights = np.zeros((size, actions))
    bias = np.zeros(actions)
    baseline = 0.0
    games = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end and (max_games is None or games < max_games):
        agents = env.possible_agents
        learners = set(agents) if selfplay else {agents[games % 4]}
        episodes = play_episode(env, weights, bias, rng, seeds.getrandbits(32), learners)
        games += 1
        xs = np.concatenate([e[0] for e in episodes])
        masks = np.concatenate([e[1] for e in episodes])
        acts = np.concatenate([e[2] for e in episodes])
        g = np.concatenate([e[3] for e in episodes])
        advantage = g - baseline
        baseline = BASELINE_DECAY * baseline + (1 - BASELINE_DECAY) * g.mean()
        logits = np.where(masks > 0, xs @ weights + bias, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        grad = -p
        grad[np.arange(len(acts)), acts] += 1.0
        grad *= advantage[:, None]
        weights += LEARNING_RATE * xs.T @ grad / len(xs)
        bias += LEARNING_RATE * grad.mean(axis=0)
    return weights, bias, games


def evaluate(weights, bias, games: int, seed: int = 12345) -> tuple[float, float]:
    """The greedy policy against three random players: (mean rank, share of games won)."""
    env = pettingzoo_env("twenty-down")
    rng = np.random.default_rng(seed)
    ranks = []
    for g in range(games):
        learner = g % 4
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = obs["action_mask"]
            legal = mask.nonzero()[0]
            if agent == env.possible_agents[learner]:
                scores = (obs["observation"] @ weights + bias)[legal]
                env.step(int(legal[np.argmax(scores)]))
            else:
                env.step(int(legal[rng.integers(len(legal))]))
        ranks.append(env.state.result().ranks[learner])
    ranks = np.array(ranks)
    return float(ranks.mean()), float((ranks == 1).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=8.0)
    parser.add_argument("--games", type=int, default=None, help="stop after this many games")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--against-random", action="store_true", help="learn one seat a game")
    parser.add_argument("--out", default="examples/learned_bot/bot/policy.npz")
    parser.add_argument("--evaluate", type=int, default=200, help="games against random after")
    args = parser.parse_args()
    start = time.monotonic()
    weights, bias, games = train(args.minutes * 60, args.seed, args.games, not args.against_random)
    np.savez_compressed(args.out, weights=weights.astype(np.float32), bias=bias.astype(np.float32))
    print(f"trained on {games} games in {time.monotonic() - start:.0f} s; saved {args.out}")
    if args.evaluate:
        rank, wins = evaluate(weights, bias, args.evaluate)
        print(
            f"against three random players, {args.evaluate} games: mean rank {rank:.2f} "
            f"(random: 2.5), won {wins:.0%} (random: 25%)"
        )


if __name__ == "__main__":
    main()
