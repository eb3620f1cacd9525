"""Train a small neural ranker with a listwise loss and watch tie-aware nDCG@10 every epoch.

A two-layer MLP scores every document; the loss is ListNet's top-one softmax cross-entropy
(Cao et al. 2007). Every epoch logs the training loss, nDCG@10 on the training and validation
queries with its tie bounds (pessimistic/optimistic ordering of tied scores), and how many
validation queries had tied scores in their top 10. Training stops early when validation nDCG@10
has not improved for ``--patience`` epochs.

Scores are rounded to ``--score-step`` before evaluation, as a serving stack that stores scores
at low precision would; together with the small initial weights this gives many ties in the
first epochs, and the gap between the bounds shows how much the reported nDCG depends on how a
system breaks them.

Run::

    python examples/torch_training_monitor.py                       # generated data
    python examples/torch_training_monitor.py \\
        --train ../shared/data/lightgbm_lambdarank/rank.train \\
        --valid ../shared/data/lightgbm_lambdarank/rank.test       # svmlight + .query files
"""

from __future__ import annotations

import argparse
import copy
import os
import time

import numpy as np
import torch
from torch import nn

from rankmetrics.datasets import RankingData, load_letor, make_ranking_data
from rankmetrics.torch import RankingMonitor


def padded(data: RankingData, mean: np.ndarray, std: np.ndarray):
    """(features (Q, L, F), labels (Q, L), mask (Q, L)) tensors, one query per row."""
    sizes = data.group_sizes
    q, length = sizes.size, int(sizes.max())
    col = np.arange(data.n_samples) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    row = np.repeat(np.arange(q), sizes)
    x = np.zeros((q, length, data.n_features), dtype=np.float32)
    y = np.zeros((q, length), dtype=np.int64)
    mask = np.zeros((q, length), dtype=bool)
    x[row, col] = (data.X - mean) / std
    y[row, col] = data.y
    mask[row, col] = True
    return torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(mask)


def listnet_loss(scores: torch.Tensor, labels: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """ListNet top-one cross-entropy between softmax(labels) and softmax(scores), per query."""
    neg = torch.finfo(scores.dtype).min
    log_p = torch.log_softmax(scores.masked_fill(~mask, neg), dim=1)
    target = torch.softmax(labels.float().masked_fill(~mask, neg), dim=1)
    return -(target * log_p.masked_fill(~mask, 0.0)).sum(dim=1).mean()


def quantised(scores: torch.Tensor, step: float) -> torch.Tensor:
    return torch.round(scores / step) * step if step > 0 else scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", help="svmlight/LETOR training file (default: generated)")
    parser.add_argument("--valid", help="svmlight/LETOR validation file")
    parser.add_argument("--queries", type=int, default=800, help="generated queries")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--patience", type=int, default=5)
    parser.add_argument("--batch-queries", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--score-step", type=float, default=0.01,
                        help="round scores to this step before evaluation (0: no rounding)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch CPU threads (small batches: one thread is fastest)")
    args = parser.parse_args(argv)

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    if args.train:
        def query_file(path: str) -> str | None:
            return path + ".query" if os.path.exists(path + ".query") else None
        train = load_letor(args.train, query_file(args.train))
        if args.valid:
            valid = load_letor(args.valid, query_file(args.valid), n_features=train.n_features)
        else:
            train, valid = train.split(test_size=0.25, random_state=args.seed)
    else:
        data = make_ranking_data(args.queries, random_state=args.seed)
        train, valid = data.split(test_size=0.25, random_state=args.seed)
    mean, std = train.X.mean(axis=0), train.X.std(axis=0) + 1e-9
    xt, yt, mt = padded(train, mean, std)
    xv, yv, mv = padded(valid, mean, std)
    print(f"train: {train.n_queries} queries, {train.n_samples} docs; "
          f"valid: {valid.n_queries} queries, {valid.n_samples} docs; "
          f"scores rounded to {args.score_step:g}")

    model = nn.Sequential(nn.Linear(xt.shape[2], args.hidden), nn.ReLU(),
                          nn.Linear(args.hidden, 1))
    with torch.no_grad():  # small initial output: near-equal (tied) scores at first
        model[2].weight.mul_(0.01)
        model[2].bias.zero_()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    train_mon = RankingMonitor("ndcg@10", bounds=True, prefix="train_")
    valid_mon = RankingMonitor("ndcg@10", bounds=True, prefix="valid_")

    print(f"{'epoch':>5} {'loss':>7} {'train nDCG@10 [min, max]':>26} "
          f"{'valid nDCG@10 [min, max]':>26}  valid queries with tied top-10 scores")
    best, best_epoch, best_state = -1.0, 0, copy.deepcopy(model.state_dict())
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        train_mon.reset()
        valid_mon.reset()
        model.train()
        perm = torch.randperm(xt.shape[0])
        for i in range(0, perm.numel(), args.batch_queries):
            sel = perm[i : i + args.batch_queries]
            scores = model(xt[sel]).squeeze(-1)
            loss = listnet_loss(scores, yt[sel], mt[sel])
            opt.zero_grad()
            loss.backward()
            opt.step()
            # the monitor detaches: metrics of the scores the batch was trained on
            train_mon.update(quantised(scores, args.score_step), yt[sel], mask=mt[sel],
                             loss=loss)
        model.eval()
        with torch.no_grad():
            valid_mon.update(quantised(model(xv).squeeze(-1), args.score_step), yv, mask=mv)
        tr, va = train_mon.compute(), valid_mon.compute()
        print(f"{epoch:5d} {tr['train_loss']:7.4f} "
              f"{tr['train_ndcg@10']:8.4f} [{tr['train_ndcg@10_min']:.4f}, "
              f"{tr['train_ndcg@10_max']:.4f}] "
              f"{va['valid_ndcg@10']:8.4f} [{va['valid_ndcg@10_min']:.4f}, "
              f"{va['valid_ndcg@10_max']:.4f}] "
              f"{int(va['valid_tied@10']):4d}/{int(va['valid_queries'])}")
        if va["valid_ndcg@10"] > best + 1e-6:
            best, best_epoch = va["valid_ndcg@10"], epoch
            best_state = copy.deepcopy(model.state_dict())
        elif epoch - best_epoch >= args.patience:
            print(f"early stop: no validation gain for {args.patience} epochs")
            break
    model.load_state_dict(best_state)
    print(f"best validation nDCG@10 {best:.4f} at epoch {best_epoch} "
          f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
