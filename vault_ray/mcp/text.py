"""What the model reads: the store's answers as plain text for an LLM.

Every read that touches an open dispute says so in capitals, with each competing
value, who said it, its authority weight and when, so that a model cannot pass
one value off as settled. Ids are written out in full: the model passes them back
to `explain` and `resolve_dispute`. An empty answer says it is empty.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..errors import did_you_mean
from ..models import AddResult, Candidate, Claim, Decision, Dispute, EntityView, Hit, Kind, Outcome, Retraction
from ..reasoners.rules import agrees
from ..values import canonical

SETTLE = ("Do not present either value as settled: tell the user both values (and who said them) or ask which is "
          "right.")


@dataclass(frozen=True)
class Recall:
    """A recall's answer: the hits, and the view of each contested entity among them."""

    query: str
    hits: tuple[Hit, ...]
    contested: tuple[EntityView, ...] = ()


@dataclass(frozen=True)
class OpenDispute:
    """A dispute, and every value competing in it with its provenance."""

    dispute: Dispute
    candidates: tuple[Candidate, ...]


def count(n: int, noun: str, plural: str | None = None) -> str:
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def when(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC")


LINE_BREAKS = str.maketrans({"\r": "\\r", "\n": "\\n", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def one_line(text: str) -> str:
    """`text` with its line breaks written as escapes (`\\n`): agents write values and the user's
    turns, and a value that broke the answer's lines could pass as a line of the store's own
    (`- stored: ...`, `CONTESTED: ...`) in what another agent's model reads."""
    return text.translate(LINE_BREAKS)


def value_of(claim: Claim) -> str:
    return one_line(claim.value if claim.value is not None else claim.text)


def said(claim: Claim, *, status: bool = False) -> str:
    """`PST — "The user is in PST" (agent-a, 2026-01-01 10:00 UTC, claim 3f…)`"""
    extra = f", {claim.status}" if status else ""
    return f'{value_of(claim)} — "{one_line(claim.text)}" ({claim.agent}, {when(claim.observed_at)}{extra}, claim {claim.id})'


# -- writes -------------------------------------------------------------------------------
def decision_line(d: Decision, claim: Claim | None, waiting: Collection[str] = ()) -> str:
    """`waiting`: the ids of the disputes that wait for a person (`needs_user`)."""
    what = f"{d.entity} = {value_of(claim)}" if claim is not None else d.entity
    if d.aligned_from:
        what += f" (filed under {d.entity}, the existing key for {d.aligned_from})"
    if d.outcome == Outcome.DISPUTED:
        until = ("THE USER decides it (no agent's value wins it by itself)" if d.dispute_id in waiting else
                 "someone settles it")
        head = (f"- DISPUTED: {what}. It contradicts another agent's claim; dispute {d.dispute_id} is open, and reads "
                f"show both values until {until}")
    elif d.outcome == Outcome.NOOP:
        head = f"- already known: {what} (nothing changed)"
    elif d.outcome == Outcome.SUPERSEDED:
        head = f"- stored but not current: {what}. A newer claim on {d.entity} wins"
    else:
        head = f"- stored: {what}" + (f", replacing {len(d.superseded)} older claim(s)" if d.superseded else "")
    reason = f"; why: {one_line(d.reason)}" if d.reason else ""
    return f"{head}{reason}. claim {d.claim_id}"


def add_result_text(result: AddResult, claims: dict[str, Claim], waiting: Collection[str] = ()) -> str:
    """`waiting`: the ids of the disputes that wait for a person (`needs_user`)."""
    agents = sorted({c.agent for c in claims.values()})
    who = f" as {agents[0]}" if len(agents) == 1 else ""
    if result.decisions:
        lines = [f"Wrote {count(len(result.decisions), 'fact')}{who}:"]
        lines += [decision_line(d, claims.get(d.claim_id), waiting) for d in result.decisions]
    else:
        lines = ["Nothing was stored: no fact about the user could be read from this text."]
    if result.unextracted:
        lines.append("Not stored (they read as statements about the user, but no fact was extracted; use "
                     "remember_fact with an explicit entity to keep one, but not a guess or someone else's fact: "
                     "ask the user first):")
        lines += [f'- "{one_line(u.text)}": {one_line(u.reason)}' + (f" (kept as note {u.note_id})" if u.note_id else "")
                  for u in result.unextracted]
    disputed = sum(d.outcome == Outcome.DISPUTED for d in result.decisions)
    asks = sorted({d.dispute_id for d in result.decisions if d.outcome == Outcome.DISPUTED and d.dispute_id in waiting})
    if disputed:
        lines.append(f"{disputed} write(s) opened or joined a dispute: agents disagree. {SETTLE}")
    if asks:
        lines.append(f"NEEDS THE USER: dispute {', '.join(asks)} waits for a person. Ask the user which value is "
                     "right; only a person settles it (the inbox page, or resolve_dispute on the user's word).")
    return "\n".join(lines)


# -- reads --------------------------------------------------------------------------------
def _key(view: EntityView, claim: Claim) -> str:
    return canonical(view.entity, claim.value or claim.text)


def _members(view: EntityView, d: Dispute, ids: dict[str, Claim]) -> list[Claim]:
    """`d`'s claims: its incumbents, challenger and supporters, then the candidates the view
    names with its id beside them (a value of one of its sides in other words, `views.py`)."""
    named = [ids[i] for i in (*d.incumbents, d.challenger, *d.supporters) if i in ids]
    return named + [c.claim for c in view.candidates if c.dispute_id == d.id and c.claim.id not in {m.id for m in named}]


def contest_groups(view: EntityView) -> list[set[str]]:
    """The values each contest of `view` is about, as keys: one set per dispute, disputes that
    share a value joined (two challengers of one current value are one contest). On a `many`
    entity each disputed item is its own contest: wife:ann vs wife:bea is no side of
    child:carl vs child:dan (QA F7)."""
    ids = {c.claim.id: c.claim for c in view.candidates}
    groups: list[set[str]] = []
    for d in view.disputes:
        keys = {_key(view, c) for c in _members(view, d, ids)}
        for joined in [g for g in groups if g & keys]:
            keys |= joined
            groups.remove(joined)
        if keys:
            groups.append(keys)
    return groups or [{_key(view, c.claim) for c in view.candidates}]


def contest_line(view: EntityView, hit: Hit | None = None, keys: set[str] | None = None, *, settle: bool = True) -> str:
    """`CONTESTED: 2 agents disagree on user.timezone: PST (agent-a, weight 0.90, …) vs EST (agent-b, …)`

    Only the values a dispute is about are sides (on a `many` entity the other items are
    not: likes:blues is no side of likes:jazz vs dislikes:jazz); for a search `hit`, only
    its own value and its `alternatives` (the search decides, per item, what it competes with);
    with `keys` (one of `contest_groups`), only that contest's values. `settle`: end with what
    the model should do, and the values in no dispute."""
    ids = {c.claim.id: c.claim for c in view.candidates}
    side = _sides(view, ids, hit)
    if hit is not None:
        keys = {side(c) for c in (hit.claim, *hit.agreeing, *hit.alternatives)}
    elif keys is None:
        keys = set().union(*contest_groups(view))
    sided = [c for c in view.candidates if side(c.claim) in keys]
    agents = {c.claim.agent for c in sided}
    sides: dict[str, list[str]] = {}  # agents that agree share one side: "EST (agent-b, ...; agent-c, ...)"
    shown: dict[str, str] = {}
    for c in sided:
        key = side(c.claim)
        shown.setdefault(key, value_of(c.claim))
        sides.setdefault(key, []).append(
            f"{c.claim.agent}, weight {c.weight:.2f}, {when(c.claim.observed_at)}, claim {c.claim.id}")
    values = " vs ".join(f"{shown[key]} ({'; '.join(who)})" for key, who in sides.items())
    disputes = ", ".join(d.id for d in view.disputes if any(_key(view, m) in keys for m in _members(view, d, ids)))
    head = f"CONTESTED: {len(agents)} agents disagree on {view.entity} (dispute {disputes}): {values}."
    if not settle:
        return head
    rest = sorted({value_of(c.claim) for c in view.candidates if side(c.claim) not in keys})
    also = f" Not in dispute: {', '.join(rest)}." if rest and hit is None else ""
    return f"{head} {SETTLE}{also}"


def _sides(view: EntityView, ids: dict[str, Claim], hit: Hit | None) -> Callable[[Claim], str]:
    """The side a claim is on, as a key: its value's, save that a dispute's supporters are on its
    challenger's side and a search hit's agreeing claims on the hit's, whatever their words
    ("mom:Ann" backing "mother:Ann" is one side, not two)."""
    same = {s: _key(view, ids[d.challenger]) for d in view.disputes if d.challenger in ids for s in d.supporters}
    for d in view.disputes:  # a value in other words ("spouse:Ann" beside "wife:Ann") is on the side it says
        members = _members(view, d, ids)
        for at, c in enumerate(members):
            like = next((m for m in members[:at] if _alike(view, c, m)), None)
            if c.id not in same and like is not None:
                same[c.id] = same.get(like.id) or _key(view, like)
    if hit is not None:
        same.update({c.id: _key(view, hit.claim) for c in (hit.claim, *hit.agreeing)})
    return lambda c: same.get(c.id) or _key(view, c)


def _alike(view: EntityView, a: Claim, b: Claim) -> bool:
    """Whether two claims of a dispute's side say one value in other words (`rules.agrees`, read
    either way: the view does not say the entity's cardinality)."""
    ka, kb = _key(view, a), _key(view, b)
    return any(agrees(view.entity, ka, kb, card) for card in ("many", "one"))


def event_line(claim: Claim) -> str:
    """`- event: Paris — "The user flew to Paris" (agent-a, 2026-05-01 10:00 UTC, claim 3f…)`"""
    return f"- event: {said(claim)}"


def events_text(view: EntityView) -> list[str]:
    """The view's events, oldest first, apart from its values: what happened, and when."""
    if not view.events:
        return []
    head = f"{view.entity}: {count(len(view.events), 'event')} (what happened and when, oldest first; not a current value):"
    return [head] + [event_line(c) for c in view.events]


def recall_text(recall: Recall) -> str:
    if not recall.hits:
        return f'No memories match "{one_line(recall.query)}": the store holds nothing relevant (0 results).'
    views = {v.entity: v for v in recall.contested}
    contested = [h for h in recall.hits if h.contested]
    lines = [f'{count(len(recall.hits), "memory", "memories")} for "{one_line(recall.query)}" (best first):']
    if contested:
        verb = "is" if len(contested) == 1 else "are"
        lines.insert(0, f"WARNING: {len(contested)} of these memories {verb} CONTESTED: agents disagree on "
                        f"{', '.join(sorted({h.claim.entity for h in contested}))}.")
    for i, hit in enumerate(recall.hits, 1):
        what = "event: " if hit.claim.kind == Kind.EPISODIC else "= "  # an event happened; it is no current value
        lines.append(f"{i}. {hit.claim.entity} {what}{said(hit.claim)}, score {hit.score:.3f}")
        if hit.agreeing:
            lines.append("   also said by " + ", ".join(sorted({c.agent for c in hit.agreeing})))
        if hit.contested:
            view = views.get(hit.claim.entity)
            lines.append("   " + (contest_line(view, hit) if view is not None and view.contested else
                                  "CONTESTED: other agents claim " + "; ".join(said(a) for a in hit.alternatives)))
    return "\n".join(lines)


def view_text(view: EntityView) -> str:
    """The current value(s) of `view`'s facts (every contest, one line each, while disputes are
    open), then its events apart, each labelled with its time."""
    if view.contested:
        groups = contest_groups(view)
        if len(groups) == 1:
            lines = [f"{view.entity}: {contest_line(view)}"]
        else:
            lines = [f"{view.entity}: CONTESTED: agents disagree on {len(groups)} separate items, one line each "
                     f"({count(len(view.disputes), 'open dispute')}). {SETTLE}"]
            lines += [contest_line(view, keys=g, settle=False) for g in groups]
            rest = sorted({value_of(c.claim) for c in view.candidates if _key(view, c.claim) not in set().union(*groups)})
            lines += [f"Not in dispute: {', '.join(rest)}."] if rest else []
        lines += [f"- {said(c.claim, status=True)}, weight {c.weight:.2f}" for c in view.candidates]
        return "\n".join(lines + events_text(view))
    facts = [c for c in view.active if c.kind != Kind.EPISODIC]
    if not facts:
        lines = [f"{view.entity}: no current value (only events, below)." if view.events else
                 f"{view.entity}: no current value: no claim was ever made on this key; {view.did_you_mean}"
                 if view.suggestions else
                 f"{view.entity}: no current value (nothing stored, or every claim was superseded or retracted; see "
                 "history)."]
    elif len(facts) == 1:
        lines = [f"{view.entity} = {said(facts[0])}"]
    else:
        agree = len({value_of(c) for c in facts}) == 1
        head = f"{view.entity}: {len(facts)} active claims" + (" that agree" if agree else "")
        lines = [head + ":"] + [f"- {said(c)}" for c in facts]
    return "\n".join(lines + events_text(view))


def history_text(entity: str, claims: Sequence[Claim], suggestions: Sequence[str] = ()) -> str:
    """`suggestions`: when no claim was ever made on `entity`, the stored keys like it ("did you mean")."""
    if not claims:
        hint = f"; {did_you_mean(tuple(suggestions))}" if suggestions else "."
        return f"{entity}: no claim has ever been made on this entity{hint}"
    lines = [f"{entity}: {len(claims)} claim(s) ever made, oldest first:"]
    for c in claims:
        line = f"- {'event: ' if c.kind == Kind.EPISODIC else ''}{said(c, status=True)}"
        if c.superseded_by:
            line += f", superseded by {c.superseded_by}"
        lines.append(line)
    return "\n".join(lines)


def dispute_text(case: OpenDispute, number: int | None = None) -> str:
    d = case.dispute
    head = f"{number}. " if number is not None else ""
    head += f"{d.entity}: dispute {d.id} ({d.status} since {when(d.opened_at)}, {d.challenges} challenge(s)"
    head += ", the user must decide)" if d.needs_user else ")"
    lines = [head, f"   {d.challenger_agent or 'an agent'} challenges the current value: {one_line(d.reason)}"]
    roles = {d.challenger: "challenger", **{i: "incumbent" for i in d.incumbents},
             **{s: "supporter" for s in d.supporters}}
    for c in case.candidates:
        lines.append(f"   - {said(c.claim)}, weight {c.weight:.2f}, {roles.get(c.claim.id, 'competing')}")
    if not case.candidates:
        lines.append(f"   - challenger claim {d.challenger} vs {', '.join(d.incumbents)}")
    if d.resolution is not None:
        r = d.resolution
        won = "kept both" if r.keep_both else f"winner {r.winner}"
        lines.append(f"   resolved by {r.decided_by} on {when(r.at)}: {won}" + (f" ({one_line(r.note)})" if r.note else ""))
    return "\n".join(lines)


def disputes_text(cases: Sequence[OpenDispute]) -> str:
    if not cases:
        return "No open disputes: no agents disagree about anything in memory right now."
    lines = [f"{len(cases)} open dispute(s): agents disagree. {SETTLE}"]
    lines += [dispute_text(case, i) for i, case in enumerate(cases, 1)]
    lines.append("To settle one (a person decides: needs a role that may resolve disputes): "
                 "resolve_dispute(dispute_id, winner=<the claim id that is right>, note=<why>), or keep_both=true "
                 "instead of a winner when every value is right (an entity that holds several values).")
    return "\n".join(lines)


def resolved_text(d: Dispute) -> str:
    r = d.resolution
    if r is None:  # not expected from a resolution, but never claim what did not happen
        return f"Dispute {d.id} on {d.entity} is {d.status}."
    won = "both values kept" if r.keep_both else f"claim {r.winner} is now the value; the others are superseded"
    why = f": {one_line(r.note)}" if r.note else "."
    return f"Resolved dispute {d.id} on {d.entity}: {won}. Decided by {r.decided_by}{why}"


def retraction_line(r: Retraction) -> str:
    """`- user.diet = vegan — "The user is vegan" (planner, 2026-01-01 10:00 UTC, retracted, claim c-1)`"""
    left = (f"; it left dispute {', '.join(r.disputes)} (which goes on without it, or was closed by a rule)"
            if r.disputes else "")
    return f"- {r.claim.entity} = {said(r.claim, status=True)}{left}"


def decided(by: str, note: str) -> str:
    """`Decided by ana: never said.`"""
    return f"Decided by {by}" + (f": {one_line(note).rstrip('.')}." if note else ".")


def retracted_text(r: Retraction) -> str:
    if r.already:
        return (f"Claim {r.claim.id} was already retracted on {when(r.at)}; nothing changed. "
                f"{decided(r.decided_by or 'someone', r.note)}\n{retraction_line(r)}")
    return (f"Retracted claim {r.claim.id} on {r.claim.entity}: no read shows it any more (history and explain keep "
            f"it). {decided(r.decided_by, r.note)}\n{retraction_line(r)}")


def forgotten_text(entity: str, done: Sequence[Retraction]) -> str:
    if not done:
        return (f"{entity}: nothing to forget. No live claim (never written, or every claim already retracted or "
                "superseded); nothing changed.")
    them = "it" if len(done) == 1 else "them"
    head = (f"Forgot {entity}: retracted {count(len(done), 'claim')}; no read shows {them} any more (history keeps "
            f"{them}). {decided(done[0].decided_by, done[0].note)}")
    return "\n".join([head] + [retraction_line(r) for r in done])


def summary_text(recall: Recall, cases: Sequence[OpenDispute], focus: str) -> str:
    """The prompt that asks the model to summarize the user's memory, with its open disputes."""
    about = f"about {focus}" if focus else "about the user"
    lines = [f"Summarize what the shared memory holds {about}, for the user to read.",
             "Group related facts; for each, say which agent said it. Where agents disagree (CONTESTED below), give "
             "every competing value with who said it and do not pick one: say that it is unresolved and what "
             "would settle it. End with the list of open disputes.",
             "", "## Memories"]
    lines.append(recall_text(recall))
    if len(recall.hits) == MAX_SUMMARY_HITS:
        lines.append(f"(the {MAX_SUMMARY_HITS} memories closest to the focus; the store may hold more)")
    lines += ["", "## Open disputes", disputes_text(cases)]
    return "\n".join(lines)


MAX_SUMMARY_HITS = 100
