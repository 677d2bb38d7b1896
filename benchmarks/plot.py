"""--plot: PNG bar charts of a suite run into docs/benchmarks/ (matplotlib, optional).

speedup.png: per program, the speedup over NumPy of cupynum and of each peer that ran it (log
scale; the issue's target marked); scaling.png (after --ranks N): weak-scaling efficiency."""
import os

OUT_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "docs", "benchmarks")


def plot(rows, scaling, out_dir=OUT_DIR):
    """Write the charts; returns lines to print (the files written, or why none were)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return ["--plot: matplotlib is not installed (pip install matplotlib); no charts written"]
    os.makedirs(out_dir, exist_ok=True)
    written = []

    names = [r["name"] for r in rows]
    series = {"cupynum": [r["speedup"] for r in rows]}
    for r in rows:
        for peer in r["peers"]:
            series.setdefault(peer, [None] * len(rows))
    for i, r in enumerate(rows):
        for peer, rec in r["peers"].items():
            series[peer][i] = r["numpy"] / rec["seconds"]
    fig, ax = plt.subplots(figsize=(max(8, 0.7 * len(rows)), 4.5))
    width = 0.8 / len(series)
    for k, (lib, vals) in enumerate(series.items()):
        xs = [i + (k - (len(series) - 1) / 2) * width for i, v in enumerate(vals) if v]
        ax.bar(xs, [v for v in vals if v], width, label=lib)
    for i, r in enumerate(rows):
        if r["target"] is not None:
            ax.hlines(r["target"], i - 0.45, i + 0.45, colors="k", linestyles="dashed",
                      label="target" if i == 0 or rows[i - 1]["target"] is None else None)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_yscale("log")
    plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(names, rotation=40, ha="right")
    ax.set_ylabel("speedup over NumPy (NumPy time / time)")
    ax.set_title("cupynum benchmarks (higher is faster; dashed: target)")
    handles, labels = ax.get_legend_handles_labels()
    seen = {}
    for h, lab in zip(handles, labels):
        seen.setdefault(lab, h)
    ax.legend(seen.values(), seen.keys(), fontsize="small")
    fig.tight_layout()
    path = os.path.join(out_dir, "speedup.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    written.append(path)

    if scaling:
        fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(scaling)), 4))
        ax.bar([s["name"] for s in scaling], [s["efficiency"] for s in scaling])
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_ylabel("weak-scaling efficiency t1 / tN")
        ax.set_title("cupynum weak scaling (problem grown with the rank count)")
        fig.tight_layout()
        path = os.path.join(out_dir, "scaling.png")
        fig.savefig(path, dpi=100)
        plt.close(fig)
        written.append(path)
    return [f"wrote {p}" for p in written]
