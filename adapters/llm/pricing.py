"""Dollar cost of a model call, where the model's list price is known.

Prices are US dollars per million tokens (input, output), the providers' published list prices
for standard (non-batch, non-cached) use as of 2025; edit PRICES when they change. A dated
snapshot (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) or `-latest` alias is priced as its
base model. In-process and replayed models cost nothing; anything else unknown is None.
"""
from __future__ import annotations

import re

PRICES: dict[str, tuple[float, float]] = {
    # Anthropic
    "anthropic:claude-opus-4-5": (5.00, 25.00),
    "anthropic:claude-opus-4-1": (15.00, 75.00),
    "anthropic:claude-opus-4": (15.00, 75.00),
    "anthropic:claude-sonnet-4-5": (3.00, 15.00),
    "anthropic:claude-sonnet-4": (3.00, 15.00),
    "anthropic:claude-3-7-sonnet": (3.00, 15.00),
    "anthropic:claude-haiku-4-5": (1.00, 5.00),
    "anthropic:claude-3-5-haiku": (0.80, 4.00),
    "anthropic:claude-3-haiku": (0.25, 1.25),
    # OpenAI
    "openai:gpt-5": (1.25, 10.00),
    "openai:gpt-5-mini": (0.25, 2.00),
    "openai:gpt-5-nano": (0.05, 0.40),
    "openai:gpt-4.1": (2.00, 8.00),
    "openai:gpt-4.1-mini": (0.40, 1.60),
    "openai:gpt-4.1-nano": (0.10, 0.40),
    "openai:gpt-4o": (2.50, 10.00),
    "openai:gpt-4o-mini": (0.15, 0.60),
    "openai:o3": (2.00, 8.00),
    "openai:o4-mini": (1.10, 4.40),
}

FREE_SCHEMES = ("local", "replay")

_SNAPSHOT = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$")


def price_per_million(spec: str) -> tuple[float, float] | None:
    """(input, output) dollars per million tokens for a model string, or None if unknown."""
    scheme = spec.split(":", 1)[0]
    if scheme in FREE_SCHEMES:
        return (0.0, 0.0)
    key = spec.strip().lower()
    return PRICES.get(key) or PRICES.get(_SNAPSHOT.sub("", key))


def cost_usd(spec: str, tokens_in: int, tokens_out: int) -> float | None:
    """Dollars for this many input and output tokens, or None when the price is unknown."""
    price = price_per_million(spec)
    if price is None:
        return None
    return (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000
