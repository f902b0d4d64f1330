"""`VaultClient`: the HTTP service's Python client (httpx), for one agent's token.

It mirrors the agent and read API of `Vault` / `AgentMemory` (`add`, `add_facts`, `search`,
`get`, `history`, `claim`, `explain`, `disputes`, `dispute`, `events`, `follow`), settling
disputes, retracting claims and the admin calls (policy, registry, rules), returns the same model types and
raises the same `VaultError` subclasses, rebuilt from the server's problem details
(`vault_ray.problems`). Who writes is the token's principal: no call names an agent.

Retries are safe: `add_facts` gives every fact a claim id and `add` an idempotency key *before*
the first attempt, so a request retried after a timeout or a 503 gets the original decisions back.

`AsyncVaultClient` has the very same methods, awaited: each operation is written once
(`_Operations` builds the request and how to read the answer); only `_send` differs.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

import httpx

from .engine.explain import Explanation
from .errors import ClusterError, InvalidInput, InvalidPolicy
from .events import DEFAULT_LIMIT, MAX_LIMIT, NOW, EventPage, SseParser, VaultEvent, sse_messages
from .fact_checks import check_fact
from .http_calls import SUGGESTIONS, Call, check_settings, count, suggested, unrouted
from .http_calls import base_url as _base_url
from .http_calls import read_as as _as
from .http_calls import read_policy_noting as _noting_removed
from .http_calls import segment as _seg
from .http_calls import wire_time as _time
from .models import AddResult, Claim, Dispute, EntityView, Fact, Found, Hit, Retraction, new_id, validate_entity
from .policy import AutoResolveRules, Policy, validate_pattern
from .policy_file import high_stakes_list
from .problems import RETRYABLE, from_problem
from .reasoners.base import Message, as_messages
from .registry import RegistryEntry
from .wire import decode, encode

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_RETRIES = 2
RESTART_WAIT_S = 120.0  # how long `follow` waits out a service with no app (a restart), then raises


class _Operations:
    """Every operation of the API, written once; `_send` runs the call (sync or async)."""

    def _send(self, call: Call) -> Any:
        raise NotImplementedError

    # -- writes (the token's agent) ----------------------------------------------------------
    def add(self, messages: Sequence[Message] | str, *, session: str | None = None,
            observed_at: datetime | float | None = None, key: str | None = None) -> AddResult:
        """Extract facts from the latest user turn and write them. `key` (generated when
        not given) makes the request idempotent: a retry gets the same claim ids."""
        body: dict[str, Any] = {"text": messages} if isinstance(messages, str) else {"messages": as_messages(messages)}
        body.update(session=session, observed_at=_time(observed_at, "observed_at"))
        if key is not None and (not isinstance(key, str) or not key or len(key) > 128 or not key.isascii()
                                or not key.isprintable()):
            raise InvalidInput(f"key must be 1-128 printable ASCII characters (it travels as a header), got {key!r}")
        return self._send(Call("POST", "/v1/messages", _as(AddResult), body=body,
                               headers={"Idempotency-Key": key or new_id()}))

    def add_facts(self, facts: Sequence[Fact] | Fact, *, session: str | None = None, resolve: bool = True) -> AddResult:
        """Write facts directly (no extraction). Facts without a claim id get one here."""
        facts = [facts] if isinstance(facts, Fact) else list(facts)
        for i, f in enumerate(facts):  # as Vault.add_facts checks them (the server holds the policy's length limits)
            check_fact(f, i, max_text=1 << 62)
        sent = [encode(replace(f, claim_id=f.claim_id or new_id(), observed_at=_time(f.observed_at, "observed_at")))
                for f in facts]
        return self._send(Call("POST", "/v1/facts", _as(AddResult),
                               body={"facts": sent, "session": session, "resolve": resolve}))

    # -- reads ------------------------------------------------------------------------------------
    def search(self, query: str, *, k: int = 5, agent: str | None = None, entity: str | None = None,
               as_of: datetime | float | None = None, mine: bool = False) -> Found[Hit]:
        """Semantic search over active claims (`mine=True`: only this token's agent's); `suggestions` as `Vault.search`."""
        params = {"q": query, "k": count(k, "k"), "agent": agent, "entity": entity, "as_of": _time(as_of, "as_of"),
                  "mine": "true" if mine else None}
        return self._send(Call("GET", "/v1/search", _as(list[Hit]), params=params, found=True))

    def get(self, entity: str, *, as_of: datetime | float | None = None) -> EntityView:
        path = f"/v1/entities/{_seg(validate_entity(entity))}"
        return self._send(Call("GET", path, _as(EntityView), params={"as_of": _time(as_of, "as_of")}))

    def history(self, entity: str) -> Found[Claim]:
        path = f"/v1/entities/{_seg(validate_entity(entity))}/history"
        return self._send(Call("GET", path, _as(list[Claim]), found=True))

    def claim(self, claim_id: str) -> Claim:
        return self._send(Call("GET", f"/v1/claims/{_seg(claim_id)}", _as(Claim)))

    def explain(self, claim_id: str) -> Explanation:
        return self._send(Call("GET", f"/v1/claims/{_seg(claim_id)}/explain", _as(Explanation)))

    def disputes(self, status: str | None = "open") -> list[Dispute]:
        """Disputes by status: "open", "resolved", or None (or "all") for all."""
        if status not in (None, "all", "open", "resolved"):  # as Vault.disputes ("all" is the wire's word for None)
            raise InvalidInput(f"status must be 'open', 'resolved', 'all' or None, got {status!r}")
        return self._send(Call("GET", "/v1/disputes", _as(list[Dispute]), params={"status": status or "all"}))

    def dispute(self, dispute_id: str) -> Dispute:
        return self._send(Call("GET", f"/v1/disputes/{_seg(dispute_id)}", _as(Dispute)))

    def whoami(self) -> dict[str, str]:
        """This token's principal and role."""
        return self._send(Call("GET", "/v1/whoami", dict))

    def policy(self) -> Policy:
        return self._send(Call("GET", "/v1/policy", _as(Policy)))

    def registry(self) -> list[RegistryEntry]:
        return self._send(Call("GET", "/v1/registry", _as(list[RegistryEntry])))

    def events(self, since: str = NOW, *, kinds: Sequence[str] | None = None, needs_user: bool | None = None,
               entity: str | None = None, limit: int = DEFAULT_LIMIT) -> EventPage:
        """Events after `since` (a cursor, "start" or "now"), as `Vault.events(since=...)`;
        `page.cursor` resumes after the page. `follow` streams them instead."""
        params = _event_params(since, kinds, needs_user, entity, limit)
        return self._send(Call("GET", "/v1/events", _as(EventPage), params=params))

    # -- deciding ----------------------------------------------------------------------------------
    def resolve_dispute(self, dispute_id: str, winner: str | None = None, *, note: str = "",
                        keep_both: bool = False) -> Dispute:
        """Settle a dispute (a resolver or admin token); `decided_by` is this token's principal."""
        return self._send(Call("POST", f"/v1/disputes/{_seg(dispute_id)}/resolve", _as(Dispute),
                               body={"winner": winner, "note": note, "keep_both": keep_both}, idempotent=False))

    def retract(self, claim_id: str, *, note: str = "") -> Retraction:
        """Take a claim back (a resolver or admin token; `decided_by` is this token's principal): no read sees it
        after this, history and explain keep it. A retry finds it retracted already (`Retraction.already`)."""
        return self._send(Call("POST", f"/v1/claims/{_seg(claim_id)}/retract", _as(Retraction), body={"note": note}))

    def forget(self, entity: str, *, note: str = "") -> list[Retraction]:
        """Retract every live claim of `entity` at once (a resolver or admin token), as `Vault.forget`: one
        `Retraction` each, [] when it has none. Sent again only if the connection was never made: a retry
        after a lost answer would answer [] (and take back a claim written in between)."""
        return self._send(Call("POST", f"/v1/entities/{_seg(validate_entity(entity))}/forget", _as(list[Retraction]),
                               body={"note": note}, idempotent=False))

    def erase(self, entity: str, *, note: str = "") -> list[Retraction]:
        """Erase every claim of `entity` (an admin token), as `Vault.erase`: retracted, content removed
        from the store. One `Retraction` each, [] when it has none; sent again only if the connection
        was never made (a retry would erase a claim written in between too)."""
        return self._send(Call("POST", f"/v1/entities/{_seg(validate_entity(entity))}/erase", _as(list[Retraction]),
                               body={"note": note}, idempotent=False))

    def set_policy(self, policy: Policy, *, if_version: int | None = None) -> Policy:  # as Vault.set_policy
        if not isinstance(policy, Policy):  # a dict would replace every field it leaves out with its default
            raise InvalidInput(f"expected a Policy, got {type(policy).__name__}")
        body = {**encode(policy), "version": if_version}
        return self._send(Call("PUT", "/v1/policy", _as(Policy), body=body))

    def patch_policy(self, patch: Mapping[str, Any], *, version: int | None = None) -> Policy:
        """Change the fields `patch` names and keep the rest (`Vault.patch_policy`); with
        `version`, only while the policy is at it (else PolicyConflict). The new policy."""
        if not isinstance(patch, Mapping) or "version" in patch:  # as Vault.patch_policy: version is no field
            raise InvalidPolicy(f"a policy patch is a mapping of field: value without 'version' (pass version=N), got {patch!r}")
        body = {**encode(dict(patch)), **({} if version is None else {"version": version})}
        return self._send(Call("PATCH", "/v1/policy", _noting_removed(patch), body=body))

    def set_authority(self, agent: str, pattern: str, weight: float) -> Policy:
        body = {"agent": agent, "pattern": pattern, "weight": weight}
        return self._send(Call("POST", "/v1/policy/authority", _as(Policy), body=body))

    def set_strategy(self, pattern: str, strategy: str) -> Policy:
        body = {"pattern": pattern, "strategy": strategy}
        return self._send(Call("POST", "/v1/policy/strategy", _as(Policy), body=body))

    def set_cardinality(self, pattern: str, cardinality: str) -> Policy:
        body = {"pattern": pattern, "cardinality": cardinality}
        return self._send(Call("POST", "/v1/policy/cardinality", _as(Policy), body=body))

    def set_high_stakes(self, patterns: Sequence[str]) -> Policy:  # as Vault.set_high_stakes: replaced whole
        body = {"patterns": list(high_stakes_list(patterns))}  # "user" is no list of u, s, e, r
        return self._send(Call("PUT", "/v1/policy/high-stakes", _noting_removed({"high_stakes": []}), body=body))

    def add_high_stakes(self, pattern: str) -> Policy:  # as Vault.add_high_stakes: the others kept
        return self._send(Call("POST", "/v1/policy/high-stakes", _as(Policy), body={"pattern": validate_pattern(pattern)}))

    def remove_high_stakes(self, pattern: str) -> Policy:  # as Vault.remove_high_stakes
        path = f"/v1/policy/high-stakes/{_seg(validate_pattern(pattern))}"  # refused as Vault refuses it: InvalidPolicy
        return self._send(Call("DELETE", path, _as(Policy), idempotent=False))

    def set_rules(self, rules: AutoResolveRules) -> Policy:
        if not isinstance(rules, AutoResolveRules):  # None would travel as no body at all
            raise InvalidPolicy(f"set_rules takes an AutoResolveRules, got {rules!r}", value=rules, field="rules")
        return self._send(Call("PUT", "/v1/policy/rules", _as(Policy), body=encode(rules)))

    def register(self, entry: RegistryEntry) -> RegistryEntry:
        if not isinstance(entry, RegistryEntry):  # as Vault.register
            raise InvalidInput(f"register takes a RegistryEntry, got {type(entry).__name__}")
        body = {k: v for k, v in encode(entry).items() if k != "key"}
        return self._send(Call("PUT", f"/v1/registry/{_seg(entry.key)}", _as(RegistryEntry), body=body))

    # -- admin ------------------------------------------------------------------------------------
    def apply_rules(self) -> list[Dispute]:
        """Run the time-based auto-resolve rule now (admin token)."""
        return self._send(Call("POST", "/v1/rules/apply", _as(list[Dispute]), idempotent=False))


