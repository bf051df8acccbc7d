"""PyTorch's own call for each ladder's problem, timed the way the report times a rung.

``python3 -m memhier.torch_reference --case softmax 1024x4096 --case gemm 4096x4096x4096``
(attention: scaled_dot_product_attention on its flash and cuDNN backends)
prints one JSON object: ``{"torch": version, "device": name, "records": [...]}`` where each
record is ``{family, shape, variant, ms, p10, p90, reps, rel_error, compare}`` or, for a
shape torch cannot run the same way, ``{family, shape, variant, declined}``. Without torch
or a CUDA device it prints ``{"error": sentence}`` and exits 3. ``memhier report`` (and
``memhier.report`` and ``bench(torch=True)``, with this interpreter) runs this file's text,
built into the binary, as a child process (``python3 -c``) for its PyTorch rows, so only torch
need import there; the CLI itself never needs Python.

The method is the report's: fresh random inputs (never zeros), the result checked against
a float64 computation before timing, 2 warm-up runs, then repetitions each after an L2
flush (reading a buffer twice the L2's size that nothing writes, so that no repetition
pays to write back lines an earlier one left dirty), timed with CUDA events, until 25 ms of GPU
time and at least 7 (at most 200) repetitions; the median and the 10th/90th percentiles.
fp32 matmul and conv2d run with TF32 off (torch.backends.*.allow_tf32 = False), so they
compute what the fp32 rungs compute.
"""

import argparse
import json
import sys

def parse_extents(text, count, what):
    """'RxC' -> [R, C] (count extents, each a positive integer); ValueError otherwise."""
    parts = text.split("x")
    if len(parts) != count or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise ValueError(f"{what} shape '{text}' is not {count} positive extents joined by x")
    return [int(p) for p in parts]


def plan(family, shape):
    """The torch calls for one ladder shape: [(variant, kind, params)], or (variant, None, why)
    where torch cannot run the same problem. ValueError for a malformed shape."""
    if family == "softmax":
        return [("torch.softmax", "softmax", {"dims": parse_extents(shape, 2, "softmax")})]
    if family == "reduction":
        return [("torch.sum", "sum", {"n": parse_extents(shape, 1, "reduction")[0]})]
    if family == "transpose":
        return [("torch .t().contiguous()", "transpose",
                 {"dims": parse_extents(shape, 2, "transpose")})]
    if family == "histogram":
        kind, _, count = shape.partition(":")
        if kind not in ("u8-uniform", "u8-degenerate", "i32-uniform", "i32-degenerate"):
            raise ValueError(f"histogram shape '{shape}' is not TYPE-DIST:COUNT")
        n = parse_extents(count, 1, "histogram")[0]
        dtype, dist = kind.split("-")
        return [("torch.bincount", "bincount", {"n": n, "dtype": dtype, "dist": dist})]
    if family == "gemm":
        dims, _, scalars = shape.partition(":")
        m, n, k = parse_extents(dims, 3, "gemm")
        if scalars and scalars != "1:0":
            why = "alpha and beta other than 1 and 0 are torch.addmm, not the plain matmul timed"
            return [("torch.matmul fp32", None, why)]
        p = {"m": m, "n": n, "k": k}
        return [("torch.matmul fp32", "matmul", dict(p, dtype="float32")),
                ("torch.matmul bf16", "matmul", dict(p, dtype="bfloat16"))]
    if family == "elementwise":
        problem, _, count = shape.partition(":")
        n = parse_extents(count, 1, "elementwise")[0]
        if problem == "axpy":
            return [("torch.Tensor.add_ (alpha)", "axpy", {"n": n})]
        if problem == "copy":
            return [("torch.Tensor.copy_", "copy", {"n": n})]
        if problem == "particles":
            return [("torch (particles)", None,
                     "the particle update over an array of structs has no single torch call")]
        raise ValueError(f"elementwise shape '{shape}' needs axpy:N, copy:N or particles:N")
    if family == "stencil":
        dims, _, k = shape.partition(":")
        if k not in ("3", "5", "7"):
            raise ValueError(f"stencil shape '{shape}' needs a filter size of 3, 5 or 7")
        return [("torch conv2d (replicate pad)", "stencil",
                 {"dims": parse_extents(dims, 2, "stencil"), "k": int(k)})]
    if family == "attention":
        dims, *opts = shape.split(":")
        b, h, kvh, sq, sk, d = parse_extents(dims, 6, "attention")
        causal = "causal" in opts
        scales = [o for o in opts if o != "causal"]
        p = {"b": b, "h": h, "kvh": kvh, "sq": sq, "sk": sk, "d": d, "causal": causal,
             "scale": float(scales[0]) if scales else d ** -0.5}
        names = ("torch sdpa flash", "torch sdpa cudnn")
        if causal and sq != sk:
            why = ("torch's is_causal aligns the mask to the top-left, the ladder's to the "
                   "bottom-right")
            return [(n, None, why) for n in names]
        return [(n, "sdpa", dict(p, backend=n.split()[-1])) for n in names]
    return [("PyTorch", None, f"no torch call is mapped to the {family} family")]


