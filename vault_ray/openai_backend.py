"""OpenAI (or any OpenAI-compatible server: vLLM, Ollama, llama.cpp) as reasoner and embedder.

`openai` is an optional dependency (`pip install vault-ray[openai]`), imported only
when a client is built. Configure with `model`, `base_url` and `api_key` (falling
back to the OPENAI_API_KEY / OPENAI_BASE_URL environment variables the client reads).

Every answer is one JSON object (requested with `response_format` json_object),
parsed and validated here; a malformed or invalid answer is retried once with a
note saying what was wrong, then raises `ReasonerError` carrying the answer.
Transport and API errors from the client become `ReasonerError` (reasoner) or
`InvalidEmbedding` / `EmbedderError` (embedder; a `ReasonerError`) at this boundary.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from . import prompts
from .embedders import normalize_rows
from .errors import EmbedderError, InvalidEmbedding, InvalidInput, ReasonerError
from .fact_checks import check_fact
from .models import Claim, Fact, Kind, Op
from .reasoners.base import JudgeCase, Judgement, Message, OwnVerdict, latest_turn
from .reasoners.rules import RuleReasoner
from .registry import RegistryEntry

T = TypeVar("T")


class Malformed(ValueError):
    """An answer that is not the JSON object the prompt asked for."""


def make_client(*, api_key: str | None, base_url: str | None, timeout: float, max_retries: int,
                error: type[ReasonerError] = ReasonerError) -> Any:
    """The SDK's client; `error` (ReasonerError, or EmbedderError for the embedder) when it cannot be made."""
    try:
        import openai  # noqa: PLC0415  (optional dependency)
    except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
        raise error("the OpenAI backend needs the `openai` package: pip install 'vault-ray[openai]'") from exc
    try:
        return openai.OpenAI(api_key=api_key or None, base_url=base_url, timeout=timeout, max_retries=max_retries)
    except openai.OpenAIError as exc:  # no key given nor in OPENAI_API_KEY
        raise error(f"cannot make the OpenAI client: {exc}") from exc


def _api_errors() -> tuple[type[BaseException], ...]:
    try:
        import openai  # noqa: PLC0415
    except ModuleNotFoundError:  # pragma: no cover - an injected client without the package
        return ()
    return (openai.OpenAIError,)


def claim_card(claim: Claim, weights: dict[str, float] | None = None) -> dict[str, Any]:
    """What the model sees of a claim: its text, value and provenance (never its id)."""
    card: dict[str, Any] = {
        "text": claim.text, "value": claim.value, "agent": claim.agent, "session": claim.session,
        "observed_at": claim.observed_at.isoformat(), "confidence": claim.confidence,
    }
    if weights is not None:
        card["weight"] = weights.get(claim.agent)
    return card


