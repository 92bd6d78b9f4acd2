#!/usr/bin/env python3
"""The benchmark report's files (called by bench/report.sh).

  report.py convert --dir DIR --vertices N
      DIR/edges.txt ("s t" lines, dense ids 0..N-1, sorted, no duplicates) and DIR/u.pairs,
      DIR/r.pairs ("a b" lines) -> the inputs of the other indexes:
        graph.metis     O'Reach (KaHIP's readDiGraph): "n m", then one line per vertex listing its
                        out-neighbours numbered from 1
        u.query.txt     O'Reach queries "s t r" (0-based; a name ending in .t.txt marks positives)
        r.query.t.txt
        graph.gra       BFL (GRAIL's format): "graph_for_greach", n, then "v: w1 w2 ... #" per vertex
        u.bfl.txt       BFL queries "s t r"
        r.bfl.txt
  report.py render --raw RAW --out OUT
      the harness's printouts and RAW/results.tsv -> OUT/report.md and OUT/*.svg
"""
import argparse
import collections
import math
import os
import re
import statistics
import sys


def convert(args):
    d, n = args.dir, args.vertices
    out_adj = [[] for _ in range(n)]
    m = 0
    with open(os.path.join(d, "edges.txt")) as f:
        for line in f:
            s, t = line.split()
            out_adj[int(s)].append(int(t))
            m += 1
    with open(os.path.join(d, "graph.metis"), "w") as f:
        f.write(f"{n} {m}\n")
        for v in range(n):
            f.write(" ".join(str(t + 1) for t in out_adj[v]) + "\n")
    with open(os.path.join(d, "graph.gra"), "w") as f:
        f.write(f"graph_for_greach\n{n}\n")
        for v in range(n):
            f.write(f"{v}: " + "".join(f"{t} " for t in out_adj[v]) + "#\n")
    for kind, known in (("u", 0), ("r", 1)):
        with open(os.path.join(d, f"{kind}.pairs")) as f:
            pairs = [line.split() for line in f if line.strip()]
        name = "u.query.txt" if kind == "u" else "r.query.t.txt"
        for target in (name, f"{kind}.bfl.txt"):
            with open(os.path.join(d, target), "w") as f:
                for a, b in pairs:
                    f.write(f"{a} {b} {known}\n")


# ---------------------------------------------------------------------------------------------
# Parsing what the harness printed.

def read_tsv_meta(path):
    meta = collections.OrderedDict()
    if os.path.exists(path):
        for line in open(path):
            if "\t" in line:
                k, v = line.rstrip("\n").split("\t", 1)
                meta[k] = v
    return meta


def read_results(path):
    res = collections.defaultdict(dict)  # (section, graph, kind) -> {metric: value}
    if os.path.exists(path):
        for line in open(path):
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 5:
                sec, g, kind, metric, value = parts
                res[(sec, g, kind)][metric] = value
    return res


LOOKUP_LINE = re.compile(
    r"^(\S+)\s+(uniform|reachable|same key)\s+(.+?)\s+(\d+)\s+(\d+)\s+(\S+)\s+(?:(<=\d+)\s+)?(\S*)\s*$")