def _event_params(since: str, kinds: Sequence[str] | None, needs_user: bool | None, entity: str | None,
                  limit: int) -> dict[str, Any]:
    return {"since": since, "kinds": ",".join(kinds) if kinds else None,
            "needs_user": None if needs_user is None else str(needs_user).lower(), "entity": entity,
            "limit": count(limit, "limit", MAX_LIMIT)}


def _unless_restarting(transport: _Transport, answer: httpx.Response, reconnect: bool, gap: list[float]) -> None:
    """`follow`'s refused stream: the error, unless the service is between two lives (a cluster not ready, a proxy
    with no app), the caller asked to reconnect and the gap (since `gap[0]`) is under RESTART_WAIT_S."""
    try:
        transport._read(Call("GET", "/v1/events", dict), answer)
    except ClusterError:
        gap[:] = gap or [time.monotonic()]
        if not reconnect or time.monotonic() - gap[0] > RESTART_WAIT_S:
            raise


def _stream_request(http: httpx.Client | httpx.AsyncClient, cursor: str, kinds: Sequence[str] | None,
                    needs_user: bool | None, entity: str | None) -> dict[str, Any]:
    """The arguments of `stream(...)` that (re)opens the event stream after `cursor`."""
    params = {k: v for k, v in _event_params(NOW, kinds, needs_user, entity, DEFAULT_LIMIT).items()
              if k != "since" and v is not None}
    return {"method": "GET", "url": "/v1/events", "params": params,
            "timeout": httpx.Timeout(http.timeout.connect, read=None),
            "headers": {"Accept": "text/event-stream", "Last-Event-ID": cursor}}


