"""What the ingest benchmark measures and reports: its settings and the result of each run
(shared by bench_ingest.py, which measures, and ingest_report.py, which formats)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Settings:
    mode: str
    levels: tuple[int, ...]
    calls_bs1: int
    calls_bs256: int
    rounds: int
    sentences: int


@dataclass
class WriteRun:
    level: int
    stored: int
    batch: int
    resolve: bool
    latencies: list[float]
    cpu: list[float]
    reopen_s: float
    stages: dict[str, float]

    @property
    def claims(self) -> int:
        return self.batch * len(self.latencies)

    @property
    def total(self) -> float:
        return float(sum(self.latencies))


@dataclass
class TextRun:
    label: str
    resolve: bool | None = None  # None: raw model.encode
    wall: float = 0.0
    cpu: float = 0.0
    stages: Counter[str] = field(default_factory=Counter)
    decisions: Counter[str] = field(default_factory=Counter)
