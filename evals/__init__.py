"""Offline evaluation of conflict policies (installs as `vault_ray.evals`).

- `generator`: seeded, vectorized synthetic scenarios with ground truth (Parquet).
- `replay`: one scenario block through a vault under one policy; `lww_counts`, the baseline.
- `oracle`: the reliability oracle, the ceiling every report shows.
- `weights`: authority weights learned from a held-out half (the `learned` reference).
- `uncertainty`: 95% bootstrap intervals over scenarios (scipy), paired differences.
- `job`: the Ray Data job (`run_eval`) and its per-policy aggregates.
- `report`, `charts`: markdown table and PNG charts; `from_store`: what-if replays of a real store.
- `recommend`, `labels`: `--recommend`, a proposed policy from scenarios or a store's labels.

docs/evals.md defines the schemas and every metric. Ray is imported only by `job`.
"""

from .config import EvalConfig, GeneratorConfig, load_config
from .generator import SCENARIO_SCHEMA, generate, generate_table, write_scenarios
from .metrics import RESULTS_SCHEMA, SUMMARY_SCHEMA
from .policies import POLICY_NAMES, REFERENCES, build_policies

__all__ = [
    "POLICY_NAMES",
    "REFERENCES",
    "RESULTS_SCHEMA",
    "SCENARIO_SCHEMA",
    "SUMMARY_SCHEMA",
    "EvalConfig",
    "GeneratorConfig",
    "build_policies",
    "generate",
    "generate_table",
    "load_config",
    "write_scenarios",
]