class _Transport:
    """What both clients share: the httpx settings, the retry rule and reading an answer."""

    def _setup(self, url: str, token: str, timeout: float, retries: int, headers: dict[str, str] | None) -> dict[str, Any]:
        check_settings(token, timeout, retries)
        self.url, self.retries = _base_url(url), retries
        return {"base_url": self.url, "timeout": timeout, "headers": {"Authorization": f"Bearer {token}", **(headers or {})}}

    def _request(self, call: Call) -> dict[str, Any]:
        params = {k: v for k, v in (call.params or {}).items() if v is not None}
        headers, content = dict(call.headers or {}), None
        try:  # as httpx's `json=`, with a clear error for what JSON cannot carry
            content = None if call.body is None else json.dumps(call.body, ensure_ascii=False, allow_nan=False).encode()
        except (ValueError, TypeError) as exc:
            raise InvalidInput(f"the request cannot travel as JSON (NaN, infinity, a lone surrogate?): {exc}") from None
        headers.update({"Content-Type": "application/json"} if content is not None else {})
        return {"method": call.method, "url": call.path, "params": params or None, "content": content, "headers": headers or None}

    def _retry_after(self, call: Call, attempt: int, outcome: httpx.Response | Exception) -> float | None:
        """Seconds to wait before sending again, or None to stop here."""
        if attempt >= self.retries:
            return None
        if isinstance(outcome, httpx.Response):
            if outcome.status_code not in RETRYABLE or not call.idempotent:
                return None
            hint = outcome.headers.get("Retry-After", "")
            if hint.isdigit():
                return min(float(hint), 10.0)
        elif not (call.idempotent or isinstance(outcome, httpx.ConnectError)):
            return None  # the request may have been applied: only a retry-safe call goes again
        return min(0.2 * 2**attempt, 2.0)

    def _read(self, call: Call, outcome: httpx.Response | Exception) -> Any:
        if isinstance(outcome, Exception):
            raise ClusterError(f"no answer from vault-ray at {self.url}: {type(outcome).__name__}: {outcome}") from outcome
        if outcome.is_success:
            answer = call.read(outcome.json())
            return Found(answer, suggested(outcome.headers.get(SUGGESTIONS))) if call.found else answer
        try:
            body = outcome.json()
        except ValueError:
            body = {"detail": f"HTTP {outcome.status_code}: {outcome.text[:300]}"}
            if outcome.status_code == 404:  # vault-ray answers JSON: this is a proxy with no app (a restart)
                body = {"detail": f"no vault-ray app answers at {self.url} (the proxy answered {body['detail']})"}
                raise from_problem(body, 503) from None
        raise from_problem(unrouted(body, outcome.status_code, self.url, call), outcome.status_code)