def parse_lookup(path):
    rows = []
    if not os.path.exists(path):
        return rows
    for line in open(path):
        m = LOOKUP_LINE.match(line.rstrip("\n"))
        if not m or m.group(1) == "graph":
            continue
        g, kind, form, fn_ns, floor_ns, ratio, target, result = m.groups()
        rows.append(dict(graph=g, kind=kind, form=form.strip(), fn_ns=float(fn_ns), floor_ns=float(floor_ns),
                         ratio=num(ratio), target=target or "", result=result))
    return rows


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def parse_questions(path):
    table, summary = [], {}
    if not os.path.exists(path):
        return table, summary
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("|") and not line.startswith("|-"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            # graph, function, rows, grail, CTE, table, [SRF,] vs CTE, vs table[, vs SRF]: the SRF
            # floor's two columns came later.
            if len(cells) in (8, 10) and cells[0] != "graph":
                table.append(dict(graph=cells[0], function=cells[1], rows=cells[2], grail_ms=num(cells[3]),
                                  cte_ms=num(cells[4]), table_ms=num(cells[5])))
            continue
        m = re.match(r"^(\w+) \((\d+) vertices, degree (\d+)\): (.*)$", line)
        if m:
            g, rest = m.group(1), m.group(4)
            s = dict(vertices=m.group(2), degree=m.group(3), text=rest)
            p = re.search(r"path: (\d+) pairs, mean length ([\d.]+); reachable\(\) ([\d.]+) ms, path\(\) ([\d.]+) ms", rest)
            if p:
                s.update(path_pairs=p.group(1), mean_length=p.group(2), reach_ms=num(p.group(3)), path_ms=num(p.group(4)))
            # As questions.sh prints it now: path() against reachable() plus the path's length.
            p = re.search(r"path: (\d+) pairs, mean length ([\d.]+); path\(\) ([\d.]+) ms vs reachable\(\) plus the "
                          r"length ([\d.]+) ms", rest)
            if p:
                s.update(path_pairs=p.group(1), mean_length=p.group(2), path_ms=num(p.group(3)), reach_ms=num(p.group(4)))
            p = re.search(r"over (\d+) pairs pgr_dijkstra ([\d.]+) ms, path\(\) ([\d.]+) ms", rest)
            if p:
                s.update(pgr_pairs=p.group(1), pgr_ms=num(p.group(2)), pgr_path_ms=num(p.group(3)))
            p = re.search(r"estimate (\d+) rows, actual (\d+)", rest)
            if p:
                s.update(estimate=p.group(1), actual=p.group(2))
            summary[g] = s
    return table, summary


def parse_deciders(path):
    """grail_cli bench-queries: each pair set's header line and its "decided by LABEL PCT%" lines,
    whatever the labels are."""
    sets = collections.OrderedDict()
    cur = None
    if not os.path.exists(path):
        return sets
    for line in open(path):
        m = re.match(r"^(\S.*?) queries: (\d+), reachable (\d+), ([\d.]+) queries/s \(([\d.]+) us each\)", line)
        if m:
            name = "uniform" if m.group(1).startswith("uniform") else "reachable" if "reachable" in m.group(1) else m.group(1)
            cur = sets[name] = dict(queries=int(m.group(2)), yes=int(m.group(3)), us=float(m.group(5)),
                                    decided=collections.OrderedDict(), visits=None)
            continue
        m = re.match(r"^\s+decided by (.+?)\s+([\d.]+)%", line)
        if m and cur is not None:
            cur["decided"][m.group(1).strip()] = float(m.group(2))
            continue
        m = re.match(r"^\s+.*visited per search: ([\d.]+)", line)
        if m and cur is not None:
            cur["visits"] = float(m.group(1))
    return sets


def parse_oreach(path):
    """O'Reach's app: "init took X ms", then per query file "======= TYPE ========" and
    "total for queries (µs): X" (pruned bidirectional BFS fallback)."""
    out = {}
    if not os.path.exists(path):
        return out
    kind = None
    for line in open(path, errors="replace"):
        m = re.search(r"init took ([\d.e+]+) ms", line)
        if m:
            out["build_ms"] = float(m.group(1))
        m = re.match(r"^=+ (\w+) =+", line)
        if m:
            kind = {"random": "uniform", "true": "reachable"}.get(m.group(1), m.group(1))
        m = re.search(r"total for queries \(.s\): ([\d.e+]+)", line)
        if m and kind and kind + "_ms" not in out:
            out[kind + "_ms"] = float(m.group(1)) / 1000.0
    return out


def parse_bfl(path):
    """BFL's printout (format not verified): the first "... index ... time ... N [ms|s]" and
    "... query ... time ... N [ms|s]" lines."""
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path, errors="replace"):
        low = line.lower()
        if low.startswith("read"):
            continue
        for key, pat in (("build_ms", r"(index|label|construct)[^\n]*?time"), ("query_ms", r"query[^\n]*?time")):
            if key in out or not re.search(pat, low):
                continue
            m = re.search(r"([\d.]+)\s*(ms|us|µs|s)?\b", low[re.search(pat, low).end():])
            if m:
                v, unit = float(m.group(1)), m.group(2) or "ms"
                out[key] = v * {"ms": 1, "s": 1000, "us": 1e-3, "µs": 1e-3}[unit]
    return out


# ---------------------------------------------------------------------------------------------
# Rendering.

