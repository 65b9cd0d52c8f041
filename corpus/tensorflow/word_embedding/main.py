"""Skip-gram word embeddings with negative sampling (word2vec tutorial style) on a synthetic corpus.

Each sentence is drawn from one of four topics, each topic owning ten word ids (id 0 is padding),
so after training the nearest neighbours of a word should come from the same topic.
"""
import argparse
import random

import numpy as np
import tensorflow as tf

VOCAB_SIZE = 41
EMBEDDING_DIM = 16
WINDOW_SIZE = 2
NUM_NS = 4
NUM_NEIGHBORS = 5
BATCH_SIZE = 256
EPOCHS = 3


def generate_corpus(num_sentences, sentence_len):
    sentences = []
    for _ in range(num_sentences):
        topic = random.randrange(4)
        sentences.append([topic * 10 + random.randint(1, 10) for _ in range(sentence_len)])
    return sentences


def make_skipgram_pairs(sentences, window_size):
    targets, contexts = [], []
    for sentence in sentences:
        for i, target in enumerate(sentence):
            for j in range(max(0, i - window_size), min(len(sentence), i + window_size + 1)):
                if i != j:
                    targets.append(target)
                    contexts.append(sentence[j])
    return targets, contexts


def add_negative_samples(contexts, num_ns, seed):
    """Context matrix [positive, negatives...] and its 1/0 label matrix."""
    rng = np.random.default_rng(seed)
    negatives = rng.integers(1, VOCAB_SIZE, size=(len(contexts), num_ns))
    context_matrix = np.concatenate([contexts[:, None], negatives], axis=1).astype(np.int32)
    labels = np.zeros(context_matrix.shape, dtype=np.float32)
    labels[:, 0] = 1.0
    return context_matrix, labels


class Word2Vec(tf.keras.Model):
    def __init__(self, vocab_size, embedding_dim):
        super().__init__()
        self.target_embedding = tf.keras.layers.Embedding(vocab_size, embedding_dim, name="w2v_embedding")
        self.context_embedding = tf.keras.layers.Embedding(vocab_size, embedding_dim)

    def call(self, target, context):
        word_emb = self.target_embedding(target)
        context_emb = self.context_embedding(context)
        return tf.einsum("be,bce->bc", word_emb, context_emb)


def skipgram_loss(logits, labels):
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))


def train_step(model, optimizer, target, context, labels):
    with tf.GradientTape() as tape:
        loss = skipgram_loss(model(target, context), labels)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def cosine_similarity_matrix(embeddings):
    normalized = tf.math.l2_normalize(embeddings, axis=1)
    return tf.matmul(normalized, normalized, transpose_b=True)


def embedding_norms(embeddings):
    return tf.norm(embeddings, axis=1)


def mean_pairwise_similarity(embeddings, word_ids):
    sims = cosine_similarity_matrix(tf.gather(embeddings, word_ids))
    n = tf.cast(tf.shape(sims)[0], tf.float32)
    return (tf.reduce_sum(sims) - tf.linalg.trace(sims)) / (n * (n - 1.0))


def neighbor_topic_agreement(embeddings, word_ids):
    sims = tf.gather(cosine_similarity_matrix(embeddings), word_ids)
    _, idx = tf.math.top_k(sims, k=NUM_NEIGHBORS + 1)
    neighbors = idx[:, 1:]
    same_topic = tf.equal((neighbors - 1) // 10, (word_ids[:, tf.newaxis] - 1) // 10)
    return tf.reduce_mean(tf.cast(same_topic, tf.float32))


def nearest_neighbors(embeddings, word_id, k):
    sims = cosine_similarity_matrix(embeddings)[word_id]
    _, idx = tf.math.top_k(sims, k=k + 1)
    return [int(i) for i in idx.numpy()[1:]]


def main():
    random.seed(5)
    np.random.seed(5)
    tf.random.set_seed(5)
    sentences = generate_corpus(200, 8)
    targets, contexts = make_skipgram_pairs(sentences, WINDOW_SIZE)
    targets = np.array(targets, dtype=np.int32)
    context_matrix, labels = add_negative_samples(np.array(contexts), NUM_NS, seed=9)
    dataset = (tf.data.Dataset.from_tensor_slices(((targets, context_matrix), labels))
               .shuffle(len(targets), seed=2).batch(BATCH_SIZE))

    model = Word2Vec(VOCAB_SIZE, EMBEDDING_DIM)
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.02)
    for epoch in range(EPOCHS):
        for (target, context), batch_labels in dataset:
            loss = train_step(model, optimizer, target, context, batch_labels)
        print(f"epoch {epoch + 1}: loss {loss.numpy():.4f}")

    embeddings = model.target_embedding.embeddings
    agreement = neighbor_topic_agreement(embeddings, tf.range(1, VOCAB_SIZE))
    for word in (1, 11, 21, 31):
        print(f"neighbours of {word}: {nearest_neighbors(embeddings, word, 3)}")
    print(f"{len(targets)} pairs, neighbour topic agreement {agreement.numpy():.4f}")
    print("digest: " + " ".join(f"{v:.4f}" for v in [float(loss), float(agreement),
                                                        float(tf.reduce_sum(embeddings[1:4]))]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Skip-gram word embeddings on a synthetic corpus.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help="number of training epochs")
    args = parser.parse_args()
    EPOCHS = args.epochs
    main()
