import tensorflow as tf

from .utils import *

WEIGHT_DECAY = 1e-4


def loss_fn(model, x, y):
    logits = model(x)
    ce = tf.reduce_mean(
        tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
    return ce + WEIGHT_DECAY * l2_penalty(model), logits


def train_step(model, optimizer, x, y):
    with tf.GradientTape() as tape:
        loss, logits = loss_fn(model, x, y)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss, batch_accuracy(logits, y)


def fit(model, x, y, epochs, batch_size):
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x), seed=0).batch(batch_size)
    history = []
    for epoch in range(epochs):
        mean_loss = tf.keras.metrics.Mean()
        mean_acc = tf.keras.metrics.Mean()
        for xb, yb in ds:
            loss, acc = train_step(model, optimizer, xb, yb)
            mean_loss.update_state(loss)
            mean_acc.update_state(acc)
        history.append(float(mean_loss.result()))
        print(f"epoch {epoch}: loss {history[-1]:.4f}  acc {float(mean_acc.result()):.3f}")
    return history


def evaluate(model, x, y):
    logits = model(x)
    return batch_accuracy(logits, y), confusion_counts(logits, y, 3)
