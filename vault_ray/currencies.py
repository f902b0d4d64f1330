"""The currency an amount's words name: "5000 Canadian dollars" (CAD), "dollars australian"
(AUD), "5000 won" (KRW), "Rs 5000" (INR), "5000 zł" (PLN), or a currency word that names
several ("5000 pesos", "5000 kr"), kept as its own unit (`peso`, `kr`) so it never reads as
the default dollar.

Only a bare number is the locale's currency (values.DEFAULT_CURRENCY): before, any amount
whose currency price-parser did not know read as US dollars, so "5000 pesos" corroborated
"$5000" on a high-stakes budget.
"""

from __future__ import annotations

import re
from functools import cache

from . import gazetteer

_EXTRA = {"rs": "INR", "rs.": "INR", "₹": "INR", "zł": "PLN", "zl": "PLN", "₩": "KRW", "₱": "PHP", "₺": "TRY", "₪": "ILS",
          "฿": "THB", "₫": "VND", "₦": "NGN", "₴": "UAH", "rmb": "CNY", "kuai": "CNY"}
"""Symbols and short forms the locale's data leaves out."""
_PREFERRED = {"peso": None, "kr": None, "krona": None, "krone": None, "dinar": None, "rial": None, "riyal": None,
              "shilling": None, "won": "KRW", "yuan": "CNY", "lira": "TRY", "real": "BRL", "rand": "ZAR", "ringgit": "MYR",
              "rupiah": "IDR", "dirham": "AED", "shekel": "ILS", "baht": "THB", "zloty": "PLN", "forint": "HUF"}
"""A unit word several currencies share: the one a speaker means by default, or None (kept as
the word: 'peso' is Mexico's, Colombia's, Chile's, ...)."""
_ENGLISH = frozenset({"account", "code", "currency", "day", "financial", "gold", "offshore", "unit", "value", "convertible",
                      "mark", "colon", "sol", "real", "rand", "dong", "kina", "dollar", "pound", "euro", "franc", "rupee",
                      "yen"})
"""Last words of currency names that are English words first (or that the locale's table
already reads: 'dollar' is the locale's own)."""
_TOKEN = re.compile(r"[a-zà-ž]+(?:'[a-z]+)?\.?|[^\w\s\d.,'\-–—~()/]")  # "won't" is one word, not "won"


@cache
def _units() -> dict[str, str]:
    """Unit word (singular and plural) -> ISO code, or the word itself when it names several."""
    from babel import Locale

    found: dict[str, set[str]] = {}
    for code, name in Locale.parse(gazetteer.LOCALE).currencies.items():
        if len(code) == 3 and " " in name and "(" not in name:  # not a former currency ("... (1993–2006)")
            found.setdefault(gazetteer.fold(name.rsplit(" ", 1)[-1]), set()).add(code)
    out = {}
    for word, codes in found.items():
        if len(word) < 3 or not word.isalpha() or word in _ENGLISH:
            continue
        code = _PREFERRED.get(word, next(iter(codes)) if len(codes) == 1 else None)
        for form in (word, word + "s", word + "es"):
            out[form] = code or word
    for word in ("kr", "kronor", "kroner", "pesos"):
        out.setdefault(word, "kr" if word.startswith("kr") else "peso")
    return out


def currency_in(text: str) -> str | None:
    """The currency named in `text`: a full name first ("canadian dollars", also said the other
    way round), then a code, symbol or name, then a unit word; None if it names none."""
    table = gazetteer.currency_table()
    tokens = _TOKEN.findall(text.lower())
    for a, b in zip(tokens, tokens[1:], strict=False):
        for pair in (f"{a} {b}", f"{b} {a}"):
            if pair in table:
                return table[pair]
    for token in tokens:
        found = table.get(token) or _EXTRA.get(token)
        if found and (len(token) > 1 or not token.isalpha()):
            return found
    units = _units()  # a unit word counts beside a number only ("5000 pesos"; not "500, won't budge")
    said = text.lower()
    return next((units[t.rstrip(".")] for t in tokens if t.rstrip(".") in units
                 and re.search(rf"\d[\d.,]*\s*(?:k|m|thousand|million|grand)?\s*{re.escape(t)}|{re.escape(t)}\s*\d", said)),
                None)
