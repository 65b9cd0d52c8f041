"""pytest checks for the skip-gram helpers (run with `pytest` in this folder)."""
import numpy as np
import tensorflow as tf

from main import (Word2Vec, cosine_similarity_matrix, embedding_norms, make_skipgram_pairs,
                  mean_pairwise_similarity, skipgram_loss)


def test_skipgram_pairs_window_one():
    targets, contexts = make_skipgram_pairs([[1, 2, 3]], 1)
    assert list(zip(targets, contexts)) == [(1, 2), (2, 1), (2, 3), (3, 2)]


def test_loss_prefers_correct_logits():
    labels = tf.constant([[1.0, 0.0, 0.0]])
    good = skipgram_loss(tf.constant([[5.0, -5.0, -5.0]]), labels)
    bad = skipgram_loss(tf.constant([[-5.0, 5.0, 5.0]]), labels)
    assert good < bad


def test_similarity_matrix_is_symmetric_with_unit_diagonal():
    embeddings = tf.random.stateless_normal([6, 4], seed=[1, 2])
    sims = cosine_similarity_matrix(embeddings).numpy()
    np.testing.assert_allclose(sims, sims.T, atol=1e-6)
    np.testing.assert_allclose(np.diag(sims), np.ones(6), atol=1e-5)


def test_embedding_norms_of_normalized_rows():
    embeddings = tf.math.l2_normalize(tf.random.stateless_normal([5, 3], seed=[3, 4]), axis=1)
    np.testing.assert_allclose(embedding_norms(embeddings).numpy(), np.ones(5), atol=1e-5)


def test_mean_pairwise_similarity_of_identical_rows():
    embeddings = tf.ones([4, 3])
    score = mean_pairwise_similarity(embeddings, tf.constant([0, 1, 2]))
    assert abs(score.numpy() - 1.0) < 1e-5


def test_model_output_shape():
    model = Word2Vec(10, 4)
    logits = model(tf.constant([1, 2]), tf.constant([[1, 2, 3], [4, 5, 6]]))
    assert logits.shape == (2, 3)