def parse_args(argv):
    """The command line: --case FAMILY SHAPE (repeatable), the timing budget, --json."""
    p = argparse.ArgumentParser(prog="python3 -m memhier.torch_reference",
                                description="Time PyTorch's call for each ladder's problem.")
    p.add_argument("--case", nargs=2, action="append", default=[], metavar=("FAMILY", "SHAPE"),
                   help="a family and one of its shape strings (repeatable)")
    p.add_argument("--budget-ms", type=float, default=25.0, help="GPU time per shape, ms")
    p.add_argument("--min-reps", type=int, default=7)
    p.add_argument("--max-reps", type=int, default=200)
    p.add_argument("--seed", type=int, default=0x5eed)
    p.add_argument("--json", action="store_true", help="print JSON (the only output form)")
    a = p.parse_args(argv)
    if a.min_reps < 1 or a.max_reps < a.min_reps or a.budget_ms <= 0:
        p.error("need 1 <= --min-reps <= --max-reps and a positive --budget-ms")
    return a


class Timer:
    """The report's timing: warm-up, an L2 flush before each repetition, CUDA events."""

    def __init__(self, torch, budget_ms, min_reps, max_reps):
        self.torch = torch
        props = torch.cuda.get_device_properties(0)
        l2 = getattr(props, "L2_cache_size", 0) or 64 << 20
        self.flush = torch.zeros(2 * l2 // 4, dtype=torch.float32, device="cuda")
        self._flush()  # the zeros' stores leave L2 now, before any repetition
        self._flush()
        self.budget_ms, self.min_reps, self.max_reps = budget_ms, min_reps, max_reps

    def _flush(self):
        """Read the flush buffer: every line of L2 is evicted, dirty ones written back now."""
        self.flush.sum()

    def time(self, fn):
        """Median, p10 and p90 of fn's time, ms, and the repetitions timed."""
        torch = self.torch
        for _ in range(2):
            fn()
        times, total = [], 0.0
        while len(times) < self.max_reps and (len(times) < self.min_reps or total < self.budget_ms):
            self._flush()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
            total += times[-1]
        return _quantiles(times) + (len(times),)

    def paired(self, fns, reps):
        """Each of fns timed reps times, alternated after the same flush: per fn its median ms,
        and per fn after the first the median, p10 and p90 of the per-pair ratios
        fns[0]'s time / its time (above 1: faster than fns[0])."""
        torch = self.torch
        for _ in range(2):
            for f in fns:
                f()
        times = [[] for _ in fns]
        for _ in range(reps):
            for side, f in enumerate(fns):
                self._flush()
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                f()
                end.record()
                end.synchronize()
                times[side].append(start.elapsed_time(end))
        medians = [_quantiles(t)[0] for t in times]
        ratios = [_quantiles([a / b for a, b in zip(times[0], t)]) for t in times[1:]]
        return medians, ratios


def _quantiles(values):
    """Median, p10 and p90 of a list of numbers."""
    v = sorted(values)
    at = lambda q: v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]
    return at(0.5), at(0.1), at(0.9)


def rel_l2(torch, got, want):
    """Relative L2 error of got against a float64 reference."""
    got = got.to(torch.float64)
    return float(torch.linalg.vector_norm(got - want) / torch.linalg.vector_norm(want))


