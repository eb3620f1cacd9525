"""Early stopping ``lightgbm.dask.DaskLGBMRanker`` on the global tie-aware nDCG@10.

Starts a Dask ``LocalCluster`` of 2 worker processes, places half of the training and half of
the validation queries on each worker, and trains with

* ``rankmetrics.dask.make_eval_metric``: every round each worker computes its queries' nDCG@10
  with the core and sends two sums to the other through Dask; both then report the same global
  value (the tie-aware nDCG@10 of the *whole* validation set);
* ``rankmetrics.dask.early_stopping``: both workers stop at the same round.

Per round it prints the global value next to LightGBM's own ``ndcg@10`` as each worker
computes it on its local half (what ``evals_result_`` holds without rankmetrics), then checks
the reported best value against the core on the full validation predictions::

    python examples/dask_lightgbm_early_stopping.py
"""

from __future__ import annotations

import argparse
import os
import warnings

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster, Queue, get_client, get_worker

from rankmetrics import QueryPlan
from rankmetrics.dask import early_stopping, make_eval_metric
from rankmetrics.datasets import RankingData, make_ranking_data


def split_between_workers(client: Client, data: RankingData) -> tuple[da.Array, ...]:
    """X, y, group as Dask arrays: the first half of the queries on worker 0, the rest on 1."""
    workers = sorted(client.scheduler_info()["workers"])
    bounds = np.r_[0, np.cumsum(data.group_sizes)]
    cut = [0, len(data.group_sizes) // 2, len(data.group_sizes)]
    xs, ys, gs = [], [], []
    for i in range(2):
        a, b = bounds[cut[i]], bounds[cut[i + 1]]
        fx, fy, fg = client.scatter([data.X[a:b], data.y[a:b].astype(float),
                                     data.group_sizes[cut[i]:cut[i + 1]]], workers=[workers[i]])
        xs.append(da.from_delayed(fx, shape=(b - a, data.X.shape[1]), dtype=data.X.dtype))
        ys.append(da.from_delayed(fy, shape=(b - a,), dtype=float))
        gs.append(da.from_delayed(fg, shape=(cut[i + 1] - cut[i],), dtype=np.int64))
    return da.concatenate(xs), da.concatenate(ys), da.concatenate(gs)


class LocalValues:
    """Callback run before the global sync: sends this worker's local LightGBM ndcg@10."""

    def __init__(self, queue: str) -> None:
        self.queue = queue
        self.order, self.before_iteration = 1, False  # instance attributes (see lgb.train)

    def __call__(self, env) -> None:
        local = [r[2] for r in env.evaluation_result_list if r[1] == "ndcg@10"]
        Queue(self.queue, client=get_client()).put(
            [get_worker().name, env.iteration, local[0] if local else None])


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--train-queries", type=int, default=300)
    p.add_argument("--valid-queries", type=int, default=200)
    p.add_argument("--rounds", type=int, default=200)
    p.add_argument("--stopping-rounds", type=int, default=10)
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore", category=UserWarning)
    warnings.filterwarnings("ignore", category=FutureWarning)
    import lightgbm as lgb
    from lightgbm.dask import DaskLGBMRanker

    train = make_ranking_data(n_queries=args.train_queries, random_state=0)
    valid = make_ranking_data(n_queries=args.valid_queries, random_state=1)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=40) as cluster, \
            Client(cluster) as client:
        Xt, yt, gt = split_between_workers(client, train)
        Xv, yv, gv = split_between_workers(client, valid)
        metric = make_eval_metric("ndcg", k=10, prefix="tie_")
        model = DaskLGBMRanker(n_estimators=args.rounds, num_leaves=15, learning_rate=0.1,
                               min_child_samples=5, eval_at=(10,), random_state=0,
                               verbose=-1)
        model.fit(Xt, yt, group=gt, eval_X=(Xv,), eval_y=(yv,), eval_group=[gv],
                  eval_metric=metric,
                  callbacks=[LocalValues("local-ndcg"), metric.sync,
                             early_stopping(args.stopping_rounds, metric, verbose=False)])
        local: dict[int, dict[int, float]] = {}
        for name, it, value in Queue("local-ndcg", client=client).get(batch=True, timeout=30):
            local.setdefault(int(it), {})[int(name)] = value
    curve = model.evals_result_["valid_0"]["tie_ndcg@10"]
    print(f"LocalCluster: 2 workers; validation: {valid.n_queries} queries, {valid.n_samples} "
          f"rows, {valid.n_queries // 2} queries per worker")
    print(f"{'round':>5}  {'global tie-aware nDCG@10':>24}  "
          f"{'LightGBM ndcg@10 worker 0':>25}  {'worker 1':>8}")
    for it, value in enumerate(curve):
        w = local.get(it, {})
        cells = [f"{w[k]:.4f}" if w.get(k) is not None else "-" for k in (0, 1)]
        print(f"{it + 1:>5}  {value:>24.4f}  {cells[0]:>25}  {cells[1]:>8}")
    best = model.best_iteration_
    print(f"best iteration (global tie-aware nDCG@10): {best} of {len(curve)} rounds, "
          f"value {model.best_score_['valid_0']['tie_ndcg@10']:.4f}")
    lgb_curve = model.evals_result_["valid_0"]["ndcg@10"]
    print(f"LightGBM's evals_result_['valid_0']['ndcg@10'] holds one worker's local values: "
          f"round {best}: {lgb_curve[best - 1]:.4f}")
    preds = model.booster_.predict(valid.X, num_iteration=best, raw_score=True)
    core = float(np.mean(QueryPlan(valid.y, valid.qid).ndcg(preds, k=10, empty=1.0)))
    print(f"core nDCG@10 on the full validation predictions at round {best}: {core:.4f} "
          f"(matches: {abs(core - curve[best - 1]) < 1e-12})")
    assert abs(core - curve[best - 1]) < 1e-12
    assert isinstance(lgb.__version__, str)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
