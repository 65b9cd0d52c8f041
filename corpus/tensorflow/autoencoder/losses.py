"""Loss terms for the (denoising, sparse) autoencoder."""
import tensorflow as tf


def reconstruction_loss(x, x_hat):
    return tf.reduce_mean(tf.reduce_sum(tf.square(x - x_hat), axis=-1))


def sparsity_penalty(codes, weight):
    return weight * tf.reduce_mean(tf.abs(codes))
