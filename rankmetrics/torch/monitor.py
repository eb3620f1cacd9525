"""A training-loop monitor: running means of tie-aware ranking metrics (and the loss).

The state is one float64 tensor of sums (loss sum and count, queries, per metric the sum of its
per-query values and the count of non-NaN ones, the sums of its tie bounds, tied-query counts):
adding two states merges two monitors, so ``torch.distributed.all_reduce(monitor.state)`` (sum)
combines workers. Memory does not grow with the number of batches.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import torch
from torch import Tensor

from ..core.gains import DiscountLike, GainLike
from ..core.validation import check_ties
from . import functional as _f
from ._kernel import Cutoff

__all__ = ["RankingMonitor"]


class _Spec:
    """What to accumulate: metric names, tie modes, options; state slots and their meaning."""

    def __init__(self, metrics: str | Iterable[str], *, bounds: bool, ties: str,
                 count_ties: bool, validate: bool, with_loss: bool, **options: Any) -> None:
        self.ties = check_ties(ties)
        self.parsed = _f.parse_names(metrics)
        if len({name for name, *_ in self.parsed}) != len(self.parsed):
            raise ValueError(f"metric names must be distinct; got {metrics!r}")
        self.opt = _f.Options(**options)
        if any(base in ("dcg", "ndcg") for _, base, *_ in self.parsed):
            self.opt.dkey()
        self.bounds = bool(bounds)
        self.validate = bool(validate)
        self.with_loss = with_loss
        # the main mode, then the bounds (at positions 1, 2: a measure's own ties= replaces
        # the main mode only, so a bound equal to it is still read apart)
        self.modes: tuple[str, ...] = (self.ties,)
        if self.bounds:
            self.modes += ("pessimistic", "optimistic")
        ks: list[Cutoff] = []
        if count_ties:
            for _, _, k, *_ in self.parsed:
                if k not in ks:
                    ks.append(k)
        self.tied_ks: tuple[Cutoff, ...] = tuple(ks)
        self.gains = _f.gains_used(self.parsed, self.opt.gain)
        slots = ["loss_sum", "loss_count"] if with_loss else []
        slots.append("queries")
        for name, *_ in self.parsed:
            slots += [f"{name}:sum", f"{name}:count"]
            if self.bounds:
                slots += [f"{name}:min_sum", f"{name}:max_sum"]
        slots += [_tied_name(k) for k in self.tied_ks]
        self.slots: tuple[str, ...] = tuple(slots)
        self.key = (self.slots, self.ties, self.bounds, repr(sorted(options.items(), key=str)))
        # the same, stable across processes (a callable's repr holds its address)
        shown = sorted((k, "<callable>" if callable(v) else v) for k, v in options.items())
        self.signature = repr((self.slots, self.ties, self.bounds, shown))
        # the held-back query of spanning=True is checked without empty="error": its
        # relevant documents may come with the next batch
        self._held_parsed = [p._replace(over={**p.over, "empty": 0.0})
                             if p.over.get("empty") == "error" else p for p in self.parsed]
        self._held_opt = (_f.Options(**{**options, "empty": 0.0})
                          if self.opt.empty == "error" else self.opt)

    def batch_state(self, preds: Any, target: Any, indexes: Any, mask: Any, *,
                    partial: bool = False) -> Tensor:
        """Sums of one batch of whole queries, float64 of shape (len(slots),). ``partial``:
        the batch may hold parts of queries (a ``spanning=True`` batch on its own), which are
        scored without the ``empty="error"`` rule (0.0 instead)."""
        parsed, opt = (self._held_parsed, self._held_opt) if partial else (self.parsed, self.opt)
        with torch.no_grad():
            layout = _f.prepare(preds, target, indexes, mask,
                                gains=self.gains,
                                validate=self.validate)
            vals, tied = _f.evaluate_layout(layout, parsed, self.modes, opt, self.tied_ks)
            first = vals[(0, self.parsed[0][0])]
            parts: list[Tensor] = []
            if self.with_loss:
                parts += [first.new_zeros(()), first.new_zeros(())]
            parts.append(first.new_full((), float(layout.n_queries)))
            for name, *_ in self.parsed:
                v = vals[(0, name)]
                ok = ~torch.isnan(v)
                parts += [torch.where(ok, v, 0.0).sum(), ok.sum()]
                if self.bounds:
                    lo = vals[(1, name)]
                    hi = vals[(2, name)]
                    parts += [torch.where(ok, lo, 0.0).sum(), torch.where(ok, hi, 0.0).sum()]
            parts += [tied[k].sum() for k in self.tied_ks]
            return torch.stack([p.to(torch.float64) for p in parts])

    def check_held(self, preds: Tensor, target: Tensor, indexes: Tensor) -> None:
        """The checks of :meth:`batch_state` on the rows of a query that may continue in the
        next batch (``spanning=True``), except the ``empty="error"`` rule."""
        with torch.no_grad():
            layout = _f.prepare(preds, target, indexes, None, gains=self.gains, validate=True)
            _f.evaluate_layout(layout, self._held_parsed, self.modes, self._held_opt, ())

    def finalize(self, values: Sequence[float], prefix: str) -> dict[str, float]:
        """Means from a state read to the host."""
        s = dict(zip(self.slots, values, strict=True))
        out: dict[str, float] = {}
        if self.with_loss and s["loss_count"] > 0:
            out[prefix + "loss"] = s["loss_sum"] / s["loss_count"]
        for name, *_ in self.parsed:
            c = s[f"{name}:count"]
            if c == 0:  # as the core's mean: NaN, and said
                seen = "no query was seen" if s["queries"] == 0 else (
                    f"all {int(s['queries'])} queries were skipped (empty='skip')")
                warnings.warn(f"{prefix + name}: no query could be scored ({seen}); nan",
                              UserWarning, stacklevel=3)
            out[prefix + name] = s[f"{name}:sum"] / c if c > 0 else math.nan
            if self.bounds:
                out[prefix + name + "_min"] = s[f"{name}:min_sum"] / c if c > 0 else math.nan
                out[prefix + name + "_max"] = s[f"{name}:max_sum"] / c if c > 0 else math.nan
        out[prefix + "queries"] = s["queries"]
        for k in self.tied_ks:
            out[prefix + _tied_name(k)] = s[_tied_name(k)]
        return out


_SIGNED_VIEW = {torch.uint16: torch.int16, torch.uint32: torch.int32, torch.uint64: torch.int64}


def _isin(elements: Tensor, test: Tensor) -> Tensor:
    """``torch.isin`` for index tensors of any integer dtype (torch has no unsigned isin):
    unsigned ids are compared through a signed view of their bits, which keeps equality;
    ids of two different dtypes one of which is uint64, by value on the host (rare)."""
    if elements.dtype == test.dtype:
        view = _SIGNED_VIEW.get(elements.dtype)
        if view is None:
            return torch.isin(elements, test)
        return torch.isin(elements.view(view), test.view(view))
    if torch.uint64 not in (elements.dtype, test.dtype):
        return torch.isin(elements.to(torch.int64), test.to(torch.int64))
    held = set(test.tolist())
    return torch.tensor([x in held for x in elements.tolist()], dtype=torch.bool,
                        device=elements.device)


class SplitGuard:
    """Detects a query cut by the batching when every batch should hold whole queries.

    Remembers the distinct indexes of the previous flat batch ([mem] at most one per row of
    that batch). A batch that holds one of them continues a query of the previous batch: at
    its first row (consecutive batches of one stream), or anywhere (the rows of a query spread
    over batches, as a row-shuffling data loader does); each part would be scored as a whole
    query. One host synchronisation per flat batch.
    """

    def __init__(self) -> None:
        self.last: Tensor | None = None
        self.seen: Tensor | None = None

    def check(self, preds: Any, indexes: Any) -> tuple[Tensor, Tensor] | None:
        """Raise when ``indexes`` continues a query of the previous batch; return what
        :meth:`commit` remembers once the batch was added."""
        if indexes is None or (isinstance(preds, Tensor) and preds.ndim != 1):
            return None
        idx = _f._tensor(indexes, "indexes", None)
        if idx.ndim != 1 or idx.numel() == 0:
            return None
        if self.last is not None and self.seen is not None:
            seen = self.seen.to(idx.device)
            first, inside = (bool(v) for v in torch.stack(  # one host sync
                [idx[0] == self.last.to(idx.device), _isin(idx, seen).any()]).tolist())
            if first:
                raise ValueError(
                    f"indexes: this batch starts with index {int(idx[0])}, the index of the "
                    "last row of the previous batch, so a query seems cut in two by the "
                    "batching and each part would be scored as a whole query. Pass "
                    "spanning=True when the rows of a query are consecutive in the stream but "
                    "may cross batches; otherwise give distinct queries distinct indexes in "
                    "consecutive batches (or call reset() between independent streams)."
                )
            if inside:
                shared = idx[_isin(idx, seen)][0]
                raise ValueError(
                    f"indexes: index {int(shared)} of this batch was also in the previous "
                    "batch, so the rows of a query seem spread over batches (a data loader "
                    "shuffling rows?) and each part would be scored as a whole query. Keep "
                    "every query's rows in one batch (or consecutive in the stream, with "
                    "spanning=True); indexes numbered per batch need distinct numbers in "
                    "consecutive batches (or validate=False)."
                )
        return idx[-1].detach().clone(), torch.unique(idx.detach())

    def commit(self, state: tuple[Tensor, Tensor] | None) -> None:
        self.last, self.seen = (None, None) if state is None else state

    def copied(self) -> SplitGuard:
        """A guard remembering the same batch, for a copy of its metric (its tensors are never
        changed in place, only replaced, so they are shared)."""
        new = SplitGuard()
        new.last, new.seen = self.last, self.seen
        return new


def check_spanning(previous: Tensor | None, indexes: Tensor) -> Tensor:
    """``spanning=True``: raise when the joined rows of an update (the held-back query first)
    hold an index of a query scored at the previous update (its rows are not consecutive in
    the stream: that query would be scored twice). Returns the indexes scored now, to pass as
    ``previous`` next time ([mem] one per distinct query of the batch). One host sync."""
    if previous is not None and indexes.numel():
        hit = _isin(indexes, previous.to(indexes.device))
        if bool(hit.any()):
            raise ValueError(
                f"indexes: index {int(indexes[hit][0])} of this batch belongs to a query "
                "already scored at the previous batch: with spanning=True the rows of a query "
                "must be consecutive in the stream (a query may only continue at the start of "
                "the next batch); rows spread over batches (a data loader shuffling rows?) "
                "would score that query twice."
            )
    return torch.unique(indexes.detach())


def _tied_name(k: Cutoff) -> str:
    return "tied" if k is None else f"tied@{k}"


def split_last_query(preds: Tensor, target: Tensor, indexes: Tensor
                     ) -> tuple[tuple[Tensor, Tensor, Tensor], tuple[Tensor, Tensor, Tensor]]:
    """(rows of every query but the one of the last row, rows of that query).

    Boolean indexing: one host synchronisation on an accelerator.
    """
    keep = indexes == indexes[-1]
    done = ~keep
    return (preds[done], target[done], indexes[done]), (preds[keep], target[keep], indexes[keep])


def join_rows(a: Tensor, b: Tensor, device: Any = None) -> Tensor:
    """``a`` then ``b`` (1-D) in one tensor on ``device`` (None: ``b``'s), of their promoted
    dtype: held-back rows of one batch joined to the next batch's rows, neither converted to
    the other's type (float scores to an int batch's would make false ties, fractional labels
    would be truncated). Unsigned 16..64-bit ids, which torch does not promote with others,
    take ``b``'s dtype (the ids of one stream share it)."""
    dev = b.device if device is None else device
    try:
        dtype = torch.promote_types(a.dtype, b.dtype)
    except RuntimeError:
        dtype = b.dtype
    return torch.cat([a.to(dev, dtype), b.to(dev, dtype)])


