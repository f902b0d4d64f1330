"""Liveness, readiness and Prometheus metrics (no token needed)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST

from vault_ray.backends.unfinished import target_of, unfinished_note

from ..auth import Svc
from ..schemas import HealthOut, ReadyOut
from . import problems

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=HealthOut)
async def healthz() -> Any:
    """The process answers."""
    return {"status": "ok"}


@router.get("/readyz", response_model=ReadyOut, responses=problems(503))
async def readyz(svc: Svc) -> Any:
    """The store answers: its settings, and its policy from the control actor. A store whose restore
    is unfinished is ready, degraded (`restore_unfinished`): it answers reads, and refuses changes."""
    def ask() -> Any:
        info = svc.vault.info()
        svc.vault.policy  # noqa: B018  (a round trip to the control actor)
        return info, svc.vault.restoring()

    info, marker = await svc.run(ask)
    unfinished = None if marker is None else {
        "export": marker.get("export"), "started_at": marker.get("started_at"),
        "detail": unfinished_note(marker, info.store, target_of(info.mode, info.store, info.namespace))}
    return {"status": "ready", "mode": info.mode, "store": info.store, "partitions": info.partitions,
            "namespace": info.namespace, "restore_unfinished": unfinished}


@router.get("/metrics", response_class=Response,
            responses={200: {"description": "Prometheus text format", "content": {"text/plain": {}}}})
async def metrics(svc: Svc) -> Response:
    """Prometheus metrics of the replica that answers (open disputes are store-wide)."""
    body = await svc.run(svc.metrics.render)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
