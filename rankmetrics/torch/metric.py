"""``torchmetrics.Metric`` wrapper of the tie-aware ranking metrics (optional extra).

Imported lazily by ``rankmetrics.torch.RankingMetric``; needs ``rankmetrics[torchmetrics]``.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Iterable
from typing import Any

import torch
from torch import Tensor

from ..core.gains import DiscountLike, GainLike
from ..core.validation import _int_range_error
from ..measures.grammar import Measure
from . import functional as _f
from .monitor import SplitGuard, _Spec, check_spanning, join_rows, split_last_query

try:
    from torchmetrics import Metric
    from torchmetrics.utilities.distributed import gather_all_tensors
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "rankmetrics.torch.RankingMetric needs torchmetrics; install the extra: "
        "pip install 'rankmetrics[torchmetrics]'"
    ) from exc

__all__ = ["RankingMetric"]


def _joined(state: Tensor | list[Tensor], ids: bool) -> Tensor | None:
    """One held-back state (a tensor, or the list of every process's after a sync) as one
    tensor, None when it holds no row. Empty parts are left out: torchmetrics' sync sends an
    empty list as an empty float32 tensor, which would make the ids floats (rounded past
    2**24). ``ids``: query ids, as int64 (equal ids stay equal)."""
    parts = [state] if isinstance(state, Tensor) else list(state)
    parts = [p.to(torch.int64) if ids else p for p in parts if p.numel()]
    if not parts:
        return None
    out = parts[0]
    for p in parts[1:]:
        out = join_rows(out, p, out.device)
    return out


def _check_held_scores(preds: Tensor) -> None:
    """Integer scores held back for the next batch must survive the float64 state: 64-bit
    integers of magnitude 2**53 or more are a ValueError (the message of the scored rows)."""
    if preds.numel() == 0 or preds.dtype not in (torch.int64, torch.uint64):
        return
    lo, hi = torch.aminmax(_f._widen_unsigned(preds, "preds"))
    if max(abs(int(lo)), abs(int(hi))) >= _f._INT_EXACT:
        raise _int_range_error("preds")


class RankingMetric(Metric):
    """Tie-aware ranking metrics as a ``torchmetrics.Metric`` (Lightning ``self.log`` ready).

    A thin stateful shell over :func:`rankmetrics.torch.evaluate`: ``update`` adds the sums of
    every batch to one float64 state tensor (``dist_reduce_fx="sum"``, so DDP synchronisation
    is a single all-reduce), ``compute`` divides. Memory does not grow with the batches (unlike
    torchmetrics' retrieval metrics, which keep every prediction until ``compute``).

    Parameters
    ----------
    metrics : str or iterable of str, default "ndcg@10"
        Metric names as in :func:`rankmetrics.torch.evaluate`. A single name (a str) with
        ``bounds=False`` and ``count_ties=False`` makes :meth:`compute` return one scalar
        tensor (what ``self.log(name, metric)`` and ``EarlyStopping(monitor=name)`` need);
        otherwise it returns a dict (use ``self.log_dict(metric.compute())``).
    bounds : bool, default False
        Add ``"<name>_min"`` / ``"<name>_max"``: the means under the pessimistic/optimistic
        ordering of tied scores.
    ties, gain, discount, log_base, threshold, beta, empty, denominator
        As in :func:`rankmetrics.torch.evaluate`; ``empty="skip"`` leaves queries without a
        relevant document out of the mean.
    count_ties : bool, default False
        Add ``"tied@<k>"``: queries whose top k holds tied scores, and ``"queries"``.
    spanning : bool, default False
        Flat input whose queries may continue into the next batch (rows of a query consecutive
        in the stream): each batch's last query is held back until the next update or
        :meth:`compute`. With False (whole queries per batch) and ``validate=True``, a flat
        batch holding an index of the previous batch (a query cut at the boundary, or its rows
        spread over batches by a row-shuffling loader) raises ValueError instead of scoring
        the parts as separate queries; with True, an index of a query scored at the previous
        batch does. With DDP every process
        must get whole queries (shard the data by query); the rows each process still holds
        are gathered and scored at ``compute``.
    validate : bool, default True
        Check every batch's data (one host synchronisation per batch).
    **kwargs
        Passed to ``torchmetrics.Metric`` (``sync_on_compute``, ``dist_sync_on_step``, ...).

    Raises
    ------
    ValueError
        Unknown metric names or options; in :meth:`update`, a query split across batches
        (see ``spanning``) or bad data.

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import RankingMetric
    >>> metric = RankingMetric("ndcg@2")
    >>> metric.update(torch.tensor([1.0, 1.0, 0.0, 0.3, 0.2]), torch.tensor([0, 1, 0, 2, 0]),
    ...               indexes=torch.tensor([0, 0, 0, 1, 1]))
    >>> metric.compute()
    tensor(0.9077, dtype=torch.float64)
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False

    state: Tensor

    def __init__(
        self,
        metrics: str | Iterable[str] = "ndcg@10",
        *,
        bounds: bool = False,
        ties: str = "average",
        gain: GainLike = "exponential",
        discount: DiscountLike = "log",
        log_base: float = 2,
        threshold: float = 1,
        beta: float = 1.0,
        empty: float | str = 0.0,
        denominator: str = "relevant",
        count_ties: bool = False,
        spanning: bool = False,
        validate: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._spec = _Spec(metrics, bounds=bounds, ties=ties, count_ties=count_ties,
                           validate=validate, with_loss=False, gain=gain, discount=discount,
                           log_base=log_base, threshold=threshold, beta=beta, empty=empty,
                           denominator=denominator)
        self._guard = SplitGuard()
        self._scored: Tensor | None = None  # spanning=True: queries scored at the last update
        self._in_forward = False
        self._single = (isinstance(metrics, (str, Measure)) and len(self._spec.parsed) == 1
                        and not bounds and not count_ties)
        self._count_ties = bool(count_ties)
        self.spanning = bool(spanning)
        self.add_state("state", default=torch.zeros(len(self._spec.slots), dtype=torch.float64),
                       dist_reduce_fx="sum")
        # a state named after the configuration: torchmetrics' MetricCollection puts metrics
        # whose states are equal after the first batch in one compute group, and two
        # configurations whose sums agree there (nDCG@10 and nDCG@20 on lists of 5) would
        # then share every later batch's sums; never written, not saved
        tag = hashlib.sha1(self._spec.signature.encode()).hexdigest()[:16]
        self._config_state = f"config_{tag}"
        self.add_state(self._config_state, default=torch.zeros(1, dtype=torch.float64),
                       dist_reduce_fx="sum", persistent=False)
        if self.spanning:
            # held-back rows: replaced at every update, gathered across processes
            self.add_state("held_preds", default=[], dist_reduce_fx="cat")
            self.add_state("held_target", default=[], dist_reduce_fx="cat")
            self.add_state("held_indexes", default=[], dist_reduce_fx="cat")

    def __getstate__(self) -> dict[str, Any]:
        # copy.copy and pickle: the copy gets its own split guard (which remembers the last
        # batch), so updating one does not make the other refuse its next batch
        state = super().__getstate__()
        state["_guard"] = self._guard.copied()
        return state

    def _sync_dist(self, *args: Any, **kwargs: Any) -> None:
        # a process without a batch holds empty lists, which torchmetrics sends as empty
        # float32 tensors: gloo aborts on the others' float64 / int64 ones, and "cat" would
        # make the ids floats (rounded past 2**24). They go as the others' dtypes (sync() has
        # saved the state first; unsync() restores it).
        if self.spanning:
            for name, dtype in (("held_preds", torch.float64), ("held_target", torch.float64),
                                ("held_indexes", torch.int64)):
                if isinstance(getattr(self, name), list) and not getattr(self, name):
                    setattr(self, name, [torch.zeros(0, dtype=dtype, device=self.device)])
        super()._sync_dist(*args, **kwargs)

    def _held(self) -> tuple[Tensor, Tensor, Tensor] | None:
        preds, target, indexes = (_joined(p, i == 2) for i, p in enumerate(
            (self.held_preds, self.held_target, self.held_indexes)))
        if preds is None or target is None or indexes is None:
            return None
        return preds, target, indexes

    def update(self, preds: Tensor, target: Tensor, indexes: Tensor | None = None,
               mask: Tensor | None = None) -> None:
        """Add one batch: flat ``(N,)`` with ``indexes`` or padded ``(B, L)`` with ``mask``
        (see :func:`rankmetrics.torch.ndcg`)."""
        if self.spanning and indexes is not None:
            if mask is not None:  # else ignored whenever the batch is one held-back query
                raise ValueError("mask is for padded (B, L) input; flat (N,) input uses indexes")
            rows, target = _f.scored_rows(preds, target)
            rows = rows.detach()
            indexes = _f._tensor(indexes, "indexes", rows.device)
            held = self._held()
            if held is not None:
                rows = join_rows(held[0], rows)
                target = join_rows(held[1], target)
                indexes = join_rows(held[2], indexes)
            if rows.ndim != 1 or rows.shape != target.shape or rows.shape != indexes.shape:
                raise ValueError(
                    "spanning=True needs flat preds, target and indexes of one shape (N,)"
                )
            if rows.shape[0] == 0:  # an empty batch of a stream (as RankingMonitor)
                return
            check = self._spec.validate and not self._in_forward
            scored = check_spanning(self._scored, indexes) if check else None
            done, (hp, ht, hi) = split_last_query(rows, target, indexes)
            # one dtype per state on every process (a DDP gather needs it): float64 scores
            # and labels (exact for floats, and integers up to 2**53: larger ones are refused
            # now, as the scored rows are, before the cast could make them tie), int64 ids
            _check_held_scores(hp)
            part = self._spec.batch_state(*done, mask) if done[0].shape[0] else None
            if self._spec.validate:  # the held rows too: a later batch could not refuse them
                self._spec.check_held(hp, ht, hi)
            # a refused batch leaves the held query and the scored ids as they were
            if scored is not None:  # the held-back query is not scored yet
                self._scored = scored[scored != hi[0]]
            self.held_preds = [hp.to(torch.float64)]
            self.held_target = [ht.to(torch.float64)]
            self.held_indexes = [hi.to(torch.int64)]
            if part is not None:
                self._add(part)
            return
        check = self._spec.validate and not self._in_forward
        last = self._guard.check(preds, indexes) if check else None
        self._add(self._spec.batch_state(preds, target, indexes, mask))
        if check:
            self._guard.commit(last)

    def _add(self, part: Tensor) -> None:
        # not in place: a state made under torch.inference_mode() (an update, forward or
        # reset there, as in Lightning's validation) is an inference tensor, which an
        # in-place add outside that mode refuses with RuntimeError
        self.state = self.state + part.to(self.state.device)

    def forward(self, preds: Tensor, target: Tensor, indexes: Tensor | None = None,
                mask: Tensor | None = None) -> Any:
        """Update with one batch and return the metric on that batch alone.

        With ``spanning=True`` the batch value treats the batch's queries as whole (its held-back
        query included, and a query continued from the previous batch), so under
        ``empty="error"`` such a part without a relevant document counts 0.0 in the batch value
        instead of raising (the whole query may have one); the running state is updated, and
        ``empty="error"`` applied to whole queries, as by :meth:`update`. With
        ``dist_sync_on_step=True`` the batch value is over every process's batch.
        """
        if not self.spanning:
            last = self._guard.check(preds, indexes) if self._spec.validate else None
            # torchmetrics' forward resets the states, updates and merges the saved ones back:
            # a batch refused by update() (bad data) lost every earlier batch, and left its
            # sync and device settings changed; a refused batch now leaves them as they were
            saved = self._copy_state_dict()
            flags = {k: getattr(self, k) for k in ("_update_count", "_computed", "_to_sync",
                                                    "_should_unsync", "compute_on_cpu",
                                                    "_enable_grad", "_is_synced")}
            self._in_forward = True  # forward() resets and updates internally
            try:
                out = super().forward(preds, target, indexes, mask)
            except BaseException:
                for key, value in {**saved, **flags}.items():
                    setattr(self, key, value)
                raise
            finally:
                self._in_forward = False
            if self._spec.validate:
                self._guard.commit(last)
            return out
        self.update(preds, target, indexes, mask)
        part = self._spec.batch_state(preds, target, indexes, mask, partial=True)
        if self.dist_sync_on_step and self.distributed_available_fn():
            # the batch value over every process's batch, as torchmetrics' forward syncs it
            sync = self.dist_sync_fn or gather_all_tensors
            part = torch.stack(sync(part, group=self.process_group)).sum(0)
        value = self._output(part)
        self._forward_cache = value  # type: ignore[assignment]
        return value

    def reset(self) -> None:
        """Forget every batch (torchmetrics' reset)."""
        super().reset()
        if not getattr(self, "_in_forward", True):
            self._guard.commit(None)
            self._scored = None

    def _apply(self, fn: Any, exclude_state: Any = "") -> Any:
        """torchmetrics' move of the states with the module (``.to``, ``.cuda``), keeping
        their dtypes: ``.to(dtype)`` (a ``Module.to(dtype=...)`` of the whole model) would
        cast the float64 sums as :meth:`set_dtype` refuses to; they follow the device only."""
        keep = [k for k in ("state", "held_preds", "held_target", "held_indexes")
                if k in self._defaults]
        this: Any = super()._apply(fn, exclude_state=(*exclude_state, *keep))
        dev = this.device  # where fn put the other states

        def moved(value: Any) -> Any:
            return value.to(dev) if isinstance(value, Tensor) else [v.to(dev) for v in value]

        for key in keep:
            this._defaults[key] = moved(this._defaults[key])
            setattr(this, key, moved(getattr(this, key)))
        this._dtype = torch.float64  # compute() returns float64 tensors
        return this

    def persistent(self, mode: bool = False) -> None:
        """torchmetrics' switch of the states into the state dict; the configuration's tag
        state stays out (checkpoints keep their keys)."""
        super().persistent(mode)
        self._persistent[self._config_state] = False

    def set_dtype(self, dst_type: str | torch.dtype) -> RankingMetric:
        """torchmetrics' explicit state cast, declined: the state holds sums and query counts
        that float32, float16 or bfloat16 cannot keep exact (bfloat16 counted 2928 of 3000
        queries), so it stays float64 and a UserWarning says so. ``compute`` returns float64
        tensors either way.

        Parameters
        ----------
        dst_type : torch.dtype or str
            The dtype asked for; only float64 is taken silently.

        Returns
        -------
        RankingMetric
            ``self``, unchanged.

        Warns
        -----
        UserWarning
            Any ``dst_type`` other than float64.
        """
        if dst_type not in (torch.float64, "torch.float64", "float64", "torch.DoubleTensor"):
            warnings.warn(f"RankingMetric keeps its state in float64 (sums and query counts "
                          f"that {dst_type} would round); set_dtype({dst_type}) is ignored",
                          UserWarning, stacklevel=2)
        return self

    def state_dict(self, *args: Any, **kwargs: Any) -> Any:
        """torchmetrics' state dict; with persistent states it also records which metrics and
        options the sums belong to, so that loading into another configuration fails."""
        dest = super().state_dict(*args, **kwargs)
        prefix = kwargs.get("prefix", args[1] if len(args) > 1 else "")
        if prefix + "state" in dest:
            dest[prefix + "state_spec"] = self._spec.signature
        return dest

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str, *args: Any,
                              **kwargs: Any) -> None:
        spec = state_dict.pop(prefix + "state_spec", None)
        st = state_dict.get(prefix + "state")
        names = self._spec.slots
        if st is not None and (not isinstance(st, Tensor) or tuple(st.shape) != (len(names),)):
            shape = tuple(st.shape) if isinstance(st, Tensor) else type(st).__name__
            raise ValueError(
                f"state_dict: its RankingMetric state has shape {shape}, this metric needs "
                f"({len(names)},) for {list(names)}; it was saved from other metrics or options"
            )
        if spec is not None and spec != self._spec.signature:
            raise ValueError(
                f"state_dict was saved from a RankingMetric with other metrics or options "
                f"({spec}); this one is {self._spec.signature}"
            )
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def merge_state(self, incoming_state: dict[str, Any] | Metric) -> None:
        """torchmetrics' merge of another metric's sums (or a state dict of them) into these,
        refusing sums of other metrics or options as :meth:`load_state_dict` does.

        Raises
        ------
        ValueError
            ``incoming_state`` belongs to a RankingMetric of other metrics, options or
            ``spanning``, or its state has another shape.
        """
        if isinstance(incoming_state, RankingMetric):
            theirs = (incoming_state._spec.signature, incoming_state.spanning)
            if theirs != (self._spec.signature, self.spanning):
                raise ValueError(
                    f"merge_state: the incoming RankingMetric holds sums of other metrics or "
                    f"options ({theirs[0]}, spanning={theirs[1]}); this one is "
                    f"{self._spec.signature}, spanning={self.spanning}")
        elif isinstance(incoming_state, dict):
            spec = incoming_state.get("state_spec")
            st = incoming_state.get("state")
            if (spec is not None and spec != self._spec.signature) or (
                    isinstance(st, Tensor) and tuple(st.shape) != (len(self._spec.slots),)):
                raise ValueError(
                    "merge_state: the incoming state holds sums of other metrics or options; "
                    f"this metric needs a state of shape ({len(self._spec.slots)},) for "
                    f"{list(self._spec.slots)}")
            spanning = any(k in incoming_state for k in ("held_preds", "held_target",
                                                        "held_indexes"))
            if spanning != self.spanning and (spanning or "state_spec" in incoming_state):
                # held rows would be dropped (or, the other way, none could be merged)
                raise ValueError(
                    f"merge_state: the incoming state is of a RankingMetric with "
                    f"spanning={spanning}; this one has spanning={self.spanning}")
            incoming_state = {k: v for k, v in incoming_state.items() if k != "state_spec"}
            incoming_state.setdefault(self._config_state, self._defaults[self._config_state])
        super().merge_state(incoming_state)

    def compute(self) -> Tensor | dict[str, Tensor]:
        """Mean of each metric over the queries seen (held-back rows count as whole queries).

        Returns
        -------
        Tensor or dict of str to Tensor
            A 0-d float64 tensor for a single metric name; else a dict of them (metric names,
            ``_min``/``_max`` bounds, ``"queries"`` and ``"tied@<k>"`` with ``count_ties``).

        Warns
        -----
        UserWarning
            A metric no query could be scored for (none seen, or all skipped under
            ``empty="skip"``): its value is NaN, as the core's mean.
        """
        st = self.state
        if self.spanning:
            held = self._held()
            if held is not None:
                st = st + self._spec.batch_state(*held, None).to(st.device)
        return self._output(st)

    def _output(self, st: Tensor) -> Tensor | dict[str, Tensor]:
        values = self._spec.finalize(st.tolist(), "")
        if not self._count_ties:
            values = {k: v for k, v in values.items()
                      if k != "queries" and not k.startswith("tied")}
        out = {k: torch.tensor(v, dtype=torch.float64, device=st.device)
               for k, v in values.items()}
        if self._single:
            return out[self._spec.parsed[0][0]]
        return out