def _loss_tensor(loss: Any) -> Tensor:
    """``loss`` (a real number or a tensor of them) as float64, detached."""
    if isinstance(loss, Tensor):
        if loss.device.type == "meta":
            raise ValueError("loss is on the meta device (a shape without data); pass the "
                             "loss tensor itself (or its .item())")
        if loss.dtype.is_complex or not _f._is_numeric(loss.dtype):
            raise TypeError(f"loss must be a real number or a tensor of them; got {loss.dtype}")
        return loss.detach().to(torch.float64)
    try:
        return torch.tensor(float(loss), dtype=torch.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"loss must be a real number or a tensor of them; got "
                        f"{type(loss).__name__} ({exc})") from None


class RankingMonitor:
    """Running means of tie-aware ranking metrics and of the loss, fed once per batch.

    Parameters
    ----------
    metrics : str or iterable of str, default "ndcg@10"
        Metric names as in :func:`rankmetrics.torch.evaluate` (``"ndcg@10"``, ``"map"``,
        ``"p@5"``, ``"mrr"``, ...).
    bounds : bool, default False
        Also report each metric's tie bounds: ``"<name>_min"`` (pessimistic ordering of tied
        scores) and ``"<name>_max"`` (optimistic).
    ties : {"average", "optimistic", "pessimistic", "stable"}, default "average"
        Tie rule of the main value (see :func:`rankmetrics.torch.ndcg`).
    gain, discount, log_base, threshold, beta, empty, denominator
        As in :func:`rankmetrics.torch.evaluate`. With ``empty="skip"`` queries without a
        relevant document are left out of the means (each metric counts its own queries).
    count_ties : bool, default True
        Count the queries whose top k holds a tie group of two or more documents
        (``"tied@<k>"`` for every cutoff k of ``metrics``; ``"tied"`` for whole lists).
    spanning : bool, default False
        Flat input only. False: every batch holds whole queries (padded batches always do);
        with ``validate=True`` a flat batch holding an index of the previous batch raises
        ValueError (a query cut by the batching, or its rows spread over batches by a
        row-shuffling loader, would otherwise count as several queries with wrong values).
        True: the rows of a query are consecutive in the stream but may continue into the next
        batch; the rows of each batch's last query are held back (one query's rows at most)
        and evaluated with the next batch, or by :meth:`compute` / :meth:`flush`; with
        ``validate=True`` an index of a query scored at the previous batch raises ValueError.
    prefix : str, default ""
        Prepended to every key of :meth:`compute` (e.g. ``"val_"``).
    validate : bool, default True
        Check every batch's data (one host synchronisation per batch); False trusts it.
    device : torch.device or str, optional
        Where the state lives; default: the device of the first batch. Set it when a worker may
        get no batch before an ``all_reduce``.

    Attributes
    ----------
    state : Tensor of float64, shape (len(state_names),)
        The running sums; sum-reducible (see Notes).
    state_names : tuple of str
        What each entry of ``state`` holds.

    Raises
    ------
    ValueError
        Unknown metric names or options (as :func:`rankmetrics.torch.evaluate`); in
        :meth:`update`, a query split across batches (see ``spanning``) or bad data.

    Notes
    -----
    Per batch, :meth:`update` adds the batch's sums to ``state`` on the device (no host
    synchronisation beyond those of the functional kernels: one for the data checks, three for
    flat ``indexes``, one more to split off the held-back query with ``spanning=True``, and
    one for the check that no query of the previous batch comes back: ``validate=True``).
    :meth:`compute` reads ``state`` once and divides.

    Merging: the state of several monitors over disjoint queries is the sum of their states.
    :meth:`merge` adds another monitor's state (and held-back rows); across processes call
    :meth:`flush` and then ``torch.distributed.all_reduce(monitor.state)``. Every process (or
    merged monitor) must see whole queries: with ``spanning=True`` a query may cross batches of
    one stream, not streams.

    Examples
    --------
    >>> import torch
    >>> from rankmetrics.torch import RankingMonitor
    >>> mon = RankingMonitor("ndcg@2", bounds=True)
    >>> mon.update(torch.tensor([[1.0, 1.0, 0.0]]), torch.tensor([[0, 1, 0]]), loss=0.5)
    >>> mon.update(torch.tensor([[0.3, 0.2, 0.1]]), torch.tensor([[2, 0, 1]]), loss=0.25)
    >>> {k: round(v, 4) for k, v in mon.compute().items()}
    ... # doctest: +NORMALIZE_WHITESPACE
    {'loss': 0.375, 'ndcg@2': 0.8208, 'ndcg@2_min': 0.7286, 'ndcg@2_max': 0.9131,
     'queries': 2.0, 'tied@2': 1.0}
    """

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
        count_ties: bool = True,
        spanning: bool = False,
        prefix: str = "",
        validate: bool = True,
        device: torch.device | str | None = None,
    ) -> None:
        self._spec = _Spec(metrics, bounds=bounds, ties=ties, count_ties=count_ties,
                           validate=validate, with_loss=True, gain=gain, discount=discount,
                           log_base=log_base, threshold=threshold, beta=beta, empty=empty,
                           denominator=denominator)
        self.spanning = bool(spanning)
        self.prefix = str(prefix)
        self._device = None if device is None else torch.device(device)
        if self._device is not None and self._device.type == "meta":
            raise ValueError("device is the meta device (a shape without data): the state "
                             "could not be read; pass a real device (cpu, cuda, ...)")
        self._state: Tensor | None = None
        self._held: tuple[Tensor, Tensor, Tensor] | None = None
        self._guard = SplitGuard()
        self._scored: Tensor | None = None  # spanning=True: queries scored at the last update

    def __getstate__(self) -> dict[str, Any]:
        # copy.copy and pickle: the copy gets its own running sums and split guard (the sums
        # are added to in place and zeroed by reset; the guard remembers the last batch), so
        # updating or resetting either one leaves the other as it was
        state = self.__dict__.copy()
        if self._state is not None:
            state["_state"] = self._state.clone()
        state["_guard"] = self._guard.copied()
        return state

    # ------------------------------------------------------------------------------ state
    @property
    def state_names(self) -> tuple[str, ...]:
        return self._spec.slots

    @property
    def state(self) -> Tensor:
        if self._state is None:
            # a normal tensor even when the first update runs under torch.inference_mode()
            # (Lightning's validation): an inference tensor could not be reset outside it
            with torch.inference_mode(False):
                self._state = torch.zeros(len(self._spec.slots), dtype=torch.float64,
                                          device=self._device)
        return self._state

    def _add(self, part: Tensor) -> None:
        if self._state is None and self._device is None:
            self._device = part.device
        st = self.state
        st += part.to(st.device)

    # ----------------------------------------------------------------------------- update
    def update(self, preds: Any, target: Any, indexes: Any = None, *, mask: Any = None,
               loss: Any = None) -> None:
        """Add one batch.

        Parameters
        ----------
        preds, target : Tensor of shape (N,) or (B, L)
            Scores and labels as in :func:`rankmetrics.torch.ndcg` (gradients are ignored).
        indexes : Tensor of int of shape (N,), optional
            Query of each row for flat input (None: the batch is one query).
        mask : Tensor of bool of shape (B, L), optional
            Real documents of a padded batch.
        loss : Tensor or float, optional
            The batch's loss: a scalar counts once, a tensor of per-item losses counts each
            item; ``compute()["loss"]`` is the mean over everything counted.

        Raises
        ------
        ValueError, TypeError
            Invalid inputs (see :func:`rankmetrics.torch.ndcg`); TypeError for a ``loss``
            that is not a real number or a tensor of them. A refused batch is not added.
        """
        with torch.no_grad():
            # the loss first: a refused one leaves the metrics (and the split guard) unchanged
            lt = None if loss is None else _loss_tensor(loss)
            self._update_metrics(preds, target, indexes, mask)
            if lt is not None:
                st = self.state
                st[0] += lt.sum().to(st.device)
                st[1] += lt.numel()

    def _update_metrics(self, preds: Any, target: Any, indexes: Any, mask: Any) -> None:
        if self.spanning and indexes is not None:
            if mask is not None:  # else ignored whenever the batch is one held-back query
                raise ValueError("mask is for padded (B, L) input; flat (N,) input uses indexes")
            rows, target = _f.scored_rows(preds, target)
            rows = rows.detach()
            indexes = _f._tensor(indexes, "indexes", rows.device)
            if self._held is not None:
                hp, ht, hi = self._held
                rows = join_rows(hp, rows)
                target = join_rows(ht, target)
                indexes = join_rows(hi, indexes)
            if rows.ndim != 1 or rows.shape != target.shape or rows.shape != indexes.shape:
                raise ValueError(
                    "spanning=True needs flat preds, target and indexes of one shape (N,)"
                )
            if rows.shape[0] == 0:
                return
            scored = check_spanning(self._scored, indexes) if self._spec.validate else None
            done, held = split_last_query(rows, target, indexes)
            part = self._spec.batch_state(*done, mask) if done[0].shape[0] else None
            if self._spec.validate:  # the held rows too: a later batch could not refuse them
                self._spec.check_held(*held)
            # a refused batch leaves the held query and the scored ids as they were
            self._held = held
            if scored is not None:  # the held-back query is not scored yet
                self._scored = scored[scored != held[2][0]]
            if part is not None:
                self._add(part)
            return
        last = self._guard.check(preds, indexes) if self._spec.validate else None
        self._add(self._spec.batch_state(preds, target, indexes, mask))
        self._guard.commit(last)

    def flush(self) -> None:
        """Evaluate held-back rows (``spanning=True``) as complete queries; call before
        reducing ``state`` across processes."""
        if self._held is not None:
            held, self._held = self._held, None
            self._add(self._spec.batch_state(*held, None))

    # ---------------------------------------------------------------------------- results
    def compute(self) -> dict[str, float]:
        """Means so far (held-back rows count as complete queries; the state is unchanged).

        Returns
        -------
        dict of str to float
            ``"loss"`` (when a loss was given), every metric name, ``"<name>_min"`` and
            ``"<name>_max"`` with ``bounds=True``, ``"queries"``, and ``"tied@<k>"`` with
            ``count_ties=True``, each prefixed with ``prefix``. A metric without any scored
            query is NaN.

        Warns
        -----
        UserWarning
            For each metric without any scored query (none seen, or all skipped under
            ``empty="skip"``).
        """
        st = self.state
        if self._held is not None:
            st = st + self._spec.batch_state(*self._held, None).to(st.device)
        return self._spec.finalize(st.tolist(), self.prefix)

    def reset(self) -> None:
        """Forget every batch (start of an epoch)."""
        if self._state is not None:
            self._state.zero_()
        self._held = None
        self._scored = None
        self._guard.commit(None)

    def merge(self, other: RankingMonitor) -> RankingMonitor:
        """Add the batches of ``other`` (same configuration, disjoint queries) to this monitor.

        Raises
        ------
        ValueError
            ``other`` was configured differently, or is this monitor itself (its batches would
            count twice).
        """
        if other is self:
            raise ValueError("other is this monitor: merging it into itself would count every "
                             "batch twice")
        if not isinstance(other, RankingMonitor) or other._spec.key != self._spec.key:
            raise ValueError("can only merge a RankingMonitor with the same metrics and options")
        if other._state is not None:
            self._add(other._state)
        if other._held is not None:
            if self._held is None:
                self._held = other._held
            else:
                self._held = tuple(  # type: ignore[assignment]
                    join_rows(a, b, a.device)
                    for a, b in zip(self._held, other._held, strict=True)
                )
        return self

    def __repr__(self) -> str:
        names = [n for n, *_ in self._spec.parsed]
        return f"RankingMonitor({names!r}, bounds={self._spec.bounds}, ties={self._spec.ties!r})"