def fmt(v, digits=None):
    if v is None or v == "" or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, str):
        f = num(v)
        if f is None:
            return v
        v = f
    if digits is not None:
        return f"{v:,.{digits}f}"
    a = abs(v)
    if a >= 100:
        return f"{v:,.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def ratio(a, b):
    a, b = num(a) if isinstance(a, str) else a, num(b) if isinstance(b, str) else b
    if a is None or b is None or b <= 0:
        return None
    return a / b


def table(headers, rows):
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(lines)


GRAPH_NAMES = {"dag": "random DAG", "local": "deep local DAG", "rmat": "R-MAT DAG"}


class Plots:
    def __init__(self, out):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: small files
        matplotlib.rcParams["svg.hashsalt"] = "pg_grail"
        self.plt, self.out, self.files = plt, out, []

    def save(self, fig, name):
        fig.tight_layout()
        fig.savefig(os.path.join(self.out, name), format="svg", metadata={"Date": None})
        if os.environ.get("REPORT_PNG"):  # to look at the plots where SVG cannot be shown
            fig.savefig(os.path.join(self.out, name[:-4] + ".png"), format="png", dpi=80)
        self.plt.close(fig)
        self.files.append(name)
        return name

    def bars(self, name, title, groups, series, ylabel, log=False, hlines=()):
        """groups: x labels; series: [(label, [value or None per group])]."""
        plt = self.plt
        fig, ax = plt.subplots(figsize=(7.5, 3.6))
        width = 0.8 / max(1, len(series))
        for k, (label, values) in enumerate(series):
            xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(groups))]
            vals = [v if v is not None and v > 0 else 0 for v in values]
            bars = ax.bar(xs, vals, width, label=label)
            for b, v in zip(bars, values):
                if v is None:
                    ax.annotate("n/a", (b.get_x() + b.get_width() / 2, 0), ha="center", va="bottom", fontsize=7)
        for y, label in hlines:
            ax.axhline(y, color="gray", linestyle="--", linewidth=0.8)
            ax.annotate(label, (len(groups) - 0.5, y), ha="right", va="bottom", fontsize=7, color="gray")
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(groups, fontsize=8)
        ax.set_ylabel(ylabel)
        if log:
            ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)
        return self.save(fig, name)

    def stacked(self, name, title, rows, labels):
        """rows: [(row label, {label: pct})] as horizontal stacked bars."""
        plt = self.plt
        fig, ax = plt.subplots(figsize=(7.5, 0.5 + 0.4 * max(1, len(rows))))
        cmap = plt.get_cmap("tab20")
        left = [0.0] * len(rows)
        for k, label in enumerate(labels):
            vals = [r[1].get(label, 0.0) for r in rows]
            ax.barh(range(len(rows)), vals, left=left, color=cmap(k % 20), label=label)
            left = [a + b for a, b in zip(left, vals)]
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([r[0] for r in rows], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of pairs")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(rows) > 3 else -0.6))
        return self.save(fig, name)


def render(args):
    raw, out = args.raw, args.out
    os.makedirs(out, exist_ok=True)
    meta = read_tsv_meta(os.path.join(raw, "meta.tsv"))
    res = read_results(os.path.join(raw, "results.tsv"))
    lookup = parse_lookup(os.path.join(raw, "lookup.txt"))
    qtable, qsummary = parse_questions(os.path.join(raw, "questions.txt"))
    notes = [l.strip() for l in open(os.path.join(raw, "notes.txt"))] if os.path.exists(os.path.join(raw, "notes.txt")) else []
    graphs = []
    for (sec, g, _k) in res:
        if sec == "build" and g not in graphs:
            graphs.append(g)
    plots = Plots(out)
    md = []
    w = md.append

    w(f"# pg_grail benchmark report ({meta.get('scale', '?')} scale)")
    w("")
    w(f"Written by `bench/report.sh --scale {meta.get('scale', '?')}` on {meta.get('date', '?')}, "
      f"pg_grail commit {meta.get('commit', '?')}. Every ratio compares two measurements of the same run on "
      "the same tables (both sides in one session where they are SQL), so ratios are comparable across "
      "machines; absolute times less so.")
    w("")
    w("## Machine")
    w("")
    w(table(["", ""], [
        ["CPU", f"{meta.get('cpu', '?')}, {meta.get('cpus', '?')} CPUs"],
        ["memory", meta.get("memory", "?")],
        ["kernel", meta.get("kernel", "?")],
        ["PostgreSQL", meta.get("postgres", "?")],
        ["pgRouting", meta.get("pgrouting", "not installed")],
        ["load average (1, 5, 15 min) at start / end", f"{meta.get('load_start', '?')} / {meta.get('load_end', '?')}"],
        ["sizes", meta.get("parameters", "?")],
    ]))
    w("")
    w("Sessions run with `max_parallel_workers_per_gather = 0`, `jit = off`, `grail.device = cpu`; the "
      "cluster is `scripts/cluster.sh`'s (`fsync = off`, `shared_buffers = 256MB`). The graphs "
      "(bench/lookup_sql.sh): **dag** a random DAG (each edge from the smaller to the larger of two "
      "random numbers), **local** a deep local DAG (vertex i to random vertices of i+1 .. i+span), "
      "**rmat** R-MAT with each edge turned to go up (a DAG); ids randomly permuted. Pairs: **uniform** "
      "(two random vertices of the edge table) and **reachable** (the end of a random walk of 1 to 32 "
      "steps).")
    w("")

    # Build.
    w("## Build: create_graph against a B-tree")
    w("")
    w("`SELECT grail.create_graph(g, e)` against `CREATE INDEX ON e (source, target)` on the same table, "
      "alternately, medians (each in a new session; the B-tree build may use parallel maintenance "
      "workers, PostgreSQL's default). Phases from `grail.graphs`.")
    w("")
    rows, cg, bt, eng = [], [], [], []
    for g in graphs:
        b = res.get(("build", g, "-"), {})
        e = res.get(("engine", g, "-"), {})
        c, t = num(b.get("create_graph_ms")), num(b.get("btree_ms"))
        cg.append(c), bt.append(t), eng.append(num(e.get("build_ms")))
        rows.append([GRAPH_NAMES.get(g, g), fmt(b.get("vertices")), fmt(b.get("edges")), fmt(c), fmt(t),
                     fmt(ratio(c, t), 2) + "×",
                     f"{fmt(b.get('read_ms'))} / {fmt(b.get('scc_ms'))} / {fmt(b.get('label_ms'))} / {fmt(b.get('persist_ms'))}",
                     fmt(num(b.get("index_bytes")) / 2**20 if num(b.get("index_bytes")) else None, 1),
                     fmt(num(b.get("btree_bytes")) / 2**20 if num(b.get("btree_bytes")) else None, 1),
                     fmt(num(b.get("table_bytes")) / 2**20 if num(b.get("table_bytes")) else None, 1)])
    w(table(["graph", "vertices", "edge rows", "create_graph ms", "B-tree ms", "ratio (target ≤ 1.0×)",
             "read / scc / label / persist ms", "index MiB", "B-tree MiB", "table MiB"], rows))
    w("")
    if graphs:
        f = plots.bars("build.svg", "Build time", [GRAPH_NAMES.get(g, g) for g in graphs],
                       [("create_graph", cg), ("CREATE INDEX (source, target)", bt), ("engine alone (grail_cli build)", eng)],
                       "ms")
        w(f"![build time]({f})")
        w("")

    # reachable() against the floor.
    w("## reachable() per row and by array, against the `a = b` floor")
    w("")
    w("bench/lookup_sql.sh: `SELECT count(*) FROM pairs WHERE grail.reachable(g, a, b)` against "
      "`SELECT count(*) FROM pairs WHERE a = b` over the same rows, and the array form "
      "`unnest(grail.reachable(g, a[], b[]))` over one array of all pairs against "
      "`unnest(a, b) ... WHERE x = y`; medians, ns a pair.")
    w("")
    rows = []
    for r in lookup:
        rows.append([GRAPH_NAMES.get(r["graph"], r["graph"]), r["kind"], r["form"], fmt(r["fn_ns"]), fmt(r["floor_ns"]),
                     (fmt(r["ratio"], 2) + "×") if r["ratio"] is not None else "–", r["target"].replace("<=", "≤ ") + ("×" if r["target"] else ""),
                     r["result"]])
    w(table(["graph", "pairs", "form", "function ns", "floor ns", "ratio", "target", "true"], rows))
    w("")
    groups, per_row, arr = [], [], []
    for g in graphs:
        for kind in ("uniform", "reachable"):
            pr = [r for r in lookup if r["graph"] == g and r["kind"] == kind and r["form"] == "per row, bigint"]
            ar = [r for r in lookup if r["graph"] == g and r["kind"] == kind and r["form"] == "array"]
            groups.append(f"{g}\n{kind}")
            per_row.append(pr[0]["ratio"] if pr else None)
            arr.append(ar[0]["ratio"] if ar else None)
    if groups:
        f = plots.bars("reachable_floor.svg", "reachable() as a multiple of the a = b floor (log scale)", groups,
                       [("per row", per_row), ("array", arr)], "× floor", log=True,
                       hlines=[(5, "per row uniform target 5×"), (10, "per row reachable target 10×"), (2, "array target 2×")])
        w(f"![reachable against the floor]({f})")
        w("")

    # reachable() against the CTE and pgRouting.
    w("## reachable() against the recursive CTE and pgRouting")
    w("")
    w("The first pairs of the same pair tables: `EXISTS (WITH RECURSIVE r(v) AS (SELECT a UNION SELECT "
      "e.target FROM r JOIN e ON e.source = r.v) SELECT 1 FROM r WHERE v = b)` (an index on "
      "`e (source)`, 120 s statement timeout) and pgRouting's `pgr_dijkstra` (unit costs, directed) "
      "against `grail.reachable()`; the counts of reachable pairs must agree (the run stops if not). ms a pair.")
    w("")
    rows, groups, s_fn, s_cte, s_pgr = [], [], [], [], []
    for g in graphs:
        for kind in ("uniform", "reachable"):
            v = res.get(("vs", g, kind))
            if not v:
                continue
            fn, cte, pgr = num(v.get("grail_ms_per_pair")), num(v.get("cte_ms_per_pair")), num(v.get("pgr_ms_per_pair"))
            rows.append([GRAPH_NAMES.get(g, g), kind, f"{v.get('reachable', '?')} of {v.get('pairs', '?')}", fmt(fn),
                         fmt(cte) if cte is not None else v.get("cte_ms_per_pair", "–"),
                         (fmt(ratio(cte, fn)) + "×") if ratio(cte, fn) else "–",
                         fmt(pgr) + (f" ({v.get('pgr_pairs')} pairs)" if pgr is not None else "") if pgr is not None else "not installed",
                         (fmt(ratio(pgr, fn)) + "×") if ratio(pgr, fn) else "–"])
            groups.append(f"{g}\n{kind}"), s_fn.append(fn), s_cte.append(cte), s_pgr.append(pgr)
    w(table(["graph", "pairs", "reachable", "reachable() ms", "recursive CTE ms", "CTE / reachable()",
             "pgr_dijkstra ms", "pgr / reachable()"], rows))
    w("")
    if groups:
        series = [("reachable()", s_fn), ("recursive CTE", s_cte)]
        if any(x is not None for x in s_pgr):
            series.append(("pgr_dijkstra", s_pgr))
        f = plots.bars("reachable_cte.svg", "ms a pair (log scale)", groups, series, "ms", log=True)
        w(f"![reachable against the CTE]({f})")
        w("")

    # Traversals.
    w("## descendants(), ancestors() and path() against the recursive CTE")
    w("")
    w("bench/questions.sh on its own tables (a random DAG, a deep local DAG, R-MAT with cycles): a count "
      "over `grail.descendants()` / `grail.ancestors()` of random sources against the recursive CTE a "
      "user would write (UNION, indexes on both columns; one run) and against `count(*)` over a table "
      "holding the same rows; `path()` against `reachable()` on the same reachable pairs and against "
      "`pgr_dijkstra` (lengths must agree).")
    w("")
    rows = [[GRAPH_NAMES.get(r["graph"], r["graph"]), r["function"], r["rows"], fmt(r["grail_ms"]), fmt(r["cte_ms"]),
             fmt(r["table_ms"]), fmt(ratio(r["grail_ms"], r["cte_ms"])) + "×" if ratio(r["grail_ms"], r["cte_ms"]) else "–",
             fmt(ratio(r["grail_ms"], r["table_ms"])) + "×" if ratio(r["grail_ms"], r["table_ms"]) else "–"] for r in qtable]
    w(table(["graph", "function", "rows", "grail ms", "CTE ms", "table ms", "grail / CTE", "grail / table"], rows))
    w("")
    rows = []
    for g, s in qsummary.items():
        rows.append([GRAPH_NAMES.get(g, g), s.get("path_pairs", "–"), s.get("mean_length", "–"), fmt(s.get("reach_ms")),
                     fmt(s.get("path_ms")), fmt(ratio(s.get("path_ms"), s.get("reach_ms")), 2) + "×" if ratio(s.get("path_ms"), s.get("reach_ms")) else "–",
                     f"{fmt(s.get('pgr_ms'))} / {fmt(s.get('pgr_path_ms'))} over {s['pgr_pairs']} pairs" if "pgr_ms" in s else "–",
                     f"{s.get('estimate', '–')} / {s.get('actual', '–')}"])
    w(table(["graph", "path pairs", "mean length", "reachable() plus the length, ms", "path() ms", "path / reachable",
             "pgr_dijkstra ms / path() ms", "reachable() join: estimate / actual rows"], rows))
    w("")
    if qtable:
        groups = [f"{r['graph']}\n{r['function']}" for r in qtable]
        f = plots.bars("traversals.svg", "descendants() / ancestors() of the sources, ms (log scale)", groups,
                       [("pg_grail", [r["grail_ms"] for r in qtable]), ("recursive CTE", [r["cte_ms"] for r in qtable]),
                        ("count(*) of a table of the rows", [r["table_ms"] for r in qtable])], "ms", log=True)
        w(f"![traversals]({f})")
        w("")

    # Deciders.
    w("## Which observation decides a pair")
    w("")
    w("`grail_cli bench-queries` on the engine's index of each graph (its own uniform and reachable "
      "pairs, as many as the SQL runs): the share of pairs each test decides, in the labels the engine "
      "prints; `search` is the fallback graph search.")
    w("")
    drows, labels = [], []
    for g in graphs:
        sets = parse_deciders(os.path.join(raw, f"deciders_{g}.txt"))
        for kind, s in sets.items():
            for label in s["decided"]:
                if label not in labels:
                    labels.append(label)
            drows.append((f"{g} {kind}", s, g, kind))
    if drows:
        rows = []
        for name, s, g, kind in drows:
            rows.append([GRAPH_NAMES.get(g, g), kind, fmt(s["us"], 3), f"{s['yes']} of {s['queries']}"] +
                        [fmt(s["decided"].get(l), 2) if l in s["decided"] else "" for l in labels] +
                        [fmt(s["visits"], 1) if s["visits"] is not None else ""])
        w(table(["graph", "pairs", "µs a query", "reachable"] + [f"{l} %" for l in labels] + ["components a search"], rows))
        w("")
        f = plots.stacked("deciders.svg", "Share of pairs each observation decides", [(n, s["decided"]) for n, s, _g, _k in drows], labels)
        w(f"![deciders]({f})")
        w("")
    else:
        w("(no output from grail_cli bench-queries)")
        w("")

    # Engine, BFL, O'Reach.
    w("## The engine alone, BFL and O'Reach on the same graphs and pairs")
    w("")
    w("Each graph of the SQL runs written out with dense ids (duplicate edges dropped), with the same "
      "uniform and reachable pairs. The engine: `grail_cli build`'s build total (in process, one "
      "thread, as O'Reach's init is timed); its query time in process from `grail_cli bench-queries` "
      "(pairs drawn as the SQL pairs are, as many), and from `grail_cli query --time` over the very "
      "pairs of the SQL runs (read first, then answered one at a time; median of the runs), whose "
      "counts of reachable pairs are checked against `reachable()` in SQL. The ratio to O'Reach is "
      "over these same pairs. BFL and O'Reach run only "
      "when `--bfl DIR` / `--oreach DIR` point at their public source trees, which the report builds "
      "in its work directory. O'Reach: `reachability GRAPH.metis --pbibfs --queries u.query.txt "
      "--queries r.query.t.txt`, its `init took` and `total for queries` (input format and options "
      "read from its sources: KaHIP's `readDiGraph`, the app's `parse_reachability_parameters`). BFL: "
      "`BINARY graph.gra QUERIES` in GRAIL's graph format and `s t r` query lines, its index and query "
      "times read from any line naming them: this is the GRAIL family's format as the papers describe "
      "it, **unverified** against BFL's code. Targets of the issue: engine query time ≤ 0.5× O'Reach's, "
      "build ≤ 2× BFL's.")
    w("")
    rows, groups, s_eng, s_cli, s_bfl, s_or = [], [], [], [], [], []
    bfl_on, oreach_on = "bfl" in meta, "oreach" in meta
    for g in graphs:
        e = res.get(("engine", g, "-"), {})
        npairs = num(e.get("pairs"))
        orr = parse_oreach(os.path.join(raw, f"oreach_{g}.txt"))
        dec = parse_deciders(os.path.join(raw, f"deciders_{g}.txt"))
        for kind in ("uniform", "reachable"):
            ek = res.get(("engine", g, kind), {})
            bf = parse_bfl(os.path.join(raw, f"bfl_{g}_{'u' if kind == 'uniform' else 'r'}.txt"))
            eng_us = dec.get(kind, {}).get("us")
            cli_us = num(ek.get("cli_us_per_query"))
            bfl_us = bf["query_ms"] * 1000 / npairs if "query_ms" in bf and npairs else None
            or_us = orr[kind + "_ms"] * 1000 / npairs if kind + "_ms" in orr and npairs else None
            eb = num(e.get("build_ms"))
            rows.append([GRAPH_NAMES.get(g, g), kind, fmt(e.get("vertices")), fmt(e.get("edges")), fmt(eb),
                         fmt(num(e.get("index_bytes")) / 2**20, 1) if num(e.get("index_bytes")) else "–",
                         fmt(eng_us, 3), fmt(cli_us, 3), f"{ek.get('positives', '?')} of {e.get('pairs', '?')}",
                         fmt(bf.get("build_ms")) if bfl_on else "not run", fmt(bfl_us, 3) if bfl_on else "not run",
                         fmt(orr.get("build_ms")) if oreach_on else "not run", fmt(or_us, 3) if oreach_on else "not run",
                         (fmt(ratio(cli_us, or_us)) + "×") if ratio(cli_us, or_us) else "–",
                         (fmt(ratio(eb, bf.get("build_ms"))) + "×") if ratio(eb, bf.get("build_ms")) else "–"])
            groups.append(f"{g}\n{kind}")
            s_eng.append(eng_us), s_cli.append(cli_us), s_bfl.append(bfl_us), s_or.append(or_us)
    w(table(["graph", "pairs", "vertices", "edges", "engine build ms", "engine index MiB",
             "engine µs a query (bench-queries' pairs)", "engine µs a query (these pairs)",
             "engine: reachable of these pairs", "BFL build ms", "BFL µs a query", "O'Reach build ms",
             "O'Reach µs a query", "engine / O'Reach query (≤ 0.5×)", "engine / BFL build (≤ 2×)"], rows))
    w("")
    if not bfl_on:
        w("BFL was not run: pass `--bfl DIR` (its source tree) to compare.")
        w("")
    if not oreach_on:
        w("O'Reach was not run: pass `--oreach DIR` (a checkout of https://github.com/o-reach/O-Reach) to compare.")
        w("")
    if groups:
        series = [("pg_grail engine (bench-queries' pairs)", s_eng), ("pg_grail engine (these pairs)", s_cli)]
        if bfl_on:
            series.append(("BFL", s_bfl))
        if oreach_on:
            series.append(("O'Reach", s_or))
        f = plots.bars("engines.svg", "Engine query time, µs a query (log scale)", groups, series, "µs", log=True)
        w(f"![engines]({f})")
        w("")

    w("## Notes")
    w("")
    for n in notes:
        w(f"- {n}")
    load = num((meta.get("load_start") or "").split(" ")[0])
    cpus = num(meta.get("cpus"))
    if load is not None and cpus and load > cpus:
        w(f"- The machine was shared during this run (load average {meta.get('load_start')} at the start, "
          f"{meta.get('load_end', '?')} at the end, on {meta.get('cpus')} CPUs): absolute times are "
          "inflated and noisy; each ratio's two sides ran under the same load.")
    w(f"- Raw printouts of this run: `{raw}` (not kept in the repository).")
    w("- Reproduce: `bench/report.sh --scale " + meta.get("scale", "small") + "` (see bench/README.md).")
    w("")
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(md))
    print(os.path.join(out, "report.md"))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("convert")
    c.add_argument("--dir", required=True)
    c.add_argument("--vertices", type=int, required=True)
    r = sub.add_parser("render")
    r.add_argument("--raw", required=True)
    r.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.cmd == "convert":
        convert(args)
    else:
        render(args)


if __name__ == "__main__":
    sys.exit(main())