def prepare(torch, kind, p, gen):
    """The inputs, the call, its float64 (or exact) reference and the tolerance."""
    F = torch.nn.functional
    dev = "cuda"
    randn = lambda *s: torch.randn(*s, generator=gen, device=dev, dtype=torch.float32)
    if kind == "softmax":
        x = randn(*p["dims"])
        return (lambda: torch.softmax(x, -1)), torch.softmax(x.double(), -1), 1e-5
    if kind == "sum":
        x = randn(p["n"])
        # Random signs: the sum is small against sum(|x|), so its relative error is looser.
        return (lambda: torch.sum(x)), torch.sum(x, dtype=torch.float64), 1e-4
    if kind == "transpose":
        x = randn(*p["dims"])
        return (lambda: x.t().contiguous()), x.double().t(), 0.0
    if kind == "bincount":
        n = p["n"]
        if p["dtype"] == "u8":
            x = torch.randint(0, 256, (n,), generator=gen, device=dev, dtype=torch.uint8)
            if p["dist"] == "degenerate":
                x.fill_(int(torch.randint(1, 256, (1,), generator=gen, device=dev)))
            fn = lambda: torch.bincount(x, minlength=256)
            valid = x.long()
        else:
            # As the ladder's int32 input: about 2 % of the values outside [0, 256), skipped,
            # so torch's call needs the mask before bincount.
            x = torch.randint(0, 256, (n,), generator=gen, device=dev, dtype=torch.int32)
            u = torch.rand(n, generator=gen, device=dev)
            x = torch.where(u < 0.01, x - 256, torch.where(u < 0.02, x + 256, x))
            if p["dist"] == "degenerate":
                x.fill_(int(torch.randint(1, 256, (1,), generator=gen, device=dev)))
            fn = lambda: torch.bincount(x[(x >= 0) & (x < 256)], minlength=256)
            valid = x[(x >= 0) & (x < 256)].long()
        ref = torch.zeros(256, dtype=torch.float64, device=dev)
        ref.index_add_(0, valid, torch.ones_like(valid, dtype=torch.float64))
        return fn, ref, 0.0
    if kind == "matmul":
        dtype = torch.bfloat16 if p["dtype"] == "bfloat16" else torch.float32
        a = randn(p["m"], p["k"]).to(dtype)
        b = randn(p["k"], p["n"]).to(dtype)
        ref = a.double() @ b.double()
        # bf16 rounds the products' inputs only; the sum is fp32 in the tensor cores.
        return (lambda: torch.matmul(a, b)), ref, 1e-2 if dtype == torch.bfloat16 else 1e-5
    if kind == "axpy":
        x, y = randn(p["n"]), randn(p["n"])
        alpha = 1.5
        ref = y.double() + alpha * x.double()
        # y += a x in place, as the ladder's BLAS axpy; the check reads the first run's y.
        return (lambda: y.add_(x, alpha=alpha)), ref, 1e-6
    if kind == "copy":
        x, y = randn(p["n"]), torch.full((p["n"],), float("nan"), device=dev)
        return (lambda: y.copy_(x)), x.double(), 0.0
    if kind == "stencil":
        k, r = p["k"], p["k"] // 2
        x = randn(1, 1, *p["dims"])
        w = torch.rand(1, 1, k, k, generator=gen, device=dev) * 2 - 1
        fn = lambda: F.conv2d(F.pad(x, (r, r, r, r), mode="replicate"), w)
        ref = F.conv2d(F.pad(x.double(), (r, r, r, r), mode="replicate"), w.double())
        return fn, ref, 1e-5
    if kind == "sdpa":
        from torch.nn.attention import SDPBackend, sdpa_kernel
        backend = {"flash": SDPBackend.FLASH_ATTENTION,
                   "cudnn": SDPBackend.CUDNN_ATTENTION}[p["backend"]]
        # The ladder's [batch, seq, heads, head_dim] layout, seen as torch's (b, h, s, d).
        u = lambda s, h: (torch.rand(p["b"], s, h, p["d"], generator=gen, device=dev) * 2 - 1
                          ).to(torch.bfloat16).transpose(1, 2)
        q, k, v = u(p["sq"], p["h"]), u(p["sk"], p["kvh"]), u(p["sk"], p["kvh"])
        gqa = p["h"] != p["kvh"]

        def fn():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, is_causal=p["causal"],
                                                      scale=p["scale"], enable_gqa=gqa)

        rep = p["h"] // p["kvh"]
        s = (q.double() @ k.double().repeat_interleave(rep, 1).transpose(-1, -2)) * p["scale"]
        if p["causal"]:
            s = s.masked_fill(torch.ones_like(s, dtype=torch.bool).triu(1), float("-inf"))
        ref = torch.softmax(s, -1) @ v.double().repeat_interleave(rep, 1)
        del s
        # P and O rounded to bf16: at most 2^-8 each (bf16's unit roundoff), as the ladder's bound says.
        return fn, ref, 1e-2
    raise ValueError(kind)


def run(args, torch):
    """The records of every --case, in order."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    timer = Timer(torch, args.budget_ms, args.min_reps, args.max_reps)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    records = []
    for family, shape in args.case:
        for i, (variant, kind, p) in enumerate(plan(family, shape)):
            rec = {"family": family, "shape": shape, "variant": variant, "compare": i == 0}
            if kind is None:
                records.append(dict(rec, declined=p))
                continue
            try:
                fn, ref, tol = prepare(torch, kind, p, gen)
                err = rel_l2(torch, fn(), ref)
                del ref
                if not err <= tol:
                    records.append(dict(rec, declined=f"wrong result: relative error {err:.3g} "
                                        f"(tolerance {tol:g})", rel_error=err))
                    continue
                ms, p10, p90, reps = timer.time(fn)
                records.append(dict(rec, ms=ms, p10=p10, p90=p90, reps=reps, rel_error=err))
            except (RuntimeError, MemoryError) as e:  # out of memory, an unsupported dtype
                records.append(dict(rec, declined=f"torch failed: {str(e).splitlines()[0]}"))
            finally:
                torch.cuda.empty_cache()
    return records


def main(argv=None):
    """Prints the JSON object; exit 3 (with {"error": ...}) without torch or a GPU."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        for family, shape in args.case:
            plan(family, shape)
    except ValueError as e:
        print(json.dumps({"error": f"bad case: {e}"}))
        return 2
    try:
        import torch
    except Exception as e:  # ImportError, or a broken install's own error
        print(json.dumps({"error": f"PyTorch not importable by {sys.executable}: {e}"}))
        return 3
    if not torch.cuda.is_available():
        print(json.dumps({"error": f"PyTorch {torch.__version__} sees no CUDA device"}))
        return 3
    records = run(args, torch)
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
                      "records": records}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
