"""The inbox page, `/inbox`: where a person settles the disputes that wait for them.

Signing in takes a resolver or admin token (an agent token is refused); the token is
kept in an HttpOnly, SameSite=Strict cookie scoped to the page's path, and checked
against the token file on every request (a revoked token is out at once). Forms
carry a token derived from it (`csrf`). A claim that is plainly wrong can be retracted
from its card: a link to a confirm page (`/inbox/claims/{id}/retract`: the claim, an
optional note, a button), whose form does it. Everything works without JavaScript
(plain forms, redirects); the page's small script only keeps the list live from
the event stream (`/inbox/stream`). No route here is part of the API schema.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, quote

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from vault_ray.errors import Forbidden, InvalidInput, NotFound, UnknownAgent, VaultError
from vault_ray.events import DISPUTE_KINDS, NOW, EventFilter
from vault_ray.models import MAX_NOTE, Claim, Status
from vault_ray.problems import status_of
from vault_ray.tokens import RESERVED_WHY, Principal

from .. import inbox, sse
from ..auth import Svc
from ..service import Service

router = APIRouter(prefix="/inbox", include_in_schema=False)
ROLE = "resolver"
STATIC_TYPES = {"inbox.js": "text/javascript", "inbox.css": "text/css"}


def _base(request: Request) -> str:
    return f"{request.scope.get('root_path', '').rstrip('/')}/inbox"


def _page(body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(body, status_code=status, headers=inbox.SECURITY_HEADERS)


def _token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    return request.cookies.get(inbox.COOKIE) or (header[7:] if header.lower().startswith("bearer ") else None)


def _who(svc: Service, request: Request) -> Principal:
    return _check(svc, _token(request))


async def _retracted_notice(svc: Service, claim_id: str) -> str | None:
    try:
        c = await svc.run(svc.vault.claim, claim_id)
    except VaultError:
        return None
    if c.status != Status.RETRACTED:  # an address typed by hand: no notice of what did not happen
        return None
    return f"Retracted claim {c.id}: {c.entity} = {c.value if c.value is not None else c.text} ({c.agent})."


async def _resolved_notice(svc: Service, dispute_id: str) -> str | None:
    """What the person decided, read back from the store: `Resolved dsp-… on user.budget: $5000 (planner)
    is the value. Decided by dana.` None for a dispute no person resolved (an address typed by hand)."""
    try:
        d = await svc.run(svc.vault.dispute, dispute_id)
        r = d.resolution
        if d.status != "resolved" or r is None:
            return None
        won = None if r.keep_both or r.winner is None else await svc.run(svc.vault.claim, r.winner)
    except VaultError:
        return None
    what = "every value kept" if won is None else f"{won.value if won.value is not None else won.text} ({won.agent}) is the value"
    return f"Resolved {d.id} on {d.entity}: {what}. Decided by {r.decided_by}."


def _check(svc: Service, token: str | None) -> Principal:
    """The token's principal; UnknownAgent without a valid token, Forbidden for an agent's."""
    who = svc.tokens.authenticate(token)
    if not who.allows(ROLE):
        raise Forbidden(who.name, who.role, ROLE)
    return who


UNKNOWN_TOKEN = "This token is not recognised, or it was revoked."


def _refused(request: Request, exc: VaultError) -> HTMLResponse:
    if isinstance(exc, Forbidden):
        status, error = 403, f"This token cannot open the inbox: {exc}"
    elif RESERVED_WHY in str(exc):  # a name the store's own rules use: say so, it is no typo
        status, error = 401, f"This token cannot open the inbox: {exc}"
    else:  # wrong, empty or revoked: say so rather than show the bare form again
        status, error = 401, UNKNOWN_TOKEN
    return _sign_in_page(request, error, status)


SIGN_IN_COMMAND = "vault-ray token add NAME --role resolver --tokens FILE"
"""What the sign-in page tells: the command, not this machine's path to the token file. Anyone who
reaches the service sees the page; the owner has the whole command from `vault-ray serve`'s start-up."""


