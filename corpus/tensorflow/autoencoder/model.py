"""Dense encoder/decoder layers and the autoencoder model."""
from tensorflow import keras

HIDDEN_UNITS = 32


class Encoder(keras.layers.Layer):
    def __init__(self, latent_dim, hidden_units, **kwargs):
        super().__init__(**kwargs)
        self.hidden = keras.layers.Dense(hidden_units, activation="relu")
        self.project = keras.layers.Dense(latent_dim)

    def call(self, inputs):
        return self.project(self.hidden(inputs))


class Decoder(keras.layers.Layer):
    def __init__(self, output_dim, hidden_units, **kwargs):
        super().__init__(**kwargs)
        self.hidden = keras.layers.Dense(hidden_units, activation="relu")
        self.reconstruct = keras.layers.Dense(output_dim)

    def call(self, codes):
        return self.reconstruct(self.hidden(codes))


class Autoencoder(keras.Model):
    def __init__(self, input_dim, latent_dim):
        super().__init__()
        self.encoder = Encoder(latent_dim, HIDDEN_UNITS, name="encoder")
        self.decoder = Decoder(input_dim, HIDDEN_UNITS, name="decoder")

    def call(self, inputs, training=False):
        codes = self.encoder(inputs)
        return self.decoder(codes), codes

