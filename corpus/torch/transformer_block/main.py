"""One-block Transformer encoder classifying token sequences.

The task: does token 3 occur more often than token 5? Sequences are padded with token 0 to a
fixed length; the hand-written multi-head self-attention masks the padding, the sinusoidal
positional table is a buffer, and the block is pre-norm with a GELU feed-forward. The model
is evaluated on the validation length and on longer sequences.
"""
import argparse
import math

import torch
from torch import nn

VOCAB = 12
MAX_LEN = 32
SEQ_LEN = 16
D_MODEL = 32
NUM_HEADS = 4
STEPS = 45
BATCH_SIZE = 32

torch.manual_seed(0)


def positional_encoding(max_len, d_model):
    position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32)
                         * (-math.log(10000.0) / d_model))
    table = torch.zeros(max_len, d_model)
    table[:, 0::2] = torch.sin(position * div_term)
    table[:, 1::2] = torch.cos(position * div_term)
    return table


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = d_model // num_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def split_heads(self, x):
        batch, length, _ = x.shape
        return x.view(batch, length, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, x, padding_mask):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        scores = scores.masked_fill(padding_mask[:, None, None, :], float("-inf"))
        context = torch.softmax(scores, dim=-1) @ v
        batch, _, length, _ = context.shape
        return self.out(context.transpose(1, 2).reshape(batch, length, -1))


class EncoderBlock(nn.Module):
    def __init__(self, d_model, num_heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(d_model)
        self.attention = MultiHeadSelfAttention(d_model, num_heads)
        self.norm2 = nn.LayerNorm(d_model)
        self.ffn = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(),
                                 nn.Linear(4 * d_model, d_model))

    def forward(self, x, padding_mask):
        x = x + self.attention(self.norm1(x), padding_mask)
        return x + self.ffn(self.norm2(x))


class SequenceClassifier(nn.Module):
    def __init__(self, vocab, d_model, num_heads):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model, padding_idx=0)
        self.register_buffer("positions", positional_encoding(MAX_LEN, d_model))
        self.block = EncoderBlock(d_model, num_heads)
        self.head = nn.Linear(d_model, 2)

    def forward(self, tokens):
        padding_mask = tokens == 0
        x = self.embedding(tokens) + self.positions[: tokens.shape[1]]
        x = self.block(x, padding_mask)
        keep = (~padding_mask).unsqueeze(-1).float()
        pooled = (x * keep).sum(dim=1) / keep.sum(dim=1).clamp(min=1.0)
        return self.head(pooled)


def make_batch(batch_size, seq_len, generator):
    tokens = torch.randint(1, VOCAB, (batch_size, seq_len), generator=generator)
    lengths = torch.randint(seq_len // 2, seq_len + 1, (batch_size, 1), generator=generator)
    tokens = tokens.masked_fill(torch.arange(seq_len).unsqueeze(0) >= lengths, 0)
    labels = ((tokens == 3).sum(dim=1) > (tokens == 5).sum(dim=1)).long()
    return tokens, labels


def train_step(model, optimizer, tokens, labels):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(tokens), labels)
    loss.backward()
    optimizer.step()
    return loss.detach()


def evaluate(model, tokens, labels):
    with torch.no_grad():
        logits = model(tokens)
    return (logits.argmax(dim=-1) == labels).float().mean()


def main():
    generator = torch.Generator().manual_seed(1)
    model = SequenceClassifier(VOCAB, D_MODEL, NUM_HEADS)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    val_tokens, val_labels = make_batch(256, SEQ_LEN, generator)
    long_tokens, long_labels = make_batch(256, 2 * SEQ_LEN, generator)
    model.train()
    for step in range(STEPS):
        tokens, labels = make_batch(BATCH_SIZE, SEQ_LEN, generator)
        loss = train_step(model, optimizer, tokens, labels)
        if step % 20 == 0:
            print(f"step {step}: loss {loss.item():.4f}")
    model.eval()
    val_acc = evaluate(model, val_tokens, val_labels)
    long_acc = evaluate(model, long_tokens, long_labels)
    print(f"digest: {loss.item():.4f} {val_acc.item():.4f} {long_acc.item():.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Transformer block classifier.")
    parser.add_argument("--steps", type=int, default=STEPS, help="number of training steps")
    args = parser.parse_args()
    STEPS = int(args.steps)
    main()
