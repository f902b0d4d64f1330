"""Webhooks in cluster mode: the Serve app starts the store's delivery actor, which
follows the event stream and POSTs signed events to receivers on 127.0.0.1. A
receiver that hangs holds only its own deliveries: writes over HTTP all go through
while it holds one request (counted, not timed), and another receiver hears every
event meanwhile. `vault-ray shutdown` of the store stops the actor."""

from __future__ import annotations

import time
from datetime import timedelta

import ray
from receiver import Receiver
from scenarios import T0

from vault_ray import Fact
from vault_ray.actors.delivery import DELIVERY_NAME
from vault_ray.delivery import DeliveryPolicy, delivery_status
from vault_ray.webhooks import WebhookStore

from .served import served

FAST = DeliveryPolicy(timeout_s=60, backoff_s=0.05, max_backoff_s=0.2, poll_s=0.1)


def wait_until(check, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_delivery_actor_signs_each_event_and_a_hanging_receiver_slows_no_write(serve_port, tmp_path):
    hanging = Receiver("hanging-receiver-secret", hang=True)
    healthy = Receiver("healthy-receiver-secret")
    try:
        with served(tmp_path, serve_port, delivery=FAST, event_poll_s=0.25) as store:
            root = store.vault.info().store
            hooks = WebhookStore.for_store(root)
            hooks.add(hanging.url, secret="hanging-receiver-secret")
            needs_user = hooks.add(healthy.url, secret="healthy-receiver-secret", kinds=["dispute_opened"],
                                   needs_user_only=True)
            agent = store.client("planner")
            agent.add_facts(Fact("user.k0", "the first fact", "v0"), resolve=False)
            wait_until(lambda: len(hanging.requests) == 1)  # it holds the first delivery and never answers
            written = [agent.add_facts(Fact(f"user.k{i}", f"fact {i}", f"v{i}"), resolve=False) for i in range(1, 31)]
            assert len(written) == 30 and all(w.decisions[0].outcome == "active" for w in written)
            store.client("planner").add("My budget is 5000 dollars", observed_at=T0)
            (opened,) = store.client("chat").add("My budget is 9000 dollars", observed_at=T0 + timedelta(hours=1)).decisions
            wait_until(lambda: healthy.accepted)
            (request,) = healthy.requests
            assert request["signed"] and request["event"]["dispute_id"] == opened.dispute_id
            assert request["key"] == f"{needs_user.id}.{request['event']['id']}"
            assert len(hanging.requests) == 1 and hanging.accepted == {}  # still the one request, unanswered
            # the receiver answered before the actor records the delivery: wait for the record
            wait_until(lambda: {s["id"]: s for s in delivery_status(root)}[needs_user.id]["delivered"] == 1)
            hanging.release.set()
            wait_until(lambda: len(hanging.accepted) == 34)  # 31 facts, 2 budget claims, the dispute
            namespace = store.vault.info().namespace
        # the store was shut down: its delivery actor with it
        assert DELIVERY_NAME not in {a["name"] for a in ray.util.list_named_actors(all_namespaces=True)
                                     if a["namespace"] == namespace}
    finally:
        hanging.close()
        healthy.close()