class VaultClient(_Operations, _Transport):
    """A blocking client. `VaultClient(url, token)`; a context manager."""

    def __init__(self, url: str, token: str, *, timeout: float = DEFAULT_TIMEOUT_S, retries: int = DEFAULT_RETRIES,
                 headers: dict[str, str] | None = None, transport: httpx.BaseTransport | None = None) -> None:
        self._http = httpx.Client(transport=transport, **self._setup(url, token, timeout, retries, headers))

    def _send(self, call: Call) -> Any:
        attempt = 0
        while True:
            outcome: httpx.Response | Exception
            try:
                outcome = self._http.request(**self._request(call))
            except httpx.TransportError as exc:
                outcome = exc
            wait = self._retry_after(call, attempt, outcome)
            if wait is None:
                return self._read(call, outcome)
            time.sleep(wait)
            attempt += 1

    def follow(self, since: str = NOW, *, kinds: Sequence[str] | None = None, needs_user: bool | None = None,
               entity: str | None = None, reconnect: bool = True) -> Iterator[VaultEvent]:
        """Stream events after `since` as they happen (Server-Sent Events). A dropped
        connection is reopened where it stood (`Last-Event-ID`): no event is missed or
        repeated. Stop by leaving the loop."""
        cursor, gap = since, []
        while True:
            try:
                with self._http.stream(**_stream_request(self._http, cursor, kinds, needs_user, entity)) as answer:
                    if not answer.is_success:
                        answer.read()
                        _unless_restarting(self, answer, reconnect, gap)
                        time.sleep(0.5)
                        continue
                    gap.clear()
                    for event_id, data in sse_messages(answer.iter_lines()):
                        cursor = event_id or cursor
                        if data:
                            yield decode(VaultEvent, json.loads(data))
            except httpx.TransportError:
                if not reconnect:
                    raise
            if not reconnect:
                return
            time.sleep(0.5)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> VaultClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncVaultClient(_Operations, _Transport):
    """The same methods as `VaultClient`, to be awaited. `async with AsyncVaultClient(url, token)`."""

    def __init__(self, url: str, token: str, *, timeout: float = DEFAULT_TIMEOUT_S, retries: int = DEFAULT_RETRIES,
                 headers: dict[str, str] | None = None, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self._http = httpx.AsyncClient(transport=transport, **self._setup(url, token, timeout, retries, headers))

    async def _send(self, call: Call) -> Any:  # type: ignore[override]
        attempt = 0
        while True:
            outcome: httpx.Response | Exception
            try:
                outcome = await self._http.request(**self._request(call))
            except httpx.TransportError as exc:
                outcome = exc
            wait = self._retry_after(call, attempt, outcome)
            if wait is None:
                return self._read(call, outcome)
            await asyncio.sleep(wait)
            attempt += 1

    async def follow(self, since: str = NOW, *, kinds: Sequence[str] | None = None, needs_user: bool | None = None,
                     entity: str | None = None, reconnect: bool = True) -> AsyncIterator[VaultEvent]:
        """`VaultClient.follow`, as an async iterator: `async for event in client.follow(...)`."""
        cursor, gap = since, []
        while True:
            try:
                async with self._http.stream(**_stream_request(self._http, cursor, kinds, needs_user, entity)) as answer:
                    if not answer.is_success:
                        await answer.aread()
                        _unless_restarting(self, answer, reconnect, gap)
                        await asyncio.sleep(0.5)
                        continue
                    parser, gap[:] = SseParser(), []
                    async for line in answer.aiter_lines():
                        message = parser.feed(line)
                        if message is None:
                            continue
                        cursor = message[0] or cursor
                        if message[1]:
                            yield decode(VaultEvent, json.loads(message[1]))
            except httpx.TransportError:
                if not reconnect:
                    raise
            if not reconnect:
                return
            await asyncio.sleep(0.5)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncVaultClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

