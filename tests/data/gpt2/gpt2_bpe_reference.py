#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""GPT-2's byte-level BPE as OpenAI's encoder.py states it (bytes_to_unicode,
the pre-tokenizer pattern through the `regex` module, merges by rank), written
independently of the C++ tokenizer to obtain the ids of tst_gpt2tokenizer's
hand-made table. Reads vocab.json and merges.txt from the folder given.

    python3 gpt2_bpe_reference.py tiny-gpt2 "don't" "a   b"
prints one JSON line per text: {"text": ..., "ids": [...]}.
"""
import json
import sys

import regex

PATTERN = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def bpe(word, ranks):
    parts = list(word)
    while len(parts) > 1:
        pairs = set(zip(parts, parts[1:]))
        best = min(pairs, key=lambda p: ranks.get(p, float("inf")))
        if best not in ranks:
            break
        merged = []
        i = 0
        while i < len(parts):
            if i + 1 < len(parts) and (parts[i], parts[i + 1]) == best:
                merged.append(parts[i] + parts[i + 1])
                i += 2
            else:
                merged.append(parts[i])
                i += 1
        parts = merged
    return parts


def main():
    folder = sys.argv[1]
    with open(f"{folder}/vocab.json", encoding="utf-8") as f:
        vocab = json.load(f)
    with open(f"{folder}/merges.txt", encoding="utf-8") as f:
        lines = f.read().split("\n")[1:-1]
    ranks = {tuple(line.split()): rank for rank, line in enumerate(lines)}
    byte_char = bytes_to_unicode()
    for text in sys.argv[2:]:
        ids = []
        for piece in PATTERN.findall(text):
            word = "".join(byte_char[b] for b in piece.encode("utf-8"))
            ids.extend(vocab[p] for p in bpe(word, ranks))
        print(json.dumps({"text": text, "ids": ids}, ensure_ascii=False))


if __name__ == "__main__":
    main()
