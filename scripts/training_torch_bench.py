#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The training lab's bench case in PyTorch, compared in docs/performance.md.

The same work as `attention-lab-bench training-lab`: the lab's task at its
defaults with d_k 256 (n 32 keys, d_model 64, C 16 classes, beta 5, batch 64,
query noise 0.5), 400 steps of two runs (scores divided by sqrt(d_k) and by
1) from the same starting weights on the same batches (fresh every step,
drawn once for both runs), float64, autograd and torch.optim.Adam (lr 3e-3,
defaults otherwise). The batches come from torch's own generator, so the
numbers are not the lab's; the work is.

Two formulations of the scores:
  keys   k_j = e_j W_k for every key (K = E W_k, (B, n, d_k)), then q . k_j:
         what one writes in PyTorch;
  cheap  r = W_k q^T (d_model), s_j = e_j . r: the lab's, without K.

With --lab-bench PATH (build/bench/attention-lab-bench), that program's
training-lab case and the PyTorch runs alternate, so both see the same load.
Prints one JSON object per line.

  python3 scripts/training_torch_bench.py --lab-bench build/bench/attention-lab-bench --repeats 5
"""

import argparse
import json
import statistics
import subprocess
import time

import torch

N_KEYS, D_MODEL, CLASSES, BETA, BATCH, NOISE = 32, 64, 16, 5.0, 64, 0.5
D_K, STEPS, LR = 256, 400, 3e-3


def batches(seed):
    gen = torch.Generator().manual_seed(seed)
    for _ in range(STEPS):
        e = torch.randn(BATCH, N_KEYS, D_MODEL, dtype=torch.float64, generator=gen)
        y = torch.randint(0, CLASSES, (BATCH, N_KEYS), generator=gen)
        t = torch.randint(0, N_KEYS, (BATCH,), generator=gen)
        rows = torch.arange(BATCH)
        x_q = e[rows, t] + NOISE * torch.randn(BATCH, D_MODEL, dtype=torch.float64, generator=gen)
        values = BETA * torch.nn.functional.one_hot(y, CLASSES).to(torch.float64)  # (B, n, C)
        yield e, x_q, values, y[rows, t]


def loss_of(w_q, w_k, e, x_q, values, y_t, divisor, formulation):
    q = x_q @ w_q  # (B, d_k)
    if formulation == "keys":
        k = e @ w_k  # (B, n, d_k)
        s = torch.einsum("bd,bnd->bn", q, k) / divisor
    else:
        r = q @ w_k.T  # (B, d_model)
        s = torch.einsum("bnm,bm->bn", e, r) / divisor
    a = torch.softmax(s, dim=1)
    o = torch.einsum("bn,bnc->bc", a, values)
    return torch.nn.functional.cross_entropy(o, y_t)


def train(formulation, seed=123):
    gen = torch.Generator().manual_seed(seed + 1)
    start_q = torch.randn(D_MODEL, D_K, dtype=torch.float64, generator=gen) / D_MODEL**0.5
    start_k = torch.randn(D_MODEL, D_K, dtype=torch.float64, generator=gen) / D_MODEL**0.5
    runs = []
    for divisor in (D_K**0.5, 1.0):
        w_q = start_q.clone().requires_grad_()
        w_k = start_k.clone().requires_grad_()
        runs.append((divisor, w_q, w_k, torch.optim.Adam([w_q, w_k], lr=LR)))
    last = []
    for e, x_q, values, y_t in batches(seed):
        last = []
        for divisor, w_q, w_k, opt in runs:
            opt.zero_grad()
            loss = loss_of(w_q, w_k, e, x_q, values, y_t, divisor, formulation)
            loss.backward()
            opt.step()
            last.append(loss.item())
    return last


def lab_bench_ms(path):
    out = subprocess.run([path, "--quick", "training-lab"], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        record = json.loads(line)
        if record.get("case") == "training_lab":
            return record["median_ms"]
    raise RuntimeError("no training_lab line from " + path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--lab-bench", help="attention-lab-bench, timed alternately with PyTorch")
    args = parser.parse_args()

    times = {"keys": [], "cheap": [], "lab": []}
    losses = {}
    train("keys")  # warm-up
    for _ in range(args.repeats):
        if args.lab_bench:
            times["lab"].append(lab_bench_ms(args.lab_bench))
        for formulation in ("keys", "cheap"):
            t0 = time.perf_counter()
            losses[formulation] = train(formulation)
            times[formulation].append((time.perf_counter() - t0) * 1e3)
    for formulation in ("keys", "cheap"):
        print(json.dumps({
            "case": "torch_training_" + formulation,
            "d_k": D_K,
            "steps": STEPS,
            "median_ms": round(statistics.median(times[formulation]), 1),
            "runs": len(times[formulation]),
            "threads": torch.get_num_threads(),
            "torch": torch.__version__,
            "last_loss": [round(x, 6) for x in losses[formulation]],
        }))
    if times["lab"]:
        print(json.dumps({"case": "training_lab", "d_k": D_K, "steps": STEPS,
                          "median_ms": round(statistics.median(times["lab"]), 1), "runs": len(times["lab"]),
                          "note": "each a median of attention-lab-bench --quick training-lab (2 runs)"}))


if __name__ == "__main__":
    main()
