"""A turn's facts read with what the store already holds: a named pet's end ("Biscuit passed away" when
the store holds `dog:Biscuit`: `gone.known_pets`), a split with a spouse ("Dan and I split up" when it holds
`spouse:Dan`: `breakups.known_spouse`), a diet beside or in place of the one on record ("I'm gluten free" when it
holds vegan: "vegan, gluten-free", `diets.known_diet`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .base import Extraction


def on_record(found: Extraction, values: Callable[[str], Sequence[str]], said: str = "") -> Extraction:
    """`found` read with what the store holds (`values(entity)`: the entity's current values, asked only when a
    fact or a report needs them); `said`, the user's turn as typed."""
    from .breakups import known_spouse  # noqa: PLC0415  (the text path's patterns load with the first text read)
    from .diets import known_diet  # noqa: PLC0415
    from .gone import known_pets  # noqa: PLC0415
    return known_diet(known_spouse(known_pets(found, lambda: values("user.pets")), values), values, said)
