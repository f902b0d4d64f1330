"""Webhooks, delivered by a `Dispatcher` beside an embedded vault to a real receiver
on 127.0.0.1: signed deliveries, retries that end in exactly one accepted delivery
per event under one idempotency key, a hanging receiver that no write waits for,
giving up visibly, and a restarted dispatcher that resumes where it stood."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from receiver import Receiver
from scenarios import T0

from vault_ray import Fact, InvalidInput, StoreError
from vault_ray.delivery import DeliveryPolicy, Dispatcher, delivery_status
from vault_ray.webhooks import WebhookStore, signature, verify

FAST = DeliveryPolicy(timeout_s=5.0, backoff_s=0.05, max_backoff_s=0.2, poll_s=0.05)


@pytest.fixture
def receivers():
    made = []

    def _make(secret: str, **kw) -> Receiver:
        made.append(Receiver(secret, **kw))
        return made[-1]

    yield _make
    for r in made:
        r.close()


@pytest.fixture
def dispatchers():
    made = []

    def _make(*args, **kw) -> Dispatcher:
        made.append(Dispatcher(*args, **kw).start())
        return made[-1]

    yield _make
    for d in made:
        d.stop()


def wait_until(check, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _budget_dispute(vault) -> str:
    vault.agent("planner").add("My budget is 5000 dollars", observed_at=T0)
    (new,) = vault.agent("chat").add("My budget is 9000 dollars", observed_at=T0 + timedelta(hours=1)).decisions
    return new.dispute_id


def test_a_delivery_is_signed_and_carries_the_event(vault, receivers, dispatchers):
    store = vault.info().store
    secret = "s3cret-s3cret-s3cret"
    receiver = receivers(secret)
    hook = WebhookStore.for_store(store).add(receiver.url, secret=secret, kinds=["dispute_opened"], needs_user_only=True)
    dispatchers(vault, store, policy=FAST)
    dispute_id = _budget_dispute(vault)
    wait_until(lambda: receiver.accepted)
    (request,) = receiver.requests
    assert request["signed"] and request["attempt"] == "1"
    event = request["event"]
    assert (event["kind"], event["dispute_id"], event["needs_user"]) == ("dispute_opened", dispute_id, True)
    assert request["key"] == f"{hook.id}.{event['id']}"


def test_signatures_bind_the_body_and_the_time():
    body, secret = b'{"kind":"dispute_opened"}', "a-secret-of-16-chars"
    now = 1_800_000_000
    headers = {"Vault-Webhook-Timestamp": str(now), "Vault-Webhook-Signature": signature(secret, str(now), body)}
    assert verify(secret, body, headers, now=now)
    assert verify(secret, body, {k.lower(): v for k, v in headers.items()}, now=now + 10)
    assert not verify(secret, body + b" ", headers, now=now)
    assert not verify("another-secret-16chars", body, headers, now=now)
    assert not verify(secret, body, headers, now=now + 3600)  # a replay an hour later
    assert not verify(secret, body, {**headers, "Vault-Webhook-Timestamp": str(now + 1)}, now=now)
    # junk anyone can send is no delivery, and no exception in the receiver
    for junk in ({"Vault-Webhook-Timestamp": "\u00b2"}, {"Vault-Webhook-Timestamp": "9" * 5000},
                 {"Vault-Webhook-Signature": "v1=\u00e9" * 10}, {"Vault-Webhook-Timestamp": None}):
        assert not verify(secret, body, {**headers, **junk}, now=now)


def test_a_receiver_failing_twice_accepts_each_event_once_under_one_key(vault, receivers, dispatchers):
    store = vault.info().store
    receiver = receivers("fail-twice-secret-123", fail_first=2)
    WebhookStore.for_store(store).add(receiver.url, secret="fail-twice-secret-123")
    dispatchers(vault, store, policy=FAST)
    for i in range(4):
        vault.agent("a").add_facts(Fact(f"user.k{i}", f"value {i}", f"v{i}"), resolve=False)
    wait_until(lambda: len(receiver.accepted) == 4)
    time.sleep(0.3)  # nothing more arrives
    assert set(receiver.accepts.values()) == {1}  # exactly one accepted delivery per event
    for key in receiver.accepted:
        tries = [r for r in receiver.requests if r["key"] == key]
        assert [r["attempt"] for r in tries] == ["1", "2", "3"] and all(r["signed"] for r in tries)
    wait_until(lambda: delivery_status(store)[0]["delivered"] == 4)  # recorded after the receiver answered
    (status,) = delivery_status(store)
    assert (status["delivered"], status["failed"], status["head"]) == (4, 0, None)
    assert [e["kind"] for e in receiver.accepted.values()] == ["claim_added"] * 4


def test_a_hanging_receiver_does_not_hold_up_writes(vault, receivers, dispatchers):
    store = vault.info().store
    receiver = receivers("hanging-secret-1234", hang=True)
    WebhookStore.for_store(store).add(receiver.url, secret="hanging-secret-1234")
    dispatchers(vault, store, policy=DeliveryPolicy(timeout_s=60, poll_s=0.05))
    vault.agent("a").add_facts(Fact("user.k0", "first", "v0"), resolve=False)
    wait_until(lambda: len(receiver.requests) == 1)  # the first delivery is stuck in the receiver
    acked = [vault.agent("a").add_facts(Fact(f"user.k{i}", f"value {i}", f"v{i}"), resolve=False) for i in range(1, 41)]
    assert len(acked) == 40 and all(r.decisions[0].outcome == "active" for r in acked)
    assert len(receiver.requests) == 1 and receiver.accepted == {}  # the writes went on; the receiver holds one
    receiver.release.set()
    wait_until(lambda: len(receiver.accepted) == 41)


def test_giving_up_is_counted_and_shown_and_the_next_event_goes(vault, receivers, dispatchers):
    store = vault.info().store
    receiver = receivers("the-right-secret-1234")
    WebhookStore.for_store(store).add(receiver.url, secret="not-the-receivers-secret")  # every answer: 401
    dispatchers(vault, store, policy=DeliveryPolicy(backoff_s=0.01, max_attempts=3, poll_s=0.05))
    vault.agent("a").add_facts(Fact("user.k0", "one", "v0"), resolve=False)
    vault.agent("a").add_facts(Fact("user.k1", "two", "v1"), resolve=False)
    wait_until(lambda: delivery_status(store)[0]["failed"] == 2)
    (status,) = delivery_status(store)
    assert status["delivered"] == 0 and status["last_error"] == "HTTP 401" and "secret" not in status
    assert [(f["attempts"], f["error"]) for f in status["failures"]] == [(3, "HTTP 401")] * 2
    assert len(receiver.requests) == 6 and not any(r["signed"] for r in receiver.requests)


def test_a_restarted_dispatcher_resumes_where_it_stood(vault, receivers, dispatchers):
    store = vault.info().store
    receiver = receivers("restart-secret-12345")
    WebhookStore.for_store(store).add(receiver.url, secret="restart-secret-12345", since="start")
    vault.agent("a").add_facts(Fact("user.k0", "before any dispatcher", "v0"), resolve=False)
    first = dispatchers(vault, store, policy=FAST)
    wait_until(lambda: len(receiver.accepted) == 1)
    first.stop()
    for i in range(1, 4):
        vault.agent("a").add_facts(Fact(f"user.k{i}", f"while stopped {i}", f"v{i}"), resolve=False)
    dispatchers(vault, store, policy=FAST)
    wait_until(lambda: len(receiver.accepted) == 4)
    time.sleep(0.3)
    assert len(receiver.requests) == 4 and set(receiver.accepts.values()) == {1}


def test_a_new_webhook_hears_of_events_from_its_registration_on(vault, receivers, dispatchers):
    store = vault.info().store
    vault.agent("a").add_facts(Fact("user.k0", "long ago", "v0"), resolve=False)
    receiver = receivers("from-now-secret-1234")
    WebhookStore.for_store(store).add(receiver.url, secret="from-now-secret-1234")
    dispatchers(vault, store, policy=FAST)
    vault.agent("a").add_facts(Fact("user.k1", "just now", "v1"), resolve=False)
    wait_until(lambda: receiver.accepted)
    time.sleep(0.3)
    assert [e["entity"] for e in receiver.accepted.values()] == ["user.k1"]


@pytest.mark.parametrize("bad", [{"url": "ftp://x/"}, {"url": "http:///nohost"}, {"secret": "short"},
                                 {"kinds": ["noop"]}, {"since": "yesterday"}, {"entity": "Not An Entity"}])
def test_bad_registrations_are_refused_and_change_nothing(vault, bad):
    hooks = WebhookStore.for_store(vault.info().store)
    with pytest.raises(InvalidInput):
        hooks.add(**{"url": "http://127.0.0.1:9/x", **bad})
    assert hooks.list() == []


def test_the_webhook_file_is_owner_only_and_a_damaged_one_is_a_store_error(tmp_path):
    hooks = WebhookStore.for_store(tmp_path)
    hook = hooks.add("http://127.0.0.1:9/x", secret="a-secret-of-16-chars")
    assert hooks.path.stat().st_mode & 0o777 == 0o600 and WebhookStore(hooks.path).list() == [hook]
    hooks.path.write_text('{"webhooks": [{"no id": 1}]}')
    with pytest.raises(StoreError, match="webhook file"):
        WebhookStore(hooks.path).list()
    with pytest.raises(StoreError, match="webhook file"):  # and nothing is written over it
        hooks.add("http://127.0.0.1:9/y", secret="a-secret-of-16-chars")
    assert hooks.path.read_text() == '{"webhooks": [{"no id": 1}]}'


def test_a_needs_user_only_hook_hears_of_a_dispute_a_policy_change_makes_wait(vault, receivers, dispatchers):
    store = vault.info().store
    receiver = receivers("policy-change-secret-1")
    WebhookStore.for_store(store).add(receiver.url, secret="policy-change-secret-1", needs_user_only=True)
    vault.set_strategy("user.medication", "authority")  # equal weights: a dispute no person is asked for
    vault.agent("a").add_facts(Fact("user.medication", "takes insulin", "insulin", observed_at=T0), resolve=False)
    (d,) = vault.agent("b").add_facts(Fact("user.medication", "takes metformin", "metformin",
                                           observed_at=T0 + timedelta(hours=1)), resolve=False).decisions
    dispatchers(vault, store, policy=FAST)
    time.sleep(0.3)
    assert receiver.accepted == {}  # nothing waited for a person so far
    before = vault.policy.high_stakes
    vault.patch_policy({"high_stakes": [*before, "user.medication"]})
    wait_until(lambda: receiver.accepted)
    vault.patch_policy({"high_stakes": list(before)})  # no longer waits: not for this hook
    time.sleep(0.3)
    (event,) = receiver.accepted.values()
    assert (event["kind"], event["dispute_id"], event["needs_user"], event["reason"]) == (
        "dispute_changed", d.dispute_id, True, "high_stakes")
