#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""PyTorch's float32 forward pass over a Llama-family folder: the baseline of
`attention-lab-bench smollm2-cli` (see docs/performance.md).

Reads config.json and model.safetensors without the safetensors package (an
8-byte little-endian header length, a JSON header, the raw data; BF16 becomes
float32 by shifting its 16 bits into the upper half), builds the forward pass
in plain torch (RMSNorm, RoPE with rotate_half, grouped-query attention with
the causal mask, SwiGLU, the logits against the tied embeddings) and times it
over --tokens tokens with --threads threads: one warm-up, then the median of
--repeats, under torch.inference_mode(). Prints one JSON object.

  /usr/bin/python3 scripts/llama_torch_forward.py --model DIR --tokens 64 --threads 2
"""

import argparse
import json
import statistics
import struct
import sys
import time

try:
    import numpy as np
    import torch
except ImportError as missing:  # the bench prints its case without the baseline
    print(json.dumps({"error": f"{missing.name} is not installed"}))
    sys.exit(3)


def read_safetensors(path):
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(length))
        data = f.read()
    tensors = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        raw = np.frombuffer(data, dtype=np.uint8, count=end - begin, offset=begin)
        if t["dtype"] == "BF16":
            a = (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        elif t["dtype"] == "F32":
            a = raw.view(np.float32).copy()
        elif t["dtype"] == "F16":
            a = raw.view(np.float16).astype(np.float32)
        else:
            raise ValueError(f"{name}: dtype {t['dtype']} is not supported")
        tensors[name] = torch.from_numpy(a.reshape(t["shape"]))
    return tensors


def rms_norm(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def forward(w, c, ids):
    n = ids.shape[0]
    e, heads, kv_heads = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
    hd = c.get("head_dim") or e // heads
    eps = c.get("rms_norm_eps", 1e-6)
    inv_freq = 1.0 / (c.get("rope_theta", 10000.0) ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
    angles = torch.outer(torch.arange(n, dtype=torch.float32), inv_freq)
    angles = torch.cat((angles, angles), dim=-1)
    cos, sin = angles.cos(), angles.sin()
    mask = torch.full((n, n), float("-inf")).triu(1)
    embed = w["model.embed_tokens.weight"]
    h = embed[ids]
    for layer in range(c["num_hidden_layers"]):
        p = f"model.layers.{layer}."

        def proj(x, name):
            y = x @ w[p + name + ".weight"].T
            bias = w.get(p + name + ".bias")
            return y if bias is None else y + bias

        x = rms_norm(h, w[p + "input_layernorm.weight"], eps)
        q = proj(x, "self_attn.q_proj").view(n, heads, hd).transpose(0, 1)
        k = proj(x, "self_attn.k_proj").view(n, kv_heads, hd).transpose(0, 1)
        v = proj(x, "self_attn.v_proj").view(n, kv_heads, hd).transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(heads // kv_heads, dim=0)
        v = v.repeat_interleave(heads // kv_heads, dim=0)
        a = torch.softmax(q @ k.transpose(1, 2) / hd**0.5 + mask, dim=-1)
        h = h + proj((a @ v).transpose(0, 1).reshape(n, heads * hd), "self_attn.o_proj")
        x = rms_norm(h, w[p + "post_attention_layernorm.weight"], eps)
        gate = torch.nn.functional.silu(x @ w[p + "mlp.gate_proj.weight"].T)
        h = h + (gate * (x @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
    h = rms_norm(h, w["model.norm.weight"], eps)
    lm_head = embed if c.get("tie_word_embeddings", False) else w["lm_head.weight"]
    return h @ lm_head.T


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    with open(f"{args.model}/config.json") as f:
        config = json.load(f)
    weights = read_safetensors(f"{args.model}/model.safetensors")
    load_ms = (time.perf_counter() - t0) * 1e3
    ids = torch.arange(args.tokens) * 7 % config["vocab_size"]
    times = []
    with torch.inference_mode():
        logits = forward(weights, config, ids)  # warm-up
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            logits = forward(weights, config, ids)
            times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"forward_ms": statistics.median(times), "min_ms": min(times), "runs": len(times),
                      "load_ms": load_ms, "threads": args.threads, "tokens": args.tokens,
                      "torch": torch.__version__, "finite": bool(torch.isfinite(logits).all())}))


if __name__ == "__main__":
    main()
