from tensorflow import keras

from .layers import Dense2


class MLPClassifier(keras.Model):
    def __init__(self, hidden, num_classes):
        super().__init__()
        self.hidden = hidden
        self.block1 = Dense2(hidden, "relu")
        self.block2 = Dense2(hidden, "relu")
        self.head = Dense2(num_classes)

    def build(self, input_shape):
        self.block1.build(input_shape)
        self.block2.build((input_shape[0], self.hidden))
        self.head.build((input_shape[0], self.hidden))

    def embed(self, inputs):
        return self.block2(self.block1(inputs))

    def call(self, inputs):
        return self.head(self.embed(inputs))
