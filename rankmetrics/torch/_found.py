"""Torch mirror of :mod:`rankmetrics.core.found`: AP@k over the relevant documents found in the
top k (torchmetrics' ``retrieval_average_precision(..., top_k=k)``), exact under ties.

Same formulas as the core (hypergeometric number ``j`` of the straddling tie group's relevant
documents inside the top k, uniform slots given ``j``; best/worst ``j`` for the bounds), on
``(Q,)`` tensors with masks instead of a query subset, so nothing leaves the device; the loops
run over ``j`` and slots up to k.
"""

from __future__ import annotations

import torch
from torch import Tensor

from ._kernel import Evaluator, group_sums


def _hypergeometric(s: Tensor, n: Tensor, r: Tensor, lo: Tensor, hi: Tensor,
                    width: int) -> list[Tensor]:
    """P(j), j = 0..width-1, per query (zero outside [lo, hi]), grown from the mode."""
    mode = torch.minimum(torch.maximum(torch.floor((s + 1.0) * (r + 1.0) / (n + 2.0)), lo), hi)
    cols = [torch.where(mode == j, 1.0, 0.0).to(s.dtype) for j in range(width)]
    for j in range(width - 1):
        up = (j >= mode) & (j < hi)
        ratio = (r - j) * (s - j) / ((j + 1.0) * (n - r - s + j + 1.0))
        cols[j + 1] = torch.where(up, cols[j] * ratio, cols[j + 1])
    for j in range(width - 1, 0, -1):
        down = (j <= mode) & (j > lo)
        ratio = j * (n - r - s + j) / ((r - j + 1.0) * (s - j + 1.0))
        cols[j - 1] = torch.where(down, cols[j] * ratio, cols[j - 1])
    total = torch.stack(cols).sum(dim=0)
    total = torch.where(total > 0, total, 1.0)
    return [c / total for c in cols]


def _straddling(mode: str, k: int, S: Tensor, a: Tensor, n: Tensor, r: Tensor,
                ra: Tensor) -> Tensor:
    s = k - a
    lo = torch.clamp(s - (n - r), min=0.0)
    hi = torch.minimum(r, s)
    width = k + 1
    if mode == "average":
        h1 = torch.zeros_like(S)
        for p in range(1, k + 1):
            h1 = h1 + torch.where(p <= s, 1.0 / (a + p), 0.0)
        h2 = s - (a + 1.0) * h1
        own = r / n * ((ra + 1.0) * h1 + (r - 1.0) / torch.clamp(n - 1.0, min=1.0) * h2)
        above = S - own
        prob = _hypergeometric(s, n, r, lo, hi, width)
        c = (ra + 1.0) * h1
        out = torch.zeros_like(S)
        for j in range(width):
            y = ra + j
            ok = (j >= lo) & (j <= hi) & (y > 0)
            other = (j - 1.0) / torch.clamp(s - 1.0, min=1.0) if j > 0 else torch.zeros_like(S)
            num = above + j / s * (c + other * h2)
            out = out + torch.where(ok, prob[j] * num / torch.where(ok, y, 1.0), 0.0)
        return out
    first = mode == "optimistic"
    harm = torch.zeros_like(S)
    xs = [torch.zeros_like(S)]
    for j in range(1, width):
        rank = a + j if first else torch.clamp(a + s - j + 1.0, min=1.0)
        harm = harm + torch.where(j <= hi, 1.0 / rank, 0.0)
        xs.append(j + ((ra - a) if first else (ra - a - s + j)) * harm)
    x = torch.stack(xs, dim=1)  # (Q, width)
    inside = (hi if first else lo).to(torch.int64).clamp(0, width - 1)
    above = S - x.gather(1, inside[:, None])[:, 0]
    best = torch.full_like(S, -torch.inf if first else torch.inf)
    for j in range(width):
        y = ra + j
        ok = (j >= lo) & (j <= hi)
        val = torch.where(y > 0, (above + x[:, j]) / torch.where(y > 0, y, 1.0), 0.0)
        cand = torch.where(ok, val, best)
        best = torch.maximum(best, cand) if first else torch.minimum(best, cand)
    return best


def ap_found(ev: Evaluator, mode: str, ks: list[int | None], sums: Tensor, rel: Tensor,
             vkey: object) -> Tensor:
    """(len(ks), Q) AP@k over the found relevant documents; ``sums`` = AP sums at each k."""
    found = ev.at(ev.cumulative(mode, "rel", vkey, rel, None), ks)
    out = torch.where(found > 0, sums / torch.where(found > 0, found, 1.0), 0.0)
    if mode == "stable":
        return out
    rk = ev.ranking(False)
    total, before = group_sums(rk, rel)
    n_docs = ev.batch.n
    rows = []
    for i, k in enumerate(ks):
        if k is None or k >= ev.width + 1:
            rows.append(out[i])
            continue
        kk = min(k, ev.width)
        p = kk - 1
        start = rk.start[:, p].to(out.dtype)
        end = rk.end[:, p].to(out.dtype)
        hit = rk.pos_valid[:, p] & (end > kk) & (n_docs > kk)
        a = torch.where(hit, start, 0.0)
        n = torch.where(hit, end - start, 2.0)
        r = torch.where(hit, total[:, p], 0.0)
        ra = torch.where(hit, before[:, p], 0.0)
        val = _straddling(mode, kk, sums[i], a, n, r, ra)
        rows.append(torch.where(hit, val, out[i]))
    return torch.stack(rows)
