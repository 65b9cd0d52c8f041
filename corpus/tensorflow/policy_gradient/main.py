"""REINFORCE (vanilla policy gradient) on a tiny slippery corridor environment.

The environment is plain Python; the policy is a small Keras model trained with a
GradientTape on whole episodes (fixed horizon, so every batch has the same shape).
"""
import argparse
import random

import numpy as np
import tensorflow as tf
from tensorflow import keras

SEED = 7
HORIZON = 8
NUM_EPISODES = 60


class SlipperyCorridor:
    """Agent walks left/right on a corridor; reward 1 for every step spent at the goal cell."""

    def __init__(self, length, slip_prob, horizon):
        self.length = length
        self.slip_prob = slip_prob
        self.horizon = horizon
        self.position = 0
        self.t = 0

    def reset(self):
        self.position = random.randrange(self.length - 1)
        self.t = 0
        return self._observation()

    def _observation(self):
        obs = np.zeros(self.length, dtype=np.float32)
        obs[self.position] = 1.0
        return obs

    def step(self, action):
        move = 1 if action == 1 else -1
        if random.random() < self.slip_prob:
            move = -move
        self.position = min(max(self.position + move, 0), self.length - 1)
        self.t += 1
        reward = 1.0 if self.position == self.length - 1 else 0.0
        done = self.t >= self.horizon
        return self._observation(), reward, done


class PolicyNetwork(keras.Model):
    def __init__(self, num_actions, hidden_units):
        super().__init__()
        self.hidden = keras.layers.Dense(hidden_units, activation="tanh")
        self.logits = keras.layers.Dense(num_actions)

    def build(self, input_shape):
        # Create all weights up front rather than lazily inside the first forward pass.
        self.hidden.build(input_shape)
        self.logits.build((input_shape[0], self.hidden.units))

    def call(self, observations):
        return self.logits(self.hidden(observations))


def sample_action(policy, observation):
    logits = policy(observation)
    action = tf.random.categorical(logits, num_samples=1)
    return int(action[0, 0].numpy())


def run_episode(env, policy):
    states, actions, rewards = [], [], []
    obs = env.reset()
    done = False
    while not done:
        action = sample_action(policy, tf.constant(obs[None, :]))
        next_obs, reward, done = env.step(action)
        states.append(obs)
        actions.append(action)
        rewards.append(reward)
        obs = next_obs
    return tf.stack(states), tf.constant(actions, dtype=tf.int32), rewards


def standardize(values):
    mean = tf.reduce_mean(values)
    std = tf.math.reduce_std(values)
    return (values - mean) / (std + 1e-6)


def compute_returns(rewards, gamma):
    returns = []
    running = 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        returns.append(running)
    returns.reverse()
    return standardize(tf.constant(returns, dtype=tf.float32))


def reinforce_loss(logits, actions, returns):
    neg_log_prob = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=actions, logits=logits)
    return tf.reduce_mean(neg_log_prob * returns)


def train_step(policy, optimizer, states, actions, returns):
    with tf.GradientTape() as tape:
        logits = policy(states)
        loss = reinforce_loss(logits, actions, returns)
    grads = tape.gradient(loss, policy.trainable_variables)
    optimizer.apply_gradients(zip(grads, policy.trainable_variables))
    return loss


def action_probabilities(policy, observations):
    return tf.nn.softmax(policy(observations), axis=-1)


def main():
    random.seed(SEED)
    np.random.seed(SEED)
    tf.random.set_seed(SEED)

    env = SlipperyCorridor(length=6, slip_prob=0.1, horizon=HORIZON)
    policy = PolicyNetwork(num_actions=2, hidden_units=16)
    optimizer = keras.optimizers.Adam(learning_rate=0.02)

    episode_returns = []
    loss = tf.constant(0.0)
    for episode in range(NUM_EPISODES):
        states, actions, rewards = run_episode(env, policy)
        returns = compute_returns(rewards, gamma=0.95)
        loss = train_step(policy, optimizer, states, actions, returns)
        episode_returns.append(sum(rewards))
        if (episode + 1) % 20 == 0:
            recent = np.mean(episode_returns[-20:])
            print(f"episode {episode + 1:3d}  loss {float(loss):+.4f}  mean return {recent:.2f}")

    all_cells = tf.eye(6)
    probs = action_probabilities(policy, all_cells)
    go_right = probs[:, 1].numpy()
    print("P(right) per cell:", np.round(go_right, 3))
    first = float(np.mean(episode_returns[:20]))
    last = float(np.mean(episode_returns[-20:]))
    print(f"digest: {first:.4f} {last:.4f} {float(loss):.4f} {float(np.sum(go_right)):.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="REINFORCE on a slippery corridor.")
    parser.add_argument("--episodes", type=int, default=NUM_EPISODES,
                        help="training episodes (default: %(default)s)")
    args = parser.parse_args()
    NUM_EPISODES = int(args.episodes)
    main()
