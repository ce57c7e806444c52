"""Campaigns: an experiment over games, variants and player line-ups, declared once in a
TOML plan, run on local processes or a Dask cluster, stored in DuckDB, resumable, and
reported with 95% intervals (docs/campaigns.md).

    >>> from recycle.study.campaign import Plan, run_campaign, report
    >>> plan = Plan.from_toml("plan.toml")
    >>> run_campaign(plan, "plan.duckdb", workers=2)
    >>> print(report("plan.duckdb").text())
"""

from .plan import Plan, PlanError, chunk_seed
from .report import Report, report
from .run import CampaignProgress, CampaignRun, run_campaign
from .store import StoreError

__all__ = [
    "Plan",
    "PlanError",
    "chunk_seed",
    "run_campaign",
    "CampaignRun",
    "CampaignProgress",
    "report",
    "Report",
    "StoreError",
]