def _sign_in_page(request: Request, error: str | None, status: int = 200) -> HTMLResponse:
    """The sign-in form, with the command that makes a resolver token (FILE: the token file)."""
    return _page(inbox.render("sign_in.html", base=_base(request), error=error, command=SIGN_IN_COMMAND), status)


async def _form(request: Request) -> dict[str, str]:
    fields = parse_qs((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)
    return {k: v[0] for k, v in fields.items()}


@router.get("", response_class=HTMLResponse)
async def page(request: Request, svc: Svc, done: str | None = None, retracted: str | None = None) -> Response:
    if _token(request) is None:
        return _sign_in_page(request, None)
    try:
        who = _who(svc, request)
    except (UnknownAgent, Forbidden) as exc:
        return _refused(request, exc)
    found, total = await svc.run(inbox.cards, svc.vault)
    notice = await _resolved_notice(svc, done) if done else await _retracted_notice(svc, retracted) if retracted else None
    return _page(inbox.render("inbox.html", base=_base(request), who=who, cards=found, total=total, notice=notice,
                              error=None, csrf=inbox.csrf_token(_token(request) or "")))


@router.get("/list", response_class=HTMLResponse)
async def listing(request: Request, svc: Svc) -> Response:
    """The list alone, for the page's script to merge in when events arrive."""
    try:
        _who(svc, request)
    except (UnknownAgent, Forbidden) as exc:
        return _refused(request, exc)
    found, total = await svc.run(inbox.cards, svc.vault)
    return _page(inbox.render("list.html", base=_base(request), cards=found, total=total,
                              csrf=inbox.csrf_token(_token(request) or "")))


@router.post("/sign-in")
async def sign_in(request: Request, svc: Svc) -> Response:
    token = (await _form(request)).get("token", "").strip()
    try:
        _check(svc, token)
    except (UnknownAgent, Forbidden) as exc:
        return _refused(request, exc)
    answer = RedirectResponse(_base(request), status_code=303)
    answer.set_cookie(inbox.COOKIE, token, path=_base(request), httponly=True, samesite="strict",
                      secure=request.url.scheme == "https")
    return answer


@router.post("/sign-out")
async def sign_out(request: Request) -> Response:
    answer = RedirectResponse(_base(request), status_code=303)
    answer.delete_cookie(inbox.COOKIE, path=_base(request))
    return answer


@router.post("/disputes/{dispute_id}/resolve")
async def resolve(dispute_id: str, request: Request, svc: Svc) -> Response:
    """A person's decision: `choice` is `claim:<id>` (that value wins) or `keep_both`."""
    try:
        who = _who(svc, request)
    except (UnknownAgent, Forbidden) as exc:
        return _refused(request, exc)
    form = await _form(request)
    token = _token(request) or ""
    try:
        if form.get("csrf") != inbox.csrf_token(token):
            raise InvalidInput("the form is stale or not from this page: reload the inbox and try again")
        choice, note = form.get("choice", ""), form.get("note", "")
        if len(note) > MAX_NOTE:  # the API's limit; refused with a message, never cut
            raise InvalidInput(f"the note is {len(note)} characters long; the limit is {MAX_NOTE}: "
                               "shorten it and resolve again")
        keep_both = choice == "keep_both"
        winner = choice.removeprefix("claim:") if choice.startswith("claim:") else None
        if not keep_both and not winner:
            raise InvalidInput("pick the value that is right (or keep both)")
        await svc.run(svc.vault.resolve_dispute, dispute_id, winner, decided_by=who.name, note=note, keep_both=keep_both)
    except VaultError as exc:  # the page again, the error on top and the card as the person filled it in
        found, total = await svc.run(inbox.cards, svc.vault)
        kept = {"dispute": dispute_id, "choice": form.get("choice", ""), "note": form.get("note", "")}
        return _page(inbox.render("inbox.html", base=_base(request), who=who, cards=found, total=total, notice=None,
                                  error=str(exc), kept=kept, csrf=inbox.csrf_token(token)), status_of(exc))
    return RedirectResponse(f"{_base(request)}?done={dispute_id}", status_code=303)


@router.get("/claims/{claim_id}/retract", response_class=HTMLResponse)
async def confirm_retract(claim_id: str, request: Request, svc: Svc) -> Response:
    """The confirm page: the claim as it stands, a note, the button. Changes nothing."""
    try:
        who = _who(svc, request)
    except (UnknownAgent, Forbidden) as exc:
        return _refused(request, exc)
    try:
        claim = await svc.run(svc.vault.claim, claim_id)
    except VaultError as exc:
        return _retract_page(request, who, None, "", str(exc), status_of(exc))
    return _retract_page(request, who, claim, "", None)


@router.post("/claims/{claim_id}/retract")
async def retract(claim_id: str, request: Request, svc: Svc) -> Response:
    """A person takes the claim back (`Vault.retract`, `decided_by` the signed-in principal). Again:
    it is retracted already, and the page says so (nothing changes)."""
    try:
        who = _who(svc, request)
    except (UnknownAgent, Forbidden) as exc:
        return _refused(request, exc)
    form = await _form(request)
    note = form.get("note", "")
    try:
        if form.get("csrf") != inbox.csrf_token(_token(request) or ""):
            raise InvalidInput("the form is stale or not from this page: reload it and try again")
        if len(note) > MAX_NOTE:  # the API's limit; refused with a message, never cut
            raise InvalidInput(f"the note is {len(note)} characters long; the limit is {MAX_NOTE}: "
                               "shorten it and retract again")
        done = await svc.run(svc.vault.retract, claim_id, decided_by=who.name, note=note)
    except VaultError as exc:  # the confirm page again, the error on top and the note as typed
        try:
            claim = None if isinstance(exc, NotFound) else await svc.run(svc.vault.claim, claim_id)
        except VaultError:
            claim = None
        return _retract_page(request, who, claim, note, str(exc), status_of(exc))
    if done.already:  # a second click, or someone else first: the page says it is retracted already
        return _retract_page(request, who, done.claim, "", None)
    return RedirectResponse(f"{_base(request)}?retracted={quote(claim_id, safe='')}", status_code=303)


def _retract_page(request: Request, who: Principal, claim: Claim | None, note: str, error: str | None,
                  status: int = 200) -> HTMLResponse:
    return _page(inbox.render("retract.html", base=_base(request), who=who, claim=claim, note=note, error=error,
                              csrf=inbox.csrf_token(_token(request) or "")), status)


@router.get("/stream")
async def stream(request: Request, svc: Svc) -> Response:
    """Dispute events for the page's script (an EventSource sends the cookie)."""
    try:
        who = _who(svc, request)
    except (UnknownAgent, Forbidden) as exc:
        return _refused(request, exc)
    wanted = EventFilter.of(DISPUTE_KINDS)
    try:
        page = await sse.first_page(svc, request.headers.get("last-event-id") or NOW, wanted, 100)
    except InvalidInput:  # the store was replaced under the page: start from now
        page = await sse.first_page(svc, NOW, wanted, 100)
    return sse.stream_response(svc, request, page, wanted, 100, lambda: svc.tokens.recheck(who), _signed_out)


def _signed_out(why: str) -> str:
    """The inbox stream's last message once its token is revoked: the page's script reloads (and shows sign-in)."""
    return f"event: signed_out\ndata: {json.dumps({'detail': why})}\n\n"


@router.get("/static/{name}")
async def static(name: str) -> Any:
    if name not in STATIC_TYPES:
        return Response(status_code=404)
    return FileResponse(inbox.STATIC / name, media_type=STATIC_TYPES[name], headers=inbox.SECURITY_HEADERS)
