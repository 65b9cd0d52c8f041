import tensorflow as tf
from tensorflow import keras


class Dense2(keras.layers.Layer):
    """Dense layer with column-normalised weights and a learned per-unit gain (weight norm)."""

    def __init__(self, units, activation=None):
        super().__init__()
        self.units = units
        self.activation = activation

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units),
                                      initializer="glorot_uniform", name="kernel")
        self.gain = self.add_weight(shape=(self.units,), initializer="ones", name="gain")
        self.bias = self.add_weight(shape=(self.units,), initializer="zeros", name="bias")

    def call(self, inputs):
        direction = self.kernel / tf.norm(self.kernel, axis=0, keepdims=True)
        out = tf.matmul(inputs, direction) * self.gain + self.bias
        if self.activation == "relu":
            out = tf.nn.relu(out)
        return out