def labelled(
    claims: Sequence[Claim], weights: dict[str, float] | None = None
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Short labels c1, c2, ... for the model, and the map back to claim ids."""
    cards, ids = {}, {}
    for i, c in enumerate(claims, 1):
        cards[f"c{i}"] = claim_card(c, weights)
        ids[f"c{i}"] = c.id
    return cards, ids


def _labels(answer: dict[str, Any], key: str, known: dict[str, str]) -> list[str]:
    got = answer.get(key)
    if not isinstance(got, list) or not all(isinstance(x, str) for x in got):
        raise Malformed(f"`{key}` must be a list of labels")
    unknown = [x for x in got if x not in known]
    if unknown:
        raise Malformed(f"unknown label(s) {unknown}; use only {sorted(known)}")
    return [known[x] for x in dict.fromkeys(got)]


class OpenAIReasoner:
    """Extraction, pass-1 classification, contradiction detection, disambiguation and
    the judge, each one chat completion answering a JSON object.

    Contradiction detection between two claims that both carry a normalized `value`
    is a plain comparison (no call); the model is asked only for free-text claims."""

    def __init__(self, model: str = "gpt-4o-mini", *, base_url: str | None = None, api_key: str | None = None,
                 temperature: float = 0.0, timeout: float = 60.0, max_retries: int = 2, max_text: int = 2000,
                 client: Any = None) -> None:
        if not isinstance(model, str) or not model:
            raise InvalidInput("model must be a non-empty string")
        self.model = model
        self.name = f"openai:{model}"
        self.prompt_version = prompts.VERSION
        self.temperature = temperature
        self.max_text = max_text
        self._client = client if client is not None else make_client(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries)
        self._values = RuleReasoner()

    # -- the one call ---------------------------------------------------------------
    def ask(self, task: str, prompt: str, parse: Callable[[dict[str, Any]], T]) -> T:
        """Send one prompt; parse and validate its JSON answer; retry a bad one once."""
        messages: list[dict[str, str]] = [{"role": "system", "content": prompts.SYSTEM},
                                          {"role": "user", "content": prompt}]
        content = ""
        for attempt in range(2):
            content = self._complete(task, messages)
            try:
                data = json.loads(content)
                if not isinstance(data, dict):
                    raise Malformed("the answer is not a JSON object")
                return parse(data)
            except (json.JSONDecodeError, Malformed, InvalidInput) as exc:
                problem = str(exc) if not isinstance(exc, json.JSONDecodeError) else f"not valid JSON ({exc.msg})"
                if attempt == 1:
                    raise ReasonerError(f"{self.name} gave a malformed {task} answer twice: {problem}",
                                        answer=content) from exc
                messages = [*messages, {"role": "assistant", "content": content},
                            {"role": "user", "content": prompts.retry_note(problem)}]
        raise AssertionError("unreachable")  # pragma: no cover

    def _complete(self, task: str, messages: list[dict[str, str]]) -> str:
        try:
            response = self._client.chat.completions.create(
                model=self.model, messages=messages, temperature=self.temperature,
                response_format={"type": "json_object"},
            )
        except _api_errors() as exc:
            raise ReasonerError(f"{self.name} failed on {task}: {exc}") from exc
        if not response.choices:
            return ""
        return response.choices[0].message.content or ""

    # -- Reasoner --------------------------------------------------------------------
    def extract(self, messages: Sequence[Message] | str, registry: Sequence[RegistryEntry] = ()) -> list[Fact]:
        user, after = latest_turn(messages)
        entries = [{"key": e.key, "description": e.description, "cardinality": e.cardinality} for e in registry]

        def parse(answer: dict[str, Any]) -> list[Fact]:
            raw = answer.get("facts")
            if not isinstance(raw, list):
                raise Malformed("`facts` must be a list")
            facts = []
            for i, f in enumerate(raw):
                if not isinstance(f, dict):
                    raise Malformed(f"fact {i} is not an object")
                value = f.get("value")
                fact = Fact(entity=str(f.get("entity", "")).strip().lower(), text=str(f.get("text", "")).strip(),
                            value=None if value is None else str(value), kind=str(f.get("kind") or Kind.SEMANTIC))
                facts.append(check_fact(fact, i, max_text=self.max_text))
            return facts

        return self.ask("extract", prompts.extract(user, after, entries), parse)

    def classify(self, incoming: Claim, own: Sequence[Claim], cardinality: str) -> OwnVerdict:
        cards, ids = labelled(own)

        def parse(answer: dict[str, Any]) -> OwnVerdict:
            op = answer.get("op")
            if op not in Op._value2member_map_:
                raise Malformed(f"`op` must be one of {[o.value for o in Op]}")
            targets = _labels(answer, "targets", ids)
            if op == Op.ADD and targets:
                raise Malformed("ADD takes no targets")
            if op != Op.ADD and not targets:
                raise Malformed(f"{op} needs the label(s) it refers to in `targets`")
            return OwnVerdict(Op(str(op)), tuple(targets), str(answer.get("reason") or ""))

        return self.ask("classify", prompts.classify(claim_card(incoming), cards, cardinality), parse)

    def conflicts(self, incoming: Claim, others: Sequence[Claim], cardinality: str) -> list[str]:
        if not others:
            return []
        if incoming.value and all(c.value for c in others):
            return self._values.conflicts(incoming, others, cardinality)
        cards, ids = labelled(others)
        return self.ask("conflicts", prompts.conflicts(claim_card(incoming), cards, cardinality),
                        lambda answer: _labels(answer, "contradicts", ids))

    def disambiguate(self, fact: Fact, candidates: Sequence[str], registry: Sequence[RegistryEntry] = ()) -> str | None:
        if not candidates:
            return None
        entries = [{"key": e.key, "description": e.description} for e in registry]
        card = {"entity": fact.entity, "text": fact.text, "value": fact.value}

        def parse(answer: dict[str, Any]) -> str | None:
            if "entity" not in answer:
                raise Malformed("`entity` is missing")
            chosen = answer["entity"]
            if chosen is None:
                return None
            if chosen not in candidates:
                raise Malformed(f"`entity` must be one of {list(candidates)} or null")
            return str(chosen)

        return self.ask("disambiguate", prompts.disambiguate(card, candidates, entries), parse)

    def judge(self, case: JudgeCase) -> Judgement:
        cards, ids = labelled(case.incumbents, case.weights)
        ids["new"] = case.incoming.id

        def parse(answer: dict[str, Any]) -> Judgement:
            if "winner" not in answer:
                raise Malformed("`winner` is missing")
            rationale = answer.get("rationale")
            if not isinstance(rationale, str) or not rationale.strip():
                raise Malformed("`rationale` must be a non-empty string")
            winner = answer["winner"]
            if winner is None:
                return Judgement(None, rationale.strip())
            if winner not in ids:
                raise Malformed(f"`winner` must be one of {sorted(ids)} or null")
            return Judgement(ids[winner], rationale.strip())

        return self.ask("judge", prompts.judge(claim_card(case.incoming, case.weights), cards), parse)

    def close(self) -> None:
        close = getattr(self._client, "close", None)
        if close is not None:
            close()


class OpenAIEmbedder:
    """Embeddings from `/v1/embeddings`. `dim` must match what the model returns (it
    is fixed in the store); `send_dimensions=True` asks models that can shorten their
    vectors (text-embedding-3-*) for exactly `dim`."""

    def __init__(self, model: str = "text-embedding-3-small", *, dim: int = 1536, base_url: str | None = None,
                 api_key: str | None = None, batch_size: int = 256, send_dimensions: bool = False,
                 timeout: float = 60.0, max_retries: int = 2, client: Any = None) -> None:
        if not isinstance(dim, int) or dim < 1:
            raise InvalidEmbedding("dim must be a positive integer", expected_dim=dim)
        self.model = model
        self.dim = dim
        self.name = f"openai:{model}:{dim}"
        self.batch_size = batch_size
        self.send_dimensions = send_dimensions
        self._client = client if client is not None else make_client(
            api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries, error=EmbedderError)

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            chunk = list(texts[start:start + self.batch_size])
            out[start:start + len(chunk)] = self._embed_chunk(chunk)
        return normalize_rows(out)

    def _embed_chunk(self, texts: list[str]) -> np.ndarray:
        extra = {"dimensions": self.dim} if self.send_dimensions else {}
        try:
            response = self._client.embeddings.create(model=self.model, input=texts, **extra)
        except _api_errors() as exc:
            raise EmbedderError(f"embedding with {self.model} failed: {exc}") from exc
        rows = sorted(response.data, key=lambda d: d.index)
        if len(rows) != len(texts):
            raise InvalidEmbedding(f"{self.model} returned {len(rows)} embeddings for {len(texts)} texts",
                                   expected_dim=self.dim)
        arr = np.asarray([r.embedding for r in rows], dtype=np.float32)
        if arr.shape != (len(texts), self.dim):
            raise InvalidEmbedding(f"{self.model} returned vectors of shape {arr.shape[1:]}, the store needs "
                                   f"({self.dim},)", expected_dim=self.dim)
        if not np.isfinite(arr).all():
            raise InvalidEmbedding(f"{self.model} returned NaN or infinite values", expected_dim=self.dim)
        return arr

    def close(self) -> None:
        close = getattr(self._client, "close", None)
        if close is not None:
            close()

