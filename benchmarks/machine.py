"""What machine a benchmark ran on, for the reports the benchmarks write."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def host_facts() -> dict[str, str]:
    """Cores, CPU model, memory, OS, Python, DuckDB and FAISS versions."""
    import duckdb
    import faiss

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown")
    mem_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                  if line.startswith("MemTotal:"))
    return {
        "nproc": str(len(os.sched_getaffinity(0))),
        "CPU": cpu,
        "RAM": f"{mem_kb / 1024**2:.1f} GiB",
        "OS": platform.platform(),
        "Python": platform.python_version(),
        "duckdb": duckdb.__version__,
        "faiss-cpu": f"{faiss.__version__} ({faiss.omp_get_max_threads()} OpenMP threads)",
    }
